"""Live events becoming a tree to show: the entries that arrived after a session's last tree (logs, accounting) are
put on copies of their ops, and sub-agents' trees are attached to their parent's session ops (or to a live holder op
when the parent has not named them yet). Containers that change are copied; the hub's trees are never mutated."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from tui.formats.aiagent.live.session import LiveSession
from tui.model.fields import as_dict, as_list, as_str

def placeholder_tree(session_id: str, live: LiveSession | None) -> dict:
    tree: dict = {"id": session_id, "traceId": session_id, "turns": []}
    if live is None:
        tree["sessionTitle"] = "(not seen yet: only its sub-agents have sent events)"
        return tree
    tree["sessionTitle"] = "(no tree received yet)"
    for key, value in (("agentId", live.agent_id), ("callPath", live.call_path), ("startedAt", live.first_ts)):
        if value:
            tree[key] = value
    return tree


def in_sequence_order(items: deque) -> list[dict]:
    """Pending entries in sequence order; an unnumbered entry stays after the one that arrived before it."""
    keyed = []
    last = None
    for position, (sequence, entry) in enumerate(items):
        if sequence is not None:
            last = sequence
        keyed.append((last is not None, last if last is not None else 0, position, entry))
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed]


def shallow_copy_tree(tree: dict) -> dict:
    """Copies of the containers we mutate (turns, ops, logs, accounting); leaves are shared."""
    out = dict(tree)
    for key in ("turns", "steps"):
        items = tree.get(key)
        if isinstance(items, list):
            out[key] = [_copy_turn(t) for t in items]
    return out


def _copy_turn(turn: object) -> object:
    if not isinstance(turn, dict):
        return turn
    out = dict(turn)
    ops = turn.get("ops")
    if isinstance(ops, list):
        out["ops"] = [dict(op) if isinstance(op, dict) else op for op in ops]
    return out


def _ops(tree: dict):
    for key in ("turns", "steps"):
        for position, turn in enumerate(as_list(tree.get(key))):
            if isinstance(turn, dict):
                index = turn.get("index", position)
                prefix = f"S{index}" if key == "steps" else str(index)
                for n, op in enumerate(as_list(turn.get("ops"))):
                    if isinstance(op, dict):
                        yield f"{prefix}-{n + 1}", op


def merge_pending(tree: dict, live: LiveSession) -> None:
    """Pending entries onto copies of their ops' lists: each op's list is copied once, not once per entry."""
    if not live.pending_logs and not live.pending_accounting:
        return
    ops = list(_ops(tree))
    by_path = {path: op for path, op in ops}
    added: dict[tuple[int, str], tuple[dict, list]] = {}  # (id(op), "logs"/"accounting") -> (op, entries to add)

    def append(op: dict, key: str, entry: dict) -> None:
        slot = added.get((id(op), key))
        if slot is None:
            slot = added[id(op), key] = (op, [])
        slot[1].append(entry)

    orphans = []
    for entry in in_sequence_order(live.pending_logs):
        path = as_str(entry.get("path"))
        op = by_path.get(path) or by_path.get(path.rsplit(".", 1)[-1]) if path else None
        if op is None:
            orphans.append(entry)
        else:
            append(op, "logs", entry)
    if live.pending_accounting:
        tree.pop("totals", None)  # the stored totals predate these entries: no mismatch to report until next tree
        last_of_kind = {op["kind"]: op for _, op in ops if isinstance(op.get("kind"), str)}
        for entry in in_sequence_order(live.pending_accounting):
            kind = entry.get("type")
            target = (last_of_kind.get(kind) if isinstance(kind, str) else None) or (ops[-1][1] if ops else None)
            if target is not None:
                append(target, "accounting", entry)
    for (_, key), (op, entries) in added.items():
        op[key] = [*as_list(op.get(key)), *entries]
    if orphans:
        # Logs that name no op of the current tree: shown on a live system op, not lost.
        holder = {"opId": "live-logs", "kind": "system", "startedAt": orphans[0].get("timestamp"),
                  "attributes": {"label": "live logs (no op in the tree yet)"}, "logs": orphans, "accounting": []}
        turns = tree.setdefault("turns", [])
        if isinstance(turns, list):
            turns.append({"id": "live", "index": len(turns), "attributes": {"label": "live"}, "ops": [holder]})


def attach_child(tree: dict, child: LiveSession, child_tree: dict) -> None:
    keys = {child.session_id, as_str(child_tree.get("traceId")), as_str(child_tree.get("id"))} - {""}
    session_ops = [op for _, op in _ops(tree) if op.get("kind") == "session"]
    for op in session_ops:
        current = op.get("childSession")
        if isinstance(current, dict) and {as_str(current.get("traceId")), as_str(current.get("id"))} & keys:
            op["childSession"] = child_tree
            if current.get("totals") != child_tree.get("totals"):
                tree.pop("totals", None)  # the parent's stored totals predate the newer child
            return
    for op in session_ops:  # a running sub-agent op the parent has not attached a child to yet
        name = as_str(as_dict(op.get("attributes")).get("name"))
        if "childSession" not in op and "endedAt" not in op and (not child.agent_id or child.agent_id in name):
            op["childSession"] = child_tree
            tree.pop("totals", None)
            return
    holder = {"opId": f"live-{child.session_id}", "kind": "session", "startedAt": child_tree.get("startedAt"),
              "attributes": {"name": child.agent_id or child.session_id, "live": True}, "logs": [],
              "accounting": [], "childSession": child_tree}
    tree.pop("totals", None)
    turns = tree.setdefault("turns", [])
    if isinstance(turns, list):
        turns.append({"id": f"live-{child.session_id}", "index": len(turns),
                      "attributes": {"label": "live sub-agent"}, "ops": [holder]})


def merged_tree(session_id: str, seen: set[str], sessions: dict[str, LiveSession],
                children: dict[str, dict[str, None]], tree_of: Callable[[LiveSession], dict | None]) -> dict | None:
    """The tree of a session with its pending entries and its sub-agents' trees (theirs merged likewise)
    attached; None when `seen` has it already. `tree_of(live)`: the newest tree a session sent (the stream's).
    Iterative (chains of sub-agents thousands deep): the family is listed top-down first, then each session gets
    its children's finished trees, deepest first."""
    if session_id in seen:
        return None
    seen.add(session_id)
    order = [session_id]
    trees: dict[str, dict] = {}
    taken: dict[str, list[str]] = {}  # session -> the sub-agents this walk attaches to it
    i = 0
    while i < len(order):
        current = order[i]
        i += 1
        live = sessions.get(current)
        held = None if live is None else tree_of(live) or live.otlp_tree  # (the stream's tree wins)
        tree = placeholder_tree(current, live) if held is None else shallow_copy_tree(held)
        if live is not None:
            merge_pending(tree, live)
        trees[current] = tree
        for child in children.get(current, ()):
            if child not in seen and child in sessions:
                seen.add(child)
                order.append(child)
                taken.setdefault(current, []).append(child)
    for current in reversed(order):
        for child in taken.get(current, ()):
            attach_child(trees[current], sessions[child], trees[child])
    return trees[session_id]
