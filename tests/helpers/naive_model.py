"""Naive recomputations of totals and counts, written from the specs (formats.md, the producer's recomputeTotals)
for the property tests: deliberately simple and independent of tui/model, so the two can check each other.

Rules (snapshot trees, the producer's `recomputeTotals` in src/session-tree.ts):
- every session node visited adds 1 to agentsRun; the walk follows `childSession` only on ops of kind `session`
  (a child on any other op is shown by the monitor but, like the producer, not counted);
- every op of kind `tool` adds 1 to toolsRun;
- every accounting entry whose type is `llm` adds its tokens and cost: cache read is
  `cacheReadInputTokens ?? cachedTokens` (JS `??`: only a missing/null value falls back, an explicit 0 wins); cost
  adds only when it is a number;
- ops are those of `turns[]` and, for version-2 trees, `steps[]` ("walk every op recursively").
Where the producer's JavaScript would do something absurd with a wrong type (add a string to a number), the monitor
counts the value as 0: a token count is a JSON number that is not a boolean, and a fractional one is truncated.
"""

from __future__ import annotations

import math
from pathlib import Path

import orjson

TOTAL_KEYS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd", "toolsRun", "agentsRun")
SEVERITY_COUNTS = {"WRN": "warnings", "ERR": "errors"}


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def tokens(value: object) -> int:
    return math.trunc(value) if _number(value) else 0


def cost(value: object) -> float:
    return float(value) if _number(value) else 0.0


def _items(value: object) -> list:
    return value if isinstance(value, list) else []


def _containers(node: dict):
    """The turns and v2 steps of a session node (each a dict or not)."""
    for key in ("turns", "steps"):
        yield from ((key, item) for item in _items(node.get(key)))


def _ops(node: dict):
    for _, container in _containers(node):
        if isinstance(container, dict):
            yield from _items(container.get("ops"))


def zero_totals() -> dict:
    return {key: 0 for key in TOTAL_KEYS} | {"costUsd": 0.0}


def llm_usage(entry: dict) -> tuple[int, int, int, int, float]:
    tok = entry.get("tokens")
    tok = tok if isinstance(tok, dict) else {}
    cache_read = tok.get("cacheReadInputTokens")
    if cache_read is None:  # JS `??`
        cache_read = tok.get("cachedTokens")
    return (tokens(tok.get("inputTokens")), tokens(tok.get("outputTokens")), tokens(cache_read),
            tokens(tok.get("cacheWriteInputTokens")), cost(entry.get("costUsd")))


def tree_totals(node: object) -> dict:
    """The producer's recomputed totals of a SessionNode (cost not rounded)."""
    t = zero_totals()

    def visit(session: object) -> None:
        t["agentsRun"] += 1
        if not isinstance(session, dict):
            return
        for op in _ops(session):
            if not isinstance(op, dict):
                continue
            if op.get("kind") == "tool":
                t["toolsRun"] += 1
            for entry in _items(op.get("accounting")):
                if isinstance(entry, dict) and entry.get("type") == "llm":
                    tin, tout, cread, cwrite, c = llm_usage(entry)
                    t["tokensIn"] += tin
                    t["tokensOut"] += tout
                    t["tokensCacheRead"] += cread
                    t["tokensCacheWrite"] += cwrite
                    t["costUsd"] += c
            child = op.get("childSession")
            if op.get("kind") == "session" and child is not None:
                visit(child)

    visit(node)
    return t


def producer_totals(node: object) -> dict:
    """What the producer stores in `totals` (cost rounded to 4 decimals)."""
    t = tree_totals(node)
    t["costUsd"] = round(t["costUsd"], 4)
    return t


# "turnNodes": every turn record in the tree (the monitor's "turns" are the root's user turns, one meaning everywhere)
COUNT_KEYS = ("sessions", "turnNodes", "steps", "ops", "llm", "tool", "session", "system", "failed", "logs",
              "warnings", "errors")


def tree_counts(node: object) -> tuple[dict, int]:
    """What the monitor shows of a SessionNode: node counts over everything displayed (a child on a non-session op
    included), and the deepest sub-agent level (root = 0)."""
    c = {key: 0 for key in COUNT_KEYS}
    deepest = 0
    stack = [(node, 0)]
    while stack:
        session, depth = stack.pop()
        deepest = max(deepest, depth)
        c["sessions"] += 1
        if not isinstance(session, dict):
            continue
        for key, container in _containers(session):
            c["turnNodes" if key == "turns" else key] += 1
            if not isinstance(container, dict):
                continue
            for op in _items(container.get("ops")):
                c["ops"] += 1
                if not isinstance(op, dict):
                    continue
                kind = op.get("kind")
                if kind in ("llm", "tool", "session", "system"):
                    c[kind] += 1
                if op.get("status") == "failed":
                    c["failed"] += 1
                logs = op.get("logs")
                if isinstance(logs, list):
                    c["logs"] += len(logs)
                    for entry in logs:
                        severity = entry.get("severity") if isinstance(entry, dict) else None
                        if isinstance(severity, str) and severity in SEVERITY_COUNTS:
                            c[SEVERITY_COUNTS[severity]] += 1
                if op.get("childSession") is not None:
                    stack.append((op["childSession"], depth + 1))
    return c, deepest


