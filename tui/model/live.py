"""Live sessions assembled from ai-agent's `onEvent` stream (formats.md section 4).

Events of many sessions arrive interleaved. Each session (by `meta.sessionId`) keeps the last tree it sent
(`op_tree` / `snapshot`) plus what arrived since (`log`, `accounting`), which is merged into that tree: the next tree
already contains them, so they are dropped then and nothing is counted twice. Sub-agents (`meta.parentId`) are
merged into their parent's tree when a root is built for display.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import orjson

from tui.model.fields import as_dict, as_list, as_str, type_name
from tui.model.gc_pause import paused_gc
from tui.model.nodes import Session
from tui.model.snapshot import build_session

MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_PENDING_LOGS = 5000  # logs kept per session between two trees; older ones are dropped from view
MAX_TEXT = 64 * 1024  # streamed output/thinking kept per session
# Tree frames at least this big are parsed only when their tree is shown: a producer sends a session's whole tree
# again and again, and most are replaced by a newer one before the screen (a few times a second) needs them.
LAZY_TREE_BYTES = 64 * 1024
TREE_EVENTS = {"op_tree", "snapshot"}
KNOWN_EVENTS = TREE_EVENTS | {
    "log", "accounting", "accounting_flush", "turn_started", "progress", "status", "output", "thinking",
    "final_report", "handoff",
}


@dataclass
class LiveSession:
    session_id: str
    origin_id: str = ""
    parent_id: str = ""
    agent_id: str = ""
    call_path: str = ""
    tree: dict | None = None
    tree_frame: bytes | str | None = None  # a newer tree, still unparsed (see LAZY_TREE_BYTES)
    events: int = 0
    gaps: int = 0
    last_sequence: int | None = None
    status_line: str = ""
    output: str = ""
    thinking: str = ""
    final_report: dict | None = None
    flushed_entries: int = 0
    pending_logs: deque = field(default_factory=lambda: deque(maxlen=MAX_PENDING_LOGS))
    pending_accounting: list = field(default_factory=list)
    dropped_logs: int = 0
    updated: float = 0.0
    finished: bool = False
    last_ts: int = 0  # newest timestamp seen in this session's events (ms), and when it arrived (wall, s)
    last_wall: float = 0.0


class LiveHub:
    """Everything received from every stream; `changed` names the root sessions to redraw."""

    def __init__(self) -> None:
        self.sessions: dict[str, LiveSession] = {}
        self.malformed = 0
        self.last_malformed = ""
        self.oversized = 0
        self.events = 0
        self.changed: set[str] = set()
        self._built: dict[str, Session] = {}

    # input ----------------------------------------------------------------------------------------------
    def feed(self, frame: bytes | str, now: float | None = None) -> str | None:
        """One frame (a JSON event). Returns the root key it touched, or None for a malformed frame."""
        if len(frame) > MAX_FRAME_BYTES:
            self.refuse_oversized(len(frame))
            return None
        meta = _tree_frame_meta(frame) if len(frame) >= LAZY_TREE_BYTES else None
        if meta is not None:
            return self._defer_tree(frame, meta, now)
        try:
            event = orjson.loads(frame)
        except orjson.JSONDecodeError as exc:
            return self._bad(f"not JSON: {exc.args[0] if exc.args else exc}")
        return self.apply(event, now)

    def _defer_tree(self, frame: bytes | str, meta: dict, now: float | None) -> str:
        """An op_tree frame kept as it came: counted now, parsed when shown (it may be replaced before)."""
        session_id = meta["sessionId"]
        live = self.sessions.get(session_id)
        if live is None:
            live = self.sessions[session_id] = LiveSession(session_id)
        self._meta(live, meta)
        live.updated = time.time() if now is None else now
        live.events += 1
        self.events += 1
        live.tree_frame = frame
        live.pending_logs.clear()
        live.pending_accounting.clear()
        root = self.root_of(session_id)
        self.changed.add(root)
        self._built.pop(root, None)
        return root

    def _tree(self, live: LiveSession) -> dict | None:
        """The newest tree of a session, parsing a deferred frame first (a broken one counts as malformed)."""
        frame, live.tree_frame = live.tree_frame, None
        if frame is not None:
            try:
                with paused_gc():  # a big tree is millions of containers: see tui.model.gc_pause
                    event = orjson.loads(frame)
            except orjson.JSONDecodeError as exc:
                self._bad(f"not JSON: {exc.args[0] if exc.args else exc}")
                return live.tree
            tree = _tree_of(event) if isinstance(event, dict) else None
            if tree is None:
                self._bad("op_tree event without a tree object")
                return live.tree
            live.tree = tree
            live.finished = "endedAt" in tree
            stamp = _event_time("op_tree", event, tree)
            if stamp > live.last_ts:
                live.last_ts, live.last_wall = stamp, live.updated
        return live.tree

    def refuse_oversized(self, size: int) -> None:
        self.oversized += 1
        self._bad(f"frame of {size:,} bytes refused (limit {MAX_FRAME_BYTES:,})")

    def _bad(self, reason: str) -> None:
        self.malformed += 1
        self.last_malformed = reason[:300]
        return None

    def apply(self, event: object, now: float | None = None) -> str | None:
        now = time.time() if now is None else now
        if not isinstance(event, dict):
            return self._bad(f"event is {type_name(event)}, expected an object")
        kind = event.get("type")
        if not isinstance(kind, str) or kind not in KNOWN_EVENTS:
            return self._bad(f"unknown event type {kind!r}")
        meta = as_dict(event.get("meta"))
        tree = _tree_of(event) if kind in TREE_EVENTS else None
        session_id = as_str(meta.get("sessionId")) or (as_str(tree.get("traceId")) if tree else "")
        if not session_id:
            return self._bad(f"{kind} event without meta.sessionId")
        live = self.sessions.get(session_id)
        if live is None:
            live = self.sessions[session_id] = LiveSession(session_id)
        self._meta(live, meta)
        live.updated = now
        live.events += 1
        stamp = _event_time(kind, event, tree)
        if stamp > live.last_ts:
            live.last_ts, live.last_wall = stamp, now
        self.events += 1
        if kind in TREE_EVENTS:
            if tree is None:
                return self._bad(f"{kind} event without a tree object")
            live.tree = tree
            live.tree_frame = None
            live.pending_logs.clear()
            live.pending_accounting.clear()
            live.finished = "endedAt" in tree
        elif kind == "log":
            entry = event.get("entry")
            if isinstance(entry, dict):
                if len(live.pending_logs) == live.pending_logs.maxlen:
                    live.dropped_logs += 1
                live.pending_logs.append(entry)
        elif kind == "accounting":
            entry = event.get("entry")
            if isinstance(entry, dict):
                live.pending_accounting.append(entry)
        elif kind == "accounting_flush":
            live.flushed_entries += len(as_list(as_dict(event.get("payload")).get("entries")))
            live.status_line = f"accounting flushed ({live.flushed_entries} entries)"
        elif kind == "turn_started":
            retry = " (retry)" if event.get("isRetry") else ""
            final = " (final turn)" if event.get("isFinalTurn") else ""
            live.status_line = f"turn {event.get('turn')} started, attempt {event.get('attempt')}{retry}{final}"
        elif kind in ("progress", "status"):
            live.status_line = _progress_text(as_dict(event.get("event")))
        elif kind in ("output", "thinking"):
            text = event.get("text")
            if isinstance(text, str):
                attr = "output" if kind == "output" else "thinking"
                setattr(live, attr, (getattr(live, attr) + text)[-MAX_TEXT:])
        elif kind in ("final_report", "handoff"):
            report = event.get("report")
            live.final_report = report if isinstance(report, dict) else {"content": report}
            live.status_line = f"{kind.replace('_', ' ')} received"
        root = self.root_of(session_id)
        self.changed.add(root)
        self._built.pop(root, None)
        return root

    def _meta(self, live: LiveSession, meta: dict) -> None:
        live.origin_id = as_str(meta.get("originId")) or live.origin_id
        live.parent_id = as_str(meta.get("parentId")) or live.parent_id
        live.agent_id = as_str(meta.get("agentId")) or live.agent_id
        live.call_path = as_str(meta.get("callPath")) or live.call_path
        sequence = meta.get("sequence")
        if isinstance(sequence, int) and not isinstance(sequence, bool):
            if live.last_sequence is not None and sequence > live.last_sequence + 1:
                live.gaps += sequence - live.last_sequence - 1
            if live.last_sequence is None or sequence > live.last_sequence:
                live.last_sequence = sequence

    # grouping -------------------------------------------------------------------------------------------
    def root_of(self, session_id: str) -> str:
        seen = set()
        current = self.sessions.get(session_id)
        while current is not None and current.parent_id and current.parent_id not in seen:
            seen.add(current.session_id)
            parent = self.sessions.get(current.parent_id)
            if parent is None:
                # The parent has not spoken yet: group under the origin, which names the root.
                return current.origin_id or current.parent_id
            current = parent
        return current.session_id if current is not None else session_id

    def roots(self) -> list[str]:
        return sorted({self.root_of(sid) for sid in self.sessions})

    def children_of(self, session_id: str) -> list[LiveSession]:
        return [s for s in self.sessions.values() if s.parent_id == session_id and s.session_id != session_id]

    def descendants(self, root: str) -> list[LiveSession]:
        return [s for s in self.sessions.values() if self.root_of(s.session_id) == root]

    def clock(self, root: str, wall_now: float) -> int:
        """"Now" for a live root in the session's own time: its newest timestamp, moved on by the wall time since.

        A replay of an old session then shows running durations as they were, not months long."""
        family = [s for s in self.descendants(root) if s.last_ts]
        if not family:
            return int(wall_now * 1000)
        newest = max(family, key=lambda s: s.last_ts)
        estimate = newest.last_ts + max(0.0, wall_now - newest.last_wall) * 1000
        return int(min(estimate, max(wall_now * 1000, newest.last_ts)))

    def counters(self, root: str) -> tuple[int, int]:
        """Events received and sequence gaps over a root and its sub-agents."""
        family = self.descendants(root)
        return sum(s.events for s in family), sum(s.gaps for s in family)

    # building -------------------------------------------------------------------------------------------
    def build(self, root: str) -> Session | None:
        """The display tree of a root: its tree with pending logs/accounting and live sub-agents merged in."""
        cached = self._built.get(root)
        if cached is not None:
            return cached
        with paused_gc():
            return self._build(root)

    def _build(self, root: str) -> Session | None:
        live = self.sessions.get(root)
        tree = self._merged_tree(root, set()) if live is not None else None
        if tree is None:
            # Only sub-agents have spoken: show the first of them until the root sends its tree.
            family = [s for s in self.descendants(root) if s.tree is not None or s.tree_frame is not None]
            if not family:
                return None
            tree = self._merged_tree(family[0].session_id, set())
            if tree is None:
                return None
        session = build_session(tree)
        self._built[root] = session
        return session

    def _merged_tree(self, session_id: str, seen: set[str]) -> dict | None:
        live = self.sessions.get(session_id)
        if live is None or session_id in seen or self._tree(live) is None:
            return None
        seen.add(session_id)
        tree = _shallow_copy_tree(live.tree)
        _merge_pending(tree, live)
        for child in self.children_of(session_id):
            child_tree = self._merged_tree(child.session_id, seen)
            if child_tree is not None:
                _attach_child(tree, child, child_tree)
        return tree


_TREE_PREFIXES = ('{"type":"op_tree"', '{"type": "op_tree"')
_TREE_PREFIXES_B = tuple(p.encode() for p in _TREE_PREFIXES)


def _tree_frame_meta(frame: bytes | str) -> dict | None:
    """The meta of an op_tree frame whose `type` comes first and `meta` last (as producers write them), read
    without parsing the tree; None for any other frame (it is parsed whole).

    A `"meta":` preceded by `{` or `,` is a key (quotes inside strings are escaped); what follows the last one
    parses as an object followed by exactly one `}` only when it is the top-level object's last key."""
    text = isinstance(frame, str)
    if not frame.startswith(_TREE_PREFIXES if text else _TREE_PREFIXES_B):
        return None
    key = '"meta":' if text else b'"meta":'
    at = frame.rfind(key)
    if at <= 0 or frame[at - 1:at].strip() not in (("{", ",", "") if text else (b"{", b",", b"")):
        return None
    tail = frame[at + len(key):].rstrip()
    if not tail.endswith("}" if text else b"}"):
        return None
    try:
        meta = orjson.loads(tail[:-1])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("sessionId"), str) or not meta["sessionId"]:
        return None
    return meta


