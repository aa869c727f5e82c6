"""The Stats screen's 'by project' table over an ai-agent directory and every agent's root (copies of the real
fixtures): one row a project ("(none)" for ai-agent's sessions), and Enter on one comes back to the browser
filtered to that project's sessions (`project:`, tui.catalog.row_filter)."""

from __future__ import annotations

from pathlib import Path

from helpers.browserhelpers import SIZE, ids, settle
from helpers.opencodefixtures import MAIN, OLD, RUNNING
from helpers.projectfixtures import PROJECTS, agents_home
from helpers.waiting import wait_for
from tui.inputs.agent_roots import discovered_roots
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.stats import StatsScreen, StatsTable


async def test_the_stats_screen_has_a_by_project_table_and_enter_filters_the_browser(tmp_path, monkeypatch):
    env = agents_home(tmp_path)
    for name in ("HOME", "XDG_DATA_HOME", "AIAGENT_MONITOR_DISCOVER"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    app = MonitorApp(sessions_dir=Path(env["AI_AGENT_SESSIONS_DIR"]), agent_roots=tuple(discovered_roots()),
                     watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        await settle(pilot, browser, timeout=30)
        await pilot.press("t")
        assert await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.stats is not None
                              and app.screen.range_name == "all", timeout=30)
        screen = app.screen
        assert "by project" in str(screen.query_one("#title-stats-project").render())
        table = screen.query_one("#stats-project", StatsTable)
        keys = [str(k.value).split("\x00")[2] for k in table.rows]
        assert set(keys) == PROJECTS
        none = keys.index("")
        assert str(table.get_row_at(none)[0]) == "(none)"
        table.focus()
        table.move_cursor(row=keys.index("/home/dev/calendar"))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is browser)
        await pilot.pause(0.3)
        assert "project:/home/dev/calendar" in browser.query_one("#browser-filter").value
        shown = sorted(i.removeprefix("opencode ") for i in ids(browser))
        assert shown == sorted([MAIN, RUNNING]) and OLD not in shown
