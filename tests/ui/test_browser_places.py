"""Where the browser puts the cursor (issue 30, point 2): a new sort shows its top (cursor on the first row,
scrolled there); --sort and --filter on the command line choose the first sort and filter (the / language, since:
included)."""

from __future__ import annotations

from textual.widgets import DataTable, Input, Static

from tui.cli.main import app_parser
from tui.cli.run import build_app
from tui.ui.screens.browser import BrowserScreen

from helpers.browserhelpers import ids, settle
from helpers.browserplaces import many_sessions


def header(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-header", Static).render())


async def test_a_new_sort_moves_to_the_first_row(tmp_path):
    sessions = many_sessions(tmp_path / "sessions")
    app = build_app(app_parser().parse_args(["--sessions-dir", str(sessions)]), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        table = screen.query_one(DataTable)
        await pilot.press(*["down"] * 40)  # s040, scrolled down (a sort used to keep the cursor on it: row 19)
        await pilot.pause()
        assert table.cursor_row == 40 and table.scroll_y > 0
        await pilot.press("s", "s", "s", "s", "s")  # agent, status, duration, tokens, cost
        await pilot.pause()
        assert "sorted by cost ↓" in header(screen)
        assert table.cursor_row == 0 and table.scroll_y == 0
        assert ids(screen)[0].startswith("s059")  # the most expensive, in view


async def test_sort_and_filter_from_the_command_line(tmp_path):
    sessions = many_sessions(tmp_path / "sessions")
    args = app_parser().parse_args(["--sessions-dir", str(sessions), "--sort", "cost:asc", "--filter",
                                    "agent:odd since:2000-01-01"])
    app = build_app(args, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "sorted by cost ↑" in header(screen)
        assert screen.query_one("#browser-filter", Input).value == "agent:odd since:2000-01-01"
        shown = ids(screen)
        assert len(shown) == 30 and shown[0].startswith("s001") and shown[-1].startswith("s059")
