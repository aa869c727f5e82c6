"""The Stats screen's `c` on the real ai-agent's run: its accounting.jsonl (each sub-agent's entries written 2 to
6 times) costs what its sessions do."""

from __future__ import annotations

import shutil

import pytest

from helpers.browserhelpers import settle
from helpers.realfixtures import REAL
from tui.ui.app import MonitorApp
from tui.ui.screens.stats import StatsScreen
from helpers.waiting import wait_for


async def test_c_shows_the_ledger_cost_equal_to_the_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(REAL / "master", tmp_path / "run")
    app = MonitorApp(sessions_dir=tmp_path / "run" / "sessions", watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app.screen, timeout=30)
        await pilot.press("t")
        assert await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.stats is not None)
        screen = app.screen
        await pilot.press("a", "c")  # all time (the run's date is fixed), then the accounting column
        assert await wait_for(pilot, lambda: screen.stats is not None and screen.stats.totals.sessions == 1
                              and screen.stats.totals.accounting_cost_usd is not None)
        totals = screen.stats.totals
        assert totals.cost_usd == pytest.approx(0.063)
        assert totals.accounting_cost_usd == pytest.approx(totals.cost_usd, abs=5e-5)
        assert "$0.0630 (accounting.jsonl $0.0630)" in str(screen.query_one("#stats-header").render())
