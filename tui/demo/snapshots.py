"""Snapshot, ``accounting.jsonl`` and payload files, written as the producer does (tmp file, ``os.replace``)."""

from __future__ import annotations

import base64
import binascii
import gzip as _gzip
import hashlib
import os
import random
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from .tree import iter_sessions, last_activity

LEVEL = 6  # node's zlib default, what the producer uses


def gz(data: bytes, level: int = LEVEL) -> bytes:  # no mtime in the header: same trees, same bytes
    return _gzip.compress(data, compresslevel=level, mtime=0)


def atomic_write(path: Path, data: bytes, gzip: bool = False, level: int = LEVEL) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{int(time.time() * 1000)}")
    tmp.write_bytes(gz(data, level) if gzip else data)
    os.replace(tmp, path)
    return path


def touch(path: Path, ms: int) -> None:
    os.utime(path, (ms / 1000, ms / 1000))


def snapshot_document(tree: dict, *, version: int = 2, reason: str = "final", shape: str = "file") -> dict:
    """A snapshot file's document, of shape ``file`` (v1 or v2), ``envelope`` or ``bare`` (the tree)."""
    sid, ts = tree.get("traceId") or tree.get("id"), last_activity(tree)
    if shape == "bare":
        return tree
    if shape == "envelope":
        return {"reason": reason, "sessionId": sid, "originId": sid, "timestamp": ts,
                "snapshot": {"version": version, "opTree": tree}}
    if shape != "file":
        raise ValueError(f"unknown shape {shape!r}")
    if version == 1:
        return {"version": 1, "reason": reason, "opTree": tree}
    return {"version": version, "reason": reason, "opTree": tree, "sessionId": sid, "originId": sid,
            "originTxnId": sid, "parentId": None, "parentTxnId": None, "timestamp": ts}


def write_snapshot(dir: str | os.PathLike, tree: dict, *, version: int = 2, reason: str = "final",
                   shape: str = "file", gzip: bool = True, name: str | None = None,
                   compresslevel: int = LEVEL) -> Path:
    """One snapshot file (shapes: ``snapshot_document``), by default ``<traceId>.json.gz``."""
    name = name or f"{tree.get('traceId') or tree.get('id')}.json" + (".gz" if gzip else "")
    data = orjson.dumps(snapshot_document(tree, version=version, reason=reason, shape=shape))
    return atomic_write(Path(dir) / name, data, gzip, compresslevel)


def _accounting_entries(node: dict) -> Iterator[dict[str, Any]]:
    """Post-order: a sub-agent's entries are appended when it ends, before its parent's."""
    own: list[dict[str, Any]] = []
    for t in (node.get("turns") or []) + (node.get("steps") or []):
        for op in t.get("ops") or []:
            if op.get("kind") == "session" and isinstance(op.get("childSession"), dict):
                yield from _accounting_entries(op["childSession"])
            own.extend(a for a in op.get("accounting") or [] if a.get("type") in ("llm", "tool"))
    yield from own


def write_accounting(path: str | os.PathLike, trees: Iterable[dict]) -> Path:
    """``accounting.jsonl``: one AccountingEntry per line (all llm + tool entries, sub-agents included)."""
    entries = (e for tree in trees for e in _accounting_entries(tree))
    return atomic_write(Path(path), b"".join(orjson.dumps(e) + b"\n" for e in entries))


def _decode_capture(v: Any) -> tuple[bytes | None, str | None]:
    """``payload.raw``/``payload.sdk`` -> (bytes, format, sniffed when the capture does not say)."""
    fmt = v.get("format") if isinstance(v, dict) else None
    b64 = v.get("value") if isinstance(v, dict) else v if v != "[unavailable]" else None  # legacy: a bare string
    try:
        data = base64.b64decode(b64, validate=not isinstance(v, dict)) if isinstance(b64, str) else None
    except (binascii.Error, ValueError):  # a legacy capture may be the text itself
        data = None if isinstance(v, dict) else str(b64).encode()
    if fmt or not data:
        return data, fmt
    head = data[:16].lstrip()
    if head.startswith((b"HTTP/", b"POST ", b"GET ")):
        return data, "sse" if b"text/event-stream" in data[:2048] else "http"
    if head.startswith((b"event:", b"data:")):
        return data, "sse"
    return data, "json" if head.startswith((b"{", b"[")) else None


