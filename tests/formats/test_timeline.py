"""tree_at: a SessionNode cut at an instant (what a live stream carried then); event_times: its instants."""

import copy

import orjson

from tui.demo.tree import TOTALS_KEYS, compute_totals, iter_ops, iter_sessions, make_tree
from tui.formats.aiagent.timeline import event_times, tree_at


def small_tree() -> dict:
    child = {
        "id": "c", "traceId": "child", "agentId": "kid", "callPath": "root->kid", "startedAt": 150, "endedAt": 250,
        "success": True,
        "turns": [{"id": "ct1", "index": 1, "startedAt": 160, "endedAt": 240, "ops": [
            {"opId": "c1", "kind": "llm", "startedAt": 170, "endedAt": 230, "status": "ok",
             "attributes": {"latency": 60},
             "logs": [{"timestamp": 170, "severity": "VRB", "message": "req"},
                      {"timestamp": 230, "severity": "VRB", "message": "resp"}],
             "accounting": [{"type": "llm", "timestamp": 230, "costUsd": 0.5,
                             "tokens": {"inputTokens": 7, "outputTokens": 3}}]},
        ]}],
    }
    return {
        "id": "r", "traceId": "root", "agentId": "root", "callPath": "root", "startedAt": 100, "endedAt": 400,
        "success": True, "finalReport": {"format": "markdown", "content": "done"},
        "totals": {"tokensIn": 17, "tokensOut": 4, "tokensCacheRead": 0, "tokensCacheWrite": 0, "costUsd": 1.5,
                   "toolsRun": 1, "agentsRun": 2, "turnsUsed": 2},
        "turns": [
            {"id": "t1", "index": 1, "startedAt": 110, "endedAt": 300, "ops": [
                {"opId": "o1", "kind": "llm", "startedAt": 110, "endedAt": 130, "status": "ok",
                 "logs": [{"timestamp": 130, "severity": "VRB", "message": "x"}],
                 "accounting": [{"type": "llm", "timestamp": 130, "costUsd": 1.0,
                                 "tokens": {"inputTokens": 10, "outputTokens": 1}}]},
                {"opId": "o2", "kind": "session", "startedAt": 140, "endedAt": 260, "status": "ok",
                 "attributes": {"name": "agent__kid", "latency": 120, "size": 4},
                 "response": {"payload": "kid!", "size": 4}, "logs": [], "accounting": [], "childSession": child},
                {"opId": "o3", "kind": "tool", "startedAt": 270, "endedAt": 290, "status": "failed",
                 "attributes": {"name": "web__fetch", "error": "timeout"}, "logs": [], "accounting": []},
            ]},
            {"id": "t2", "index": 2, "startedAt": 310, "endedAt": 390, "ops": [
                {"opId": "o4", "kind": "llm", "startedAt": 320, "endedAt": 380, "status": "ok", "logs": [],
                 "accounting": []},
            ]},
        ],
    }


def test_truncates_turns_ops_logs_and_accounting():
    tree = small_tree()
    cut = tree_at(tree, 200)
    assert [t["index"] for t in cut["turns"]] == [1]
    assert [o["opId"] for o in cut["turns"][0]["ops"]] == ["o1", "o2"]
    assert "endedAt" not in cut["turns"][0]
    child = cut["turns"][0]["ops"][1]["childSession"]
    kid_op = child["turns"][0]["ops"][0]
    assert [e["message"] for e in kid_op["logs"]] == ["req"]
    assert kid_op["accounting"] == []


def test_running_ops_and_sessions_lose_their_end():
    cut = tree_at(small_tree(), 200)
    for key in ("endedAt", "success", "finalReport"):
        assert key not in cut
    session_op = cut["turns"][0]["ops"][1]
    assert "endedAt" not in session_op and "status" not in session_op and "response" not in session_op
    assert session_op["attributes"] == {"name": "agent__kid"}
    child = session_op["childSession"]
    assert "endedAt" not in child and "success" not in child
    assert "endedAt" not in child["turns"][0]["ops"][0] and "status" not in child["turns"][0]["ops"][0]
    done = cut["turns"][0]["ops"][0]
    assert done["endedAt"] == 130 and done["status"] == "ok"


def test_child_not_started_yet_is_left_out():
    cut = tree_at(small_tree(), 145)
    session_op = cut["turns"][0]["ops"][1]
    assert "childSession" not in session_op
    assert cut["totals"]["agentsRun"] == 1


def test_totals_recomputed_on_every_session_node():
    cut = tree_at(small_tree(), 200)
    assert cut["totals"] == {"tokensIn": 10, "tokensOut": 1, "tokensCacheRead": 0, "tokensCacheWrite": 0,
                             "costUsd": 1.0, "toolsRun": 0, "agentsRun": 2}
    child = cut["turns"][0]["ops"][1]["childSession"]
    assert child["totals"]["tokensIn"] == 0 and child["totals"]["agentsRun"] == 1
    late = tree_at(small_tree(), 260)
    assert late["totals"]["tokensIn"] == 17 and late["totals"]["costUsd"] == 1.5
    assert late["turns"][0]["ops"][1]["childSession"]["totals"]["tokensIn"] == 7


def test_after_the_end_is_the_whole_tree_with_recomputed_totals():
    tree = small_tree()
    cut = tree_at(tree, 10_000)
    expected = copy.deepcopy(tree)
    expected["turns"][0]["ops"][1]["childSession"]["totals"] = compute_totals(expected["turns"][0]["ops"][1]["childSession"])
    assert cut == expected  # the extra counter turnsUsed is kept once the session has ended


def test_never_mutates_the_input():
    tree = make_tree(7, ops=120, depth=2, running=True)
    before = orjson.dumps(tree)
    times = event_times(tree)
    for t in times[:: max(1, len(times) // 15)]:
        cut = tree_at(tree, t)
        orjson.dumps(cut)
    assert orjson.dumps(tree) == before


def test_generated_tree_cuts_are_consistent():
    tree = make_tree(3, ops=200, depth=2)
    times = event_times(tree)
    assert times == sorted(set(times))
    assert times[-1] == tree["endedAt"]
    previous_ops = -1
    for t in times[:: max(1, len(times) // 25)] + [times[-1]]:
        cut = tree_at(tree, t)
        for session, _depth in iter_sessions(cut):
            assert {k: session["totals"][k] for k in TOTALS_KEYS} == compute_totals(session)
        ops = list(iter_ops(cut))
        assert len(ops) >= previous_ops  # the tree only grows
        previous_ops = len(ops)
        for _path, op, _turn, _session in ops:
            assert op["startedAt"] <= t
            if op.get("endedAt") is not None:
                assert op["endedAt"] <= t and "status" in op
            else:
                assert "status" not in op
            for entry in op.get("logs") or []:
                assert entry["timestamp"] <= t
    assert tree_at(tree, times[-1])["turns"] == tree["turns"]
    assert tree_at(tree, times[-1])["totals"] == tree["totals"]


def test_event_times_cover_turns_ops_and_the_end():
    times = event_times(small_tree())
    assert times == [110, 130, 140, 160, 170, 230, 250, 260, 270, 290, 310, 320, 380, 400]
