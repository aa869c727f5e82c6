"""What ai-agent's own writer produces (tests/helpers/producer_tree.py): S<step>-<op> paths, sub-agent log paths joined with
the sub-agent's op path, the final report from any of its three homes, pluginMetas, tool_output chunk calls that
are not retries, tool character counts, payload sizes and ops without a start; through the model, dump and export."""

import subprocess
import sys

import orjson
import pytest

from helpers import producer_tree
from helpers.builders import ledger_line, write
from tui.formats.aiagent.snapshot import build_session
from tui.formats.load import from_object, load
from tui.model.final_report import NOT_IN_TREE, final_report
from tui.model.insights import compute
from tui.model.logs import join_log_path, logs_under, op_logs
from tui.model.nodes import Session, Turn, user_turns
from tui.model.op_facts import op_facts
from tui.model.search import find_op_by_path, normalise_op_path, walk_ops
from tui.text.export import ExportError, select
from tui.text.export_json import export as export_json
from tui.text.export_markdown import render as export_markdown
from tui.text.summary import summarise


def root() -> Session:
    return from_object(producer_tree.snapshot(), "producer.json").root


def paths(session: Session) -> list[str]:
    return [op.path for op in walk_ops(session)]


# paths -------------------------------------------------------------------------------------------------------

def test_step_ops_are_labelled_like_the_producer():
    assert paths(root()) == ["0-1", "1-1", "1-2", "1-2.1-1", "1-3", "1-4", "1-4.S0-1", "1-4.S0-2", "1-4.S0-3",
                             "1-5", "S0-1", "S0-1.1-1", "S0-2"]


@pytest.mark.parametrize("typed, expected", [("S0-1", "S0-1"), ("s0-1", "S0-1"), (" S0-2 ", "S0-2"),
                                             ("1-4.S0-3", "1-4.S0-3"), ("1-4.s0-3", "1-4.S0-3"),
                                             ("S0-1.1-1", "S0-1.1-1")])
def test_op_paths_are_found_as_typed(typed, expected):
    op = find_op_by_path(root(), typed)
    assert op is not None and op.path == expected


def test_normalise_op_path_leaves_other_text_alone():
    assert normalise_op_path("1-2.3-1") == "1-2.3-1"
    assert normalise_op_path("ss0-1") == "ss0-1" and normalise_op_path("s0") == "s0"


def test_search_finds_step_ops_by_path():
    from tui.model.search import find

    assert [op.path for op in find(root(), "s0-1")] == ["1-4.S0-1", "S0-1", "S0-1.1-1"]  # case-insensitive substring


def test_export_select_takes_step_paths():
    r = root()
    assert select(r, op="S0-1").agent_id == "advisor"
    assert select(r, op="s0-1").agent_id == "advisor"
    assert select(r, session="S0-1").agent_id == "advisor"
    with pytest.raises(ExportError):
        select(r, op="S0-2")  # an llm op, not a sub-agent


# logs --------------------------------------------------------------------------------------------------------

def test_join_log_path():
    assert join_log_path("1-5", "1-1") == "1-5.1-1"
    assert join_log_path("1-5", "1-5.1-1") == "1-5.1-1"  # already the full path: not joined twice
    assert join_log_path("1-5", "1-5") == "1-5.1-5"  # op 1-5 of the sub-agent at 1-5: relative, joined
    assert join_log_path("", "1-1") == "1-1"
    assert join_log_path("1-5", "") == ""
    assert join_log_path("1-5", "1-50.1-1") == "1-5.1-50.1-1"  # a prefix of digits is not the sub-agent's path


def test_sub_agent_logs_show_the_whole_path_beside_the_parents():
    r = root()
    entries = list(logs_under(r))
    assert [(e.path, e.message) for e in entries] == [
        ("1-2.1-1", "child relative log"), ("1-2.1-1", "child full-path log"), ("S0-1.1-1", "advisor log")]
    sub = find_op_by_path(r, "1-2.1-1")
    assert [e.path for e in op_logs(sub)] == ["1-2.1-1", "1-2.1-1"]


def test_a_root_op_log_keeps_its_own_path():
    tree = producer_tree.tree()
    tree["turns"][1]["ops"][0]["logs"] = [{"timestamp": 1, "severity": "VRB", "message": "root", "path": "1-1"}]
    r = build_session(tree)
    assert [e.path for e in logs_under(r)][0] == "1-1"