class Store:
    """Writes gzipped payload files under ``<sessions_dir>/payloads`` and builds payloadRefs."""

    def __init__(self, sessions_dir: Path) -> None:
        self.root = sessions_dir
        self.written: dict[str, dict[str, Any]] = {}  # payload file (relative path) -> its ref's sizes and hash
        self.ledgers: list[Path] = []  # ledger files

    def put(self, *, sid: str, turn: int, op: dict, op_index: int, kind: str, name: str, fmt: str,
            data: bytes | None, captured: bool = True, truncated: bool = False) -> dict[str, Any]:
        ref: dict[str, Any] = {"kind": kind, "opId": op.get("opId"), "turn": turn, "opIndex": op_index, "format": fmt}
        if data is None or not captured:
            return ref | {"captured": False, "truncated": False, "redacted": False}
        prefix = "llm" if op.get("kind") == "llm" else "tool"  # {llm|tool}-NNNN-...: a sub-agent op is a tool
        rel = f"payloads/{sid}/turn-{turn:04d}/{prefix}-{op_index:04d}-{name}.{'txt' if fmt == 'text' else fmt}.gz"
        meta = self.written.get(rel)
        if meta is None:
            packed = gz(data)
            atomic_write(self.root / rel, packed)
            meta = self.written[rel] = {"originalBytes": len(data), "compressedBytes": len(packed),
                                        "sha256": hashlib.sha256(data).hexdigest()}
        return ref | {"compression": "gzip", "path": rel, **meta, "captured": True, "truncated": truncated,
                      "redacted": kind == "llm_request"}


#: an LLM op's captures: (payload side, key, ref kind, file name, default format, share not captured)
_LLM_REFS = (("request", "raw", "llm_request", "request", "http", 0.05),
             ("response", "raw", "llm_response", "response", "sse", 0.05),
             ("request", "sdk", "sdk_request", "sdk-request", "json", 0.1),
             ("response", "sdk", "sdk_response", "sdk-response", "json", 0.1))


def op_refs(store: Store, sid: Any, turn: int, op_index: int, op: dict) -> list[dict[str, Any]]:
    """payloadRefs of one op (deterministic per op: the same refs for the ledger and a ref-style snapshot)."""
    rng, refs = random.Random(f"{sid}/{op.get('opId')}"), []
    payloads = {side: (op.get(side) or {}).get("payload") for side in ("request", "response")}
    where: dict[str, Any] = {"sid": sid, "turn": turn, "op": op, "op_index": op_index}
    if op.get("kind") == "llm":
        for side, key, kind, name, default, lost in _LLM_REFS:
            p = payloads[side]
            if isinstance(p, dict) and key in p:
                data, fmt = _decode_capture(p[key])
                refs.append(store.put(**where, kind=kind, name=name, fmt=(fmt if key == "raw" else None) or default,
                                      data=data, captured=rng.random() > lost))
        r = op.get("reasoning")
        txt = (r.get("final") or "".join(c.get("text", "") for c in r.get("chunks") or [])) \
            if isinstance(r, dict) else ""
        if txt:
            refs.append(store.put(**where, kind="reasoning_stream", name="reasoning", fmt="text", data=txt.encode()))
    elif op.get("kind") in ("tool", "session"):
        req, res = payloads["request"], payloads["response"]
        if req is not None:
            refs.append(store.put(**where, kind="tool_request", name="request", fmt="json", data=orjson.dumps(req)))
        if res is not None:
            data, fmt = (res.encode(), "text") if isinstance(res, str) else (orjson.dumps(res), "json")
            refs.append(store.put(**where, kind="tool_response", name="response", fmt=fmt, data=data,
                                  truncated=bool((op.get("response") or {}).get("truncated")),
                                  captured=rng.random() > 0.05))
    return refs


def externalize_payloads(sessions_dir: str | os.PathLike, tree: dict) -> dict:
    """A copy of ``tree`` whose LLM captures are refs to payload files (the newer producer's), as ledgers write."""
    out, store = orjson.loads(orjson.dumps(tree)), Store(Path(sessions_dir))
    for s, _d in iter_sessions(out):
        for t in s.get("turns") or []:
            for i, op in enumerate(t.get("ops") or [], 1):
                if op.get("kind") != "llm":
                    continue
                refs = {r["kind"]: {k: v for k, v in r.items() if k not in ("kind", "opId", "turn", "opIndex")}
                        for r in op_refs(store, s.get("traceId") or s.get("id"), t["index"], i, op)}
                for side, key, kind, *_ in _LLM_REFS:  # a raw capture gives way to its ref, an sdk one holds it
                    payload = (op.get(side) or {}).get("payload")
                    if isinstance(payload, dict) and kind in refs and key == "raw":
                        del payload["raw"]
                        payload["ref"] = refs[kind]
                    elif isinstance(payload, dict) and kind in refs:
                        payload["sdk"] = {"ref": refs[kind]}
    return out
