"""g/G (first/last), ctrl+d/ctrl+u (half a page) and h/l (left/right) in every list, tree and text view, and hex on
`x` in the payload viewer (h is left there too)."""

from __future__ import annotations

from helpers.apphelpers import deep_snapshot, session_app, top, wait_for
from helpers.browserhelpers import settle
from tui.demo import make_tree, populate, write_snapshot
from tui.model.search import walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.diff import DiffScreen
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.waterfall import WaterfallScreen
from tui.ui.widgets.insights_pane import InsightsPane

NARROW = (80, 24)


def half(widget) -> int:
    return max(1, widget.scrollable_content_region.height // 2)


async def test_browser_table(tmp_path):
    populate(tmp_path / "sessions", count=30, seed=3)
    app = MonitorApp(sessions_dir=tmp_path / "sessions", watch=False)
    async with app.run_test(size=NARROW) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        await settle(pilot, browser, timeout=60)
        table = browser.table
        assert table.row_count > 2 * half(table)
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("j", "j", "k")
        assert table.cursor_row == 1, "j/k move the row cursor as in the tree and every other list"
        await pilot.press("g")
        await pilot.press("ctrl+d", "ctrl+d")
        assert table.cursor_row == 2 * half(table)
        await pilot.press("ctrl+u")
        assert table.cursor_row == half(table)
        assert table.max_scroll_x == 0, "at 80 columns the narrow layout fits (test_browser_columns)"
        await pilot.resize_terminal(60, 24)
        await pilot.pause()
        assert await wait_for(pilot, lambda: table.max_scroll_x > 0)  # (60 columns: the table is wider)
        await pilot.press("l")
        await pilot.pause()
        assert table.scroll_x > 0
        await pilot.press("h", "h", "h", "h")
        await pilot.pause()
        assert table.scroll_x == 0


async def test_op_tree(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=80), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        screen = top(app)
        tree = screen.tree
        tree.expand_all()
        await pilot.pause()
        assert tree.last_line > 2 * half(tree)
        await pilot.press("G")
        assert tree.cursor_line == tree.last_line
        await pilot.press("g")
        assert tree.cursor_line == 0
        await pilot.press("ctrl+d", "ctrl+d")
        assert tree.cursor_line == 2 * half(tree)
        await pilot.press("ctrl+u")
        assert tree.cursor_line == half(tree)
        await pilot.press("g", "h")  # left on the expanded root: collapse; right: expand
        assert not tree.root.is_expanded
        await pilot.press("l")
        assert tree.root.is_expanded


async def test_payload_viewer_and_hex_on_x(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=(60, 24)) as pilot:
        screen = top(app)
        llm = next(op for op in walk_ops(screen.session) if op.kind == "llm" and op.raw and "response" in op.raw)
        screen.tree.reveal(llm)
        await pilot.press("p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and app.screen.mode == "view")
        payload = app.screen
        await pilot.press("x")
        assert payload.view_name == "hex"
        body = payload.body
        assert await wait_for(pilot, lambda: body.max_scroll_y > 2 * half(body))
        await pilot.press("G")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert body.scroll_y == 0
        await pilot.press("ctrl+d", "ctrl+d")
        await pilot.pause()
        assert body.scroll_y == 2 * half(body)
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert body.scroll_y == half(body)
        assert body.max_scroll_x > 0  # hex lines are 79 cells wide
        await pilot.press("l")
        await pilot.pause()
        assert body.scroll_x > 0 and payload.view_name == "hex"
        await pilot.press("h")  # left, not hex
        await pilot.pause()
        assert body.scroll_x == 0 and payload.view_name == "hex"


async def test_waterfall(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=80), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.press("w")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        view = app.screen.view
        rows = len(view.model.rows)
        assert rows > 2 * half(view)
        await pilot.press("G")
        assert view.cursor == rows - 1
        await pilot.press("g")
        assert view.cursor == 0
        await pilot.press("ctrl+d", "ctrl+d")
        assert view.cursor == 2 * half(view)
        await pilot.press("ctrl+u")
        assert view.cursor == half(view)
        start = view.window
        await pilot.press("right", "right", "l")  # zoom in, then pan right; h pans back
        panned = view.window
        assert panned.start > start.start
        await pilot.press("h")
        assert view.window.start < panned.start


async def test_insights(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=120), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.press("i")
        pane = app.screen.query_one(InsightsPane)
        assert await wait_for(pilot, lambda: pane.has_focus and len(pane.stops()) > 3)
        stops = pane.stops()
        await pilot.press("G")
        assert pane.cursor == stops[-1]
        await pilot.press("g")
        assert pane.cursor == stops[0]
        await pilot.press("ctrl+d")
        down = pane.cursor
        assert down > stops[0] and down in stops
        await pilot.press("ctrl+u")
        assert pane.cursor < down and pane.cursor in stops


async def test_diff_tables(tmp_path):
    one = write_snapshot(tmp_path, make_tree(41, ops=60, depth=2, agent="twin", started_at=1_700_000_000_000))
    two = write_snapshot(tmp_path, make_tree(42, ops=60, depth=2, agent="twin", started_at=1_700_000_100_000))
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=NARROW) as pilot:
        app.live.diff_paths(str(one), str(two))
        assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.rows)
        ops = app.screen.query_one("#diff-ops")
        ops.focus()
        await pilot.press("G")
        assert ops.cursor_row == ops.row_count - 1
        await pilot.press("g", "ctrl+d")
        assert ops.cursor_row == min(ops.row_count - 1, half(ops))
        diff = app.screen
        await pilot.press("c")  # a change filter; Escape shows every change again before it goes back
        assert diff.filter is not None
        await pilot.press("escape")
        assert app.screen is diff and diff.filter is None
        await pilot.press("q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
