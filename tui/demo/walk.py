"""Walking a SessionNode tree: nested sessions, turn ops with their path labels, last activity."""

from __future__ import annotations

__all__ = ["iter_ops", "iter_sessions", "last_activity", "op_path_index"]


def iter_sessions(node: dict, depth: int = 0):
    """Yield ``(session, depth)`` for the node and every nested ``childSession`` (pre-order)."""
    yield node, depth
    for group in (node.get("turns") or [], node.get("steps") or []):
        for t in group:
            for o in t.get("ops") or []:
                child = o.get("childSession")
                if isinstance(child, dict):
                    yield from iter_sessions(child, depth + 1)


def iter_ops(node: dict, prefix: str = ""):
    """Yield ``(path, op, turn, session)`` for every op of the tree with the producer's path label: turn ops
    (``<turn>-<op>``), then the ops of v2 steps (``S<step>-<op>``, ``turn`` is then the step)."""
    for group, mark in ((node.get("turns") or [], ""), (node.get("steps") or [], "S")):
        for t in group:
            for i, o in enumerate(t.get("ops") or [], 1):
                path = f"{prefix}{mark}{t['index']}-{i}"
                yield path, o, t, node
                child = o.get("childSession")
                if o.get("kind") == "session" and isinstance(child, dict):
                    yield from iter_ops(child, path + ".")


def op_path_index(node: dict) -> dict[str, str]:
    """``{opId: path}`` for every op of the tree (turns and steps)."""
    return {o["opId"]: p for p, o, _t, _s in iter_ops(node)}


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
