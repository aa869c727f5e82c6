"""v3 ledgers (one per session and sub-agent) and ``populate``: a sessions directory of every file kind."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import orjson

from .catalog import HOSTILE_STRINGS, iso, uuid4
from .snapshots import Store, atomic_write, externalize_payloads, gz, op_refs, touch, write_accounting, write_snapshot
from .tree import BASE_MS, last_activity, make_tree

_ZERO_ACC = {"tokensIn": 0, "tokensOut": 0, "tokensCacheRead": 0, "tokensCacheWrite": 0, "costUsd": 0.0}


def _op_accounting(op: dict) -> dict[str, Any] | None:
    acc = None
    for a in op.get("accounting") or []:
        if a.get("type") != "llm":
            continue
        acc = acc or dict(_ZERO_ACC)
        tk = a.get("tokens") or {}
        cr = tk.get("cacheReadInputTokens")
        for key, value in (("tokensIn", tk.get("inputTokens")), ("tokensOut", tk.get("outputTokens")),
                           ("tokensCacheRead", cr if cr is not None else tk.get("cachedTokens")),
                           ("tokensCacheWrite", tk.get("cacheWriteInputTokens")), ("costUsd", a.get("costUsd"))):
            acc[key] += value or 0
    if acc is not None:
        acc["costUsd"] = round(acc["costUsd"], 6)
    return acc


def _drop_zero_cost(acc: dict[str, Any]) -> dict[str, Any]:
    """The producer leaves ``costUsd`` out of ledger accounting when it is 0."""
    return {k: v for k, v in acc.items() if k != "costUsd" or v}


def _add_acc(total: dict[str, Any], acc: dict[str, Any]) -> None:
    total.update({k: total[k] + acc[k] for k in _ZERO_ACC}, costUsd=round(total["costUsd"] + acc["costUsd"], 6))


def _session_status(node: dict) -> str:
    return "running" if "endedAt" not in node or "success" not in node else "ok" if node["success"] else "failed"


@dataclass
class _Ledger:
    """One ledger being written: its records, and what its turns add up to."""

    tree: dict
    sid: Any  # the tree's traceId (or id): what the file says
    origin: Any
    store: Store
    with_payloads: bool
    fan_out_rate: float
    lines: list[bytes] = field(default_factory=list)
    acc: dict[str, Any] = field(default_factory=lambda: dict(_ZERO_ACC))
    children: list[dict[str, Any]] = field(default_factory=list)  # session_summary.childSessions
    kids_by_op: dict[int, list[dict]] = field(default_factory=dict)

    def rec(self, record_type: str, ts: int, **fields: Any) -> None:
        self.lines.append(orjson.dumps({"version": 3, "recordType": record_type, "seq": len(self.lines) + 1,
                                        "ts": iso(ts), "originId": self.origin, "sessionId": self.sid, **fields}))


def write_ledger(sessions_dir: str | os.PathLike, tree: dict, *, with_payloads: bool = True, running: bool = False,
                 partial_last_line: bool = False, store: Store | None = None,
                 parent: tuple[Any, Any, Any] | None = None, fan_out_rate: float = 0.25) -> Path:
    """The v3 ledgers of ``tree`` and its sub-agents with real ones' quirks; ``parent``: (originId, sessionId, opId)."""
    sd, sid = Path(sessions_dir), tree.get("traceId") or tree.get("id")
    store = Store(sd) if store is None else store
    led = _Ledger(tree, sid, parent[0] if parent else sid, store, with_payloads, fan_out_rate)
    is_running = running or "endedAt" not in tree
    lrng = random.Random(f"ledger/{sid}")  # ~3% of child ledgers lack parentSessionId, some lack parentOpId
    start = {"parentSessionId": parent[1]} if parent and lrng.random() >= 0.03 else {}
    start |= {"parentOpId": parent[2]} if parent and lrng.random() >= 0.15 else {}
    headend = ("tool_output" if tree.get("agentId") == "tool_output.read_grep" else "sub-agent") if parent else "cli"
    led.rec("session_start", tree.get("startedAt") or 0, **start, agentId=tree.get("agentId"),
            callPath=tree.get("callPath"), headendId=headend, capturePayloads=with_payloads,
            attributes={"ledgerPath": f"session/{sid}.jsonl"})
    all_turns = [t for t in tree.get("turns") or [] if isinstance(t, dict)]
    turn0 = next((t for t in all_turns if t.get("index") == 0), None)
    turns = [t for t in all_turns if t.get("index", 0) >= 1]
    open_turn = None
    if turn0 is not None:
        led.rec("turn_start", turn0.get("startedAt") or 0, turn=0)
    for n, t in enumerate(turns):
        last = n == len(turns) - 1
        led.rec("turn_start", t.get("startedAt") or 0, turn=t["index"])
        for op in t.get("ops") or []:  # sub-agents write their own ledgers (even while this turn is still open)
            for kid in _children_of(led, op):
                write_ledger(sd, kid, with_payloads=with_payloads, store=store, fan_out_rate=fan_out_rate,
                             parent=(led.origin, sid, op.get("opId")))
        if "endedAt" not in t or (is_running and last):
            open_turn = t
            break
        any_failed = any(op.get("status") == "failed" for op in t.get("ops") or [])
        _turn_end(led, t, failed=last and tree.get("success") is False and any_failed)
    if open_turn is None and not is_running and turn0 is not None and "endedAt" in turn0:
        _turn_end(led, turn0, failed=False)  # turn 0 (init ... final-report, fin) ends with the session
    partial = b""
    if is_running or open_turn is not None:
        if partial_last_line:  # the producer was writing a turn_end
            led.rec("turn_end", last_activity(tree), turn=(open_turn or (turns[-1] if turns else {})).get("index", 1),
                    status="running", ops=[], warnings=[], errors=[])
            doc = led.lines.pop()
            partial = doc[: len(doc) // 2]
    else:
        _session_end(led, parent is not None)
    store.ledgers.append(atomic_write(sd / "session" / f"{sid}.jsonl", b"\n".join(led.lines) + b"\n" + partial))
    return store.ledgers[-1]


def _session_end(led: _Ledger, is_child: bool) -> None:
    tree = led.tree
    end = tree.get("endedAt") or last_activity(tree)
    status = _session_status(tree)
    if status == "failed":
        led.rec("session_error", end, error=tree.get("error") or "session failed")
    summary: dict[str, Any] = {"status": status, "accounting": _drop_zero_cost(led.acc),
                               **({"childSessions": led.children} if led.children else {})}
    ok = status == "ok"
    fmt = (tree.get("finalReport") or {}).get("format", "sub-agent" if is_child else "markdown") if ok else "markdown"
    summary["finalReport"] = {"format": fmt, "captured": ok}
    if not ok:
        summary["error"] = tree.get("error") or "session failed"
    led.rec("session_summary", end, **summary)


def _children_of(led: _Ledger, op: dict) -> list[dict]:
    """The child sessions a session op links (kept for its record): its own, plus same-agent trees if it fans out."""
    child = op.get("childSession")
    kids = led.kids_by_op[id(op)] = []
    if op.get("kind") != "session" or not isinstance(child, dict) or not child.get("turns"):
        return kids
    frng = random.Random(f"fanout/{led.sid}/{op.get('opId')}")
    kids.append(child)
    if frng.random() < led.fan_out_rate and "endedAt" in child and child.get("agentId") != "tool_output.read_grep":
        for _k in range(frng.randint(1, 2)):
            start = (op.get("startedAt") or 0) + frng.randint(2, 40)
            extra = make_tree(frng.randrange(1 << 30), ops=frng.randint(5, 9), depth=0, version=1,
                              payload_bytes=300, started_at=start, agent=child.get("agentId"), hostile_rate=0.0)
            extra["callPath"] = child.get("callPath")
            kids.append(extra)
    return kids


def _child_links(led: _Ledger, op: dict) -> list[dict[str, Any]]:
    """An op record's ``childSessions``; every child also goes to the summary's (some only there)."""
    links, frng = [], random.Random(f"links/{led.sid}/{op.get('opId')}")
    kids = led.kids_by_op.get(id(op), ())
    for kid in kids:
        cid = kid.get("traceId") or kid.get("id")
        link = {"sessionId": cid, "originId": led.origin, "parentSessionId": led.sid, "parentOpId": op.get("opId"),
                "ledgerPath": f"session/{cid}.jsonl", "status": _session_status(kid), "agentId": kid.get("agentId"),
                "callPath": kid.get("callPath")}
        drop = ("agentId", "callPath") if frng.random() < 0.5 else ()
        led.children.append({k: v for k, v in link.items() if k not in drop})
        if len(kids) > 1 or frng.random() >= 0.1:
            links.append(link)
    return links


def _turn_end(led: _Ledger, t: dict, *, failed: bool) -> None:
    ops_out, turn_acc, has_llm = [], dict(_ZERO_ACC), False
    logs: dict[str, list[str]] = {"WRN": [], "ERR": []}  # the turn's warnings and errors
    for i, op in enumerate(t.get("ops") or [], 1):
        a = op.get("attributes") or {}
        st, en = op.get("startedAt") or 0, op.get("endedAt")
        o: dict[str, Any] = {"opId": op.get("opId"), "opIndex": i, "kind": op.get("kind"),
                             "status": op.get("status") or "running", "startedAt": iso(st)}
        o |= {"endedAt": iso(en), "durationMs": en - st} if isinstance(en, int) else {}
        o.update({k: a[k] for k in ("name", "provider", "model") if a.get(k)})
        refs = op_refs(led.store, led.sid, t["index"], i, op) if led.with_payloads else []
        o.update({"payloadRefs": refs} if refs else {})
        links = _child_links(led, op)
        o.update({"childSessions": links} if links else {})
        acc = _op_accounting(op)
        if acc is not None:
            has_llm = True
            o["accounting"] = _drop_zero_cost(acc)
            _add_acc(turn_acc, acc)
        o.update({"attributes": a} if a else {})
        for lg in op.get("logs") or []:
            logs.get(lg.get("severity"), []).append(lg.get("message", ""))
        ops_out.append(o)
    _add_acc(led.acc, turn_acc)
    fields: dict[str, Any] = {"turn": t["index"], "status": "failed" if failed else "ok", "ops": ops_out,  # no
                              **({"accounting": _drop_zero_cost(turn_acc)} if has_llm else {})}  # (system turns)
    led.rec("turn_end", t.get("endedAt") or 0, **fields, warnings=logs["WRN"], errors=logs["ERR"])


def populate(sessions_dir: str | os.PathLike, *, count: int = 12, seed: int = 0, big_ops: int | None = None,
             start_ms: int | None = None) -> list[Path]:
    """Every file kind in ``sessions_dir``: sessions from ``start_ms`` on, one after another, mtimes their ends."""
    sd = Path(sessions_dir)
    sd.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    written: list[Path] = []
    finished: list[dict] = []
    t = BASE_MS + rng.randrange(0, 30 * 86_400_000)
    t = int(start_ms) if start_ms is not None else t
    for tree, path in _snapshots(sd, rng, count, seed, big_ops, t, written):
        touch(path, last_activity(tree))
        written.append(path)
        t = max(t, last_activity(tree))
        finished += [tree] if "endedAt" in tree else []
    for j, (running, failed) in enumerate(((True, False), (False, True))):  # ledger-only sessions
        t += rng.randint(5, 60) * 60_000
        tree = make_tree(seed * 1000 + 900 + j, ops=rng.randint(10, 24), depth=1, fanout=1, running=running,
                         failed=failed, payload_bytes=600, started_at=t)
        _ledger_files(sd, tree, written, with_payloads=not failed, partial_last_line=running, fan_out_rate=1.0)
        finished += [] if running else [tree]
    t += 60_000  # odd files
    orphan_tree = make_tree(seed * 1000 + 990, ops=8, depth=0, payload_bytes=300, started_at=t)
    blob = gz(orjson.dumps({"version": 2, "reason": "final", "opTree": orphan_tree}))
    orphan = sd / f"{orphan_tree['traceId']}.json.gz.tmp-123-456"  # a write cut short, and an empty file
    zero = sd / f"{uuid4(random.Random(seed * 7919 + 1))}.json.gz"
    for path, data, ms in ((orphan, blob[: len(blob) // 2], last_activity(orphan_tree)), (zero, b"", t + 120_000)):
        path.write_bytes(data)
        touch(path, ms)
    acc = write_accounting(sd / "accounting.jsonl", finished)
    touch(acc, t + 180_000)
    return written + [orphan, zero, acc]


def _ledger_files(sd: Path, tree: dict, written: list[Path], **kw: Any) -> None:
    store = Store(sd)
    write_ledger(sd, tree, store=store, **kw)
    for p in [*(store.root / rel for rel in store.written), *store.ledgers]:
        touch(p, last_activity(tree))
        written.append(p)


def _snapshots(sd: Path, rng: random.Random, count: int, seed: int, big_ops: int | None, t: int,
               written: list[Path]) -> Iterator[tuple[dict, Path]]:
    """``populate``'s snapshots, one at a time (the caller moves the clock on)."""
    running_idx = {count - 1} | ({count - 4} if count >= 8 else set())
    failed_idx, mismatch_idx, hostile_idx, ledger_idx = (i if count >= i + 2 else -1 for i in (1, 2, 3, 4))
    fixed_v2 = running_idx | ({ledger_idx} if ledger_idx >= 0 else set())
    others = [i for i in range(count) if i not in fixed_v2]
    v1_idx = set(rng.sample(others, min(len(others), round(0.6 * count)))) if others else set()
    v2_plain = [i for i in others if i not in v1_idx]
    envelope_idx = v2_plain[0] if count >= 6 and v2_plain else -1
    for i in range(count):
        t += rng.randint(5, 90) * 60_000
        kw: dict[str, Any] = dict(ops=rng.randint(12, 90), depth=rng.choice((0, 1, 1, 2, 2, 3)),
                                  fanout=rng.choice((1, 2, 2, 3)), payload_bytes=rng.choice((400, 800, 1500, 2500)))
        if i == 0 and big_ops:
            kw.update(ops=big_ops, depth=2, fanout=3, payload_bytes=800)
        if i == ledger_idx:
            kw.update(ops=rng.randint(16, 30), depth=1, fanout=2)
        version, running = 1 if i in v1_idx else 2, i in running_idx
        tree = make_tree(seed * 1000 + i, version=version, running=running, failed=i == failed_idx,
                         mismatch=i == mismatch_idx, started_at=t, **kw)
        if i == hostile_idx:
            tree["sessionTitle"] = f"Deploy report {HOSTILE_STRINGS[0]} {HOSTILE_STRINGS[2]} {HOSTILE_STRINGS[1]}"
        if i == ledger_idx:  # its snapshot refers to the ledger's payload files
            _ledger_files(sd, tree, written, with_payloads=True, partial_last_line=False, fan_out_rate=0.5)
        doc_tree = externalize_payloads(sd, tree) if i == ledger_idx else tree
        yield tree, write_snapshot(sd, doc_tree, version=version, reason="subagent_finish" if running else "final",
                                   shape="envelope" if i == envelope_idx else "file")
        t = max(t, last_activity(tree))
