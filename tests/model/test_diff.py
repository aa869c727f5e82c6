"""Diffing two session trees: ops added/removed/changed by path, status changes, usage deltas, sub-agents."""

from __future__ import annotations

import orjson

from helpers.builders import llm_acc, op, session, turn
from tui.demo import make_tree
from tui.formats.aiagent.snapshot import build_session
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.model.diff import ADDED, CHANGED, REMOVED, RENAMED, STATUS, diff_sessions
from tui.text.diff_text import render


def diff(a: dict, b: dict):
    return diff_sessions(build_session(a), build_session(b))


def test_added_op_with_its_usage():
    a = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1)])))
    b = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1)]),
                     op("llm", op_id="2", accounting=[llm_acc(7, 3, cache_read=4, cache_write=2, cost=0.25)])))
    d = diff(a, b)
    [added] = d.of_kind(ADDED)
    assert added.path == "1-2" and added.kind == "llm" and added.status_after == "ok"
    assert added.usage == {"tokensIn": 7, "tokensOut": 3, "tokensCacheRead": 4, "tokensCacheWrite": 2,
                           "costUsd": 0.25}
    assert d.unchanged == 1 and len(d.ops) == 1
    assert d.totals_delta["tokensIn"] == 7 and d.totals_delta["costUsd"] == 0.25
    assert d.counts_delta["ops"] == 1 and d.counts_delta["llm"] == 1


def test_status_change_running_to_failed_and_duration():
    a = session(turn(1, op("tool", name="fetch", status=None, ended=None)), ended=None, success=None)
    b = session(turn(1, op("tool", name="fetch", status="failed", ended=4000)), ended=6000, success=False)
    d = diff(a, b)
    [changed] = d.ops
    assert changed.change == STATUS and (changed.status_before, changed.status_after) == ("running", "failed")
    assert changed.duration_before is None and changed.duration_after == 3000
    assert (d.before.status, d.after.status) == ("running", "failed")
    # the unfinished side lasted at least up to its last activity (one rule for every view): no delta from it
    assert (d.before.duration_ms, d.before.duration_partial) == (2000, True)
    assert d.duration_delta is None and d.counts_delta["failed"] == 1


def test_usage_and_log_changes_without_status_change():
    a = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1)])))
    b = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1), llm_acc(3, 1, cost=0.05)],
                           logs=[{"severity": "WRN", "message": "retry"}])))
    [changed] = diff(a, b).ops
    assert changed.change == CHANGED and changed.logs == 1
    assert changed.usage["tokensIn"] == 3 and changed.usage["tokensOut"] == 1
    assert abs(changed.usage["costUsd"] - 0.05) < 1e-9


def test_removed_op_has_negative_usage():
    a = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1)]), op("tool", op_id="2", name="x")))
    b = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.1)])))
    [removed] = diff(a, b).of_kind(REMOVED)
    assert removed.path == "1-2" and removed.status_before == "ok" and removed.usage["tokensIn"] == 0
    assert diff(b, a).of_kind(ADDED)[0].path == "1-2"


def test_sub_agent_ops_are_compared_by_path():
    def tree(cost, status="ok", extra=()):
        child = session(turn(1, op("llm", accounting=[llm_acc(1, 1, cost=cost)]), *extra), agent="child",
                        trace="c")
        return session(turn(1, op("session", name="agent__child", child=child, status=status)))
    d = diff(tree(0.1), tree(0.3, extra=[op("tool", op_id="t", name="grep")]))
    by_path = {x.path: x for x in d.ops}
    assert by_path["1-1.1-1"].change == CHANGED and abs(by_path["1-1.1-1"].usage["costUsd"] - 0.2) < 1e-9
    assert by_path["1-1.1-2"].change == ADDED and by_path["1-1.1-2"].agent == "child"
    assert abs(d.totals_delta["costUsd"] - 0.2) < 1e-9 and d.totals_delta["toolsRun"] == 1


def test_renamed_op_at_the_same_path():
    a = session(turn(1, op("tool", name="search")))
    b = session(turn(1, op("tool", name="fetch")))
    [renamed] = diff(a, b).ops
    assert renamed.change == RENAMED and renamed.renamed
    assert (renamed.target_before, renamed.target) == ("search", "fetch")
    assert renamed.as_json()["targetBefore"] == "search"


def test_two_runs_of_the_same_agent():
    one = build_session(make_tree(5, ops=60, depth=2, agent="same"))
    two = build_session(make_tree(6, ops=60, depth=2, agent="same"))
    d = diff_sessions(one, two, before_label="run1", after_label="run2")
    assert d.before.agent == d.after.agent == "same"
    for key in ("tokensIn", "tokensOut", "tokensCacheRead"):
        assert d.totals_delta[key] == getattr(two.totals, key) - getattr(one.totals, key)
    assert d.totals_delta["costUsd"] == round(two.totals.cost - one.totals.cost, 4)  # as shown: 4 decimals
    # every op of either run is accounted for exactly once
    matched = len(d.ops) - len(d.of_kind(ADDED)) - len(d.of_kind(REMOVED)) + d.unchanged
    assert matched + len(d.of_kind(ADDED)) == two.counts.ops
    assert matched + len(d.of_kind(REMOVED)) == one.counts.ops


def test_a_version_against_itself_is_empty():
    tree = make_tree(7, ops=40, depth=2)
    d = diff_sessions(build_session(tree), build_session(orjson.loads(orjson.dumps(tree))))
    assert d.ops == [] and d.unchanged == d.after.counts["ops"]
    assert all(v == 0 for v in d.totals_delta.values()) and d.duration_delta == 0


def test_growing_session_only_adds_or_finishes_ops():
    full = make_tree(8, ops=80, depth=2)
    early = tree_at(full, event_times(full)[30])
    d = diff_sessions(build_session(early), build_session(full))
    assert d.of_kind(REMOVED) == [] and d.of_kind(ADDED)
    assert all(x.status_before == "running" for x in d.of_kind(STATUS))


def test_duplicate_paths_are_kept_apart():
    a = session(turn(1, op("tool", name="a")), turn(1, op("tool", name="b")))
    b = session(turn(1, op("tool", name="a")), turn(1, op("tool", name="c")))
    [renamed] = diff(a, b).ops
    assert renamed.path == "1-1#2" and renamed.target == "c"


def test_json_and_text_output():
    a = session(turn(1, op("tool", name="\x1b[31mevil", status=None, ended=None)), ended=None, success=None)
    b = session(turn(1, op("tool", name="\x1b[31mevil", status="ok")))
    d = diff(a, b)
    out = orjson.loads(orjson.dumps(d.as_json()))
    assert list(out) == ["before", "after", "delta", "ops", "unchanged"]
    assert out["ops"]["statusChanged"][0]["statusBefore"] == "running"
    text = "\n".join(render(d))
    assert "\x1b" not in text and "\\x1b[31mevil" in text and "running → ok" in text
