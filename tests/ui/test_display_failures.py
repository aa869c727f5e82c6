"""Failures are visible folded: a collapsed turn or sub-agent op shows `✗N`, the failed ops it holds."""

from __future__ import annotations

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write


def failing(tmp_path):
    child = session(turn(1, op("tool", op_id="c1", status="failed"), op("tool", op_id="c2", status="failed")),
                    agent="child", trace="trace-child")
    return write(tmp_path / "failing.json.gz", session(
        turn(1, op("llm", op_id="r1"), op("session", op_id="r2", child=child, name="child")),
        *[turn(i, op("tool", op_id=f"t{i}", name="t")) for i in range(2, 16)]))


async def settle(pilot) -> None:
    for _ in range(4):
        await pilot.pause()


async def test_folded_nodes_show_their_failed_ops(tmp_path):
    app = session_app(failing(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        tree = top(app).tree
        first = tree.root.children[0]
        assert not first.is_expanded  # 15 turns: the screen opens with them folded
        assert "2 ops ✗2" in first.label.plain
        assert "✗" not in tree.root.children[1].label.plain
        tree.populate(first)
        sub_agent = first.children[1]
        assert "✗2" in sub_agent.label.plain
