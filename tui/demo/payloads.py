"""Payload files shared by ledgers and ref-style snapshots: decoding captures, the gzipped payload store, an
op's payloadRefs, and ``externalize_payloads`` (captures moved to files, ``payload.ref``)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import random
from pathlib import Path
from typing import Any

import orjson

from .file_io import _atomic_write, _gz
from .walk import iter_sessions

__all__ = ["externalize_payloads"]


def _sniff(data: bytes | None, fmt: str | None) -> str | None:
    if fmt or not data:
        return fmt
    head = data[:16].lstrip()
    if head.startswith((b"HTTP/", b"POST ", b"GET ")):
        return "sse" if b"text/event-stream" in data[:2048] else "http"
    if head.startswith((b"event:", b"data:")):
        return "sse"
    if head.startswith((b"{", b"[")):
        return "json"
    return None


def _decode_capture(v: Any) -> tuple[bytes | None, str | None]:
    """``payload.raw``/``payload.sdk`` -> (bytes, format); (None, None) when not captured."""
    data, fmt = _decode_capture_raw(v)
    return data, _sniff(data, fmt)


def _decode_capture_raw(v: Any) -> tuple[bytes | None, str | None]:
    if isinstance(v, dict):
        val = v.get("value")
        if not isinstance(val, str):
            return None, v.get("format")
        try:
            return base64.b64decode(val), v.get("format")
        except (binascii.Error, ValueError):
            return None, v.get("format")
    if isinstance(v, str):
        if v == "[unavailable]":
            return None, None
        try:
            return base64.b64decode(v, validate=True), None
        except (binascii.Error, ValueError):
            return v.encode(), None
    return None, None


class _Store:
    """Writes gzipped payload files under ``<sessions_dir>/payloads`` and builds payloadRefs."""

    def __init__(self, sessions_dir: Path) -> None:
        self.root = sessions_dir
        self.written: dict[str, dict[str, Any]] = {}
        self.paths: list[Path] = []  # payload files
        self.ledgers: list[Path] = []  # ledger files

    def put(self, *, sid: str, turn: int, op: dict, op_index: int, kind: str, name: str, fmt: str,
            data: bytes | None, captured: bool = True, truncated: bool = False) -> dict[str, Any]:
        ref: dict[str, Any] = {"kind": kind, "opId": op.get("opId"), "turn": turn, "opIndex": op_index,
                               "format": fmt}
        if data is None or not captured:
            ref.update({"captured": False, "truncated": False, "redacted": False})
            return ref
        # the producer's file names: ``text`` captures end in ``.txt``
        ext = "txt" if fmt == "text" else fmt
        prefix = "llm" if op.get("kind") == "llm" else "tool"  # {llm|tool}-NNNN-...: a sub-agent op is a tool
        rel = f"payloads/{sid}/turn-{turn:04d}/{prefix}-{op_index:04d}-{name}.{ext}.gz"
        meta = self.written.get(rel)
        if meta is None:
            gz = _gz(data)
            p = self.root / rel
            _atomic_write(p, gz)
            self.paths.append(p)
            meta = {"originalBytes": len(data), "compressedBytes": len(gz),
                    "sha256": hashlib.sha256(data).hexdigest()}
            self.written[rel] = meta
        ref.update({"compression": "gzip", "path": rel, **meta, "captured": True, "truncated": truncated,
                    "redacted": kind == "llm_request"})
        return ref


def _op_refs(store: _Store, sid: str, turn: int, op_index: int, op: dict) -> list[dict[str, Any]]:
    """payloadRefs of one op (deterministic per op: same refs for the ledger and a ref-style snapshot)."""
    rng = random.Random(f"{sid}/{op.get('opId')}")
    refs: list[dict[str, Any]] = []
    kind = op.get("kind")
    req = (op.get("request") or {}).get("payload")
    res = (op.get("response") or {}).get("payload")
    res_trunc = bool((op.get("response") or {}).get("truncated"))
    if kind == "llm":
        if isinstance(req, dict) and "raw" in req:
            data, fmt = _decode_capture(req["raw"])
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="llm_request", name="request",
                                  fmt=fmt or "http", data=data, captured=rng.random() > 0.05))
        if isinstance(res, dict) and "raw" in res:
            data, fmt = _decode_capture(res["raw"])
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="llm_response",
                                  name="response", fmt=fmt or "sse", data=data, captured=rng.random() > 0.05))
        if isinstance(req, dict) and "sdk" in req:
            data, _fmt = _decode_capture(req["sdk"])
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="sdk_request",
                                  name="sdk-request", fmt="json", data=data, captured=rng.random() > 0.1))
        if isinstance(res, dict) and "sdk" in res:
            data, _fmt = _decode_capture(res["sdk"])
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="sdk_response",
                                  name="sdk-response", fmt="json", data=data, captured=rng.random() > 0.1))
        r = op.get("reasoning")
        if isinstance(r, dict):
            txt = r.get("final") or "".join(c.get("text", "") for c in r.get("chunks") or [])
            if txt:
                refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="reasoning_stream",
                                      name="reasoning", fmt="text", data=txt.encode()))
    elif kind in ("tool", "session"):
        if req is not None:
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="tool_request",
                                  name="request", fmt="json", data=orjson.dumps(req)))
        if res is not None:
            if isinstance(res, str):
                data, fmt = res.encode(), "text"
            else:
                data, fmt = orjson.dumps(res), "json"
            refs.append(store.put(sid=sid, turn=turn, op=op, op_index=op_index, kind="tool_response",
                                  name="response", fmt=fmt, data=data, truncated=res_trunc,
                                  captured=rng.random() > 0.05))
    return refs


def _snapshot_ref(ref: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in ref.items() if k not in ("kind", "opId", "turn", "opIndex")}
    return out


def externalize_payloads(sessions_dir: str | os.PathLike, tree: dict) -> dict:
    """Return a copy of ``tree`` whose LLM captures live in payload files (``payload.ref`` /
    ``payload.sdk.ref``, the newer producer's shape), writing those files under ``sessions_dir/payloads``.
    The files and refs are the same ones ``write_ledger`` produces for the tree."""
    sd = Path(sessions_dir)
    out = orjson.loads(orjson.dumps(tree))
    store = _Store(sd)
    for s, _d in iter_sessions(out):
        sid = s.get("traceId") or s.get("id")
        for t in s.get("turns") or []:
            for i, op in enumerate(t.get("ops") or [], 1):
                if op.get("kind") != "llm":
                    continue
                refs = {r["kind"]: r for r in _op_refs(store, sid, t["index"], i, op)}
                req = (op.get("request") or {}).get("payload")
                res = (op.get("response") or {}).get("payload")
                for payload, raw_kind, sdk_kind in ((req, "llm_request", "sdk_request"),
                                                    (res, "llm_response", "sdk_response")):
                    if not isinstance(payload, dict):
                        continue
                    if raw_kind in refs:
                        payload.pop("raw", None)
                        payload["ref"] = _snapshot_ref(refs[raw_kind])
                    if sdk_kind in refs:
                        payload["sdk"] = {"ref": _snapshot_ref(refs[sdk_kind])}
    return out