# v3 ledgers -----------------------------------------------------------------------------------------------------


def ledger_lines(data: bytes) -> list[dict]:
    """The records a reader sees: complete lines that are JSON objects, plus a last unterminated line if it parses."""
    out = []
    pieces = data.split(b"\n")
    for n, piece in enumerate(pieces):
        last = n == len(pieces) - 1
        if not piece.strip():
            continue
        try:
            value = orjson.loads(piece)
        except orjson.JSONDecodeError:
            if last:
                break
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def ledger_totals(sessions_dir: Path, ledger: Path) -> tuple[dict, int]:
    """Totals over a ledger and the child ledgers it names (each file read once, inside sessions_dir only), and the
    number of ops shown. Ops count when their turn has ended (the last turn_end record of a turn number wins).

    Every child is shown, once per session (entries naming the same sessionId or ledgerPath are one child): an op
    shows its first child itself and one more node per further child (a fan-out); a child only the last
    session_summary lists joins the op its parentOpId names the same way, or else gets a node of its own. A child
    entry without ledgerPath names `session/<sessionId>.jsonl`. Turns are taken in the order they first ended."""
    base = sessions_dir.resolve()
    t = zero_totals()
    ops_seen = 0
    visited = {ledger.resolve()}

    def child_path(ref: object) -> Path | None:
        rel = ref.get("ledgerPath") if isinstance(ref, dict) else None
        if (not isinstance(rel, str) or not rel) and isinstance(ref, dict):
            sid = ref.get("sessionId")
            if isinstance(sid, str) and sid not in ("", ".", "..") and not any(c in sid for c in "/\\\x00"):
                rel = f"session/{sid}.jsonl"
        if not isinstance(rel, str) or not rel or "\x00" in rel or Path(rel).is_absolute():
            return None
        p = (base / rel).resolve()
        if not p.is_relative_to(base) or p in visited or not p.is_file() or p.stat().st_size == 0:
            return None  # an empty child ledger is shown as a reference with its problem, not as a session
        return p

    def keys_of(ref: object) -> set:
        if not isinstance(ref, dict):
            return set()
        sid, rel = ref.get("sessionId"), ref.get("ledgerPath")
        return ({f"id:{sid}"} if isinstance(sid, str) and sid else set()) | (
            {f"path:{rel}"} if isinstance(rel, str) and rel else set())

    def visit(path: Path, depth: int) -> None:
        nonlocal ops_seen
        t["agentsRun"] += 1
        records = ledger_lines(path.read_bytes())
        turns: dict[int, list] = {}
        summary: object = None
        for r in records:
            if r.get("recordType") == "turn_end":
                number = r.get("turn")
                number = math.trunc(number) if _number(number) else -1
                turns[number] = r.get("ops") if isinstance(r.get("ops"), list) else []
            elif r.get("recordType") == "session_summary":
                summary = r.get("childSessions")
        linked: set = set()
        children: dict[int, int] = {}  # id(op) -> children it shows

        def show(op_key: int | None, ref: object) -> None:
            nonlocal ops_seen
            if op_key is None or children.get(op_key, 0):
                ops_seen += 1  # a node of its own: a fan-out sibling or an orphan
            if op_key is not None:
                children[op_key] = children.get(op_key, 0) + 1
            p = child_path(ref)
            if p is not None and depth < 64:
                visited.add(p)
                visit(p, depth + 1)

        for number in turns:
            for op in turns[number]:
                ops_seen += 1
                if not isinstance(op, dict):
                    continue
                acc = op.get("accounting") if isinstance(op.get("accounting"), dict) else {}
                t["tokensIn"] += tokens(acc.get("tokensIn"))
                t["tokensOut"] += tokens(acc.get("tokensOut"))
                t["tokensCacheRead"] += tokens(acc.get("tokensCacheRead"))
                t["tokensCacheWrite"] += tokens(acc.get("tokensCacheWrite"))
                t["costUsd"] += cost(acc.get("costUsd"))
                if op.get("kind") == "tool":
                    t["toolsRun"] += 1
                for ref in _items(op.get("childSessions")):
                    keys = keys_of(ref)
                    if keys & linked:
                        continue
                    linked.update(keys)
                    show(id(op), ref)
        by_op_id: dict = {}
        for number in sorted(turns):
            for op in turns[number]:
                if isinstance(op, dict) and isinstance(op.get("opId"), str) and op["opId"]:
                    by_op_id.setdefault(op["opId"], op)
        for ref in _items(summary):
            keys = keys_of(ref)
            if not keys or keys & linked:
                continue
            linked.update(keys)
            op_id = ref.get("parentOpId")
            parent = by_op_id.get(op_id) if isinstance(op_id, str) else None
            show(id(parent) if parent is not None else None, ref)

    visit(ledger.resolve(), 0)
    return t, ops_seen
