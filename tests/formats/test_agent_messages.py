"""The payload viewer's messages view of a model call read from another agent's own file (Claude Code, Codex CLI,
Gemini CLI, OpenCode): the request is the conversation the model was sent up to that call, the response that
call's answer with its usage, decoded and laid out by the same code as an ai-agent capture."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.claudecodefixtures import FIXTURES, huge_result_file
from tui.formats.load import load
from tui.model.search import find_op_by_path
from tui.payloads.messages import Conversation, conversation_lines, conversation_of
from tui.payloads.op_captures import decode_with_notes, op_captures

ROOT = Path(__file__).parents[1] / "fixtures"
CODEX = ROOT / "codex" / "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
GEMINI = ROOT / "gemini-cli" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
OPENCODE = ROOT / "opencode" / "storage" / "session" / "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750" / \
    "ses_5f1e2d3c4001Qw8ErT6yUiOpAs.json"


def _conversation(path: Path, op_path: str) -> tuple[Conversation, list]:
    doc = load(str(path))
    op = find_op_by_path(doc.root, op_path)
    assert op is not None and op.kind == "llm"
    captures = op_captures(op)
    assert [c.side for c in captures] == ["request", "response"]
    request, notes = decode_with_notes(captures[0], None)
    response, _ = decode_with_notes(captures[1], None)
    conv = conversation_of(request, response)
    assert conv is not None and conv.has_request and conv.has_response
    return conv, notes


def _shape(conv: Conversation) -> list[tuple[str, list[str]]]:
    return [(m.role, [p.kind for p in m.parts]) for m in conv.messages]


def test_claude_code_call_is_sent_the_whole_conversation():
    conv, notes = _conversation(FIXTURES / "real" / "tool_heavy.jsonl", "3-4")
    assert conv.dialect == "anthropic" and conv.model == "claude-opus-4-6"
    assert any("rebuilt from the session file" in n for n in notes)
    shape = _shape(conv)
    assert shape[0] == ("user", ["text"]) and conv.messages[0].parts[0].text == "start phoenix in background"
    assert shape[1] == ("assistant", ["tool_call"]) and conv.messages[1].parts[0].name == "Bash"
    assert shape[2] == ("user", ["tool_result"])
    asked = [m for m in conv.messages if m.response is None]
    assert len(asked) == 13 and ("assistant", ["text", "thinking", "tool_call", "tool_call"]) in shape
    answer = conv.messages[-1]
    assert answer.role == "assistant" and answer.response is not None
    assert answer.response.usage["input_tokens"] == 47 and answer.response.usage["output_tokens"] == 173
    lines = conversation_lines(conv).lines
    assert lines[0].startswith("Anthropic Messages request + response · model claude-opus-4-6 · 13 messages")


def test_claude_code_compaction_starts_the_context_over():
    path = FIXTURES / "projects" / "-w-demo" / "sess-2x.jsonl"
    doc = load(str(path))
    calls = [op for op in doc.root.all_ops() if op.kind == "llm"]
    request, _ = decode_with_notes(op_captures(calls[-1])[0], None)
    conv = conversation_of(request, None)
    assert conv is not None and conv.messages[0].parts[0].kind == "compaction"
    assert "Survey the repo with a sub-agent" not in [p.text for m in conv.messages for p in m.parts]


def test_claude_code_huge_result_cut_unknown_block_and_lone_surrogate(tmp_path):
    path = huge_result_file(tmp_path / "huge.jsonl")
    with path.open("a") as fh:
        fh.write(json.dumps({"type": "assistant", "uuid": "a2", "sessionId": "huge", "requestId": "r2",
                             "timestamp": "2025-01-01T00:00:03Z", "message": {
                                 "id": "m2", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 9},
                                 "content": [{"type": "brand_new_block", "x": 1}, {"type": "text", "text": "ok"}]}})
                 + "\n")
        fh.write('{"type":"user","uuid":"u3","sessionId":"huge","timestamp":"2025-01-01T00:00:04Z",'
                 '"message":{"role":"user","content":"bad \\ud800 half"}}\n')
        fh.write(json.dumps({"type": "assistant", "uuid": "a3", "sessionId": "huge", "requestId": "r3",
                             "timestamp": "2025-01-01T00:00:05Z", "message": {
                                 "id": "m3", "model": "claude-sonnet-4-5", "content": [{"type": "text"}]}}) + "\n")
    conv, _ = _conversation(path, "2-1")  # (the half surrogate is a prompt: turn 2)
    result = next(p for m in conv.messages for p in m.parts if p.kind == "tool_result")
    assert len(result.text) < 250_000 and "cut at 200,000 of 3,000,000 characters" in result.text
    kinds = [p.kind for m in conv.messages for p in m.parts]
    assert "other" in kinds  # the unknown block, shown as what it is
    assert any("bad" in p.text and "half" in p.text for m in conv.messages for p in m.parts)


def test_claude_code_failed_tool_says_its_result_is_an_error():
    doc = load(str(FIXTURES / "real" / "short.jsonl"))
    tool = find_op_by_path(doc.root, "1-2")
    assert tool is not None and tool.failed
    response = [c for c in op_captures(tool) if c.side == "response"]
    assert response and "is_error" in response[0].note


def test_codex_call_instructions_items_encrypted_reasoning_and_usage():
    conv, _ = _conversation(CODEX, "1-3")
    assert conv.dialect == "openai-responses" and conv.model == "gpt-5-1-codex-2025-11-13"
    shape = _shape(conv)
    assert shape[0] == ("system", ["text"]) and conv.messages[0].parts[0].text.startswith("## Skills")
    assert [m.parts[0].text for m in conv.messages[1:4]][2].startswith("what is current repository about?")
    assert shape[4] == ("assistant", ["thinking", "tool_call"])
    assert conv.messages[4].parts[0].text == "[encrypted reasoning]"
    assert shape[5] == ("tool", ["tool_result"]) and "_bmad" in conv.messages[5].parts[0].text
    answer = conv.messages[-1]
    assert answer.response is not None and [p.kind for p in answer.parts] == ["thinking", "tool_call"]
    assert answer.response.usage["input_tokens"] == 7546
    assert answer.response.usage["input_tokens_details"] == {"cached_tokens": 7296}


def test_gemini_call_contents_tool_results_and_usage():
    conv, _ = _conversation(GEMINI, "3-3")
    assert conv.dialect == "gemini" and conv.model == "gemini-3-pro"
    shape = _shape(conv)
    assert shape[0] == ("user", ["text"]) and conv.messages[0].parts[0].text == "show tools"
    assert ("tool", ["tool_result"] * 9) in shape and conv.messages[-2].role == "tool"
    assert [m.parts[0].text for m in conv.messages if m.role == "user"][-1] == "create hello.md file"
    answer = conv.messages[-1]
    # (the prompt count includes the cached tokens, as Gemini counts them)
    assert answer.response is not None and answer.response.usage["promptTokenCount"] == 11122


def test_opencode_call_parts_error_result_and_usage():
    conv, _ = _conversation(OPENCODE, "1-7")
    assert conv.dialect == "anthropic" and conv.model == "claude-sonnet-4-5-20250929"
    results = [p for m in conv.messages for p in m.parts if p.kind == "tool_result"]
    assert [r.error for r in results] == [False, True, False] and "bun: command not found" in results[1].text
    assert conv.messages[1].parts[0].kind == "thinking"
    answer = conv.messages[-1]
    assert answer.response is not None and answer.response.usage["cache_read_input_tokens"] == 2000
    assert answer.parts[0].text.startswith("Fixed: isLeap")


def _rollout_line(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-02-23T19:40:00.000Z", "type": kind, "payload": payload})


def test_codex_huge_output_cut_unknown_item_shown_and_compaction_starts_over(tmp_path):
    def count(n: int) -> str:
        usage = {"input_tokens": 100 * n, "cached_input_tokens": 0, "output_tokens": 10 * n, "total_tokens": 110 * n}
        return _rollout_line("event_msg", {"type": "token_count", "info": {"total_token_usage": usage}})

    lines = [
        _rollout_line("session_meta", {"id": "s1", "model_provider": "openai",
                                       "base_instructions": {"text": "be brief"}}),
        _rollout_line("event_msg", {"type": "user_message", "message": "read the log"}),
        _rollout_line("response_item", {"type": "message", "role": "user",
                                        "content": [{"type": "input_text", "text": "read the log"}]}),
        _rollout_line("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                        "arguments": json.dumps({"command": ["cat", "big.log"]})}),
        count(1),
        _rollout_line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "x" * 3_000_000}),
        _rollout_line("response_item", {"type": "brand_new_item", "what": "no Codex writes this yet"}),
        _rollout_line("response_item", {"type": "message", "role": "assistant",
                                        "content": [{"type": "output_text", "text": "it is big"}]}),
        count(2),
        _rollout_line("compacted", {"message": "the log was big"}),
        _rollout_line("response_item", {"type": "message", "role": "assistant",
                                        "content": [{"type": "output_text", "text": "after"}]}),
        count(3),
    ]
    path = tmp_path / "rollout-2026-02-23T19-40-00-s1.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    conv, _ = _conversation(path, "1-3")
    assert conv.messages[0].role == "system" and conv.messages[0].parts[0].text == "be brief"
    result = next(p for m in conv.messages for p in m.parts if p.kind == "tool_result")
    assert "cut at 200,000 of 3,000,000 characters" in result.text and len(result.text) < 250_000
    assert any(p.kind == "other" and "brand_new_item" in p.text for m in conv.messages for p in m.parts)
    after, _ = _conversation(path, "1-5")  # (1-4: the compaction's system op)
    assert [p.kind for m in after.messages if m.role != "system" for p in m.parts][0] == "compaction"
    assert all(p.kind != "tool_result" for m in after.messages for p in m.parts)


def test_every_call_of_the_hostile_agent_files_opens(tmp_path):
    from helpers.agentfixtures import codex_hostile, gemini_jsonl

    for path in (codex_hostile(tmp_path), gemini_jsonl(tmp_path)):
        calls = [op for op in load(str(path)).root.all_ops() if op.kind == "llm"]
        assert calls
        for op in calls:
            captures = op_captures(op)
            request, _ = decode_with_notes(captures[0], None)
            response, _ = decode_with_notes(captures[1], None)
            conv = conversation_of(request, response)
            assert conv is not None and conversation_lines(conv).lines


def _llm_ops(path: Path) -> list:
    doc = load(str(path))
    return [op for turn in doc.root.turns for op in turn.ops if op.kind == "llm"]


def _texts(conv: Conversation) -> list[tuple[str, str]]:
    return [(m.role, p.text) for m in conv.messages for p in m.parts if p.text]


def test_opencode_compaction_starts_the_context_over_from_its_request(tmp_path):
    """After a compaction's summary, OpenCode sends the model the request for it ("What did we do so far?"), the
    summary, then what follows (message-v2.ts filterCompacted / toModelMessages); the summary's own call is sent
    everything before it."""
    from helpers.opencodefixtures import compaction_storage

    path = compaction_storage(tmp_path)
    ops = _llm_ops(path)
    assert len(ops) == 3
    summary, _ = _conversation(path, ops[1].path)
    assert ("user", "Refactor the parser") in _texts(summary)
    assert _texts(summary)[-2] == ("user", "What did we do so far?")
    after, _ = _conversation(path, ops[2].path)
    sent = _texts(after)
    assert ("user", "Refactor the parser") not in sent
    assert sent[:3] == [("user", "What did we do so far?"), ("assistant", "Summary: the parser was refactored."),
                        ("user", "Continue if you have next steps")]
