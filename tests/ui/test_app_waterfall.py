"""The waterfall screen driven with keys, as a user would (Pilot)."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import SIZE, deep_snapshot, drill_into_first_sub_agent, session_app, top, wait_for
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events, send_events
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.formats.load import load
from tui.model.nodes import Op, Turn
from tui.model.search import walk_ops
from tui.model.waterfall_axis import fit
from tui.ui.app import MonitorApp
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.waterfall import WaterfallScreen
from tui.ui.widgets.waterfall import HEADER, WaterfallView


def waterfall(app) -> WaterfallScreen:
    screen = app.screen
    assert isinstance(screen, WaterfallScreen), type(screen)
    return screen


def line(view: WaterfallView, y: int) -> str:
    return "".join(segment.text for segment in view.render_line(y))


def status(screen: WaterfallScreen) -> str:
    return str(screen.query_one("#wf-status").text)


async def test_w_opens_the_waterfall_on_the_selected_op_and_escape_goes_back(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        session_screen = top(app)
        llm = [op for op in walk_ops(session_screen.session) if op.kind == "llm"][5]
        session_screen.tree.reveal(llm)
        await pilot.press("w")
        await pilot.pause()
        screen = waterfall(app)
        view = screen.view
        assert screen.session is session_screen.session
        assert view.row.node is llm  # nested two sub-agents down: unfolded on the way
        assert llm.path in status(screen) and "% of the wall time" in status(screen)
        assert "0s" in line(view, 0) and "┬" in line(view, 1)
        first = line(view, HEADER + view.cursor - round(view.scroll_y))
        assert "LLM" in first and ("█" in first or "▌" in first)
        await pilot.press("escape")
        await pilot.pause()
        assert top(app) is session_screen and session_screen.tree.cursor_node.data is llm


async def test_keys_move_the_cursor_and_the_screen_follows(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=300), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        rows = len(view.model.rows)
        assert view.cursor == 0 and view.model.rows[0].kind == "root"
        await pilot.press("down", "j", "down")
        assert view.cursor == 3
        await pilot.press("up", "k")
        assert view.cursor == 1
        await pilot.press("end")
        assert view.cursor == rows - 1
        visible = view.scrollable_content_region.height - HEADER
        assert round(view.scroll_y) == rows - visible  # the last row is on screen
        assert view.model.rows[-1].name in line(view, view.scrollable_content_region.height - 1)
        await pilot.press("home")
        assert view.cursor == 0 and view.scroll_y == 0
        await pilot.press("pagedown")
        assert view.cursor == visible - 1
        await pilot.press("pageup")
        assert view.cursor == 0


async def test_zoom_pan_fit_and_zoom_to_row(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        screen = waterfall(app)
        view = screen.view
        total = view.model.total
        assert view.window == fit(total)
        await pilot.press("plus")
        assert view.window.span == total / 2
        await pilot.press("right")
        assert view.window.span == total / 4
        assert "×4.0" in status(screen)
        before = view.window
        await pilot.press("l")
        assert view.window.start == before.start + before.span / 4
        await pilot.press("h", "shift+left")
        assert view.window.start == max(0.0, before.start - before.span / 4)
        await pilot.press("minus", "left", "left")
        assert view.window == fit(total)
        agent = next(i for i, row in enumerate(view.model.rows) if row.kind == "session")
        view.move_to(agent)
        await pilot.press("z")
        start, end = view.model.span(view.row)
        assert view.window.start <= start and view.window.end >= end
        assert view.window.span < (end - start) * 1.1
        await pilot.press("0")
        assert view.window == fit(total)


async def test_space_and_enter_fold_a_sub_agent(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        rows = len(view.model.rows)
        agent = next(i for i, row in enumerate(view.model.rows) if row.kind == "session")
        view.move_to(agent)
        await pilot.press("space")
        assert view.model.rows[agent].kind == "session" and not view.model.is_expanded(view.model.rows[agent])
        assert len(view.model.rows) < rows
        assert "▸" in line(view, HEADER + agent - round(view.scroll_y))
        await pilot.press("enter")
        assert len(view.model.rows) == rows
        turn = next(i for i, row in enumerate(view.model.rows) if isinstance(row.node, Turn))
        view.move_to(turn)
        await pilot.press("enter")
        assert len(view.model.rows) < rows and isinstance(app.screen, WaterfallScreen)


async def test_enter_on_an_op_jumps_to_it_in_the_tree(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        session_screen = top(app)
        await pilot.press("e")  # errors only: the op we jump to is hidden by the filter
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        deepest = max((op for op in walk_ops(session_screen.session) if op.kind == "tool" and not op.failed
                       and not op.errors), key=lambda op: op.path.count("."))
        view.move_to(view.model.index_of(deepest))
        await pilot.press("enter")
        await pilot.pause()
        assert top(app) is session_screen
        assert session_screen.tree.cursor_node.data is deepest
        assert session_screen.tree.keep is None  # the filter was lifted to show it
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        assert view.row.node is deepest
        agent = next(i for i, row in enumerate(view.model.rows) if row.kind == "session")
        view.move_to(agent)
        await pilot.press("o")  # o on a sub-agent: its op in the tree (Enter would fold it)
        await pilot.pause()
        assert top(app) is session_screen and session_screen.tree.cursor_node.data is view.model.rows[agent].node


async def test_w_on_a_drilled_down_sub_agent_shows_that_level(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        agent = await drill_into_first_sub_agent(pilot)
        child_screen = top(app)
        assert child_screen.session is agent.child
        await pilot.press("w")
        await pilot.pause()
        screen = waterfall(app)
        assert screen.session is agent.child and screen.view.model.rows[0].node is agent.child
        assert agent.path in str(screen.query_one("#wf-title").render())
        await pilot.press("escape")
        assert top(app) is child_screen


async def test_a_click_selects_a_row_and_a_double_click_folds_it(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        agent = next(i for i, row in enumerate(view.model.rows) if row.kind == "session")
        rows = len(view.model.rows)
        region = view.content_region
        offset = (region.x - view.region.x + 5, region.y - view.region.y + HEADER + agent)
        await pilot.click(WaterfallView, offset=offset)
        assert view.cursor == agent
        await pilot.click(WaterfallView, offset=offset, times=2)
        assert len(view.model.rows) < rows


async def test_untrusted_names_render_as_plain_text(tmp_path):
    tree = make_tree(3, ops=30, depth=1, fanout=1)
    llm = next(op for op in tree["turns"][1]["ops"] if op["kind"] == "tool")
    llm["attributes"]["name"] = "[bold red]x[/] \x1b[2J\nboom"
    path = write_snapshot(tmp_path, tree, version=2)
    app = session_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        index = next(i for i, row in enumerate(view.model.rows) if "boom" in row.name)
        view.move_to(index)
        await pilot.pause()
        text = line(view, HEADER + index - round(view.scroll_y))
        assert "[bold red]x[/]" in text and "\x1b" not in text and "\\x1b" in text
        assert "[bold red]x[/]" in status(waterfall(app))


async def test_help_lists_the_waterfall_keys(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert ("w", "Waterfall") in app.screen.rows
        await pilot.press("escape", "w")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = dict(app.screen.rows)
        assert keys["o"] == "Show in tree" and keys["z"] == "Zoom to row" and keys["+"] == "Zoom in"


async def test_a_rewritten_file_refreshes_the_open_waterfall(tmp_path):
    full = make_tree(11, ops=80, depth=2, fanout=1)
    times = event_times(full)
    path = write_snapshot(tmp_path, tree_at(full, times[len(times) // 2]), version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        screen = waterfall(app)
        old = screen.session
        assert old.running
        view = screen.view
        view.move_to(3)
        key_node = view.row.node
        await asyncio.sleep(0.3)  # let the watcher start
        write_snapshot(tmp_path, full, version=2, reason="final")
        assert await wait_for(pilot, lambda: screen.session is not old)
        assert screen.session.status == "ok" and not screen.session.running
        assert view.model.session is screen.session
        assert view.row.node is not key_node and view.row.node.title == key_node.title
        assert view.window == fit(view.model.total)
        assert len(view.model.rows) > 4


async def test_a_live_session_grows_in_the_waterfall(tmp_path):
    source = write_snapshot(tmp_path / "src", make_tree(21, ops=120, depth=1, fanout=1), version=2)
    doc = load(str(source))
    events = replay_events(doc, max_tree_events=10)
    sock = tmp_path / "m.sock"
    empty = tmp_path / "sessions"
    empty.mkdir()
    app = MonitorApp(sessions_dir=empty, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, sock.exists)
        await send_events(events[:len(events) // 2], f"unix:{sock}", speed=0)
        root = doc.root.trace_id
        assert await wait_for(pilot, lambda: app.live.build(root) is not None)
        await pilot.pause(0.5)
        app.open_path(f"live:{root}")
        await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        screen = waterfall(app)
        assert screen.session.running
        rows = len(screen.view.model.rows)
        assert any(screen.view.model.status(row) == "running" for row in screen.view.model.rows)
        await send_events(events[len(events) // 2:], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: screen.session.status == "ok")
        assert len(screen.view.model.rows) > rows
        assert not any(screen.view.model.status(row) == "running" for row in screen.view.model.rows)
        ops = {row.node.path for row in screen.view.model.rows if isinstance(row.node, Op)}
        assert ops == {op.path for op in walk_ops(screen.session)}  # a small session: everything unfolded


async def test_bars_stay_in_their_column_at_any_depth_at_80x24(tmp_path):
    """Deep rows (sub-agents five and more down) at 80x24: the indent gives way, so every row's separator and
    bars start in the same column as the header's (they shifted right by the overflow). Each of the ~130 deep rows
    is read with the cursor on it: move_to scrolls at once and render_line draws from the scroll and the cursor,
    so the app is not let redraw the screen between rows (2.5 s of CPU when it was)."""
    app = session_app(deep_snapshot(tmp_path, ops=120, depth=8), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("w")
        await pilot.pause()
        view = waterfall(app).view
        separator = line(view, 0).index("│")
        deepest = max(row.depth for row in view.model.rows)
        assert deepest >= 6
        for index, row in enumerate(view.model.rows):
            if row.depth < 5:
                continue
            view.move_to(index)
            text = line(view, HEADER + index - round(view.scroll_y))
            assert text.index("│") == separator, (row.depth, text)
            assert len(text) == len(line(view, 0))
