"""Hand-written sessions directories for the scan and browser tests: good, running, empty, truncated and foreign files, a root ledger with its child."""

from __future__ import annotations

import gzip
import os
from datetime import datetime, timezone
from pathlib import Path

import orjson


T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms


GOOD_A = "aaaaaaaa-0000-4000-8000-000000000001"


GOOD_B = "bbbbbbbb-0000-4000-8000-000000000002"


RUNNING = "cccccccc-0000-4000-8000-000000000003"


ROOT_LEDGER = "dddddddd-0000-4000-8000-000000000004"


CHILD_LEDGER = "dddddddd-0000-4000-8000-000000000005"


EMPTY = "eeeeeeee-0000-4000-8000-000000000006"


TRUNCATED = "ffffffff-0000-4000-8000-000000000007"


NOT_JSON = "99999999-0000-4000-8000-000000000008"


def session_node(trace_id: str, agent: str, title: str, *, started: int, duration: int | None, success=True,
                 tokens=(100, 50), cost=0.0123, stored_cost: float | None = None) -> dict:
    llm_op = {
        "opId": "op-1", "kind": "llm", "startedAt": started + 10, "endedAt": started + 20, "status": "ok",
        "attributes": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
        "accounting": [{"type": "llm", "tokens": {"inputTokens": tokens[0], "outputTokens": tokens[1]},
                        "costUsd": cost}],
    }
    node = {
        "id": f"uid-{trace_id[:8]}", "traceId": trace_id, "agentId": agent, "callPath": f"cli:{agent}",
        "sessionTitle": title, "startedAt": started,
        "turns": [
            {"id": "t0", "index": 0, "startedAt": started, "endedAt": started + 1,
             "attributes": {"system": True, "label": "init"}, "ops": []},
            {"id": "t1", "index": 1, "startedAt": started + 5, "endedAt": started + 30, "ops": [llm_op]},
        ],
    }
    if duration is not None:
        node["endedAt"] = started + duration
        node["success"] = success
    if stored_cost is not None:
        node["totals"] = {"tokensIn": tokens[0], "tokensOut": tokens[1], "tokensCacheRead": 0, "tokensCacheWrite": 0,
                          "costUsd": stored_cost, "toolsRun": 0, "agentsRun": 1}
    return node