# final report ------------------------------------------------------------------------------------------------

def test_final_report_from_the_optree_with_the_system_op():
    report = compute(root()).final_report
    assert report is not None
    assert (report.path, report.source, report.format) == ("1-5", "finalReport", "markdown")
    assert report.text == "# Answer\nAll good."
    assert orjson.loads(report.content_json) == {"answer": 42}


def test_final_report_from_the_system_op_alone():
    tree = producer_tree.tree()
    del tree["finalReport"]
    report = final_report(build_session(tree))
    assert report is not None
    assert (report.path, report.source, report.format, report.text) == ("1-5", "final-report op", "markdown", "")
    assert report.note == NOT_IN_TREE


def test_final_report_found_by_its_accounting_entry():
    tree = producer_tree.tree()
    del tree["finalReport"]
    final = tree["turns"][1]["ops"][4]
    final["attributes"] = {}  # no label: the agent__final_report accounting entry still marks it
    report = final_report(build_session(tree))
    assert report is not None and report.path == "1-5"


def test_final_report_content_json_only():
    tree = producer_tree.tree()
    tree["finalReport"] = {"format": "json", "content_json": {"b": [1, 2]}}
    report = final_report(build_session(tree))
    assert report.format == "json" and orjson.loads(report.text) == {"b": [1, 2]} and report.content_json == ""


def test_final_report_of_a_v3_ledger(tmp_path):
    sid = "77777777-7777-7777-7777-777777777777"
    d = tmp_path / "session"
    d.mkdir()
    ops = [{"opId": "f", "opIndex": 1, "kind": "system", "status": "ok", "attributes": {"label": "final-report"},
            "payloadRefs": [{"kind": "tool_request", "originalBytes": 300, "captured": True},
                            {"kind": "tool_response", "originalBytes": 12, "captured": True}]}]
    (d / f"{sid}.jsonl").write_bytes(
        ledger_line("session_start", 1, sid, agentId="v3agent", callPath="v3agent")
        + ledger_line("turn_start", 2, sid, turn=1)
        + ledger_line("turn_end", 3, sid, turn=1, status="ok", ops=ops)
        + ledger_line("session_summary", 4, sid, status="ok", finalReport={"format": "markdown", "captured": True}))
    r = load(str(d / f"{sid}.jsonl")).root
    report = compute(r).final_report
    assert report is not None and report.path == "1-1" and report.format == "markdown" and report.captured is True
    facts = op_facts(r.turns[0].ops[0])
    assert (facts.request_bytes, facts.response_bytes) == (300, 12)
    # no startedAt: the ledger gives the op the turn_end record's time
    assert r.turns[0].ops[0].started_at == r.turns[0].ended_at is not None


def test_no_final_report():
    tree = producer_tree.tree()
    del tree["finalReport"]
    del tree["turns"][1]["ops"][4]
    assert final_report(build_session(tree)) is None


# retries -----------------------------------------------------------------------------------------------------

def test_tool_output_chunk_calls_are_not_retries():
    assert compute(root()).retries == []


def test_two_plain_llm_calls_in_one_turn_are_still_a_retry():
    tree = producer_tree.tree()
    turn1 = tree["turns"][1]["ops"]
    turn1.insert(1, dict(turn1[0], opId="llm-again"))
    assert [r.path for r in compute(build_session(tree)).retries] == ["1-2"]


# sizes, times, turns -----------------------------------------------------------------------------------------

def test_tool_characters_sizes_and_stand_in_time():
    r = root()
    tool = op_facts(find_op_by_path(r, "1-3"))
    assert (tool.chars_in, tool.chars_out) == (120, 4567)
    assert tool.when == producer_tree.T0 + 12_000 and tool.when_source == "accounting/log"
    llm = op_facts(find_op_by_path(r, "1-1"))
    assert (llm.request_bytes, llm.response_bytes) == (2048, 512) and llm.when_source == ""
    assert op_facts(find_op_by_path(r, "S0-2")).request_bytes is None


