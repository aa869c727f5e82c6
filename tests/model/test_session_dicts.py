"""tui.model.session_dicts: the SessionNode and export shapes of a Session, at any depth of sub-agents."""

from __future__ import annotations

import sys

from helpers.builders import op, session, turn

from tui.formats.aiagent.snapshot import build_session
from tui.model.session_dicts import export_session, session_node

DEPTH = 1200  # past Python's default recursion limit (pinned to it below): the converters walk sub-agents from a
# stack. (3000 levels took 11 s, export_session's time growing faster than its depth, for nothing more checked.)


def _chain(depth: int) -> dict:
    node = session(turn(1, op("llm", op_id="leaf")), agent=f"a{depth}")
    for level in range(depth - 1, 0, -1):
        node = session(turn(1, op("session", op_id=f"s{level}", child=node)), agent=f"a{level}")
    return node


def _export_deepest(tree: dict) -> tuple[int, dict]:
    depth = 1
    while tree["turns"][0]["ops"][0]["childSession"] is not None:
        tree, depth = tree["turns"][0]["ops"][0]["childSession"], depth + 1
    return depth, tree


def test_session_node_and_export_reach_the_deepest_sub_agent():
    # replay's converter was recursive: a RecursionError past some 500 levels
    root = build_session(_chain(DEPTH))
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # (Python's default, whatever raised it in this process)
    try:
        node = session_node(root)
        exported = export_session(root)
    finally:
        sys.setrecursionlimit(before)
    depth, last = _node_deepest(node)
    assert depth == DEPTH and last["agentId"] == f"a{DEPTH}" and last["turns"][0]["ops"][0]["opId"] == "leaf"
    depth, last = _export_deepest(exported)
    assert depth == DEPTH and last["agentId"] == f"a{DEPTH}" and last["depth"] == DEPTH - 1


def _node_deepest(tree: dict) -> tuple[int, dict]:
    depth = 1
    while "childSession" in tree["turns"][0]["ops"][0]:
        tree, depth = tree["turns"][0]["ops"][0]["childSession"], depth + 1
    return depth, tree


def test_session_node_keeps_the_key_order_of_an_op_with_a_sub_agent():
    root = build_session(session(turn(1, op("session", op_id="s1", child=session(turn(1, op("tool")), agent="k")))))
    sub = session_node(root)["turns"][0]["ops"][0]
    assert list(sub)[-1] == "childSession" and sub["childSession"]["agentId"] == "k"
