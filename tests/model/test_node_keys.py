"""The keys that name the same node across newer builds of a session (node_key), and same_keys, which the opTree
uses at each live change to tell whether a node's children still begin with the ones it shows."""

from __future__ import annotations

from tui.demo import make_tree
from tui.formats.aiagent.snapshot import build_session
from tui.model.nodes import node_key, same_keys


def _two_builds():
    raw = make_tree(7, ops=120, depth=2, fanout=2)
    return build_session(raw), build_session(raw)


def test_two_builds_of_one_session_have_the_same_keys_node_for_node():
    one, two = _two_builds()
    assert [node_key(t) for t in one.turns] == [node_key(t) for t in two.turns]
    assert same_keys(one.turns, two.turns)
    ops_one = [op for t in one.turns for op in t.ops]
    ops_two = [op for t in two.turns for op in t.ops]
    assert same_keys(ops_one, ops_two) and same_keys(ops_one[:5], ops_two)  # a longer new list: a prefix


def test_a_shorter_reordered_or_different_list_is_not_the_same():
    one, two = _two_builds()
    turns = list(two.turns)
    assert len(turns) > 2
    assert not same_keys(one.turns, turns[:-1])  # fewer than shown
    assert not same_keys(one.turns, [turns[1], turns[0], *turns[2:]])  # the order changed
    ops = list(two.turns[-1].ops)
    assert not same_keys(one.turns[: len(ops)], ops)  # turns shown, ops now: other nodes
    assert same_keys([], turns)  # nothing shown: anything begins with it


def test_a_mixed_list_falls_back_to_node_key_and_agrees_with_it():
    one, two = _two_builds()
    mixed_one = [one, one.turns[0], one.turns[0].ops[0]]
    mixed_two = [two, two.turns[0], two.turns[0].ops[0]]
    assert same_keys(mixed_one, mixed_two)
    assert [node_key(n) for n in mixed_one] == [node_key(n) for n in mixed_two]
    assert not same_keys(mixed_one, [two, two.turns[1], two.turns[0].ops[0]])
