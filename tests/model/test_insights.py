"""Insights on hand-built trees: every question of the jq guide, each entry pointing at an op that exists."""

from __future__ import annotations

import pytest

from helpers.builders import llm_acc, op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.model.insights import SLOWEST, compute
from tui.model.search import find_op_by_path, walk_ops
from tui.text.insights_text import lines, render_text

HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold]x[/bold]"


def tree(final_report=None, **extra):
    child = session(turn(1,
                         op("llm", op_id="c1", accounting=[llm_acc(50, 5, cost=0.25)], provider="openai",
                            model="gpt", started=2000, ended=2600),
                         op("tool", op_id="c2", name="bigquery__sql", started=2600, ended=2700)),
                    agent="child", trace="trace-child")
    failed_llm = op("llm", op_id="r2", status="failed", provider="anthropic", model="claude", error="rate_limited",
                    started=1500, ended=1600,
                    logs=[{"timestamp": 1600, "severity": "ERR", "message": "LLM request failed: 429", "fatal": True},
                          {"timestamp": 1590, "severity": "VRB", "message": "retrying"}])
    failed_tool = op("tool", op_id="r3", status="failed", name="bigquery__sql", error="timeout", started=1600,
                     ended=9600)
    failed_tool["response"] = {"payload": "Tool execution failed: timeout", "size": 30}
    report = op("tool", op_id="r6", name="agent__final_report", started=21000, ended=21100)
    report["request"] = {"kind": "tool", "payload": {"report_format": "markdown", "report_content": "# Done\nAll good."}}
    retried = turn(2, op("llm", op_id="r5", accounting=[llm_acc(10, 1, cost=0.01)], provider="anthropic",
                         model="claude", started=20000, ended=20900), report)
    retried["attributes"] = {"retry": 1, "reason": "invalid tool call"}
    root = session(
        turn(1,
             op("llm", op_id="r1", accounting=[llm_acc(100, 10, cache_read=300, cache_write=100, cost=0.5)],
                provider="anthropic", model="claude", started=1000, ended=1500),
             failed_llm, failed_tool,
             op("session", op_id="r4", name="agent__child", child=child, started=1000, ended=30000)),
        retried, agent="root", **extra)
    if final_report is not None:
        root["finalReport"] = final_report
    return build_session(root)


def test_failed_ops_carry_their_error_and_detail():
    ins = compute(tree())
    assert [(f.path, f.kind, f.error, f.detail) for f in ins.failed_ops] == [
        ("1-2", "llm", "rate_limited", "LLM request failed: 429"),
        ("1-3", "tool", "timeout", "Tool execution failed: timeout"),
    ]
    assert ins.failed_ops[0].agent == "root" and ins.failed_ops[1].target == "bigquery__sql"


def test_a_failed_sub_agent_counts_as_a_failed_op():
    child = session(turn(1, op("llm")), agent="kid", success=False, error="budget exceeded")
    s = build_session(session(turn(1, op("session", name="agent__kid", child=child))))
    [failed] = compute(s).failed_ops
    assert failed.path == "1-1" and failed.error == "budget exceeded"


def test_fatal_logs():
    ins = compute(tree())
    assert [(f.path, f.severity, f.message, f.ts) for f in ins.fatal_logs] == [
        ("1-2", "ERR", "LLM request failed: 429", 1600)]
    logs = [{"timestamp": 9, "severity": "ERR", "message": "stopping", "fatal": True},
            {"timestamp": 5, "severity": "ERR", "message": "not fatal"}]
    ok_op = build_session(session(turn(1, op("llm"), op("tool", logs=logs))))
    assert [(f.path, f.message) for f in compute(ok_op).fatal_logs] == [("1-2", "stopping")]


def test_slowest_ops_leave_out_sub_agent_ops_and_are_longest_first():
    ins = compute(tree())
    durations = [s.duration_ms for s in ins.slowest]
    assert durations == sorted(durations, reverse=True)
    assert ins.slowest[0].path == "1-3" and ins.slowest[0].duration_ms == 8000
    assert "1-4" not in [s.path for s in ins.slowest]
    assert "1-4.1-1" in [s.path for s in ins.slowest]  # ops inside the sub-agent count


def test_slowest_keeps_only_the_top_ones():
    ops = [op("tool", name=f"t{i}", started=0, ended=i) for i in range(SLOWEST + 15)]
    ins = compute(build_session(session(turn(1, *ops))))
    assert [s.duration_ms for s in ins.slowest] == list(range(SLOWEST + 14, 14, -1))


def test_cost_by_model_adds_up_to_the_totals():
    s = tree()
    ins = compute(s)
    by = {u.key: u for u in ins.by_model}
    assert set(by) == {"anthropic:claude", "openai:gpt"}
    assert by["anthropic:claude"].calls == 3 and by["anthropic:claude"].failed == 1
    assert by["anthropic:claude"].path == "1-2"  # the first failure
    assert by["openai:gpt"].path == "1-4.1-1"
    assert round(sum(u.cost for u in ins.by_model), 6) == round(s.totals.costUsd, 6) == 0.76
    assert sum(u.tokens_in for u in ins.by_model) == s.totals.tokensIn
    assert ins.by_model[0].key == "anthropic:claude"  # most expensive first


