"""Writers: snapshot files, v3 ledgers with payload files, accounting.jsonl and a whole sessions directory.

Deterministic: the same trees give the same bytes (gzip headers carry no mtime/file name). Files are written
the way the producer writes them: ``<name>.tmp-<pid>-<ms>`` then ``os.replace``.
Pure Python + orjson (never imports textual or rich).
"""

from __future__ import annotations

import base64
import binascii
import gzip as _gzip
import hashlib
import os
import random
import time
import uuid
from pathlib import Path
from typing import Any, Iterable

import orjson

from .bodies import HOSTILE_STRINGS
from .tree import _BASE_MS, iter_sessions, make_tree

__all__ = [
    "externalize_payloads",
    "last_activity",
    "populate",
    "snapshot_document",
    "write_accounting",
    "write_ledger",
    "write_snapshot",
]

_LEVEL = 6  # node's zlib default, what the producer uses


def _gz(data: bytes, level: int = _LEVEL) -> bytes:
    return _gzip.compress(data, compresslevel=level, mtime=0)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{int(time.time() * 1000)}")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


def last_activity(node: dict) -> int:
    """``endedAt`` of a finished session, else the latest timestamp found anywhere in it."""
    if isinstance(node.get("endedAt"), int):
        return node["endedAt"]
    best = node.get("startedAt") or 0
    for s, _d in iter_sessions(node):
        for group in (s.get("turns") or [], s.get("steps") or []):
            for t in group:
                best = max(best, t.get("startedAt") or 0, t.get("endedAt") or 0)
                for o in t.get("ops") or []:
                    best = max(best, o.get("startedAt") or 0, o.get("endedAt") or 0)
                    for lg in o.get("logs") or []:
                        best = max(best, lg.get("timestamp") or 0)
    return best


# --------------------------------------------------------------------------------------------------
# Snapshots
# --------------------------------------------------------------------------------------------------


def snapshot_document(tree: dict, *, version: int = 2, reason: str = "final", shape: str = "file") -> dict:
    """The JSON document of a snapshot file (see ``write_snapshot``)."""
    sid = tree.get("traceId") or tree.get("id")
    ts = last_activity(tree)
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


def write_snapshot(
    dir: str | os.PathLike,
    tree: dict,
    *,
    version: int = 2,
    reason: str = "final",
    shape: str = "file",
    gzip: bool = True,
    name: str | None = None,
    compresslevel: int = _LEVEL,
) -> Path:
    """Write one snapshot file and return its path.

    shape ``file``: version 1 ``{version, reason, opTree}`` or version 2 (adds sessionId, originId, originTxnId,
    parentId, parentTxnId, timestamp); ``envelope``: ``{reason, sessionId, originId, timestamp, snapshot:
    {version, opTree}}``; ``bare``: the SessionNode itself. Default name ``<traceId>.json.gz`` (``.json``
    without gzip).
    """
    d = Path(dir)
    if name is None:
        name = f"{tree.get('traceId') or tree.get('id')}.json" + (".gz" if gzip else "")
    data = orjson.dumps(snapshot_document(tree, version=version, reason=reason, shape=shape))
    if gzip:
        data = _gz(data, compresslevel)
    path = d / name
    _atomic_write(path, data)
    return path


# --------------------------------------------------------------------------------------------------
# Payload files (shared by ledgers and ref-style snapshots)
# --------------------------------------------------------------------------------------------------


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
        rel = f"payloads/{sid}/turn-{turn:04d}/{op.get('kind', 'op')}-{op_index:04d}-{name}.{fmt}.gz"
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


# --------------------------------------------------------------------------------------------------
# Ledgers
# --------------------------------------------------------------------------------------------------

_ZERO_ACC = {"tokensIn": 0, "tokensOut": 0, "tokensCacheRead": 0, "tokensCacheWrite": 0, "costUsd": 0.0}


def _op_accounting(op: dict) -> dict[str, Any] | None:
    acc = None
    for a in op.get("accounting") or []:
        if a.get("type") != "llm":
            continue
        if acc is None:
            acc = dict(_ZERO_ACC)
        tk = a.get("tokens") or {}
        acc["tokensIn"] += tk.get("inputTokens") or 0
        acc["tokensOut"] += tk.get("outputTokens") or 0
        cr = tk.get("cacheReadInputTokens")
        acc["tokensCacheRead"] += (cr if cr is not None else tk.get("cachedTokens")) or 0
        acc["tokensCacheWrite"] += tk.get("cacheWriteInputTokens") or 0
        acc["costUsd"] += a.get("costUsd") or 0
    if acc is not None:
        acc["costUsd"] = round(acc["costUsd"], 6)
    return acc


def _add_acc(total: dict[str, Any], acc: dict[str, Any] | None) -> None:
    if acc:
        for k in _ZERO_ACC:
            total[k] += acc[k]
        total["costUsd"] = round(total["costUsd"], 6)


