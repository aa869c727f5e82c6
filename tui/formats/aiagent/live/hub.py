"""Live sessions assembled from ai-agent's `onEvent` stream (formats.md section 4).

Events of many sessions arrive interleaved. Each session (by `meta.sessionId`) keeps the last tree it sent
(`op_tree` / `snapshot`) plus what arrived since (`log`, `accounting`), which is merged into that tree: the next tree
already contains them, so they are dropped then and nothing is counted twice. Sub-agents (`meta.parentId`) are
merged into their parent's tree when a root is built for display (what one session holds: live.session; the
merging: live.merge; sequence order and gaps: live.order). Sessions received as OTLP spans (tui.formats.otlp.sink)
come in through `put_otlp` with the same ids (ai-agent's txn id is the stream's `meta.sessionId`): a session keeps
the stream's tree when it has one, the OTLP tree only fills in.

Costs: a hub holds indexes (children by parent, sessions by root), so an event costs O(1) and a tick's rebuild
costs O(the changed roots' families), whatever the number of sessions; every walk over parent links is iterative
(chains of sub-agents thousands deep); what waits between two trees is bounded (MAX_PENDING_LOGS,
MAX_PENDING_ACCOUNTING) and kept in arrival order, sorted once when shown.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import orjson

from tui.formats.aiagent.live.facts import LiveFacts, LiveTally, facts_of, live_clock
from tui.formats.aiagent.live.frames import (
    BROKEN, KNOWN_EVENTS, NOT_MALFORMED, REJECTIONS, TREE_EVENTS, drop_pending_before,
    event_time, loads_without_bom, short_repr, take, tree_frame_meta, tree_of,
)
from tui.formats.aiagent.live.merge import attach_child, merged_tree
from tui.formats.aiagent.live.session import LiveSession
from tui.formats.aiagent.snapshot import build_session
from tui.inputs import json_load
from tui.inputs.stream.limits import MAX_FRAME_BYTES
from tui.model.fields import as_str, type_name
from tui.model.gc_pause import freeze, paused_gc
from tui.model.nodes import Session

_clock = time.time
_loads = orjson.loads

# A tree parsed from this many bytes or built with this many ops is frozen (tui.model.gc_pause): the next young
# collection scanned it, 0.2-0.33 s with the interpreter held (`live_run.py throughput`'s longest stalls).
FREEZE_BYTES, FREEZE_OPS = 1 << 20, 2_000


@dataclass(frozen=True, slots=True)
class LiveChanges:
    """What a hub hands over at LiveHub.take_changes: roots to redraw, roots gone, roots now under another root."""

    changed: frozenset[str]
    forgotten: frozenset[str]
    merged: frozenset[str]


class LiveHub:
    """Everything received from every stream; what changed is handed over by take_changes() (one reader: the live
    worker, tui.ui.live_worker, the only thread that touches a hub)."""

    def __init__(self) -> None:
        self.sessions: dict[str, LiveSession] = {}
        self.rejected: Counter[str] = Counter()  # by reason (REJECTIONS)
        self.last_rejected = ""
        self.events = 0
        self.reordered = 0
        self._changed: set[str] = set()
        self._built: dict[str, Session] = {}
        self._offered: dict[str, tuple[Session, dict[str, dict]]] = {}  # root -> a build made elsewhere (offer_built)
        self._forgotten: set[str] = set()  # roots gone entirely (forget_otlp) since the holder last looked
        # Roots that are roots no more, since the holder last looked: a provisional OTLP session whose id settled, a
        # sub-agent shown as a root until its parent spoke. Not evicted: what they showed is now under another root,
        # so their rows go (kept, they would count the same tokens twice).
        self._merged: set[str] = set()
        self.gaps = 0  # sequence gaps over every session (kept as events arrive: no scan per tick)
        self.resets = 0  # ... and jumps of a sequence too far to be gaps (live.order.MAX_SEQUENCE_JUMP)
        self._children: dict[str, dict[str, None]] = {}  # parent id -> its sub-agents' ids, in arrival order
        self._root: dict[str, str] = {}  # session id -> the root key it is shown under
        self._members: dict[str, dict[str, None]] = {}  # root key -> the sessions shown under it
        self.bridge_dropped = 0  # events producers' bridges dropped unsent (their "bridge" events; tui/bridge)

    @property
    def malformed(self) -> int:
        """Frames refused as broken: every rejection but duplicates and refused or cut-off clients."""
        return sum(n for reason, n in self.rejected.items() if reason not in NOT_MALFORMED)

    @property
    def oversized(self) -> int:
        return self.rejected["oversized"]

    def rejection_summary(self) -> str:
        """"malformed JSON ×3, duplicate ×1" in the order of REJECTIONS ("" when nothing was rejected)."""
        order = [*REJECTIONS, *sorted(set(self.rejected) - set(REJECTIONS))]
        return ", ".join(f"{reason} ×{self.rejected[reason]:,}" for reason in order if self.rejected[reason])

    # input ----------------------------------------------------------------------------------------------
    def feed(self, frame: bytes | str, now: float | None = None) -> str | None:
        """One frame (a JSON event). Returns the root key it touched, or None for a rejected frame."""
        if len(frame) > MAX_FRAME_BYTES:
            self.refuse_oversized(len(frame))
            return None
        meta = tree_frame_meta(frame)
        if meta is not None:  # an op_tree frame kept as it came: counted and ordered now, parsed when shown (it
            return self.apply({"type": "op_tree", "meta": meta}, now, deferred=frame)  # may be replaced before)
        try:
            event = _loads(frame)  # (orjson itself: json_load's lone-surrogate repair only once that failed)
        except orjson.JSONDecodeError:
            event = self._repaired(frame)
            if event is BROKEN:
                return None
        return self.apply(event, now)

    def _repaired(self, frame: bytes | str) -> object:
        """A frame orjson refused: with its lone surrogates repaired (tui.inputs.json_load), else without a byte
        order mark; BROKEN (counted as malformed) when neither parses."""
        try:
            return json_load.loads(frame)
        except orjson.JSONDecodeError as exc:
            event = loads_without_bom(frame)
            if event is BROKEN:
                self.reject("malformed JSON", exc.args[0] if exc.args else str(exc))
            return event

    def _tree(self, live: LiveSession) -> dict | None:
        """The newest tree of a session, parsing a deferred frame first (a broken one counts as malformed)."""
        self._settle_frame(live)
        return live.tree

    def _settle_frame(self, live: LiveSession) -> bool:
        """Parse a deferred tree frame; False when it was broken. A broken frame is counted as malformed and gives
        its sequence number back (a valid resend is not a duplicate), and the logs and accounting sent before it
        stay (they were dropped only once its tree is known to contain them)."""
        frame, sequence = live.tree_frame, live.tree_frame_sequence
        live.tree_frame = live.tree_frame_sequence = None
        if frame is None:
            return True
        try:
            with paused_gc():  # a big tree is millions of containers: see tui.model.gc_pause
                event = json_load.loads_sharing(frame)  # (a big tree: the UI thread runs meanwhile)
                if len(frame) >= FREEZE_BYTES:
                    freeze()
        except orjson.JSONDecodeError as exc:
            event, reason, detail = None, "malformed JSON", exc.args[0] if exc.args else str(exc)
        else:
            reason, detail = "no tree", "op_tree event without a tree object"
        tree = tree_of(event) if isinstance(event, dict) else None
        if tree is None:
            del frame
            self._unsee(live, sequence)
            self.reject(reason, detail)
            return False
        live.tree = tree
        live.tree_sequence = sequence
        drop_pending_before(live, sequence)
        stamp = event_time("op_tree", event, tree)
        if stamp > live.last_ts:
            live.last_ts, live.last_wall = stamp, live.updated
        return True

    def _unsee(self, live: LiveSession, sequence: int | None) -> None:
        """Take back an event that turned out broken: its sequence number is free again, it is not counted."""
        live.events -= 1
        self.events -= 1
        if sequence is not None:
            before = live.seen.missing
            live.seen.discard(sequence)
            self.gaps += live.seen.missing - before

    def refuse_oversized(self, size: int) -> None:
        self.reject("oversized", f"frame of {size:,} bytes refused (limit {MAX_FRAME_BYTES:,})")

    def reject(self, reason: str, detail: str = "") -> None:
        """Count a frame (or a client) that was not applied, and why."""
        self.rejected[reason] += 1
        self.last_rejected = (f"{reason}: {detail}" if detail else reason)[:300]
        return None

    def apply(self, event: object, now: float | None = None, deferred: bytes | str | None = None) -> str | None:
        """One parsed event; `deferred`: the unparsed frame of a tree event whose meta alone was read.

        Written for speed (the "Live" benchmark's mixed load: every event of every session goes through here):
        exact-class checks, the next sequence number in order taken without a call, a session's names read
        again only when they differ from its last event's."""
        if event.__class__ is not dict:
            if not isinstance(event, dict):
                return self.reject("not an object", f"event is {type_name(event)}, expected an object")
        kind = event.get("type")
        if kind.__class__ is not str or kind not in KNOWN_EVENTS:
            if kind == "bridge":
                self._bridge_report(event)
                return None
            return self.reject("unknown type", f"unknown event type {short_repr(kind)}")
        meta = event.get("meta")
        if meta.__class__ is not dict:
            meta = {}
        tree = None
        if kind in TREE_EVENTS:
            tree = tree_of(event)
            if tree is None and deferred is None:
                return self.reject("no tree", f"{kind} event without a tree object")
        session_id = meta.get("sessionId")
        if session_id.__class__ is not str or not session_id:
            session_id = as_str(session_id) or (as_str(tree.get("traceId")) if tree else "")
            if not session_id:
                return self.reject("no session id", f"{kind} event without meta.sessionId")
        sequence = meta.get("sequence")
        if sequence.__class__ is not int:  # (bool is not int here)
            sequence = None
        live = self.sessions.get(session_id)
        if live is None:
            live = self.sessions[session_id] = LiveSession(session_id)
        ends = live.seen.ends
        late: bool | None
        if sequence is not None and ends and sequence == ends[-1] + 1:
            ends[-1] = sequence  # the next one in order (SeenSequences.add): no gap, not late
            late = False
        else:
            late = self._sequence(live, sequence)
            if late is None:
                return self.reject("duplicate", f"{short_repr(session_id)} sequence {sequence} again")
        names = (meta.get("originId"), meta.get("parentId"), meta.get("agentId"), meta.get("callPath"))
        if names != live.names:  # (a session's events mostly repeat the same names)
            live.names = names
            if self._meta(live, meta):
                self._place(live)
        live.updated = now = _clock() if now is None else now
        live.events += 1
        stamp = event_time(kind, event, tree)
        if stamp > live.last_ts:
            live.last_ts, live.last_wall = stamp, now
        if stamp and (not live.first_ts or stamp < live.first_ts):
            live.first_ts = stamp
        self.events += 1
        take(live, kind, event, tree, sequence, late, deferred)
        root = self._root.get(session_id, session_id)  # (_touched)
        self._changed.add(root)
        self._built.pop(root, None)
        return root

    def _sequence(self, live: LiveSession, sequence: int | None) -> bool | None:
        """Note an event's sequence number: whether it came late (after a higher one), None for a duplicate."""
        if sequence is None:
            return False
        highest = live.seen.highest
        if sequence == live.tree_frame_sequence and live.tree_frame is not None and sequence in live.seen:
            self._settle_frame(live)  # a resend of a tree still unparsed: the first one may be broken
        missing, resets = live.seen.missing, live.seen.resets
        if not live.seen.add(sequence):
            live.duplicates += 1
            return None
        self.gaps += live.seen.missing - missing
        self.resets += live.seen.resets - resets
        late = highest is not None and sequence < highest
        if late:
            live.reordered += 1
            self.reordered += 1
        return late

    def _touched(self, session_id: str) -> str:
        """A session changed: its root is redrawn at the next take_changes, its cached build goes."""
        root = self.root_of(session_id)
        self._changed.add(root)
        self._built.pop(root, None)
        return root

    def take_changes(self) -> LiveChanges:
        """What changed since the last call, handed over once (the sets start empty again): the roots to redraw,
        those forgotten entirely, those merged under another root. A root merged away is not redrawn; one forgotten
        and back since is redrawn, not forgotten."""
        changed, forgotten, merged = self._changed, self._forgotten, self._merged
        self._changed, self._forgotten, self._merged = set(), set(), set()
        changed -= merged
        forgotten -= changed
        return LiveChanges(frozenset(changed), frozenset(forgotten), frozenset(merged))

    @property
    def has_changes(self) -> bool:
        return bool(self._changed or self._forgotten or self._merged)

    def _bridge_report(self, event: dict) -> None:
        """{"type": "bridge", "dropped": N}: a bridge (tui/bridge) dropped N events since its last report, its
        buffer full while the monitor was away. Counted over every bridge; not a session's event."""
        dropped = event.get("dropped")
        if not isinstance(dropped, int) or isinstance(dropped, bool) or dropped < 0:
            self.reject("unknown type", f"bridge event with dropped={short_repr(dropped)}, expected a count")
            return
        self.bridge_dropped += min(dropped, 2**53)

    def _meta(self, live: LiveSession, meta: dict) -> bool:
        """Take the session's names from an event's meta; True when where it hangs (parent, origin) changed or
        it is new."""
        before = (live.parent_id, live.origin_id)
        live.origin_id = as_str(meta.get("originId")) or live.origin_id
        live.parent_id = as_str(meta.get("parentId")) or live.parent_id
        live.agent_id = as_str(meta.get("agentId")) or live.agent_id
        live.call_path = as_str(meta.get("callPath")) or live.call_path
        if before[0] != live.parent_id:
            if before[0]:
                siblings = self._children.get(before[0], {})
                siblings.pop(live.session_id, None)
                if not siblings:
                    self._children.pop(before[0], None)
            if live.parent_id and live.parent_id != live.session_id:
                self._children.setdefault(live.parent_id, {})[live.session_id] = None
        return before != (live.parent_id, live.origin_id) or live.session_id not in self._root

    # OTLP (tui.formats.otlp.sink) ------------------------------------------------------------------------
    def put_otlp(self, session_id: str, tree: dict, meta: dict, now: float | None = None, records: int = 0) -> str:
        """A session's tree assembled from OTLP spans (`meta`: parentId, originId, agentId, callPath). A tree from
        the event stream is richer and always wins: this one is shown only while the session has none."""
        now = time.time() if now is None else now
        live = self.sessions.get(session_id)
        if live is None:
            live = self.sessions[session_id] = LiveSession(session_id)
        live.otlp_tree = tree
        live.otlp_records = records  # spans and log records behind it (the Events column)
        live.names = ()  # (the stream's next event takes its names again)
        if self._meta(live, meta):
            self._place(live)
        live.updated = now
        stamp = event_time("op_tree", {}, tree)
        if stamp > live.last_ts:
            live.last_ts, live.last_wall = stamp, now
        started = tree.get("startedAt")
        if isinstance(started, int) and started and (not live.first_ts or started < live.first_ts):
            live.first_ts = started
        return self._touched(session_id)

    def forget_otlp(self, session_id: str, settled: bool = False) -> None:
        """Drop a session's OTLP tree (the sink evicted its trace; `settled`: its provisional id gave way to the
        real one, the same session under another id); a session no stream spoke for goes entirely."""
        live = self.sessions.get(session_id)
        if live is None:
            return
        live.otlp_tree = None
        root = self.root_of(session_id)
        self._built.pop(root, None)
        self._offered.pop(root, None)
        if not live.events and live.tree is None and live.tree_frame is None:
            del self.sessions[session_id]
            siblings = self._children.get(live.parent_id)
            if siblings is not None:
                siblings.pop(session_id, None)
                if not siblings:
                    del self._children[live.parent_id]
            self._root.pop(session_id, None)
            members = self._members.get(root)
            if members is not None:
                members.pop(session_id, None)
                if not members:
                    del self._members[root]
        if root in self._members:
            self._changed.add(root)
        else:
            self._changed.discard(root)
            # whoever keeps things per root (the live controller's builds) lets go
            (self._merged if settled else self._forgotten).add(root)

    # grouping -------------------------------------------------------------------------------------------
    def _place(self, live: LiveSession) -> None:
        """Put a session that is new or changed parent (and the sub-agents below it) under its root.

        A session hangs under its parent's root; one whose parent has not spoken yet under its origin, which
        names the root (or under the parent's id); one that closes a cycle of parents is a root itself. Sessions
        below it move with it: the walk stops at those already under the new root."""
        sid = live.session_id
        parent = live.parent_id
        if not parent or parent == sid:
            root = sid
        elif parent in self.sessions:
            root = self._root.get(parent, parent)
            if self._below(parent, sid):
                root = sid
        else:
            root = live.origin_id or parent
        todo = [sid]
        while todo:
            current = todo.pop()
            old = self._root.get(current)
            if old == root and current != sid:
                continue  # already there, and so is everything below it
            if old != root:  # (sid itself is walked through anyway: its sub-agents may still have to move)
                if old is not None:
                    members = self._members.get(old, {})
                    members.pop(current, None)
                    if not members:
                        self._members.pop(old, None)
                        if old != root:
                            self._merged.add(old)  # (a root no more: its row goes)
                            self._changed.discard(old)
                    self._built.pop(old, None)
                    if members:
                        self._changed.add(old)
                self._root[current] = root
                self._members.setdefault(root, {})[current] = None
                self._merged.discard(root)
            todo.extend(child for child in self._children.get(current, ()) if child != sid)
        self._built.pop(root, None)

    def _below(self, session_id: str, ancestor: str) -> bool:
        """True when `ancestor` is reached going up the parents from session_id (a cycle if it is to be its
        child). Only walked when both are under the same root already, else O(1)."""
        roots_below = {self._root.get(c) for c in self._children.get(ancestor, ())}
        roots_below.add(self._root.get(ancestor))
        if self._root.get(session_id) not in roots_below:
            return False
        seen = set()
        current = session_id
        while current and current not in seen:
            if current == ancestor:
                return True
            seen.add(current)
            live = self.sessions.get(current)
            current = live.parent_id if live is not None else ""
        return False

    def root_of(self, session_id: str) -> str:
        return self._root.get(session_id, session_id)

    def roots(self) -> list[str]:
        return sorted(self._members)

    @property
    def root_count(self) -> int:
        return len(self._members)

    def children_of(self, session_id: str) -> list[LiveSession]:
        return [self.sessions[c] for c in self._children.get(session_id, ()) if c in self.sessions]

    def descendants(self, root: str) -> list[LiveSession]:
        return [self.sessions[s] for s in self._members.get(root, ())]

    def clock(self, root: str, wall_now: float) -> int:
        """"Now" for a live root in the session's own time (tui.formats.aiagent.live.facts.live_clock)."""
        family = [s for s in self.descendants(root) if s.last_ts]
        newest = max(family, key=lambda s: s.last_ts) if family else None
        return live_clock(newest.last_ts if newest else 0, newest.last_wall if newest else 0.0, wall_now)

    def tally(self) -> LiveTally:
        return LiveTally(self.events, sum(self.rejected.values()), self.malformed, len(self.sessions),
                         self.root_count, self.rejection_summary(), self.gaps)

    def facts(self, root: str) -> LiveFacts:
        """What a live view shows of a root besides its tree, taken now (the view reads it on another thread)."""
        return facts_of(self.descendants(root), root)

    def counters(self, root: str) -> tuple[int, int]:
        """Events received and sequence gaps over a root and its sub-agents."""
        family = self.descendants(root)
        return sum(s.events + s.otlp_records for s in family), sum(s.gaps for s in family)

    # building -------------------------------------------------------------------------------------------
    def build(self, root: str) -> Session:
        """The display tree of a root: its tree with pending logs/accounting and live sub-agents merged in.

        Sessions that sent no tree yet (only logs, status...) and roots not seen yet whose sub-agents spoke get
        a placeholder tree, so what they sent is on screen rather than waiting invisibly."""
        cached = self._built.get(root)
        if cached is not None:
            return cached
        offered = self._offered.pop(root, None)
        if offered is not None and self._still_true(root, offered[1]):
            self._built[root] = offered[0]
            return offered[0]
        with paused_gc():
            session = self._build(root)
            if session.counts.ops >= FREEZE_OPS:
                freeze()
            return session

    def offer_built(self, root: str, session: Session, made_from: dict[str, dict]) -> None:
        """A build of `root` made off this thread (the OTLP sink builds big traces in its own thread: 1.8 s for
        one of 50,000 spans was taken from the keys at every change), from `made_from` (session id -> the OTLP
        tree it used). build() takes it instead of building while it is still true: the family is those sessions,
        each showing that very OTLP tree, and no stream has spoken for any of them."""
        self._offered[root] = (session, made_from)

    def _still_true(self, root: str, made_from: dict[str, dict]) -> bool:
        family = self.descendants(root)
        return len(family) == len(made_from) and all(
            made_from.get(live.session_id) is live.otlp_tree and live.otlp_tree is not None and not live.events
            and live.tree is None and live.tree_frame is None for live in family)

    def _build(self, root: str) -> Session:
        seen: set[str] = set()
        tree = self._merged_tree(root, seen)
        for orphan in self.descendants(root):
            # A sub-agent whose parent has not spoken yet hangs off the root until the parent does.
            if orphan.session_id != root and orphan.parent_id not in self.sessions and orphan.parent_id != root:
                child_tree = self._merged_tree(orphan.session_id, seen)
                if child_tree is not None:
                    attach_child(tree, orphan, child_tree)
        session = build_session(tree)
        self._built[root] = session
        return session

    def _merged_tree(self, session_id: str, seen: set[str]) -> dict | None:
        """The tree of a session with its pending entries and its sub-agents' trees attached (live.merge)."""
        return merged_tree(session_id, seen, self.sessions, self._children, self._tree)