def test_stand_in_time_from_the_first_log():
    tree = producer_tree.tree()
    op = tree["turns"][1]["ops"][0]
    del op["startedAt"]
    op["accounting"] = []
    op["logs"] = [{"timestamp": 777, "severity": "VRB", "message": "x", "path": "1-1"}]
    facts = op_facts(build_session(tree).turns[1].ops[0])
    assert (facts.when, facts.when_source) == (777, "accounting/log")


def test_user_turns():
    r = root()
    assert user_turns(r) == 1  # turn 0 (init) and the advisors step are not turns
    assert user_turns(find_op_by_path(r, "1-4").child) == 0  # a tool_output extraction has no user turn
    only_steps = Session()
    for kind in ("system", "user", "user", "internal"):
        t = Turn(only_steps, "step", len(only_steps.turns))
        t.step_kind = kind
        only_steps.turns.append(t)
    assert user_turns(only_steps) == 2


# dump / export -----------------------------------------------------------------------------------------------

def test_export_markdown_and_json():
    r = root()
    text = export_markdown(r)
    assert "| **Final report** | finalReport at op `1-5`, format markdown (see Insights) |" in text
    assert "| **User turns** | 1 |" in text
    assert '"ticket":"T-1"' in text
    assert "content_json:" in text and '"answer": 42' in text
    assert "`S0-1` · SESSION" in text and "`1-4.S0-2` · LLM" in text
    assert "chars in=120 out=4,567" in text and "(accounting/log ts)" in text and "req 2.0 KiB" in text
    assert text.index("`1-3` · TOOL") < text.index("`1-4` · SESSION")  # placed at its accounting time
    out = export_json(r)
    s = out["session"]
    assert s["pluginMetas"] == {"support": {"ticket": "T-1", "priority": "high"}} and s["userTurns"] == 1
    tool = s["turns"][1]["ops"][2]
    assert (tool["charactersIn"], tool["charactersOut"], tool["timeSource"]) == (120, 4567, "accounting/log")
    assert s["turns"][1]["ops"][0]["requestBytes"] == 2048
    child_logs = s["turns"][1]["ops"][1]["childSession"]["turns"][0]["ops"][0]["logs"]
    assert [log["path"] for log in child_logs] == ["1-2.1-1", "1-2.1-1"]
    assert out["insights"]["finalReport"]["path"] == "1-5"
    assert out["insights"]["retries"] == []


def test_dump_json_contract_unchanged():
    doc = from_object(producer_tree.snapshot(), "producer.json")
    assert list(summarise(doc)) == ["format", "root", "facts", "totals", "storedTotals", "totalsMismatch", "counts",
                                    "maxDepth"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=60)


@pytest.fixture
def snapshot_file(tmp_path):
    return write(tmp_path / "producer.json.gz", producer_tree.snapshot())


def test_cli_dump(snapshot_file):
    result = run("dump", str(snapshot_file))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "S0-1  SESSION  agent__advisor" in text and "1-4.S0-3  LLM" in text
    assert "1-3  TOOL  web__fetch  -  ok  chars in=120 out=4,567  at " in text and "(accounting/log ts)" in text
    assert "req 2.0 KiB  resp 512 Bytes" in text
    insights = run("dump", "--insights", "--json", str(snapshot_file))
    assert insights.returncode == 0, insights.stderr
    data = orjson.loads(insights.stdout)
    assert data["insights"]["finalReport"]["source"] == "finalReport" and data["insights"]["retries"] == []
    assert data["insights"]["sizes"] == {"charactersIn": 160, "charactersOut": 4567, "requestBytes": 2048,
                                         "responseBytes": 512, "opsWithoutStart": 1}
    text = run("dump", "--insights", str(snapshot_file)).stdout.decode()
    assert "1-5  finalReport  markdown" in text and "content_json" in text


@pytest.mark.parametrize("op_path", ["S0-1", "s0-1"])
def test_cli_export_op_step_path(snapshot_file, op_path):
    result = run("export", str(snapshot_file), "--op", op_path, "--format", "json")
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["session"]["path"] == "S0-1" and out["session"]["agentId"] == "advisor"
    logs = out["session"]["turns"][0]["ops"][0]["logs"]
    assert [log["path"] for log in logs] == ["S0-1.1-1"]


def test_cli_export_session_nested_step_path(snapshot_file):
    result = run("export", str(snapshot_file), "--session", "1-4")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "`1-4.S0-1` · LLM" in text and "No turn needed more than one attempt." in text
