"""Genkit Go session snapshots: read them and rebuild their history.

Two shapes. The design (seed genkit-go-session-snapshots-design.md): `{id (sha256 of the state), parentId,
sessionId, createdAt, state, index, turnIndex, event, orphaned}`. What Genkit's Go code shipped (the experimental
session flow, `aix.SessionSnapshot`): `{snapshotId (a UUID), parentId, createdAt, event: "turnEnd"|"invocationEnd",
state: {messages, custom, artifacts, inputVariables}}`, with no sessionId, index, turnIndex or orphaned: those are
derived here. A chain of snapshots linked by `parentId` is one conversation; its index is the order of `createdAt`;
a turn ends at each `turnEnd` (an `invocationEnd` right after it closes the same invocation, one on its own closes
a turn of its own); the newest snapshot is the head, and every snapshot not on the line from the root to it is
orphaned (a restore from an earlier snapshot gave that parent a second child: a branch).

Input: a JSON array of snapshots (`ListSnapshots(..., includeOrphaned=true)`), `{"snapshots": [...]}`, one snapshot
object, or a directory of such files (`*.json`, `*.json.gz`; Go session data files beside them are skipped).

Each session's snapshots form a tree through `parentId`. Its main timeline is the path from the root to the head
(the newest snapshot that is not orphaned). Restoring from an earlier snapshot orphans the snapshots after it:
they hang off the main timeline as a branch at the snapshot they grew from, and a branch may have branches too.
Broken links (a parent that is not in the input, a cycle, a duplicate id) are reported, never fatal.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field

import orjson

from tui.formats.genkit.detect import is_candidate, looks_like_genkit, looks_like_genkit_dir, looks_like_snapshot
from tui.inputs import json_load
from tui.inputs.files import LoadError, read_source
from tui.model.fields import as_int, as_ms, as_str, one_line, type_name

EVENTS = ("turnEnd", "toolIterationEnd", "invocationEnd")  # SnapshotEvent 0, 1, 2 (iota order)
_EVENT_KEYS = {name.lower(): name for name in EVENTS}
MAX_DIR_FILES = 100_000


@dataclass(slots=True, eq=False)
class Snapshot:
    raw: dict
    id: str = ""
    parent_id: str = ""
    session_id: str = ""
    created_at: str = ""
    created_ms: int | None = None
    index: int | None = None
    turn_index: int | None = None
    event: str = "unknown"
    orphaned: bool = False
    state: object = None
    shipped: bool = False  # the shipped shape (`snapshotId`): index, turn and orphaned are derived, not read
    status: str = ""  # newer shipped code: "pending" | "complete" | "canceled" | "error" (empty: complete)
    error: str = ""
    parent: "Snapshot | None" = None
    children: list["Snapshot"] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def order(self) -> tuple:
        return (self.index if self.index is not None else -1, self.created_ms or 0)

    @property
    def short(self) -> str:
        return self.id[:8] if self.id else "?"


@dataclass(slots=True, eq=False)
class Branch:
    """A chain of snapshots and the branches growing off it. `origin` is the snapshot it grew from (None for a
    session's main timeline, and for a chain whose root's parent is missing)."""

    chain: list[Snapshot]
    origin: Snapshot | None = None
    branches: dict[int, list["Branch"]] = field(default_factory=dict)  # id(chain snapshot) -> branches there
    detached: list["Branch"] = field(default_factory=list)  # other roots of the session (main timeline only)

    def all_branches(self):
        for group in self.branches.values():
            for b in group:
                yield b
                yield from b.all_branches()
        for b in self.detached:
            yield b
            yield from b.all_branches()

    @property
    def orphaned(self) -> int:
        return sum(1 for s in self.chain if s.orphaned)


@dataclass(slots=True, eq=False)
class GenkitSession:
    session_id: str
    snapshots: list[Snapshot]
    main: Branch
    problems: list[str] = field(default_factory=list)

    @property
    def root_id(self) -> str:
        return self.main.chain[0].id if self.main.chain else ""

    @property
    def shipped(self) -> bool:
        return bool(self.snapshots) and all(s.shipped for s in self.snapshots)

    @property
    def name(self) -> str:
        """The sessionId; a shipped-shape conversation has none: named by its first snapshot."""
        if self.session_id:
            return self.session_id
        return f"conversation {self.root_id[:8]}" if self.root_id else "(no sessionId)"

    @property
    def head(self) -> Snapshot | None:
        return self.main.chain[-1] if self.main.chain else None

    @property
    def branches(self) -> list[Branch]:
        return list(self.main.all_branches())

    @property
    def turns(self) -> int:
        return len({s.turn_index for s in self.main.chain})


@dataclass(slots=True, eq=False)
class GenkitStore:
    sessions: list[GenkitSession] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    shape: str = ""  # "array" | "wrapper" | "object" | "directory"
    files: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def snapshot_shape(self) -> str:
        """"shipped" (snapshotId) | "design" (id, sessionId, index) | "mixed" | "" (none)."""
        kinds = {s.shipped for s in self.snapshots}
        return "mixed" if len(kinds) > 1 else ("shipped" if True in kinds else "design" if kinds else "")

    def event_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.snapshots:
            counts[s.event] = counts.get(s.event, 0) + 1
        return counts


# --- reading -----------------------------------------------------------------------------------------------

def from_value(value: object, *, shape: str = "") -> GenkitStore:
    store = GenkitStore(shape=shape)
    _collect(value, store, "")
    return finish(store)


def load_dir(path: str, max_bytes: int) -> GenkitStore:
    """Every snapshot file directly in the directory; unreadable files are listed as problems."""
    if not looks_like_genkit_dir(path):  # e.g. a sessions directory given as PATH: say so before reading it all
        raise LoadError(path, "is a directory without Genkit snapshot files (a Genkit snapshot directory opens as "
                              "PATH; to browse a sessions directory use --sessions-dir DIR)")
    try:
        names = sorted(e.name for e in os.scandir(path) if is_candidate(e.name) and e.is_file())
    except OSError as exc:
        raise LoadError(path, f"cannot list the directory: {exc.strerror or exc}") from None
    if len(names) > MAX_DIR_FILES:
        raise LoadError(path, f"{len(names):,} files: more than the {MAX_DIR_FILES:,} a snapshot directory may hold")
    store = GenkitStore(shape="directory")
    budget = max_bytes
    for name in names:
        file_path = os.path.join(path, name)
        try:
            data = read_source(file_path, budget)
            budget -= len(data)
            value = json_load.loads(data)
        except LoadError as exc:
            store.problems.append(f"{name}: {exc.reason}")
            continue
        except orjson.JSONDecodeError as exc:
            store.problems.append(f"{name}: invalid JSON ({exc})")
            continue
        store.files += 1
        if isinstance(value, dict) and "lastSnapshot" in value and not looks_like_snapshot(value):
            continue  # the Go session data file (Session.LastSnapshot, TurnIndex): not a snapshot of its own
        if not looks_like_genkit(value):
            store.problems.append(f"{name}: not a Genkit snapshot")
            continue
        _collect(value, store, name)
    if not store.snapshots:
        why = f" ({'; '.join(store.problems[:3])})" if store.problems else ""
        raise LoadError(path, f"no Genkit snapshots in this directory ({len(names)} JSON files){why}")
    return finish(store)


def _collect(value: object, store: GenkitStore, where: str) -> None:
    prefix = f"{where}: " if where else ""
    if isinstance(value, dict) and "snapshots" in value and not looks_like_snapshot(value):
        store.shape = store.shape or "wrapper"
        value = value["snapshots"]
    if isinstance(value, dict):
        store.shape = store.shape or "object"
        value = [value]
    if not isinstance(value, list):
        store.problems.append(f"{prefix}snapshots are {type_name(value)}, expected an array")
        return
    store.shape = store.shape or "array"
    for position, item in enumerate(value):
        if not isinstance(item, dict):
            store.problems.append(f"{prefix}item {position} is {type_name(item)}, expected a snapshot object")
            continue
        store.snapshots.append(parse_snapshot(item))


def event_name(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return "unknown"
    if isinstance(value, int):
        return EVENTS[value] if 0 <= value < len(EVENTS) else f"event{value}"
    if isinstance(value, str):
        key = "".join(ch for ch in value.lower() if ch.isalpha()).removeprefix("snapshotevent")
        return _EVENT_KEYS.get(key, one_line(value, 40) or "unknown")
    return "unknown"


def parse_snapshot(node: dict) -> Snapshot:
    s = Snapshot(raw=node)
    s.shipped = "snapshotId" in node and "id" not in node
    key = "snapshotId" if s.shipped else "id"
    s.id = as_str(node.get(key))
    if not s.id:
        s.problems.append(f"no {key}" if node.get(key) is None else f"{key} is {type_name(node.get(key))}")
    s.parent_id = as_str(node.get("parentId"))
    s.session_id = as_str(node.get("sessionId"))
    created = node.get("createdAt")
    s.created_ms = as_ms(created)
    s.created_at = created if isinstance(created, str) else ""
    if created is not None and s.created_ms is None:
        s.problems.append(f"createdAt is not a time: {one_line(str(created), 40)}")
    for key, attr in (("index", "index"), ("turnIndex", "turn_index")):
        raw = node.get(key)
        if s.shipped:
            continue  # derived from the chain and the events (finish); an older shipped turnIndex counted per invocation
        if raw is None:
            setattr(s, attr, 0)  # Go writes these without omitempty: absent means another writer's zero
        elif isinstance(raw, (int, float)) and not isinstance(raw, bool) and as_int(raw, -1) >= 0:
            setattr(s, attr, as_int(raw))
        else:
            s.problems.append(f"{key} is {type_name(raw)} {one_line(str(raw), 20)}, expected a number >= 0")
    event = node.get("event")
    s.event = event_name(event)
    if event is not None and s.event == "unknown":
        s.problems.append(f"event is {type_name(event)}")
    s.orphaned = node.get("orphaned") is True and not s.shipped
    s.state = node.get("state")
    s.status = as_str(node.get("status"))
    s.error = as_str(node.get("error"))
    return s


def finish(store: GenkitStore) -> GenkitStore:
    """Drop duplicate ids, group by session, link parents and find each session's main timeline and branches."""
    unique: list[Snapshot] = []
    seen: dict[tuple[str, str], Snapshot] = {}
    duplicates = 0
    for s in store.snapshots:
        key = (s.session_id, s.id)
        if s.id and key in seen:
            duplicates += 1
            continue
        if s.id:
            seen[key] = s
        unique.append(s)
    if duplicates:
        store.problems.append(f"{duplicates} duplicate snapshot id{'s' if duplicates != 1 else ''} ignored "
                              "(content-addressed: the same state saved twice)")
    store.snapshots = unique
    by_session: dict[str, list[Snapshot]] = defaultdict(list)
    for s in unique:
        by_session[s.session_id].append(s)
    for session_id, snaps in by_session.items():
        groups = [snaps]
        if not session_id:  # the shipped shape has no sessionId: a conversation is what parentId connects
            design = [x for x in snaps if not x.shipped]
            groups = ([design] if design else []) + _conversations([x for x in snaps if x.shipped])
        for group in groups:
            g = _session(session_id, group)
            if any(x.shipped for x in group):
                _derive(g)
            store.sessions.append(g)
    store.sessions.sort(key=lambda g: min((s.created_ms or 0 for s in g.snapshots), default=0))
    return store


