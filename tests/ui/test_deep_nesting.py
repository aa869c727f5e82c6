"""Sub-agents nested 150 levels deep (and 200, the deepest JSON orjson parses): every walk is iterative, the app
opens them and drills down to the bottom and back."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

import orjson

from helpers.corpus import deep_tree, ledger, ledger_op, put, snapshot_bytes
from tui.formats.aiagent.replay import replay_events
from tui.formats.aiagent.tree_store import TreeStore
from tui.formats.load import load, load_bytes
from tui.model import insights
from tui.model.diff import diff_sessions
from tui.model.logs import logs_under
from tui.model.nodes import release_tree
from tui.model.search import ErrorFilter, find, find_session_by_prefix, walk_ops
from tui.model.waterfall import Waterfall
from tui.text import export, insights_text
from tui.text.ascii_tree import render
from tui.text.summary import summarise
from tui.ui.app import MonitorApp
from tui.ui.screens.session import SessionScreen

SIZE = (160, 48)


@contextmanager
def shallow_stack(frames: int = 80):
    """Python recursion limited to `frames` more than are in use: a recursive walk of 150 levels cannot pass."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def deep_snapshot(tmp_path: Path, levels: int) -> Path:
    return put(tmp_path / f"deep-{levels}.json", snapshot_bytes(deep_tree(levels)))


def deep_ledgers(tmp_path: Path, levels: int) -> Path:
    (tmp_path / "session").mkdir()
    (tmp_path / "children").mkdir()
    for level in range(levels + 1):
        sid = f"deep-{level}"
        ops = [ledger_op(1, "tool", f"tool-{level}", status="failed" if level == levels else "ok")]
        if level < levels:
            ops.append(ledger_op(2, "session", f"agent-{level + 1}", childSessions=[
                {"sessionId": f"deep-{level + 1}", "ledgerPath": f"children/deep-{level + 1}.jsonl"}]))
        folder = "session" if level == 0 else "children"
        put(tmp_path / folder / f"{sid}.jsonl", ledger(sid, ops, agentId=f"agent-{level}"))
    return tmp_path / "session" / "deep-0.jsonl"


def test_every_model_walk_is_iterative(tmp_path):
    """Each walk on the model of a 200-level snapshot and of 200 levels of ledgers, with 80 frames to spare. The
    JSON export is written for the snapshot only: it walks the model the same way whichever format it came from
    (export_session), and the 200 levels make 30 MB of indented JSON, past orjson's 255 levels, that the stdlib's
    encoder writes in ~3 s (the ledgers' as well took 3 s more)."""
    for path in (deep_snapshot(tmp_path, 200), deep_ledgers(tmp_path, 200)):
        data = path.read_bytes()
        with shallow_stack():
            doc = load_bytes(data, str(path), path.parent.parent if path.suffix == ".jsonl" else None)
            root = doc.root
            assert root.max_depth == 200 and root.counts.sessions == 201
            lines = list(render(root))
            assert sum(" SESSION agent-" in line or line.startswith("SESSION") for line in lines) == 201
            ops = list(walk_ops(root))
            leaf = ops[-1] if path.suffix == ".json" else next(op for op in ops if op.name == "tool-200")
            assert leaf.session.depth == 200
            assert len(leaf.session.breadcrumb()) == 201
            assert len(logs_under(root)) >= 0
            keep = ErrorFilter()
            assert keep(root) is (path.suffix == ".jsonl")  # the ledger's deepest tool failed
            assert find(root, "tool-199")
            assert find_session_by_prefix(root, leaf.session.path_prefix) is leaf.session
            assert summarise(doc)["maxDepth"] == 200
            assert insights_text.render_text(insights.compute(root))
            assert b"agent-200" in export.render(root, "markdown")
            if path.suffix == ".json":
                assert b"agent-200" in export.render(root, "json")
            assert not diff_sessions(root, load_bytes(data, str(path), doc.sessions_dir).root).ops
            assert Waterfall(root).rows
            if root.raw is not None:
                store = TreeStore()
                digest = store.put(root.raw)
                assert store.put(store.get(digest)) == digest  # rebuilt whole (== on dicts would recurse)
            release_tree(root)
            assert root.turns == []


def test_a_deep_op_read_first_reads_its_bytes_without_recursion(tmp_path):
    """A screen opened on a deep session before its parents (the drill-down tests open level 148 or 147 so) reads
    its ops' bytes first: the sessions above are found from the top down, not by a frame per level."""
    root = load(str(deep_snapshot(tmp_path, 150))).root
    op = next(op for op in walk_ops(root) if op.name == "tool-145")
    with shallow_stack(850):  # (msgspec takes a frame per JSON level it skips: ~750 for these 150 levels)
        assert op.session.depth == 145 and op.raw["attributes"]["name"] == "tool-145"


