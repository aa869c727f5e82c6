"""Codex CLI rollouts and Gemini CLI chats read from their own files: real files first (tests/fixtures/codex,
tests/fixtures/gemini-cli), then hostile variants (tests/helpers/agentfixtures.py). Each becomes an ai-agent-shaped tree:
prompts -> turns, model calls -> llm ops with model and tokens (counted once), tool calls -> tool ops."""

from __future__ import annotations

import json

from helpers.agentfixtures import CODEX_MCP, CODEX_SHORT, GEMINI_JSON, HUGE, codex_hostile, gemini_jsonl
from tui.formats.load import load
from tui.model.document import CODEX, GEMINI_CLI
from tui.model.session_facts import cost_unknown, session_facts
from tui.model.nodes import user_turns


def ops_of(doc):
    return [op for turn in doc.root.turns for op in turn.ops]


def test_codex_real_mcp_session_tokens_are_the_growth_of_the_running_total():
    doc = load(str(CODEX_MCP))
    assert doc.format == CODEX and doc.session_id == "019c8bfe-ec25-79e0-97d7-bda6a9c575ff"
    t = doc.root.totals
    # the file's last total_token_usage: input 298,373 of which 238,848 cached, output 1,123; the 11 token_count
    # events (each written twice) would sum to 533,305 input: not that
    assert (t.tokensIn + t.tokensCacheRead, t.tokensCacheRead, t.tokensOut) == (298_373, 238_848, 1_123)
    ops = ops_of(doc)
    assert [op.kind for op in ops] == ["llm", "tool"] * 5 + ["llm"]
    assert {op.model for op in ops if op.kind == "llm"} == {"gpt-5.3-codex"}
    assert ops[1].name == "mcp__cloud-associates__search_workflows" and ops[1].status == "ok"
    assert user_turns(doc.root) == 1 and doc.root.title.startswith("[REDACTED_MESSAGE len=98")
    assert doc.root.field("attributes")["agentKind"] == "codex"
    assert doc.root.head == {"attributes": doc.root.field("attributes")}
    assert doc.root.head["attributes"]["costRecorded"] is False
    # no cost in the file: estimated from the price table (gpt-5.3-codex: $1.75 input, $0.175 cached, $14 output
    # per million), marked as an estimate
    facts = session_facts(doc.root).as_dict()
    assert not cost_unknown(doc.root) and facts["costEstimated"] is True
    assert facts["costUsd"] == round((59_525 * 1.75 + 238_848 * 0.175 + 1_123 * 14.0) / 1e6, 4)


def test_an_agent_call_of_a_model_without_a_price_is_not_estimated(tmp_path):
    """A model the price table does not know gives no estimate: unknown, never $0, and the session says why."""
    path = tmp_path / CODEX_SHORT.name
    path.write_bytes(CODEX_SHORT.read_bytes().replace(b"gpt-5.3-codex", b"made-up-model-9"))
    doc = load(str(path))
    assert cost_unknown(doc.root) and session_facts(doc.root).as_dict()["costUsd"] is None


def test_codex_real_short_session_keeps_the_call_without_output_open():
    doc = load(str(CODEX_SHORT))
    ops = ops_of(doc)
    assert [(op.kind, op.name) for op in ops] == [("llm", ""), ("tool", "exec_command")]
    assert ops[0].tokens_in + ops[0].cache_read == 34_469 and ops[0].cache_read == 3_456
    assert ops[0].tokens_out == 431
    assert ops[1].running and not ops[1].failed


