"""A snapshot rewritten in place (temp file + rename) updates the open screen and keeps the user's place."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import SIZE, drill_into_first_sub_agent, session_app, top, wait_for
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.model.nodes import Op


async def test_rewrite_keeps_expanded_nodes_selection_and_drill_down(tmp_path):
    full = make_tree(11, ops=80, depth=2, fanout=1)
    times = event_times(full)
    early = tree_at(full, times[len(times) // 2])
    path = write_snapshot(tmp_path, early, version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        before_ops = screen.session.counts.ops
        first_session_op = next(op for op in screen.session.all_ops() if op.kind == "session" and op.child)
        screen.tree.reveal(first_session_op)
        await pilot.press("right")  # expand the sub-agent inline
        await pilot.pause()
        selected_path = first_session_op.path
        expanded_before = {n.data.path for n in _expanded(screen.tree) if isinstance(n.data, Op)}
        assert selected_path in expanded_before
        await asyncio.sleep(0.3)  # let the watcher start
        write_snapshot(tmp_path, full, version=2, reason="final")
        assert await wait_for(pilot, lambda: top(app).session.counts.ops > before_ops)
        screen = top(app)
        assert screen.session.status == "ok"
        assert screen.tree.cursor_node.data.path == selected_path
        expanded_after = {n.data.path for n in _expanded(screen.tree) if isinstance(n.data, Op)}
        assert expanded_before <= expanded_after


async def test_rewrite_updates_a_drilled_down_sub_agent_in_place(tmp_path):
    full = make_tree(12, ops=80, depth=2, fanout=1)
    times = event_times(full)
    early = tree_at(full, times[len(times) * 2 // 3])
    path = write_snapshot(tmp_path, early, version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        root_screen = top(app)
        op = await drill_into_first_sub_agent(pilot)
        child_screen = top(app)
        old_child = child_screen.session
        await asyncio.sleep(0.3)
        write_snapshot(tmp_path, full, version=2, reason="final")
        assert await wait_for(pilot, lambda: top(app).session is not old_child)
        assert top(app) is child_screen and child_screen.session.path_prefix == op.path
        await pilot.press("escape")
        assert top(app) is root_screen and root_screen.session.status == "ok"


def _expanded(tree):
    stack = [tree.root]
    while stack:
        node = stack.pop()
        if node.is_expanded:
            yield node
            stack.extend(node.children)