def write_snapshot(folder: Path, trace_id: str, node: dict, mtime_s: float) -> Path:
    path = folder / f"{trace_id}.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps({"version": 1, "reason": "final", "opTree": node})))
    os.utime(path, (mtime_s, mtime_s))
    return path


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ledger_records(session_id: str, agent: str, parent: str | None, status: str = "ok", started: int = T0) -> bytes:
    start = {"version": 3, "recordType": "session_start", "seq": 1, "ts": iso(started),
             "originId": parent or session_id, "sessionId": session_id, "agentId": agent, "callPath": f"cli:{agent}",
             "headendId": "cli", "attributes": {"ledgerPath": f"session/{session_id}.jsonl"}}
    if parent:
        start["parentSessionId"] = parent
    records = [
        start,
        {"version": 3, "recordType": "turn_start", "seq": 2, "ts": iso(started + 1000),
         "originId": start["originId"], "sessionId": session_id, "turn": 1},
        {"version": 3, "recordType": "turn_end", "seq": 3, "ts": iso(started + 4000),
         "originId": start["originId"], "sessionId": session_id, "turn": 1, "status": "ok",
         "ops": [{"opId": "o1", "opIndex": 1, "kind": "llm", "status": "ok", "startedAt": iso(started + 1000),
                  "endedAt": iso(started + 4000), "accounting": {"tokensIn": 7, "tokensOut": 3,
                                                                        "costUsd": 0.001}}]},
        {"version": 3, "recordType": "session_summary", "seq": 4, "ts": iso(started + 5000),
         "originId": start["originId"], "sessionId": session_id, "status": status},
    ]
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def make_sessions_dir(base: Path) -> Path:
    """A sessions directory with every kind of entry the browser must handle.

    Newest first both by file mtime and by start time: GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER, then the broken ones.
    """
    base.mkdir(parents=True, exist_ok=True)
    (base / "session").mkdir(exist_ok=True)
    now = T0 / 1000
    write_snapshot(base, GOOD_A, session_node(GOOD_A, "web-research", "Cheapest flight to Athens",
                                              started=T0 - 100_000, duration=95_000, tokens=(1200, 300),
                                              cost=0.5, stored_cost=0.75), now)
    write_snapshot(base, GOOD_B, session_node(GOOD_B, "bigquery", "Monthly revenue \x1b[31mreport",
                                              started=T0 - 200_000, duration=2_000, success=False, tokens=(10, 5),
                                              cost=0.001), now - 100)
    write_snapshot(base, RUNNING, session_node(RUNNING, "chat", "", started=T0 - 300_000, duration=None,
                                               tokens=(40_000, 2_000), cost=2.0), now - 200)
    root = base / "session" / f"{ROOT_LEDGER}.jsonl"
    root.write_bytes(ledger_records(ROOT_LEDGER, "ledger-root", None, started=T0 - 350_000))
    child = base / "session" / f"{CHILD_LEDGER}.jsonl"
    child.write_bytes(ledger_records(CHILD_LEDGER, "ledger-child", ROOT_LEDGER, started=T0 - 349_000))
    for path, offset in ((root, 300), (child, 290)):
        os.utime(path, (now - offset, now - offset))
    (base / f"{EMPTY}.json.gz").write_bytes(b"")
    full = gzip.compress(orjson.dumps({"version": 1, "opTree": session_node(TRUNCATED, "x", "y", started=T0,
                                                                              duration=1)}))
    (base / f"{TRUNCATED}.json.gz").write_bytes(full[: len(full) // 2])
    (base / f"{NOT_JSON}.json").write_bytes(b"hello, this is not json\n")
    (base / f"{GOOD_A}.json.gz.tmp-1-2").write_bytes(b"\x1f\x8b partial")
    (base / "notes.txt").write_text("ignored")
    for name, offset in ((EMPTY, 400), (TRUNCATED, 500)):
        os.utime(base / f"{name}.json.gz", (now - offset, now - offset))
    os.utime(base / f"{NOT_JSON}.json", (now - 600, now - 600))
    return base


def orphaned_child_dir(base: Path) -> Path:
    """A root ledger and a sub-agent ledger written without parentSessionId (older producers: ~3% of them); the
    root's op lists the child in childSessions, the child's session_start says headendId sub-agent."""
    (base / "session").mkdir(parents=True)
    root_id, kid = "rrrr-0001", "kkkk-0002"
    (base / "session" / f"{root_id}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [
        {"version": 3, "recordType": "session_start", "seq": 1, "ts": iso(T0), "originId": root_id,
         "sessionId": root_id, "agentId": "boss", "callPath": "cli:boss", "headendId": "cli"},
        {"version": 3, "recordType": "turn_end", "seq": 2, "ts": iso(T0 + 3000), "originId": root_id,
         "sessionId": root_id, "turn": 1, "status": "ok",
         "ops": [{"opId": "s1", "opIndex": 1, "kind": "session", "status": "ok",
                  "childSessions": [{"sessionId": kid, "originId": root_id, "parentSessionId": root_id,
                                     "parentOpId": "s1", "ledgerPath": f"session/{kid}.jsonl", "status": "ok"}]}]},
        {"version": 3, "recordType": "session_summary", "seq": 3, "ts": iso(T0 + 4000), "originId": root_id,
         "sessionId": root_id, "status": "ok"},
    ]))
    child = ledger_records(kid, "kid", None, started=T0 + 1000).replace(b'"originId":"kkkk-0002"',
                                                                        b'"originId":"rrrr-0001"')
    (base / "session" / f"{kid}.jsonl").write_bytes(child.replace(b'"headendId":"cli"', b'"headendId":"sub-agent"'))
    return base
