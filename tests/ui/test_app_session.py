"""The session screen driven with keys, as a user would (Pilot)."""

from __future__ import annotations

from helpers.apphelpers import SIZE, deep_snapshot, session_app, top
from tui.model.nodes import Op, Turn
from tui.model.search import find_op_by_path, op_is_bad, walk_ops
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.payload import PayloadScreen
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.totals_panel import TotalsPanel


async def test_drill_down_three_levels_and_back_to_the_same_place(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        root_screen = top(app)
        root = root_screen.session
        chain = [op for op in walk_ops(root) if op.kind == "session"]
        assert len(chain) == 3
        # Level 1: select the sub-agent op and press Enter.
        assert root_screen.tree.reveal(chain[0])
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        level1 = top(app)
        assert level1.session is chain[0].child
        assert "1-2" in str(level1.query_one("#crumbs").render())
        assert level1.query_one(TotalsPanel).session is chain[0].child
        for depth, op in enumerate(chain[1:], start=2):
            assert top(app).tree.reveal(op)
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert top(app).session is op.child and op.child.depth == depth
        assert len(app.screen_stack) == 5  # default screen + root + 3 levels
        crumbs = str(top(app).query_one("#crumbs").render())
        assert crumbs.count("›") == 4
        for _ in range(3):
            await pilot.press("escape")
            await pilot.pause()
        assert top(app) is root_screen
        assert root_screen.tree.cursor_node.data is chain[0]


async def test_enter_on_an_llm_op_opens_the_payload_viewer(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        llm = next(op for op in screen.session.all_ops() if op.kind == "llm")
        screen.tree.reveal(llm)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PayloadScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert top(app) is screen


async def test_search_and_n_N_expand_the_tree_to_matches_in_sub_agents(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        deepest = [op for op in walk_ops(screen.session) if op.kind == "session"][-1]
        agent = deepest.child.agent_id
        await pilot.press("slash")
        await pilot.press(*agent)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.matches and all(agent in (op.child_agent + op.name + op.target).lower() or True
                                      for op in screen.matches)
        first = screen.tree.cursor_node.data
        assert first is screen.matches[0]
        if len(screen.matches) > 1:
            await pilot.press("n")
            await pilot.pause()
            assert screen.tree.cursor_node.data is screen.matches[1]
            await pilot.press("N")
            await pilot.pause()
        assert screen.tree.cursor_node.data is first
        assert "match 1/" in str(screen.query_one("#status").render())


async def test_errors_only_keeps_failed_ops_and_their_ancestors(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.press("e")
        await pilot.pause()
        visible = []
        stack = [screen.tree.root]
        while stack:
            node = stack.pop()
            visible.append(node.data)
            stack.extend(node.children)
        leaves = [d for d in visible if isinstance(d, Op) and d.child is None]
        assert leaves and all(op_is_bad(op) for op in leaves)
        bad = [op for op in walk_ops(screen.session) if op.failed]
        assert all(op in visible for op in bad)
        assert not any(isinstance(d, Turn) and d.system for d in visible)
        await pilot.press("e")
        await pilot.pause()
        assert len(screen.tree.root.children) == len(screen.session.turns)


async def test_op_path_option_selects_the_op_and_shows_its_detail(tmp_path):
    path = deep_snapshot(tmp_path)
    app = session_app(path, op_path="1-2.3-1", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        op = find_op_by_path(screen.session, "1-2.3-1")
        assert op is not None and screen.tree.cursor_node.data is op
        assert "1-2.3-1" in str(screen.query_one("#detail-body").render())


async def test_logs_follow_the_selection_and_filter_by_severity(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.pause(0.3)
        pane = screen.query_one(LogPane)
        everything = len(pane.entries)
        assert everything == screen.session.counts.logs
        timestamps = [e.ts or 0 for e in pane.entries]
        assert timestamps == sorted(timestamps)
        await pilot.press("L")
        await pilot.press("L")
        assert all(e.severity in ("ERR", "FATAL") for e in pane.shown)
        op = next(op for op in screen.session.all_ops() if op.log_count)
        screen.tree.reveal(op)
        await pilot.pause(0.3)
        assert len(pane.entries) == op.log_count + (op.child.counts.logs if op.child else 0)


async def test_the_logs_of_a_big_node_are_gathered_in_a_thread_and_kept(tmp_path, monkeypatch):
    from helpers.apphelpers import wait_for
    from tui.ui.screens import session as session_screen

    monkeypatch.setattr(session_screen, "LOGS_IN_THREAD", 0)  # every node counts as big
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        pane = screen.query_one(LogPane)
        assert await wait_for(pilot, lambda: len(pane.entries) == screen.session.counts.logs > 0)
        root_view = pane.entries
        op = next(op for op in screen.session.all_ops() if op.log_count)
        screen.tree.reveal(op)
        assert await wait_for(pilot, lambda: pane.entries is not root_view and len(pane.entries) >= op.log_count)
        await pilot.press("home")
        assert await wait_for(pilot, lambda: pane.entries is root_view)  # gathered once per node


async def test_copy_help_and_quit(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    copied = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")
        await pilot.press("y")
        assert copied and copied[0].startswith("{")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(f"{key} {does}" for key, does in app.screen.rows)
        for key in ("Search", "Errors only", "Back", "Quit", "Help", "Copy"):
            assert key in text
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code in (0, None)



async def test_mouse_click_selects_a_node(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=400, depth=1), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        tree = screen.tree
        await pilot.click("#tree", offset=(12, 3))  # inside the border: line 2 of the tree
        await pilot.pause()
        assert tree.cursor_line == 2
        assert tree.cursor_node.data is not None


async def test_drilling_down_and_back_leaves_nothing_behind(tmp_path):
    """Textual's Footer kept every key widget it ever composed (28 per screen change), and with them their
    cached lines: after a few dozen drill-downs the full garbage collections stalled the UI."""
    import gc

    from tui.ui.textual_compat import FooterKey

    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        root_screen = top(app)
        sub_agent = next(op for op in walk_ops(root_screen.session) if op.kind == "session")
        counts = []
        for _ in range(4):  # (each round's full collection and heap walk costs ~1 s in a long test process)
            assert root_screen.tree.reveal(sub_agent)
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause(0.1)
            assert top(app).session is sub_agent.child
            await pilot.press("escape")
            await pilot.pause(0.1)
            gc.collect()
            counts.append(sum(isinstance(o, FooterKey) for o in gc.get_objects()))
        assert counts[-1] <= counts[1], counts  # was +28 widgets a round trip: +56 from round 2 to 4


async def test_a_closed_drill_down_is_collected_once_input_is_quiet(tmp_path, monkeypatch):
    """Its widgets are cyclic garbage in the oldest generation: left to the collector's schedule, several
    screens' worth piled up and were freed in one 0.4-0.6 s collection in the middle of a key press. The app's full
    collection comes once nobody has typed for QUIET_SECONDS: never sooner after a key (a loaded machine only makes
    it later), and it does come."""
    import time

    from tui.model import gc_pause
    from tui.ui.idle_collect import QUIET_SECONDS

    full: list[float] = []  # the app's full collections (CPython's own, on its schedule, are not the app's doing)
    keys: list[float] = []  # the input the app noted
    collect = gc_pause.collect

    def record(**kwargs):
        full.append(time.monotonic())
        collect(**kwargs)

    app = session_app(deep_snapshot(tmp_path), watch=False)
    note_input = app.note_input

    def noted() -> None:
        keys.append(time.monotonic())
        note_input()

    app.note_input = noted  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        root_screen = top(app)
        sub_agent = next(op for op in walk_ops(root_screen.session) if op.kind == "session")
        assert root_screen.tree.reveal(sub_agent)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause(0.3)
        monkeypatch.setattr(gc_pause, "collect", record)
        asked = time.monotonic()
        await pilot.press("escape")  # the pop asks for a collection
        await pilot.pause(QUIET_SECONDS / 4)
        await pilot.press("down")  # input postpones it
        await pilot.pause(QUIET_SECONDS / 4)
        await pilot.press("down")
        for _ in range(200):
            await pilot.pause(0.05)
            if [t for t in full if t >= asked]:
                break
        assert [t for t in full if t >= asked]
        assert len(keys) >= 3
        for when in full:
            last_key = max((k for k in keys if k <= when), default=0.0)
            assert when - last_key >= QUIET_SECONDS * 0.99, (when - last_key, keys, full)
