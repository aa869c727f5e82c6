"""v3 ledgers: child ledgers, payload refs, running and failed sessions, half-written lines, path safety."""

from pathlib import Path

from helpers.builders import ledger_line
from tui.formats.load import load
from tui.text.summary import summarise

ROOT, CHILD = "11111111-0000-0000-0000-000000000001", "11111111-0000-0000-0000-000000000002"


def acc(tin, tout, cost, cache_read=0):
    return {"tokensIn": tin, "tokensOut": tout, "tokensCacheRead": cache_read, "tokensCacheWrite": 0, "costUsd": cost}


def write_pair(tmp: Path, child_path: str = f"session/{CHILD}.jsonl") -> Path:
    (tmp / "session").mkdir(exist_ok=True)
    root = tmp / "session" / f"{ROOT}.jsonl"
    child_ref = {"sessionId": CHILD, "originId": ROOT, "ledgerPath": child_path, "status": "ok", "agentId": "kid"}
    root.write_bytes(b"".join([
        ledger_line("session_start", 1, ROOT, agentId="boss", callPath="cli:boss"),
        ledger_line("turn_start", 2, ROOT, turn=1),
        ledger_line("turn_end", 3, ROOT, turn=1, status="ok", ops=[
            {"opId": "a", "opIndex": 1, "kind": "llm", "status": "ok", "provider": "openai", "model": "gpt",
             "startedAt": "2026-05-26T11:00:02.000Z", "endedAt": "2026-05-26T11:00:03.500Z",
             "accounting": acc(100, 10, 0.01, 40),
             "payloadRefs": [{"kind": "llm_request", "path": "payloads/x/turn-0001/llm-0001-request.http.gz",
                              "format": "http", "captured": True}]},
            {"opId": "b", "opIndex": 2, "kind": "session", "status": "ok", "name": "kid", "childSessions": [child_ref]},
        ], warnings=["slow"], errors=["bad thing"]),
        ledger_line("session_summary", 4, ROOT, status="ok", accounting=acc(150, 15, 0.015)),
    ]))
    (tmp / "session" / f"{CHILD}.jsonl").write_bytes(b"".join([
        ledger_line("session_start", 1, CHILD, ROOT, agentId="kid", parentSessionId=ROOT),
        ledger_line("turn_start", 2, CHILD, ROOT, turn=1),
        ledger_line("turn_end", 3, CHILD, ROOT, turn=1, status="ok", ops=[
            {"opId": "c", "opIndex": 1, "kind": "tool", "status": "failed", "name": "web__fetch"},
            {"opId": "d", "opIndex": 2, "kind": "llm", "status": "ok", "accounting": acc(50, 5, 0.005)},
        ]),
        ledger_line("session_summary", 4, CHILD, ROOT, status="ok"),
    ]))
    return root


def test_root_and_child_ledgers(tmp_path):
    doc = load(str(write_pair(tmp_path)))
    out = summarise(doc)
    assert out["format"] == "aiagent-ledger" and out["storedTotals"] is None
    assert out["totals"] == {"tokensIn": 150, "tokensOut": 15, "tokensCacheRead": 40, "tokensCacheWrite": 0,
                             "costUsd": 0.015, "toolsRun": 1, "agentsRun": 2}
    assert out["counts"] == {"sessions": 2, "turns": 1, "steps": 0, "ops": 4, "llm": 2, "tool": 1, "session": 1,
                             "system": 0, "failed": 1, "logs": 2, "warnings": 1, "errors": 1, "turnNodes": 2}
    assert out["maxDepth"] == 1 and out["root"]["success"] is True
    first = doc.root.turns[0].ops[0]
    assert first.duration_ms == 1500 and first.payload_refs[0]["format"] == "http"
    assert [o.path for o in doc.root.turns[0].ops[1].child.all_ops()] == ["1-2.1-1", "1-2.1-2"]


def test_child_ledger_outside_the_sessions_dir_is_refused(tmp_path):
    (tmp_path / "outside.jsonl").write_bytes(ledger_line("session_start", 1, "z"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    doc = load(str(write_pair(sessions, child_path="../outside.jsonl")))
    op = doc.root.turns[0].ops[1]
    assert op.child is None and "escapes" in op.child_ref["problem"]


def test_running_ledger_holds_back_a_half_written_line(tmp_path):
    p = tmp_path / "run.jsonl"
    p.write_bytes(ledger_line("session_start", 1, "r", agentId="live") + ledger_line("turn_start", 2, "r", turn=1)
                  + b'{"version":3,"recordType":"turn_e')
    doc = load(str(p))
    assert doc.root.status == "running" and doc.root.turns[0].running
    assert any("held back" in problem for problem in doc.problems)


def test_session_error(tmp_path):
    p = tmp_path / "err.jsonl"
    p.write_bytes(ledger_line("session_start", 1, "e") + ledger_line("session_error", 2, "e", error="TypeError: x"))
    out = summarise(load(str(p)))
    assert out["root"]["success"] is False and out["root"]["error"] == "TypeError: x"
    assert out["counts"]["errors"] == 1