def test_codex_hostile_file_is_read_to_its_end(tmp_path):
    doc = load(str(codex_hostile(tmp_path)))
    assert doc.format == CODEX
    turn = doc.root.turns[-1]
    assert "\ufffd" in turn.prompts["user"] and turn.label == "aborted: interrupted"
    by_name = {op.name or op.label: op for op in turn.ops}
    shell = by_name["shell"]
    assert shell.failed and shell.error == "exit code 1"
    output = shell.raw["response"]["payload"]
    assert len(output) < HUGE and output.endswith("more characters not kept]")
    patch = by_name["apply_patch"]
    assert patch.failed and "turn aborted" in patch.error  # its output never came: the abort ended it
    llm = next(op for op in turn.ops if op.kind == "llm")
    assert llm.raw["reasoning"]["chunks"][0]["text"] == "[encrypted reasoning]"
    assert llm.tokens_in + llm.cache_read == 300_000 - 298_373  # the duplicate token_count counted once
    assert by_name["compaction"].kind == "system"
    problems = " | ".join(doc.problems)
    assert "'mystery_line'" in problems and "event_msg/brand_new_event" in problems
    assert "is array" in problems and "incomplete" in problems


def test_gemini_real_json_session():
    doc = load(str(GEMINI_JSON))
    assert doc.format == GEMINI_CLI and doc.shape == "gemini-cli-json"
    ops = ops_of(doc)
    assert [op.kind for op in ops] == ["llm", "tool", "tool", "llm", "tool", "llm", "tool"]
    t = doc.root.totals
    # input includes cached (6907 + 7318 + 8509), thoughts are output (82 + 86 + 49 + 247 + 1073 + 94)
    assert (t.tokensIn + t.tokensCacheRead, t.tokensCacheRead, t.tokensOut) == (22_734, 10_143, 1_631)
    failed = [op for op in ops if op.failed]
    assert [op.name for op in failed] == ["write_file", "write_file"]
    assert failed[0].error.startswith('Tool "write_file" not found')
    assert doc.root.turns[0].prompts["user"] == "create 2 hello world files"
    assert ops[4].raw["response"]["payload"].startswith("Subagent 'generalist' failed")
    assert doc.root.field("attributes")["agentKind"] == "gemini-cli"


def test_gemini_jsonl_rewritten_message_counts_once_and_rewind_drops(tmp_path):
    doc = load(str(gemini_jsonl(tmp_path)))
    assert doc.format == GEMINI_CLI and doc.shape == "gemini-cli-jsonl"
    ops = ops_of(doc)
    assert [(op.kind, op.status) for op in ops] == [("llm", "ok"), ("tool", "ok"), ("system", "failed")]
    assert (ops[0].tokens_in, ops[0].cache_read, ops[0].tokens_out) == (600, 400, 70)
    assert ops[1].raw["response"]["payload"] == "print('hi')"
    assert doc.root.title == "Read a.py" and user_turns(doc.root) == 1


def test_gemini_json_with_hostile_messages(tmp_path):
    value = json.loads(GEMINI_JSON.read_text())
    value["messages"] += [None, {"id": "x", "type": "telepathy", "content": 5},
                          {"id": "y", "type": "gemini", "tokens": "lots", "toolCalls": [7, {"status": "error"}]}]
    path = tmp_path / "session-hostile.json"
    path.write_text(json.dumps(value))
    doc = load(str(path))
    assert "message 5 is not an object: skipped" in doc.problems
    assert any("telepathy" in p for p in doc.problems)
    assert ops_of(doc)[-1].failed


def test_codex_legacy_rollout(tmp_path):
    from helpers.agentfixtures import codex_legacy

    doc = load(str(codex_legacy(tmp_path)))
    assert doc.format == CODEX and doc.session_id == "0197-legacy"
    assert doc.root.title == "list files" and user_turns(doc.root) == 1
    ops = ops_of(doc)
    assert [(op.kind, op.name, op.status) for op in ops] == [("llm", "", "ok"), ("tool", "shell", "ok")]
    assert ops[1].raw["response"]["payload"] == "a.py\n"
    assert "a.py" in ops[0].raw["response"]["payload"]["textPreview"]


