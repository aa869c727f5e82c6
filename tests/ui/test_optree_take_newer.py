"""issues 28 (item 13) and 29: a newer build of the session on screen is taken in place. The nodes the tree had
built stay the same TreeNode objects (the running turn's ops are not built again at each change: that took
1.3-1.5 s of the UI thread on the largest trees), new ops are added at the end, the cursor stays on its node, and
the once-a-second relabel of a running session touches only the lines on screen."""

from __future__ import annotations

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write
from tui.formats.load import load
from tui.ui.widgets import op_tree


def tools(n: int, start: int = 0) -> list[dict]:
    return [op("tool", op_id=f"t{i}", name=f"shell__t{i}") for i in range(start, start + n)]


async def test_a_newer_build_keeps_the_built_nodes_and_adds_the_new_ones(tmp_path):
    first = write(tmp_path / "s.json.gz", session(turn(1, *tools(30)), turn(2, *tools(3))))
    grown = write(tmp_path / "grown.json.gz", session(turn(1, *tools(32)), turn(2, *tools(3)), turn(3, *tools(1))))
    app = session_app(first, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = top(app)
        screen.select_op("1-5")
        await pilot.pause()
        tree = screen.tree
        turn_node = tree.cursor_node.parent
        ops_before = list(turn_node.children)
        cursor = tree.cursor_node
        assert len(ops_before) == 30
        screen.replace_document(load(str(grown)))
        await pilot.pause()
        ops_after = list(turn_node.children)
        assert tree.root.children[0] is turn_node
        assert len(ops_after) == 32
        assert all(a is b for a, b in zip(ops_before, ops_after)), "the built op nodes were built again"
        assert ops_after[0].data is screen.session.turns[0].ops[0]  # ... holding the new build's ops
        assert tree.cursor_node is cursor
        assert len(tree.root.children) == 3


async def test_the_relabel_of_a_running_session_touches_only_the_lines_on_screen(tmp_path, monkeypatch):
    many = write(tmp_path / "many.json.gz", session(*[turn(i, *tools(1)) for i in range(1, 400)]))
    app = session_app(many, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        tree = top(app).tree
        calls = []
        real = op_tree.label_for
        monkeypatch.setattr(op_tree, "label_for", lambda node, stale=False: calls.append(node) or real(node, stale))
        tree.refresh_labels()
        assert len(tree.root.children) == 399
        assert len(calls) <= tree.size.height + 1, f"{len(calls)} labels made for {tree.size.height} lines"