def test_cost_by_agent_keeps_sub_agents_apart():
    ins = compute(tree())
    by = {u.key: u for u in ins.by_agent}
    assert by["root"].ops == 6 and by["child"].ops == 2
    assert round(by["root"].cost, 6) == 0.51 and round(by["child"].cost, 6) == 0.25
    assert by["root"].failed == 2 and by["root"].path == ""  # the session in view
    assert by["child"].path == "1-4" and by["child"].calls == 1


def test_tools_jump_to_the_first_failure_else_the_slowest_call():
    ins = compute(tree())
    by = {u.key: u for u in ins.by_tool}
    assert by["bigquery__sql"].calls == 2 and by["bigquery__sql"].failed == 1 and by["bigquery__sql"].path == "1-3"
    assert ins.by_tool[0].key == "bigquery__sql"  # failures first
    ok = compute(build_session(session(turn(1, op("tool", name="t", started=0, ended=5),
                                            op("tool", name="t", started=0, ended=50),
                                            op("tool", name="t", started=0, ended=7)))))
    assert ok.by_tool[0].path == "1-2" and ok.by_tool[0].max_ms == 50 and ok.by_tool[0].duration_ms == 62


def test_cache_share_and_tool_error_rate():
    ins = compute(tree())
    assert ins.cache_read == 300 and ins.cache_write == 100 and ins.tokens_in == 160
    assert ins.cache_share == pytest.approx(300 / 560)
    assert (ins.tool_calls, ins.tool_failed, ins.first_failed_tool) == (3, 1, "1-3")
    assert ins.tool_error_rate == pytest.approx(1 / 3)
    empty = compute(build_session(session(turn(1))))
    assert empty.cache_share is None and empty.tool_error_rate is None


def test_retries_two_llm_attempts_or_a_turn_marked_retry():
    ins = compute(tree())
    assert [(r.path, r.attempts, r.reason) for r in ins.retries] == [
        ("1-2", 2, "rate_limited"), ("2-1", 2, "invalid tool call")]
    assert ins.retries[1].turn == "Turn 2"
    marked = turn(1, op("llm"))
    marked["attributes"] = {"attempt": 3, "isRetry": True}
    [retry] = compute(build_session(session(marked))).retries
    assert retry.attempts == 3 and retry.path == "1-1"
    plain = turn(1, op("llm"), op("tool"))
    plain["attributes"] = {"retry": 0, "prompts": {"user": "hi"}}
    assert compute(build_session(session(plain))).retries == []


def test_final_report_from_the_tool_call_or_the_session():
    report = compute(tree()).final_report
    assert report is not None and report.path == "2-2" and report.text == "# Done\nAll good."
    assert report.source == "agent__final_report" and report.format == "markdown"
    stored = compute(tree(final_report={"format": "markdown", "content": "stored report"})).final_report
    assert stored.text == "stored report" and stored.source == "finalReport" and stored.path == "2-2"
    as_json = compute(tree(final_report={"format": "json", "content_json": {"a": 1}})).final_report
    assert '"a": 1' in as_json.text and as_json.format == "json"
    assert compute(build_session(session(turn(1, op("llm"))))).final_report is None


def test_insights_of_a_sub_agent_describe_only_it():
    root = tree()
    child = root.turns[0].ops[3].child
    ins = compute(child)
    assert ins.session_path == "1-4" and ins.agent == "child"
    assert ins.failed_ops == [] and [u.key for u in ins.by_agent] == ["child"]
    assert {s.path for s in ins.slowest} == {"1-4.1-1", "1-4.1-2"}


def test_every_entry_jumps_to_an_op_of_the_session():
    s = tree()
    ins = compute(s)
    paths = [line.path for line in lines(ins) if line.path is not None]
    assert paths
    for path in paths:
        assert path == s.path_prefix or find_op_by_path(s, path) is not None, path


def test_lines_are_inert_and_capped():
    s = build_session(session(turn(1, *[op("tool", status="failed", name=HOSTILE, error=HOSTILE) for _ in range(80)])))
    ins = compute(s)
    text = render_text(ins)
    assert "\x1b" not in text and "\x07" not in text and "\\x1b" in text
    assert len(ins.failed_ops) == 80
    assert text.count("TOOL") <= 50 + SLOWEST and "30 more" in text
    assert len([line for line in lines(ins) if line.path == "1-80"]) >= 1  # the panel lists them all


def test_as_dict_is_the_json_shape():
    out = compute(tree()).as_dict()
    assert list(out) == ["sessionPath", "failedOps", "fatalLogs", "slowestOps", "byModel", "byAgent", "byTool",
                         "cache", "retries", "toolErrors", "finalReport", "sizes"]
    assert out["toolErrors"] == {"calls": 3, "failed": 1, "rate": 0.3333, "path": "1-3"}
    assert out["cache"]["share"] == 0.5357
    assert out["byModel"][0]["model"] == "anthropic:claude" and out["byModel"][0]["costUsd"] == 0.51


def test_one_walk_over_a_generated_tree_agrees_with_the_counts():
    from tui.demo import make_tree

    s = build_session(make_tree(7, ops=300, depth=2))
    ins = compute(s)
    assert len(ins.failed_ops) >= s.counts.failed
    assert ins.tool_calls == s.counts.tool
    assert sum(u.ops for u in ins.by_agent) == s.counts.ops
    assert sum(u.calls for u in ins.by_agent) == s.counts.sessions
    assert round(sum(u.cost for u in ins.by_agent), 4) == round(s.totals.costUsd, 4)
    assert sum(1 for op in walk_ops(s) if op.kind == "llm") == sum(u.calls for u in ins.by_model)
