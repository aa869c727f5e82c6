"""Small hand-written SessionNode builders for model tests (independent of the generator under test)."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson


def llm_acc(tin=0, tout=0, *, cache_read=None, cached=None, cache_write=None, cost=0.0) -> dict:
    tokens = {"inputTokens": tin, "outputTokens": tout}
    if cache_read is not None:
        tokens["cacheReadInputTokens"] = cache_read
    if cached is not None:
        tokens["cachedTokens"] = cached
    if cache_write is not None:
        tokens["cacheWriteInputTokens"] = cache_write
    return {"type": "llm", "provider": "anthropic", "model": "claude", "tokens": tokens, "costUsd": cost,
            "timestamp": 1000, "status": "ok", "latency": 10}


def op(kind: str, *, op_id: str = "op", status: str | None = "ok", logs=None, accounting=None, child=None,
       started=1000, ended=2000, **attrs) -> dict:
    node = {"opId": op_id, "kind": kind, "startedAt": started, "logs": logs or [], "accounting": accounting or [],
            "attributes": attrs}
    if ended is not None:
        node["endedAt"] = ended
    if status is not None:
        node["status"] = status
    if child is not None:
        node["childSession"] = child
    return node


def turn(index: int, *ops: dict, system: bool = False) -> dict:
    attrs = {"system": True, "label": "init"} if system else {}
    return {"id": f"t{index}", "index": index, "startedAt": 1000, "endedAt": 3000, "attributes": attrs, "ops": list(ops)}


def session(*turns: dict, agent: str = "root", trace: str = "trace-1", totals: dict | None = None, steps=None,
            ended: int | None = 5000, success: bool | None = True, **extra) -> dict:
    node = {"id": f"id-{agent}", "traceId": trace, "agentId": agent, "callPath": agent, "sessionTitle": "",
            "startedAt": 1000, "turns": list(turns)}
    if ended is not None:
        node["endedAt"] = ended
    if success is not None:
        node["success"] = success
    if totals is not None:
        node["totals"] = totals
    if steps is not None:
        node["steps"] = steps
    node.update(extra)
    return node


def write(path: Path, value: object, *, gz: bool = True) -> Path:
    data = orjson.dumps(value)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def ledger_line(record_type: str, seq: int, session_id: str, origin: str | None = None, **fields) -> bytes:
    record = {"version": 3, "recordType": record_type, "seq": seq, "ts": f"2026-05-26T11:00:{seq:02d}.000Z",
              "originId": origin or session_id, "sessionId": session_id}
    record.update(fields)
    return orjson.dumps(record) + b"\n"


def live_event(kind, sid="root", seq=None, parent=None, origin="root", **fields) -> bytes:
    """One event of the live wire protocol, as a producer sends it."""
    meta = {"sessionId": sid, "originId": origin, "agentId": sid}
    if parent:
        meta["parentId"] = parent
    if seq is not None:
        meta["sequence"] = seq
    return orjson.dumps({"type": kind, "meta": meta, **fields})
