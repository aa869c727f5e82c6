"""Codex CLI and Gemini CLI session files for the tests: the real ones in tests/fixtures/codex and
tests/fixtures/gemini-cli (see their READMEs), and hostile variants written from them (cut lines, lone surrogates,
a huge tool output, unknown line types, an aborted turn, a rewritten message)."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures"
CODEX_SHORT = FIXTURES / "codex" / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
CODEX_MCP = FIXTURES / "codex" / "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
CODEX_PATCHES = FIXTURES / "codex" / "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"
CODEX_PLAIN = FIXTURES / "codex" / "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
GEMINI_FILE_OPS = FIXTURES / "gemini-cli" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
GEMINI_JSON = FIXTURES / "gemini-cli" / "session-2026-04-01T11-11-5cdd2021.json"
HUGE = 3_000_000  # characters of the huge tool output (more than tui.formats.session_node.MAX_TEXT)


def _line(ts: str, kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def codex_hostile(tmp_path: Path) -> Path:
    """The MCP rollout, then a second turn with everything a reader must survive, then a cut last line."""
    lines = CODEX_MCP.read_text(encoding="utf-8").splitlines()
    ts = "2026-02-23T19:40:00.000Z"
    usage = {"input_tokens": 300_000, "cached_input_tokens": 239_000, "output_tokens": 1_200,
             "reasoning_output_tokens": 500, "total_tokens": 301_200}
    lines += [
        # a prompt cut inside an emoji: a lone surrogate escape (valid JSON orjson refuses)
        '{"timestamp":"%s","type":"event_msg","payload":{"type":"user_message","message":"fix it \\ud83d now"}}' % ts,
        _line(ts, "turn_context", {"model": "gpt-5-codex"}),
        _line(ts, "response_item", {"type": "reasoning", "summary": [], "content": None,
                                    "encrypted_content": "gAAAAB..."}),
        _line(ts, "response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                    "arguments": json.dumps({"command": ["cat", "big.log"]})}),
        _line(ts, "response_item", {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                                    "input": "*** Begin Patch\n*** End Patch", "status": "completed"}),
        _line(ts, "event_msg", {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}),
        _line(ts, "event_msg", {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}}),
        _line(ts, "response_item", {"type": "function_call_output", "call_id": "c1",
                                    "output": json.dumps({"output": "x" * HUGE, "metadata": {"exit_code": 1}})}),
        _line(ts, "mystery_line", {"what": "a line type no Codex version writes"}),
        _line(ts, "event_msg", {"type": "brand_new_event"}),
        _line(ts, "compacted", {"message": "summary of the conversation so far"}),
        _line(ts, "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        "[1, 2]",
        '{"timestamp":"%s","type":"event_msg","payload":{"type":"agent_mess' % ts,  # cut: no newline either
    ]
    path = tmp_path / "rollout-2026-02-23T19-40-00-hostile.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def gemini_jsonl(tmp_path: Path) -> Path:
    """The newer JSONL chat: a message written twice under one id (its tool call finished), a rewind, a `$set`."""
    gemini = {"id": "g1", "timestamp": "2026-05-01T10:00:02.000Z", "type": "gemini", "model": "gemini-2.5-pro",
              "content": "Reading it.", "toolCalls": [{"id": "t1", "name": "read_file", "args": {"path": "a.py"},
                                                       "status": "executing"}]}
    done = dict(gemini, tokens={"input": 1000, "output": 50, "cached": 400, "thoughts": 20, "tool": 0,
                                "total": 1070},
                toolCalls=[dict(gemini["toolCalls"][0], status="success", timestamp="2026-05-01T10:00:03.000Z",
                                result=[{"functionResponse": {"id": "t1", "name": "read_file",
                                                              "response": {"output": "print('hi')"}}}])])
    records = [
        {"sessionId": "s-jsonl", "projectHash": "ab" * 16, "startTime": "2026-05-01T10:00:00.000Z",
         "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main"},
        {"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user", "content": [{"text": "read a.py"}]},
        gemini, done,
        {"id": "u2", "timestamp": "2026-05-01T10:01:00.000Z", "type": "user", "content": "oops, wrong prompt"},
        {"id": "g2", "timestamp": "2026-05-01T10:01:01.000Z", "type": "gemini", "content": "dropped",
         "tokens": {"input": 999_999, "output": 1, "cached": 0, "total": 1_000_000}},
        {"$rewindTo": "u2"},
        {"id": "e1", "timestamp": "2026-05-01T10:02:00.000Z", "type": "error", "content": "Quota exceeded"},
        {"$set": {"lastUpdated": "2026-05-01T10:02:00.000Z", "summary": "Read a.py"}},
    ]
    path = tmp_path / "session-2026-05-01T10-00-s-jsonl.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def codex_legacy(tmp_path: Path) -> Path:
    """A rollout in the shape Codex CLI wrote before RolloutLine (mid-2025): a bare session line, bare
    ResponseItems and `record_type: state` lines (written here after codex-rs's old rollout recorder)."""
    records = [
        {"id": "0197-legacy", "timestamp": "2025-06-01T10:00:00.000Z", "instructions": None,
         "git": {"branch": "main"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]},
        {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1",
         "output": "{\"output\":\"a.py\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a.py"}]},
    ]
    path = tmp_path / "rollout-2025-06-01T10-00-00-0197-legacy.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def gemini_with_subagent(tmp_path: Path) -> Path:
    """A chat whose tool call ran a sub-agent (`agentId`), the sub-agent's own chat where gemini-cli writes it
    (`chats/<parent session id>/<agentId>.jsonl`, `kind: "subagent"`), and a call naming an agent with no file."""
    chats = tmp_path / "chats"
    (chats / "parent-1").mkdir(parents=True)
    child = [
        {"sessionId": "agent-7", "projectHash": "h", "startTime": "2026-05-02T09:00:01.000Z", "kind": "subagent"},
        {"id": "cu1", "timestamp": "2026-05-02T09:00:01.000Z", "type": "user", "content": [{"text": "find tests"}]},
        {"id": "cg1", "timestamp": "2026-05-02T09:00:04.000Z", "type": "gemini", "model": "gemini-2.5-flash",
         "content": "Found 3.", "tokens": {"input": 500, "output": 30, "cached": 100, "thoughts": 0, "total": 530},
         "toolCalls": [{"id": "ct1", "name": "glob", "args": {"pattern": "tests/*"}, "status": "success",
                        "timestamp": "2026-05-02T09:00:03.000Z", "result": [{"functionResponse": {
                            "response": {"output": "a\nb\nc"}}}]}]},
    ]
    (chats / "parent-1" / "agent-7.jsonl").write_text("\n".join(json.dumps(r) for r in child) + "\n")
    parent = {"sessionId": "parent-1", "projectHash": "h", "startTime": "2026-05-02T09:00:00.000Z",
              "lastUpdated": "2026-05-02T09:00:05.000Z", "messages": [
                  {"id": "u1", "timestamp": "2026-05-02T09:00:00.000Z", "type": "user", "content": "how many tests?"},
                  {"id": "g1", "timestamp": "2026-05-02T09:00:05.000Z", "type": "gemini", "model": "gemini-2.5-pro",
                   "content": "3", "tokens": {"input": 1000, "output": 10, "cached": 0, "total": 1010},
                   "toolCalls": [
                       {"id": "t1", "name": "codebase_investigator", "args": {"q": "tests"}, "status": "success",
                        "agentId": "agent-7", "timestamp": "2026-05-02T09:00:05.000Z"},
                       {"id": "t2", "name": "codebase_investigator", "args": {}, "status": "success",
                        "agentId": "../../etc/passwd", "timestamp": "2026-05-02T09:00:05.000Z"}]}]}
    path = chats / "session-2026-05-02T09-00-parent-1.json"
    path.write_text(json.dumps(parent))
    return path


def last_total(path: Path) -> dict:
    """The last `total_token_usage` a rollout records: what its session used."""
    last: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        info = record.get("payload", {}).get("info") if record.get("type") == "event_msg" else None
        if isinstance(info, dict) and info.get("total_token_usage"):
            last = info["total_token_usage"]
    return last