def _event_time(kind: str, event: dict, tree: dict | None) -> int:
    if tree is not None:
        stamps = [tree.get("startedAt"), tree.get("endedAt")]
        turns = as_list(tree.get("turns"))
        if turns and isinstance(turns[-1], dict):
            stamps.append(turns[-1].get("startedAt"))
            ops = as_list(turns[-1].get("ops"))
            if ops and isinstance(ops[-1], dict):
                stamps.extend([ops[-1].get("startedAt"), ops[-1].get("endedAt")])
    elif kind in ("log", "accounting"):
        stamps = [as_dict(event.get("entry")).get("timestamp")]
    elif kind in ("progress", "status"):
        stamps = [as_dict(event.get("event")).get("timestamp")]
    else:
        stamps = [as_dict(event.get("report")).get("ts"), as_dict(event.get("payload")).get("timestamp")]
    return max((int(v) for v in stamps if isinstance(v, (int, float)) and not isinstance(v, bool)), default=0)


def _tree_of(event: dict) -> dict | None:
    if event.get("type") == "op_tree":
        tree = event.get("tree")
    else:
        payload = as_dict(event.get("payload"))
        tree = as_dict(payload.get("snapshot")).get("opTree")
    return tree if isinstance(tree, dict) else None


def _progress_text(p: dict) -> str:
    kind = as_str(p.get("type"), "progress")
    who = as_str(p.get("agentId")) or as_str(p.get("callPath"))
    tool = as_dict(p.get("tool"))
    parts = [kind.replace("_", " ")]
    if who:
        parts.append(who)
    if tool.get("name"):
        parts.append(f"tool {as_str(tool.get('name'))}")
    for key in ("message", "status", "error"):
        value = p.get(key)
        if isinstance(value, str) and value:
            parts.append(value)
    return ": ".join(parts[:2]) + (" — " + " · ".join(parts[2:]) if len(parts) > 2 else "")


