"""Keys people already know (k9s, lazygit, less): q closes the view and quits only from the first screen, ctrl+c
quits from anywhere, Escape clears a finished search or filter before it goes back, reopening a session puts the
cursor and the expanded nodes back, and the command palette lists every action of the screen with its key."""

from __future__ import annotations

from textual.command import CommandPalette

from helpers.apphelpers import SIZE, deep_snapshot, drill_into_first_sub_agent, session_app, top, wait_for
from helpers.browserhelpers import settle
from tui.demo import populate
from tui.model.nodes import Op
from tui.model.search import walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen, FilterInput
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.screens.waterfall import WaterfallScreen


def an_llm_op(screen: SessionScreen) -> Op:
    return next(op for op in walk_ops(screen.session) if op.kind == "llm" and op.turn.session is screen.session)


async def test_q_closes_each_view_and_quits_only_from_the_first_screen(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        root = top(app)
        await drill_into_first_sub_agent(pilot)
        assert top(app) is not root
        await pilot.press("q")
        assert app.screen is root and app.return_code is None
        root.tree.reveal(an_llm_op(root))
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen))
        await pilot.press("q")
        assert app.screen is root
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        await pilot.press("q")
        assert app.screen is root and app.return_code is None
        await pilot.press("q")  # the first screen: quit
        await pilot.pause()
        assert app.return_code == 0


async def test_ctrl_c_quits_from_a_drilled_view_even_while_typing(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await drill_into_first_sub_agent(pilot)
        await pilot.press("slash", "a")  # the search box has the focus
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0


async def test_escape_clears_the_search_then_errors_only_then_goes_back(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        root = top(app)
        await drill_into_first_sub_agent(pilot)
        screen = top(app)
        await pilot.press("slash", "a", "enter", "e")
        await pilot.pause()
        assert screen.query_text == "a" and screen.matches and screen.tree.keep is not None
        await pilot.press("escape")
        assert app.screen is screen and screen.query_text == "" and not screen.matches
        assert screen.tree.keep is not None
        await pilot.press("escape")
        assert app.screen is screen and screen.tree.keep is None
        await pilot.press("n")  # no search any more: n says so, nothing moves
        await pilot.press("escape")
        assert app.screen is root


async def test_escape_in_the_browser_clears_a_finished_filter(tmp_path):
    populate(tmp_path / "sessions", count=4, seed=5)
    app = MonitorApp(sessions_dir=tmp_path / "sessions", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        await settle(pilot, browser, timeout=30)
        rows = browser.table.row_count
        await pilot.press("slash", *"zzznothing", "enter")
        browser.table.focus()
        await wait_for(pilot, lambda: browser.table.row_count == 0)
        await pilot.press("escape")  # the table has the focus, the filter is finished: Escape clears it
        assert browser.query_one(FilterInput).value == ""
        await wait_for(pilot, lambda: browser.table.row_count == rows)
        await pilot.press("escape")  # nothing to clear on the first screen: nothing happens
        assert app.screen is browser and app.return_code is None


async def test_reopening_a_session_restores_its_cursor_and_expanded_nodes(tmp_path):
    populate(tmp_path / "sessions", count=3, seed=7)
    app = MonitorApp(sessions_dir=tmp_path / "sessions", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        await settle(pilot, browser, timeout=30)
        row = next(r for r in browser.model.rows.values() if r.kind == "snapshot" and not r.broken)
        browser.table.move_cursor(row=browser.table.get_row_index(row.key))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        first = top(app)
        await pilot.pause()
        ops = [op for op in walk_ops(first.session) if op.turn.session is first.session]
        target = ops[-1]
        assert first.tree.reveal(target)
        first.tree.root.children[0].collapse()  # and the first turn folded
        await pilot.pause()
        shown_before = {op_paths(n) for n in visible_nodes(first.tree)}
        await pilot.press("q")
        assert app.screen is browser
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen is not first)
        again = top(app)
        assert await wait_for(pilot, lambda: again.tree.cursor_node is not None
                              and again.tree.cursor_node.data is not None
                              and getattr(again.tree.cursor_node.data, "path", None) == target.path)
        assert {op_paths(n) for n in visible_nodes(again.tree)} == shown_before
        assert not again.tree.root.children[0].is_expanded


def op_paths(node) -> str:
    data = node.data
    # (a turn by its name: its status may turn from running to stale between two looks on a slow machine)
    return data.path if isinstance(data, Op) else f"{type(data).__name__}:{node.label.plain.split('  ')[0]}"


def visible_nodes(tree):
    """The nodes of the tree that are shown (their parents all expanded)."""
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        out.append(node)
        if node.is_expanded:
            stack.extend(node.children)
    return out


async def test_the_palette_lists_the_screen_actions_with_their_keys_and_runs_them(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        titles = [command.title for command in app.get_system_commands(screen)]
        for title in ("Errors only · e", "Waterfall · w", "Payload · p", "Close/Quit · q", "Search · /",
                      "Scroll Home · home g", "Half page down · ctrl+d", "Help · ?", "Quit · ^c ^q"):
            assert title in titles, titles
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"errors only")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and screen.tree.keep is not None)
        assert screen.tree.keep is not None
