"""Bugs the property tests (test_properties.py) found, each pinned by the plain example that showed it."""

from builders import op, session, turn
from tui.model.document import from_object
from tui.model.search import ErrorFilter


def chain(levels: int, innermost: dict) -> dict:
    node = innermost
    for n in range(levels):
        node = session(turn(1, op("session", op_id=f"c{n}", child=node)), agent=f"level{n}", trace=f"t{n}")
    return node


def test_errors_only_filter_on_deeply_nested_sub_agents():
    # 150 nested sub-agents load fine (orjson reads 1024 levels); the filter recursed ~9 frames a level.
    root = from_object(chain(150, session(turn(1, op("tool", status="failed")), agent="deepest")), "deep").root
    keep = ErrorFilter()
    assert keep(root) is True
    assert keep(root.turns[0].ops[0]) is True
    healthy = from_object(chain(150, session(turn(1, op("tool")), agent="deepest")), "deep").root
    assert ErrorFilter()(healthy) is False