def test_replay_of_the_deepest_parsable_tree(tmp_path):
    """Replay's own walks recurse 3 frames a level: 200 levels (orjson's limit) stay far from the limit."""
    doc = load(str(deep_snapshot(tmp_path, 200)))
    events = replay_events(doc)
    assert len({event["meta"]["sessionId"] for _, event in events}) == 201
    from tui.model.json_text import dumps

    assert all(orjson.loads(dumps(event)) for _, event in events[:50])  # past orjson's 255 levels of output


def test_json_deeper_than_orjson_parses_is_refused_clearly(tmp_path):
    path = deep_snapshot(tmp_path, 210)
    try:
        load(str(path))
    except Exception as exc:  # noqa: BLE001
        assert "nested deeper than 1,024 levels" in str(exc)
    else:
        raise AssertionError("210 levels loaded: orjson's limit moved, raise the level in this test")


async def drill_to_the_bottom(pilot, app, levels: int, first: int = 1) -> float:
    """Enter on the sub-agent op, `levels` times: each opens the next level's session screen."""
    started = time.perf_counter()
    for depth in range(first, first + levels):
        screen = app.screen
        op = next(op for op in screen.session.all_ops() if op.kind == "session")
        assert screen.tree.reveal(op)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen) and app.screen.session.depth == depth
    return time.perf_counter() - started


async def test_app_opens_150_levels_and_drills_down_and_back(tmp_path):
    """Enter drills the first levels from the root and the last ones to the bottom; the levels between are opened as
    Enter opens them (a SessionScreen on the level's session), in one step: each screen costs Textual the same
    0.3-0.7 s at any depth (measured from level 10 to 60), so pressing Enter 140 more times tested nothing more and
    took 100 s of the suite (and 2 levels from the root and 2 to the bottom drill as 3 and 5 did: each Enter, from
    a screen Enter opened or not, is the same, ~0.25 s of CPU)."""
    path = deep_snapshot(tmp_path, 150)
    doc = load(str(path))
    started = time.perf_counter()
    app = MonitorApp(sessions_dir=tmp_path, document=doc, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        opened = time.perf_counter() - started
        root_screen = app.screen
        drilled = await drill_to_the_bottom(pilot, app, 2)
        session_148 = next(op.session for op in walk_ops(doc.root) if op.name == "tool-148")
        app.push_screen(SessionScreen(doc, session_148, live=app.live))
        await pilot.pause()
        drilled += await drill_to_the_bottom(pilot, app, 2, first=149)
        deepest = app.screen
        crumbs = str(deepest.query_one("#crumbs").render())
        assert "depth 150" in crumbs and "… 146 levels …" in crumbs, crumbs
        assert crumbs.rstrip().endswith("agent-150"), crumbs
        assert len(crumbs.rstrip()) < 150, "the whole breadcrumb fits the line"
        labels = [node.label.plain for node in deepest.tree.root.children[0].children]
        assert any("leaf-tool" in label for label in labels) and all(len(label) < 160 for label in labels)
        for keys in (["e"], ["e"], ["slash", *"leaf", "enter"], ["y"], ["L"], ["question_mark"], ["escape"],
                     ["w"], ["escape"], ["i"], ["i"], ["x"], ["escape"]):  # waterfall, insights, export
            await pilot.press(*keys)
            await pilot.pause()
        assert app.screen is deepest and deepest.matches, "search found the leaf"
        started_back = time.perf_counter()
        for level in (149, 148, 2):
            await pilot.press("q")  # closes the view at once (escape would first clear the search)
            assert app.screen.session.depth == level
        for _ in range(2):
            app.pop_screen()
        await pilot.pause()
        back = time.perf_counter() - started_back
        assert app.screen is root_screen
        # the whole chain also opens inline in the root's tree: 300 tree levels
        leaf = list(walk_ops(root_screen.session))[-1]
        assert root_screen.tree.reveal(leaf) and root_screen.tree.cursor_node.data is leaf
        await pilot.press("e")
        await pilot.pause()
        print(f"150 levels: open {opened:.2f}s, drill 4 levels {drilled:.2f}s "
              f"({drilled / 4 * 1000:.0f} ms a level), back {back:.2f}s")


async def test_app_shows_ledger_sub_agents_150_levels_down(tmp_path):
    path = deep_ledgers(tmp_path, 150)
    doc = load(str(path))
    app = MonitorApp(sessions_dir=tmp_path, document=doc, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session_147 = next(op.session for op in walk_ops(doc.root) if op.name == "tool-147")
        app.push_screen(SessionScreen(doc, session_147, live=app.live))
        await pilot.pause()
        await drill_to_the_bottom(pilot, app, 3, first=148)  # (each the same Enter: 5 cost 1 s more)
        crumbs = str(app.screen.query_one("#crumbs").render())
        assert "agent-150" in crumbs and "depth 150" in crumbs and "agent-0" in crumbs, crumbs
        await pilot.press("e")
        await pilot.pause()
        shown, stack = [], [app.screen.tree.root]  # errors only: the failed tool, expanded into view
        while stack:
            node = stack.pop()
            shown.append(node.label.plain)
            stack.extend(node.children if node.is_expanded else ())
        assert any("tool-150" in label and "FAILED" in label for label in shown), shown