def _session_status(node: dict) -> str:
    if "endedAt" not in node or "success" not in node:
        return "running"
    return "ok" if node.get("success") else "failed"


def _child_link(child: dict, *, origin: str, parent_sid: str, parent_op: str) -> dict[str, Any]:
    cid = child.get("traceId") or child.get("id")
    return {"sessionId": cid, "originId": origin, "parentSessionId": parent_sid, "parentOpId": parent_op,
            "ledgerPath": f"session/{cid}.jsonl", "status": _session_status(child),
            "agentId": child.get("agentId"), "callPath": child.get("callPath")}


def write_ledger(
    sessions_dir: str | os.PathLike,
    tree: dict,
    *,
    with_payloads: bool = True,
    running: bool = False,
    partial_last_line: bool = False,
) -> Path:
    """Write ``session/<sessionId>.jsonl`` (v3 ledger) for ``tree`` and, recursively, one ledger per sub-agent
    (linked through ``childSessions[].ledgerPath``), plus gzipped payload files when ``with_payloads``.

    Ledger accounting (op / turn / session_summary) covers the session's own LLM ops only (never its
    sub-agents, which have ledgers of their own) and, like the producer's ledger, only turns >= 1 appear.
    A running tree (no ``endedAt``), or ``running=True``, ends after the ``turn_start`` of its last turn;
    ``partial_last_line`` then appends half a record without a newline. Returns the root ledger's path.
    """
    sd = Path(sessions_dir)
    return _ledger(sd, tree, with_payloads=with_payloads, running=running, partial_last_line=partial_last_line,
                   store=_Store(sd), parent=None)