def _shallow_copy_tree(tree: dict) -> dict:
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
                prefix = f"s{index}" if key == "steps" else str(index)
                for n, op in enumerate(as_list(turn.get("ops"))):
                    if isinstance(op, dict):
                        yield f"{prefix}-{n + 1}", op


def _merge_pending(tree: dict, live: LiveSession) -> None:
    if not live.pending_logs and not live.pending_accounting:
        return
    ops = list(_ops(tree))
    by_path = {path: op for path, op in ops}
    orphans = []
    for entry in live.pending_logs:
        path = as_str(entry.get("path"))
        op = by_path.get(path) or by_path.get(path.rsplit(".", 1)[-1]) if path else None
        if op is None:
            orphans.append(entry)
        else:
            op["logs"] = [*as_list(op.get("logs")), entry]
    if live.pending_accounting:
        tree.pop("totals", None)  # the stored totals predate these entries: no mismatch to report until next tree
    for entry in live.pending_accounting:
        kind = entry.get("type")
        target = next((op for _, op in reversed(ops) if op.get("kind") == kind), None)
        if target is None and ops:
            target = ops[-1][1]
        if target is not None:
            target["accounting"] = [*as_list(target.get("accounting")), entry]
    if orphans:
        # Logs that name no op of the current tree: shown on a live system op, not lost.
        holder = {"opId": "live-logs", "kind": "system", "startedAt": orphans[0].get("timestamp"),
                  "attributes": {"label": "live logs (no op in the tree yet)"}, "logs": orphans, "accounting": []}
        turns = tree.setdefault("turns", [])
        if isinstance(turns, list):
            turns.append({"id": "live", "index": len(turns), "attributes": {"label": "live"}, "ops": [holder]})


def _attach_child(tree: dict, child: LiveSession, child_tree: dict) -> None:
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


