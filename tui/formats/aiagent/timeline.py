"""A SessionNode as it was at an earlier instant: what a live stream would have carried at time t.

Pure Python (no textual; of tui.model only its trampoline): used by the replay source to rebuild the `op_tree`
events that produced a saved snapshot. The input tree is never mutated: containers that change are copied, leaves
are shared.
"""

from __future__ import annotations

from tui.model.trampoline import drive

from tui.formats.aiagent.snapshot_totals import TOTALS_KEYS, compute_totals

__all__ = ["event_times", "ms", "tree_at"]

# Fields an op only has once it has finished.
_OP_END_FIELDS = ("endedAt", "status", "response", "error")
_OP_END_ATTRIBUTES = ("latency", "size", "error")
# Fields a session only has once it has finished.
_SESSION_END_FIELDS = ("endedAt", "success", "error", "finalReport")


def ms(value: object) -> int | None:
    """A SessionNode time (ms, a JSON number) as int; None for anything else (bool included)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def _started_by(node: object, t_ms: int) -> bool:
    """True when the node had started at t (nodes without a usable startedAt are kept)."""
    if not isinstance(node, dict):
        return True
    start = ms(node.get("startedAt"))
    return start is None or start <= t_ms


def _ended_by(node: dict, t_ms: int) -> bool:
    end = ms(node.get("endedAt"))
    return end is not None and end <= t_ms


def _entries_by(entries: object, t_ms: int) -> object:
    if not isinstance(entries, list):
        return entries
    out = []
    for entry in entries:
        ts = ms(entry.get("timestamp")) if isinstance(entry, dict) else None
        if ts is None or ts <= t_ms:
            out.append(entry)
    return out


def tree_at(tree: dict, t_ms: int) -> dict:
    """The SessionNode `tree` as it was at `t_ms`.

    Turns, steps and ops that had not started by t are left out; ops still open at t lose endedAt, status and their
    response (they are running); logs and accounting entries keep those with timestamp <= t; a childSession is cut
    the same way (left out if it had not started yet); a session still open at t loses endedAt, success, error and
    finalReport. Every session node gets totals recomputed for what remains.

    Sub-agents are cut without recursion (each session is a generator that yields the sessions below it), so a
    chain of sub-agents hundreds deep is no problem.
    """
    return drive(_session_at(tree, t_ms))


def _session_at(node: dict, t_ms: int):
    out = dict(node)
    finished = _ended_by(node, t_ms)
    if not finished:
        for key in _SESSION_END_FIELDS:
            out.pop(key, None)
    for key in ("turns", "steps"):
        items = node.get(key)
        if isinstance(items, list):
            kept = []
            for item in items:
                if _started_by(item, t_ms):
                    kept.append((yield from _turn_at(item, t_ms)))
            out[key] = kept
    totals = compute_totals(out)
    stored = node.get("totals")
    if finished and isinstance(stored, dict):
        # Extra counters (turnsUsed, toolsFixed, ...) are only right for the finished session.
        extra = {k: v for k, v in stored.items() if k not in TOTALS_KEYS}
        totals = {**totals, **extra}
    out["totals"] = totals
    return out


def _turn_at(turn: object, t_ms: int):
    if not isinstance(turn, dict):
        return turn
    out = dict(turn)
    if not _ended_by(turn, t_ms):
        out.pop("endedAt", None)
    ops = turn.get("ops")
    if isinstance(ops, list):
        kept = []
        for op in ops:
            if _started_by(op, t_ms):
                kept.append((yield from _op_at(op, t_ms)))
        out["ops"] = kept
    return out


def _op_at(op: object, t_ms: int):
    if not isinstance(op, dict):
        return op
    out = dict(op)
    if not _ended_by(op, t_ms):
        for key in _OP_END_FIELDS:
            out.pop(key, None)
        attrs = op.get("attributes")
        if isinstance(attrs, dict) and any(k in attrs for k in _OP_END_ATTRIBUTES):
            out["attributes"] = {k: v for k, v in attrs.items() if k not in _OP_END_ATTRIBUTES}
        reasoning = op.get("reasoning")
        if isinstance(reasoning, dict):
            chunks = reasoning.get("chunks")
            kept = _entries_by_ts(chunks, t_ms)
            out["reasoning"] = {"chunks": kept}
    for key in ("logs", "accounting"):
        if key in op:
            out[key] = _entries_by(op[key], t_ms)
    child = op.get("childSession")
    if isinstance(child, dict):
        if _started_by(child, t_ms):
            out["childSession"] = yield _session_at(child, t_ms)  # built by tree_at's loop, then sent back
        else:
            out.pop("childSession", None)
    return out


def _entries_by_ts(chunks: object, t_ms: int) -> list:
    if not isinstance(chunks, list):
        return []
    out = []
    for chunk in chunks:
        ts = ms(chunk.get("ts")) if isinstance(chunk, dict) else None
        if ts is None or ts <= t_ms:
            out.append(chunk)
    return out


def event_times(tree: dict) -> list[int]:
    """The interesting instants of a tree and its sub-agents (sorted, unique): turn/step starts, op starts and ends,
    session ends."""
    times: set[int] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        end = ms(node.get("endedAt"))
        if end is not None:
            times.add(end)
        for key in ("turns", "steps"):
            items = node.get(key)
            if not isinstance(items, list):
                continue
            for turn in items:
                if not isinstance(turn, dict):
                    continue
                start = ms(turn.get("startedAt"))
                if start is not None:
                    times.add(start)
                ops = turn.get("ops")
                if not isinstance(ops, list):
                    continue
                for op in ops:
                    if not isinstance(op, dict):
                        continue
                    for field in ("startedAt", "endedAt"):
                        value = ms(op.get(field))
                        if value is not None:
                            times.add(value)
                    child = op.get("childSession")
                    if isinstance(child, dict):
                        stack.append(child)
    return sorted(times)
