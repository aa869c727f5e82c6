"""Logs under a node: time order (stable), entries normalised on access, severity filters and counts."""

from __future__ import annotations

from helpers.builders import op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.model.logs import LogEntry, log_count, logs_under, normalise


def log(ts, severity="INF", message="m", **extra) -> dict:
    return {"timestamp": ts, "severity": severity, "message": message, **extra}


def tree():
    child = session(turn(1, op("llm", op_id="c1", logs=[log(15, "WRN", "child warns"), log(20, "INF", "child tie"),
                                                    log(40, "DBG", "late")])),
                    agent="kid", trace="kid")
    return build_session(session(
        turn(1, op("llm", op_id="a", logs=[log(30, "VRB", "a2"), log(10, "INF", "a1")]),
             op("session", op_id="s", logs=[log(20, "err", "fails", fatal=True), log(20, "ERR", "same time")],
                child=child)),
        turn(2, op("tool", op_id="b", logs=[log(None, "INF", "no time"), "not an object", log("1970-01-01T00:00:00.025Z")])),
    ))


def test_time_order_is_stable_and_matches_normalise():
    root = tree()
    view = logs_under(root)
    assert len(view) == log_count(root) == 10
    messages = [e.message for e in view]
    # no timestamp sorts as 0, ties keep the tree's order (an op's logs, then its sub-agent's)
    assert messages[:2] == ["no time", "[log entry is not an object: not an object]"]
    assert messages[2:] == ["a1", "child warns", "fails", "same time", "child tie", "m", "a2", "late"]
    fatal = view[4]
    assert fatal.severity == "FATAL" and fatal.op.path == "1-2" and fatal.path == "1-2"
    assert view[7].ts == 25  # an ISO timestamp, as normalise reads it
    raw = root.turns[0].ops[1].raw["logs"][1]
    assert view[5] == normalise(raw, root.turns[0].ops[1], "1-2")
    assert view[-1].message == "late" and [e.message for e in view[1:3]] == messages[1:3]


def test_filters_and_counts_without_normalising_everything():
    view = logs_under(tree())
    assert view.severity_counts() == {"INF": 4, "???": 1, "WRN": 1, "FATAL": 1, "ERR": 1, "VRB": 1, "DBG": 1}
    errors = view.keep(frozenset({"ERR", "FATAL"}))
    assert [e.message for e in errors] == ["fails", "same time"]
    assert errors.severity_counts() == {"FATAL": 1, "ERR": 1}
    assert errors[0] is view[4]  # the same entry object, normalised once


def test_a_node_below_the_root_and_ledger_entries():
    root = tree()
    session_op = root.turns[0].ops[1]
    assert [e.message for e in logs_under(session_op)] == ["child warns", "fails", "same time", "child tie", "late"]
    assert log_count(session_op) == 5
    extra = LogEntry(12, "ERR", "turn error", "1", None, None)
    root.turns[0].extra_logs.append(extra)
    view = logs_under(root.turns[0])
    assert view[1] is extra and len(view) == 8
    assert logs_under(root.turns[1]).severity_counts() == {"INF": 2, "???": 1}
