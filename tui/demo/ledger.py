"""v3 ledgers: ``session/<sessionId>.jsonl`` per session and sub-agent, with accounting and payloadRefs."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import orjson

from .clock import _iso
from .file_io import _atomic_write
from .payloads import _op_refs, _Store
from .walk import last_activity

__all__ = ["write_ledger"]

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


def _drop_zero_cost(acc: dict[str, Any]) -> dict[str, Any]:
    """The producer leaves ``costUsd`` out of ledger accounting when it is 0."""
    return {k: v for k, v in acc.items() if k != "costUsd" or v}


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


def _fan_out_children(op: dict, child: dict, rng: random.Random) -> list[dict]:
    """Extra children of a session op that fans out (one op, several sub-agent sessions, each with its own
    ledger): small finished trees of the same agent, started within the op."""
    from .generator import make_tree  # late: the generator does not need the ledger writer

    extra = []
    for k in range(rng.randint(1, 2)):
        start = (op.get("startedAt") or 0) + rng.randint(2, 40)
        t = make_tree(rng.randrange(1 << 30), ops=rng.randint(5, 9), depth=0, version=1, payload_bytes=300,
                      started_at=start, agent=child.get("agentId"), hostile_rate=0.0)
        t["callPath"] = child.get("callPath")
        extra.append(t)
    return extra


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
    sub-agents, which have ledgers of their own); ``costUsd`` is left out when 0 and a system-only turn (turn 0,
    whose turn_end comes when the session ends) has no accounting. As in real ledgers, some session ops fan out
    (several ``childSessions``, each its own ledger), some children are listed only in
    ``session_summary.childSessions`` (whose entries may lack agentId/callPath), ~3% of child ledgers lack
    ``parentSessionId`` and some ``session_start`` records lack ``parentOpId``.
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
    fan_out_rate: float = 0.25,
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

    # real child ledgers: ~3% lack parentSessionId (linked only through the parent's childSessions[]) and
    # session_start may lack parentOpId
    lrng = random.Random(f"ledger/{sid}")
    start_fields: dict[str, Any] = {}
    if _parent:
        if lrng.random() >= 0.03:
            start_fields["parentSessionId"] = _parent[1]
        if lrng.random() >= 0.15:
            start_fields["parentOpId"] = _parent[2]
    headend = ("tool_output" if tree.get("agentId") == "tool_output.read_grep" else "sub-agent") if _parent else "cli"
    start_fields.update({"agentId": tree.get("agentId"), "callPath": tree.get("callPath"),
                         "headendId": headend, "capturePayloads": with_payloads,
                         "attributes": {"ledgerPath": f"session/{sid}.jsonl"}})
    rec("session_start", tree.get("startedAt") or 0, **start_fields)

    all_turns = [t for t in tree.get("turns") or [] if isinstance(t, dict)]
    turn0 = next((t for t in all_turns if t.get("index") == 0), None)
    turns = [t for t in all_turns if t.get("index", 0) >= 1]
    session_acc = dict(_ZERO_ACC)
    all_children: list[dict[str, Any]] = []
    open_turn = None

    def children_of(op: dict) -> list[dict]:
        """The child sessions a session op links: its own and, when it fans out, a few more."""
        child = op.get("childSession")
        if op.get("kind") != "session" or not isinstance(child, dict):
            return []
        if not child.get("turns"):
            return []  # a full-chunked tool_output tree: not an agent session, no ledger of its own
        frng = random.Random(f"fanout/{sid}/{op.get('opId')}")
        kids = [child]
        if (frng.random() < fan_out_rate and "endedAt" in child
                and child.get("agentId") != "tool_output.read_grep"):
            kids.extend(_fan_out_children(op, child, frng))
        return kids

    def turn_end(t: dict, *, failed: bool) -> None:
        ops_out = []
        turn_acc = dict(_ZERO_ACC)
        has_llm = False
        warnings: list[str] = []
        errors: list[str] = []
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
            links = []
            frng = random.Random(f"links/{sid}/{op.get('opId')}")
            kids = kids_by_op.get(id(op), ())
            for kid in kids:
                link = _child_link(kid, origin=origin, parent_sid=sid, parent_op=op.get("opId"))
                summary_link = dict(link)
                if frng.random() < 0.5:  # summary entries may lack agentId/callPath
                    summary_link.pop("agentId", None)
                    summary_link.pop("callPath", None)
                all_children.append(summary_link)
                # some (single) children appear only in session_summary.childSessions
                if len(kids) > 1 or frng.random() >= 0.1:
                    links.append(link)
            if links:
                o["childSessions"] = links
            acc = _op_accounting(op)
            if acc is not None:
                has_llm = True
                o["accounting"] = _drop_zero_cost(acc)
                _add_acc(turn_acc, acc)
            if a:
                o["attributes"] = a
            for lg in op.get("logs") or []:
                sev = lg.get("severity")
                if sev == "WRN":
                    warnings.append(lg.get("message", ""))
                elif sev == "ERR":
                    errors.append(lg.get("message", ""))
            ops_out.append(o)
        _add_acc(session_acc, turn_acc)
        fields: dict[str, Any] = {"turn": t["index"], "status": "failed" if failed else "ok", "ops": ops_out}
        if has_llm:  # absent on system-only turns (turn 0)
            fields["accounting"] = _drop_zero_cost(turn_acc)
        fields["warnings"] = warnings
        fields["errors"] = errors
        rec("turn_end", t.get("endedAt") or 0, **fields)

    kids_by_op: dict[int, list[dict]] = {}
    if turn0 is not None:
        rec("turn_start", turn0.get("startedAt") or 0, turn=0)
    for n, t in enumerate(turns):
        last = n == len(turns) - 1
        rec("turn_start", t.get("startedAt") or 0, turn=t["index"])
        # sub-agents write their own ledgers (even while this turn is still open)
        for op in t.get("ops") or []:
            kids = children_of(op)
            if kids:
                kids_by_op[id(op)] = kids
            for kid in kids:
                _ledger(sd, kid, with_payloads=with_payloads, running=False, partial_last_line=False,
                        store=store, parent=(origin, sid, op.get("opId")), fan_out_rate=fan_out_rate)
        if "endedAt" not in t or (is_running and last):
            open_turn = t
            break
        any_failed = any(op.get("status") == "failed" for op in t.get("ops") or [])
        turn_end(t, failed=last and tree.get("success") is False and any_failed)
    # turn 0 (init ... final-report, fin) ends with the session
    if open_turn is None and not is_running and turn0 is not None and "endedAt" in turn0:
        turn_end(turn0, failed=False)

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
        summary: dict[str, Any] = {"status": status, "accounting": _drop_zero_cost(session_acc)}
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