def _session(session_id: str, snaps: list[Snapshot]) -> GenkitSession:
    snaps.sort(key=lambda s: s.order)
    problems: list[str] = []
    by_id = {s.id: s for s in snaps if s.id}
    roots: list[Snapshot] = []
    missing = 0
    for s in snaps:
        parent = by_id.get(s.parent_id) if s.parent_id else None
        if parent is not None and parent is not s:
            s.parent = parent
            parent.children.append(s)
        else:
            if s.parent_id and parent is None:
                missing += 1
                s.problems.append(f"parent {s.parent_id[:12]} is not in the input")
            elif parent is s:
                s.problems.append("is its own parent")
            roots.append(s)
    if missing:
        problems.append(f"{missing} snapshot{'s' if missing != 1 else ''} name a parent that is not in the input")
    reached = _reach(roots)
    if len(reached) < len(snaps):  # parentId cycles: nothing leads into them from a root
        while len(reached) < len(snaps):
            start = min((s for s in snaps if id(s) not in reached), key=lambda s: s.order)
            if start.parent is not None:
                start.parent.children.remove(start)
                start.parent = None
            start.problems.append("parentId cycle broken here")
            roots.append(start)
            reached |= _reach([start])
        problems.append("parentId links form a cycle")
    head = _head(snaps)
    main_root = head
    while main_root is not None and main_root.parent is not None:
        main_root = main_root.parent
    main = _branch(main_root, None, target=head) if main_root is not None else Branch([])
    main.detached = [_branch(r, None) for r in roots if r is not main_root]
    return GenkitSession(session_id, snaps, main, problems)


