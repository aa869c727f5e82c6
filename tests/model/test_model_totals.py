"""Totals recomputed exactly as the producer's recomputeTotals, and mismatches flagged."""

from helpers.builders import llm_acc, op, session, turn, write
from tui.formats.aiagent.snapshot import build_session
from tui.formats.load import load
from tui.text.summary import summarise


def test_cache_read_dialects_never_both():
    s = build_session(session(turn(1, op("llm", accounting=[
        llm_acc(1, 1, cache_read=5, cached=100),  # cacheReadInputTokens wins
        llm_acc(1, 1, cached=7),                  # OpenAI dialect
        llm_acc(1, 1, cache_read=0, cached=9),    # explicit 0 wins (the producer uses ??)
    ]))))
    assert s.totals.tokensCacheRead == 12


def test_only_llm_entries_add_tokens_and_tool_ops_count():
    s = build_session(session(turn(1,
        op("tool", accounting=[{"type": "tool", "charactersIn": 5}]),
        op("tool", status="failed"),
        op("llm", accounting=[llm_acc(3, 4, cost=0.00004), {"type": "tool", "costUsd": 9}]),
    )))
    assert (s.totals.tokensIn, s.totals.tokensOut, s.totals.toolsRun, s.totals.agentsRun) == (3, 4, 2, 1)
    assert s.totals.as_dict()["costUsd"] == 0.0


def test_steps_count_too():
    steps = [{"id": "s1", "index": 1, "kind": "advisors", "ops": [op("tool"), op("llm", accounting=[llm_acc(2, 2)])]}]
    s = build_session(session(turn(1, op("tool")), steps=steps))
    assert s.totals.toolsRun == 2 and s.totals.tokensIn == 2 and s.counts.steps == 1
    assert [o.path for o in s.turns[1].ops] == ["S1-1", "S1-2"]


def test_nested_sessions_add_agents_and_tokens_at_every_level():
    grand = session(turn(1, op("llm", accounting=[llm_acc(1, 0, cost=0.1)])), agent="grand")
    child = session(turn(1, op("session", child=grand), op("tool")), agent="child")
    s = build_session(session(turn(1, op("session", child=child))))
    c = s.turns[0].ops[0].child
    g = c.turns[0].ops[0].child
    assert s.totals.agentsRun == 3 and c.totals.agentsRun == 2 and g.totals.agentsRun == 1
    assert s.totals.tokensIn == c.totals.tokensIn == g.totals.tokensIn == 1
    assert s.totals.toolsRun == 1 and s.max_depth == 2 and g.depth == 2


def test_child_on_a_non_session_op_is_shown_but_not_counted_like_the_producer():
    side = session(turn(1, op("llm", accounting=[llm_acc(50, 50)])), agent="tool-output")
    s = build_session(session(turn(1, op("tool", child=side))))
    assert s.totals.tokensIn == 0 and s.totals.agentsRun == 1
    assert s.turns[0].ops[0].child.agent_id == "tool-output"


def test_cost_rounded_to_four_decimals_and_mismatch(tmp_path):
    accounting = [llm_acc(10, 1, cost=0.00014), llm_acc(10, 1, cost=0.00014)]
    good = {"tokensIn": 20, "tokensOut": 2, "tokensCacheRead": 0, "tokensCacheWrite": 0, "costUsd": 0.0003,
            "toolsRun": 0, "agentsRun": 99}  # agentsRun is not compared, as in the producer
    doc = load(str(write(tmp_path / "a.json.gz", {"opTree": session(turn(1, op("llm", accounting=accounting)),
                                                                    totals=good)})))
    out = summarise(doc)
    assert out["totals"]["costUsd"] == 0.0003 and out["totalsMismatch"] is False
    bad = dict(good, tokensCacheRead=1, costUsd=0.0004)
    doc = load(str(write(tmp_path / "b.json.gz", {"opTree": session(turn(1, op("llm", accounting=accounting)),
                                                                    totals=bad)})))
    out = summarise(doc)
    assert out["totalsMismatch"] is True and out["storedTotals"]["tokensCacheRead"] == 1
    assert doc.root.mismatch == ["tokensCacheRead", "costUsd"]


def test_op_paths_follow_turn_and_position_through_sub_agents():
    grand = session(turn(1, op("llm"), op("tool")), agent="g")
    child = session(turn(1, op("llm")), turn(3, op("session", child=grand)), agent="c")
    s = build_session(session(turn(0, op("system"), system=True), turn(1, op("llm"), op("session", child=child))))
    paths = [o.path for o in __import__("tui.model.search", fromlist=["walk_ops"]).walk_ops(s)]
    assert paths == ["0-1", "1-1", "1-2", "1-2.1-1", "1-2.3-1", "1-2.3-1.1-1", "1-2.3-1.1-2"]


def test_plain_usage_is_true_only_when_every_count_and_the_cost_are_numbers():
    from tui.model.totals import plain_usage

    assert plain_usage({"inputTokens": 3, "outputTokens": 4.5}, 0.1)
    assert plain_usage(None, None) and plain_usage({}, 2)
    assert not plain_usage({"inputTokens": True}, 0.1)  # a bool is no count (it reads as 0 and is reported)
    assert not plain_usage({"inputTokens": "3"}, 0.1)
    assert not plain_usage([3], 0.1)
    assert not plain_usage({"inputTokens": 3}, "0.1")
    assert not plain_usage(None, False)
