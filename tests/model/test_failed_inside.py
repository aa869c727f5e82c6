"""The failed ops a folded turn or sub-agent hides (`✗3` on its opTree label), counted once per build."""

from __future__ import annotations

from helpers.builders import op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.model.nodes import failed_inside


def tree():
    child = session(turn(1, op("tool", op_id="c1", status="failed"), op("tool", op_id="c2", status="failed"),
                         op("llm", op_id="c3")), agent="child", trace="trace-child")
    return build_session(session(
        turn(0, op("system", op_id="s0"), system=True),
        turn(1, op("llm", op_id="r1", status="failed"), op("session", op_id="r2", child=child, name="child"),
             op("tool", op_id="r3")),
        turn(2, op("llm", op_id="r4")),
    ))


def test_a_turn_counts_its_own_failed_ops_and_those_of_its_sub_agents():
    root = tree()
    init, first, second = root.turns
    assert failed_inside(init) == 0
    assert failed_inside(first) == 3  # r1, and the child's two failed tools
    assert failed_inside(second) == 0
    sub_agent = first.ops[1]
    assert failed_inside(sub_agent) == 2
    assert failed_inside(first.ops[0]) == 0  # an op without a sub-agent hides nothing (its own ✗ shows)


def test_the_count_is_kept_until_the_turn_grows():
    root = tree()
    first = root.turns[1]
    assert failed_inside(first) == 3
    first.ops[2].status = "failed"  # the memo only looks at the op list and the session's count
    assert failed_inside(first) == 3
    root.counts.failed += 1  # what a growing ledger does with a new failed op
    assert failed_inside(first) == 4