def _ledger(
    sd: Path,
    tree: dict,
    *,
    with_payloads: bool,
    running: bool,
    partial_last_line: bool,
    store: _Store,
    parent: tuple[str, str, str] | None,
) -> Path:
    _parent = parent
    sid = tree.get("traceId") or tree.get("id")
    origin = _parent[0] if _parent else sid
    is_running = running or "endedAt" not in tree
    lines: list[bytes] = []
    seq = 0

    def rec(record_type: str, ts: int, **fields: Any) -> None:
        nonlocal seq
        seq += 1
        r: dict[str, Any] = {"version": 3, "recordType": record_type, "seq": seq, "ts": _iso(ts),
                             "originId": origin, "sessionId": sid}
        r.update(fields)
        lines.append(orjson.dumps(r))

    start_fields: dict[str, Any] = {}
    if _parent:
        start_fields["parentSessionId"] = _parent[1]
        start_fields["parentOpId"] = _parent[2]
    start_fields.update({"agentId": tree.get("agentId"), "callPath": tree.get("callPath"),
                         "headendId": "sub-agent" if _parent else "cli", "capturePayloads": with_payloads,
                         "attributes": {"ledgerPath": f"session/{sid}.jsonl"}})
    rec("session_start", tree.get("startedAt") or 0, **start_fields)

    turns = [t for t in tree.get("turns") or [] if t.get("index", 0) >= 1]
    session_acc = dict(_ZERO_ACC)
    all_children: list[dict[str, Any]] = []
    open_turn = None
    for n, t in enumerate(turns):
        last = n == len(turns) - 1
        rec("turn_start", t.get("startedAt") or 0, turn=t["index"])
        # sub-agents write their own ledgers (even while this turn is still open)
        for i, op in enumerate(t.get("ops") or [], 1):
            child = op.get("childSession")
            if op.get("kind") == "session" and isinstance(child, dict):
                _ledger(sd, child, with_payloads=with_payloads, running=False, partial_last_line=False,
                        store=store, parent=(origin, sid, op.get("opId")))
        if "endedAt" not in t or (is_running and last):
            open_turn = t
            break
        ops_out = []
        turn_acc = dict(_ZERO_ACC)
        warnings: list[str] = []
        errors: list[str] = []
        any_failed = False
        for i, op in enumerate(t.get("ops") or [], 1):
            a = op.get("attributes") or {}
            st = op.get("startedAt") or 0
            en = op.get("endedAt")
            o: dict[str, Any] = {"opId": op.get("opId"), "opIndex": i, "kind": op.get("kind"),
                                 "status": op.get("status") or "running", "startedAt": _iso(st)}
            if isinstance(en, int):
                o["endedAt"] = _iso(en)
                o["durationMs"] = en - st
            if a.get("name"):
                o["name"] = a["name"]
            if a.get("provider"):
                o["provider"] = a["provider"]
            if a.get("model"):
                o["model"] = a["model"]
            if with_payloads:
                refs = _op_refs(store, sid, t["index"], i, op)
                if refs:
                    o["payloadRefs"] = refs
            child = op.get("childSession")
            if op.get("kind") == "session" and isinstance(child, dict):
                link = _child_link(child, origin=origin, parent_sid=sid, parent_op=op.get("opId"))
                o["childSessions"] = [link]
                all_children.append(link)
            acc = _op_accounting(op)
            if acc is not None:
                o["accounting"] = acc
                _add_acc(turn_acc, acc)
            if a:
                o["attributes"] = a
            if op.get("status") == "failed":
                any_failed = True
            for lg in op.get("logs") or []:
                sev = lg.get("severity")
                if sev == "WRN":
                    warnings.append(lg.get("message", ""))
                elif sev == "ERR":
                    errors.append(lg.get("message", ""))
            ops_out.append(o)
        _add_acc(session_acc, turn_acc)
        turn_failed = last and tree.get("success") is False and any_failed
        rec("turn_end", t.get("endedAt") or 0, turn=t["index"], status="failed" if turn_failed else "ok",
            ops=ops_out, accounting=turn_acc, warnings=warnings, errors=errors)

    partial: bytes = b""
    if is_running or open_turn is not None:
        if partial_last_line:
            t = open_turn or (turns[-1] if turns else None)
            doc = orjson.dumps({"version": 3, "recordType": "turn_end", "seq": seq + 1,
                                "ts": _iso(last_activity(tree)), "originId": origin, "sessionId": sid,
                                "turn": (t or {}).get("index", 1), "status": "running", "ops": [],
                                "warnings": [], "errors": []})
            partial = doc[: len(doc) // 2]
    else:
        end = tree.get("endedAt") or last_activity(tree)
        status = _session_status(tree)
        if status == "failed":
            rec("session_error", end, error=tree.get("error") or "session failed")
        fr = tree.get("finalReport")
        summary: dict[str, Any] = {"status": status, "accounting": session_acc}
        if all_children:
            summary["childSessions"] = all_children
        if status == "ok":
            summary["finalReport"] = {"format": (fr or {}).get("format", "sub-agent" if _parent else "markdown"),
                                      "captured": True}
        else:
            summary["finalReport"] = {"format": "markdown", "captured": False}
            summary["error"] = tree.get("error") or "session failed"
        rec("session_summary", end, **summary)

    path = sd / "session" / f"{sid}.jsonl"
    data = b"\n".join(lines) + b"\n" + partial
    _atomic_write(path, data)
    store.ledgers.append(path)
    return path


# --------------------------------------------------------------------------------------------------
# Accounting ledger
# --------------------------------------------------------------------------------------------------


def _accounting_entries(node: dict) -> Iterable[dict[str, Any]]:
    """Post-order: a sub-agent's entries are appended when it ends, before its parent's."""
    own: list[dict[str, Any]] = []
    for group in (node.get("turns") or [], node.get("steps") or []):
        for t in group:
            for op in t.get("ops") or []:
                child = op.get("childSession")
                if op.get("kind") == "session" and isinstance(child, dict):
                    yield from _accounting_entries(child)
                own.extend(a for a in op.get("accounting") or [] if a.get("type") in ("llm", "tool"))
    yield from own


def write_accounting(path: str | os.PathLike, trees: Iterable[dict]) -> Path:
    """Write ``accounting.jsonl``: one AccountingEntry per line (all llm + tool entries, sub-agents included)."""
    p = Path(path)
    out = bytearray()
    for tree in trees:
        for e in _accounting_entries(tree):
            out += orjson.dumps(e)
            out += b"\n"
    _atomic_write(p, bytes(out))
    return p


# --------------------------------------------------------------------------------------------------
# A whole sessions directory
# --------------------------------------------------------------------------------------------------


def _touch(path: Path, ms: int) -> None:
    os.utime(path, (ms / 1000, ms / 1000))


def populate(
    sessions_dir: str | os.PathLike,
    *,
    count: int = 12,
    seed: int = 0,
    big_ops: int | None = None,
    start_ms: int | None = None,
) -> list[Path]:
    """Fill ``sessions_dir`` with a realistic mix and return every path written.

    * ``count`` snapshot files ``<traceId>.json.gz``: ~60% version 1, the rest version 2 (one of them in the
      wire-envelope shape when count >= 6); the last one (and the 4th from last when count >= 8) is running
      (``reason: subagent_finish``, no ``endedAt``); index 1 failed; index 2 has mismatching stored totals;
      index 3 a title with escape sequences / Rich markup; index 0 has ``big_ops`` ops when given.
    * one of the v2 snapshots (index 4 when count >= 6) also has a v3 ledger, its LLM captures moved to
      payload files (``payload.ref``) shared with that ledger;
    * two ledger-only v3 sessions: a running one (ends after ``turn_start`` plus a half-written line) and a
      failed one (``session_error``, payloads not captured);
    * an orphaned ``<uuid>.json.gz.tmp-123-456`` and a zero-byte ``<uuid>.json.gz``;
    * ``sessions_dir.parent / "accounting.jsonl"`` with the entries of the finished sessions.
    File mtimes are set to the sessions' end (or last activity) times. Sessions start at ``start_ms`` (default:
    a fixed, seeded date in 2026) and follow each other by a few minutes to an hour and a half.
    """
    sd = Path(sessions_dir)
    sd.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    written: list[Path] = []
    finished_trees: list[dict] = []
    t = _BASE_MS + rng.randrange(0, 30 * 86_400_000)
    if start_ms is not None:
        t = int(start_ms)

    running_idx = {count - 1} if count >= 1 else set()
    if count >= 8:
        running_idx.add(count - 4)
    failed_idx = 1 if count >= 3 else -1
    mismatch_idx = 2 if count >= 4 else -1
    hostile_idx = 3 if count >= 5 else -1
    ledger_idx = 4 if count >= 6 else -1
    fixed_v2 = set(running_idx) | ({ledger_idx} if ledger_idx >= 0 else set())
    others = [i for i in range(count) if i not in fixed_v2]
    n_v1 = min(len(others), round(0.6 * count))
    v1_idx = set(rng.sample(others, n_v1)) if others else set()
    v2_plain = [i for i in others if i not in v1_idx]
    envelope_idx = v2_plain[0] if count >= 6 and v2_plain else -1

    for i in range(count):
        t += rng.randint(5, 90) * 60_000
        running = i in running_idx
        version = 1 if i in v1_idx else 2
        kw: dict[str, Any] = dict(
            ops=rng.randint(12, 90), depth=rng.choice((0, 1, 1, 2, 2, 3)), fanout=rng.choice((1, 2, 2, 3)),
            payload_bytes=rng.choice((400, 800, 1500, 2500)),
        )
        if i == 0 and big_ops:
            kw.update(ops=big_ops, depth=2, fanout=3, payload_bytes=800)
        if i == ledger_idx:
            kw.update(ops=rng.randint(16, 30), depth=1, fanout=2)
        tree = make_tree(
            seed * 1000 + i, version=version, running=running, failed=(i == failed_idx),
            mismatch=(i == mismatch_idx), started_at=t, **kw,
        )
        if i == hostile_idx:
            tree["sessionTitle"] = f"Deploy report {HOSTILE_STRINGS[0]} {HOSTILE_STRINGS[2]} {HOSTILE_STRINGS[1]}"
        if not running:
            finished_trees.append(tree)
        shape = "envelope" if i == envelope_idx else "file"
        doc_tree = tree
        if i == ledger_idx:
            store = _Store(sd)
            _ledger(sd, tree, with_payloads=True, running=False, partial_last_line=False, store=store, parent=None)
            doc_tree = externalize_payloads(sd, tree)
            end = last_activity(tree)
            for p in [*store.paths, *store.ledgers]:
                _touch(p, end)
                written.append(p)
        path = write_snapshot(sd, doc_tree, version=version, reason="subagent_finish" if running else "final",
                              shape=shape)
        _touch(path, last_activity(tree))
        written.append(path)
        t = max(t, last_activity(tree))

    # ledger-only sessions
    for j, (running, failed) in enumerate(((True, False), (False, True))):
        t += rng.randint(5, 60) * 60_000
        tree = make_tree(seed * 1000 + 900 + j, ops=rng.randint(10, 24), depth=1, fanout=1, running=running,
                         failed=failed, payload_bytes=600, started_at=t)
        store = _Store(sd)
        _ledger(sd, tree, with_payloads=not failed, running=False, partial_last_line=running, store=store,
                parent=None)
        end = last_activity(tree)
        for p in [*store.paths, *store.ledgers]:
            _touch(p, end)
            written.append(p)
        if not running:
            finished_trees.append(tree)

    # odd files
    t += 60_000
    orphan_tree = make_tree(seed * 1000 + 990, ops=8, depth=0, payload_bytes=300, started_at=t)
    blob = _gz(orjson.dumps({"version": 2, "reason": "final", "opTree": orphan_tree}))
    orphan = sd / f"{orphan_tree['traceId']}.json.gz.tmp-123-456"
    orphan.write_bytes(blob[: len(blob) // 2])
    _touch(orphan, last_activity(orphan_tree))
    written.append(orphan)
    zrng = random.Random(seed * 7919 + 1)
    zero = sd / f"{uuid.UUID(int=zrng.getrandbits(128), version=4)}.json.gz"
    zero.write_bytes(b"")
    _touch(zero, t + 120_000)
    written.append(zero)

    acc = write_accounting(sd.parent / "accounting.jsonl", finished_trees)
    _touch(acc, t + 180_000)
    written.append(acc)
    return written