def test_gemini_subagent_chat_is_the_tool_calls_child(tmp_path):
    from helpers.agentfixtures import gemini_with_subagent

    doc = load(str(gemini_with_subagent(tmp_path)))
    sub, other = ops_of(doc)[1:]
    assert sub.kind == "session" and sub.child is not None and other.kind == "tool" and other.child is None
    assert sub.child.turns[0].prompts["user"] == "find tests"
    assert [op.name for op in sub.child.all_ops() if op.kind == "tool"] == ["glob"]
    t = doc.root.totals
    assert (t.tokensIn + t.tokensCacheRead, t.tokensOut, t.agentsRun) == (1_500, 40, 2)
    assert doc.root.max_depth == 1


def test_codex_real_session_with_patches_and_a_web_search():
    from helpers.agentfixtures import CODEX_PATCHES, last_total

    doc = load(str(CODEX_PATCHES))
    total, t = last_total(CODEX_PATCHES), doc.root.totals
    assert (t.tokensIn + t.tokensCacheRead, t.tokensCacheRead, t.tokensOut) == (
        total["input_tokens"], total["cached_input_tokens"], total["output_tokens"])
    names = [op.name for op in doc.root.all_ops() if op.kind == "tool"]
    assert names.count("apply_patch") == 22 and names.count("web_search") == 1 and len(names) == 105
    assert user_turns(doc.root) == 5 and doc.root.counts.llm == 81 and not doc.problems
    patch = next(op for op in doc.root.all_ops() if op.name == "apply_patch")
    assert isinstance(patch.raw["request"]["payload"], str) and patch.raw["response"]["payload"]


def test_codex_real_unredacted_session():
    from helpers.agentfixtures import CODEX_PLAIN

    doc = load(str(CODEX_PLAIN))
    t = doc.root.totals
    assert (t.tokensIn + t.tokensCacheRead, t.tokensCacheRead, t.tokensOut) == (22_474, 14_848, 300)
    assert doc.root.turns[0].prompts["user"].startswith("what is current repository about?")
    ops = list(doc.root.all_ops())
    tools = [op for op in ops if op.kind == "tool"]
    assert [op.raw["request"]["payload"]["command"][-1] for op in tools] == [
        "ls", "rg --files -g 'AGENTS.md'", "sed -n '1,160p' README.md"]
    assert tools[1].raw["response"]["payload"] == "docs/AGENTS.md\n"  # the output, out of its JSON envelope
    assert ops[0].model == "gpt-5-1-codex-2025-11-13" and ops[0].provider == "preview-codex"
    assert ops[0].raw["reasoning"]["chunks"][0]["text"] == "[encrypted reasoning]"
    assert "Clarifying documentation instructions" in ops[4].raw["reasoning"]["chunks"][0]["text"]
    assert not doc.problems  # (its ghost_snapshot and info-less token_count lines are known, not problems)


def test_gemini_real_session_with_five_prompts():
    from helpers.agentfixtures import GEMINI_FILE_OPS

    doc = load(str(GEMINI_FILE_OPS))
    t = doc.root.totals
    assert (t.tokensIn + t.tokensCacheRead, t.tokensCacheRead, t.tokensOut) == (87_418, 62_117, 4_355)
    assert user_turns(doc.root) == 5 and doc.root.counts.tool == 14 and doc.root.counts.llm == 9
    for turn in doc.root.turns:  # every op inside its turn's span, no negative durations
        assert all(op.duration_ms is None or op.duration_ms >= 0 for op in turn.ops)
        assert turn.duration_ms is not None and turn.duration_ms >= max(op.duration_ms or 0 for op in turn.ops)


def test_gemini_jsonl_cut_last_line_and_lone_surrogate(tmp_path):
    path = gemini_jsonl(tmp_path)
    data = path.read_bytes()
    data = data.replace(b'"read a.py"', b'"read \\udc00 a.py"') + b'{"id": "g9", "timestamp": "2026-05-01T10:03'
    path.write_bytes(data)
    doc = load(str(path))
    assert doc.root.turns[0].prompts["user"] == "read \ufffd a.py"
    assert any("incomplete" in p for p in doc.problems) and doc.root.counts.llm == 1