def _conversations(snaps: list[Snapshot]) -> list[list[Snapshot]]:
    """Snapshots with no sessionId, split into the chains parentId connects (union-find, no recursion)."""
    by_id = {s.id: s for s in snaps if s.id}
    owner: dict[int, int] = {}

    def find(s: Snapshot) -> int:
        key = id(s)
        path = []
        while owner.get(key, key) != key:
            path.append(key)
            key = owner[key]
        for k in path:
            owner[k] = key
        return key

    for s in snaps:
        parent = by_id.get(s.parent_id) if s.parent_id else None
        if parent is not None and parent is not s:
            a, b = find(s), find(parent)
            if a != b:
                owner[a] = b
    groups: dict[int, list[Snapshot]] = {}
    for s in snaps:
        groups.setdefault(find(s), []).append(s)
    return list(groups.values())


def _derive(g: GenkitSession) -> None:
    """The shipped shape's missing fields: index (order of createdAt), turns (from the events), orphaned (off the
    line to the newest snapshot)."""
    for position, s in enumerate(sorted(g.snapshots, key=lambda x: (x.created_ms or 0, _depth(x)))):
        if s.shipped:
            s.index = position
    on_main = {id(s) for s in g.main.chain}
    for s in g.snapshots:
        if s.shipped:
            s.orphaned = id(s) not in on_main
    _number_turns(g.main.chain, None)
    for b in g.main.all_branches():
        _number_turns(b.chain, b.origin)


def _depth(s: Snapshot) -> int:
    depth, node, seen = 0, s.parent, set()
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        depth += 1
        node = node.parent
    return depth


def _number_turns(chain: list[Snapshot], origin: Snapshot | None) -> None:
    """Each turnEnd closes a turn; an invocationEnd right after one belongs to that turn, else closes its own."""
    prev = origin
    turn = _next_turn(origin) if origin is not None else 0
    for s in chain:
        if s.event == "invocationEnd" and prev is not None and prev.event == "turnEnd" and prev.turn_index is not None:
            if s.shipped:
                s.turn_index = prev.turn_index
        else:
            if s.shipped:
                s.turn_index = turn
            if s.event in ("turnEnd", "invocationEnd"):
                turn = (s.turn_index if s.turn_index is not None else turn) + 1
        prev = s


def _next_turn(origin: Snapshot) -> int:
    base = origin.turn_index if origin.turn_index is not None else 0
    return base + 1 if origin.event in ("turnEnd", "invocationEnd") else base


def _reach(roots: list[Snapshot]) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        s = stack.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        stack.extend(s.children)
    return seen


def _head(snaps: list[Snapshot]) -> Snapshot | None:
    """The newest snapshot still on the timeline (not orphaned); if every one is orphaned, the newest."""
    if not snaps:
        return None
    return max(snaps, key=lambda s: (not s.orphaned, *s.order))


def _subtree(root: Snapshot) -> list[Snapshot]:
    out, stack = [], [root]
    while stack:
        s = stack.pop()
        out.append(s)
        stack.extend(s.children)
    return out


def _branch(root: Snapshot, origin: Snapshot | None, target: Snapshot | None = None) -> Branch:
    """The chain from `root` to its subtree's head (or `target`), with every side subtree as a nested branch."""
    tip = target if target is not None else _head(_subtree(root))
    chain: list[Snapshot] = []
    node = tip
    while node is not None:
        chain.append(node)
        if node is root:
            break
        node = node.parent
    chain.reverse()
    branch = Branch(chain, origin)
    on_chain = {id(s) for s in chain}
    for s in chain:
        side = [c for c in s.children if id(c) not in on_chain]
        if side:
            branch.branches[id(s)] = [_branch(c, s) for c in side]
    return branch


# --- dump --json -------------------------------------------------------------------------------------------

def counts(store: GenkitStore) -> dict:
    branches = [b for g in store.sessions for b in g.branches]
    return {
        "snapshots": len(store.snapshots),
        "sessions": len(store.sessions),
        "turns": sum(g.turns for g in store.sessions),
        "mainTimeline": sum(len(g.main.chain) for g in store.sessions),
        "branches": len(branches),
        "orphaned": sum(1 for s in store.snapshots if s.orphaned),
        "events": store.event_counts(),
    }


def summary(store: GenkitStore) -> dict:
    return {
        "shape": store.shape,
        "snapshotShape": store.snapshot_shape,
        "files": store.files if store.shape == "directory" else None,
        "sessions": [_session_summary(g) for g in store.sessions],
        "problems": list(store.problems) + [p for g in store.sessions for p in g.problems],
    }


def _session_summary(g: GenkitSession) -> dict:
    head = g.head
    return {
        "sessionId": g.session_id,
        "snapshots": len(g.snapshots),
        "turns": g.turns,
        "head": {"id": head.id, "index": head.index, "turnIndex": head.turn_index} if head else None,
        "mainTimeline": [s.id for s in g.main.chain],
        "rootSnapshotId": g.root_id or None,
        "derived": g.shipped,  # index, turnIndex and orphaned were derived (the shipped shape has none)
        "branches": [
            {"from": b.origin.id if b.origin else None, "fromIndex": b.origin.index if b.origin else None,
             "snapshots": len(b.chain), "orphaned": b.orphaned,
             "indexes": [b.chain[0].index, b.chain[-1].index] if b.chain else None}
            for b in g.branches
        ],
    }
