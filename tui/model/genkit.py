"""Genkit Go session snapshots (seed genkit-go-session-snapshots-design.md): read them and rebuild their history.

Input: a JSON array of snapshots (`ListSnapshots(..., includeOrphaned=true)`), `{"snapshots": [...]}`, one snapshot
object, or a directory of such files (`*.json`, `*.json.gz`; Go session data files beside them are skipped).

Each session's snapshots form a tree through `parentId`. Its main timeline is the path from the root to the head
(the newest snapshot that is not orphaned). Restoring from an earlier snapshot orphans the snapshots after it:
they hang off the main timeline as a branch at the snapshot they grew from, and a branch may have branches too.
Broken links (a parent that is not in the input, a cycle, a duplicate id) are reported, never fatal.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from tui.model import json_load
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str, one_line, type_name
from tui.model.source_bytes import LoadError, open_regular, read_source

FORMAT = "genkit-snapshots"
EVENTS = ("turnEnd", "toolIterationEnd", "invocationEnd")  # SnapshotEvent 0, 1, 2 (iota order)
_EVENT_KEYS = {name.lower(): name for name in EVENTS}
_SUFFIXES = (".json", ".json.gz")
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

    def event_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.snapshots:
            counts[s.event] = counts.get(s.event, 0) + 1
        return counts


# --- detection ---------------------------------------------------------------------------------------------

def looks_like_snapshot(value: object) -> bool:
    return (isinstance(value, dict) and "sessionId" in value and ("turnIndex" in value or "index" in value)
            and ("state" in value or "event" in value or "parentId" in value))


def looks_like_genkit(value: object) -> bool:
    if isinstance(value, list):
        return any(looks_like_snapshot(item) for item in value[:5])
    if isinstance(value, dict):
        if looks_like_snapshot(value):
            return True
        inner = value.get("snapshots")
        return isinstance(inner, list) and any(looks_like_snapshot(item) for item in inner[:5])
    return False


def looks_like_genkit_dir(path: Path | str, *, max_entries: int = 200, head_bytes: int = 8192,
                          max_files: int = 3) -> bool:
    """Cheap: the first few JSON file names in the directory, and the start of at most `max_files` of them."""
    opened = 0
    try:
        with os.scandir(path) as it:
            for n, entry in enumerate(it):
                if n >= max_entries or opened >= max_files:
                    return False
                if _is_candidate(entry.name) and entry.is_file():
                    opened += 1
                    if _head_looks_like(entry.path, head_bytes):
                        return True
    except OSError:
        return False
    return False


def _is_candidate(name: str) -> bool:
    return name.endswith(_SUFFIXES) and ".tmp-" not in name and not name.startswith(".")


def _head_looks_like(path: str, head_bytes: int) -> bool:
    import zlib

    try:
        with open_regular(path) as fh:
            head = fh.read(head_bytes)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, head_bytes)
        except zlib.error:
            return False
    # Go writes id, parentId, sessionId, createdAt, then the state (maybe large), then index and turnIndex
    return (b'"sessionId"' in head and (b'"createdAt"' in head or b'"turnIndex"' in head)
            and b'"opTree"' not in head)


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
        names = sorted(e.name for e in os.scandir(path) if _is_candidate(e.name) and e.is_file())
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
    s.id = as_str(node.get("id"))
    if not s.id:
        s.problems.append("no id" if node.get("id") is None else f"id is {type_name(node.get('id'))}")
    s.parent_id = as_str(node.get("parentId"))
    s.session_id = as_str(node.get("sessionId"))
    created = node.get("createdAt")
    s.created_ms = as_ms(created)
    s.created_at = created if isinstance(created, str) else ""
    if created is not None and s.created_ms is None:
        s.problems.append(f"createdAt is not a time: {one_line(str(created), 40)}")
    for key, attr in (("index", "index"), ("turnIndex", "turn_index")):
        raw = node.get(key)
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
    s.orphaned = node.get("orphaned") is True
    s.state = node.get("state")
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
        store.sessions.append(_session(session_id, snaps))
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


# --- state helpers -----------------------------------------------------------------------------------------

def messages(state: object) -> list:
    return as_list(as_dict(state).get("messages"))


def message_text(message: object) -> str:
    """`role: text` of a Genkit ai.Message ({role, content: [{text}...]}), or of a plain {role, text} dict."""
    if isinstance(message, str):
        return message
    m = as_dict(message)
    role = as_str(m.get("role"))
    content = m.get("content")
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for part in as_list(content):
            p = as_dict(part)
            if isinstance(p.get("text"), str):
                parts.append(p["text"])
            elif isinstance(p.get("toolRequest"), dict):
                parts.append(f"[tool request {as_str(p['toolRequest'].get('name'))}]")
            elif isinstance(p.get("toolResponse"), dict):
                parts.append(f"[tool response {as_str(p['toolResponse'].get('name'))}]")
        text = " ".join(parts) or as_str(m.get("text"))
    return f"{role}: {text}" if role else text


def state_changes(state: object, parent_state: object) -> list[str]:
    """Top-level keys added, removed or changed since the parent snapshot; message counts when both have them."""
    if not isinstance(state, dict) or not isinstance(parent_state, dict):
        return [] if state == parent_state else ["state replaced"]
    out = []
    for key in state:
        if key not in parent_state:
            out.append(f"+{key}")
        elif state[key] != parent_state[key]:
            before, after = parent_state[key], state[key]
            if isinstance(before, list) and isinstance(after, list) and len(after) != len(before):
                out.append(f"{key} {len(before)}→{len(after)}")
            else:
                out.append(f"~{key}")
    out.extend(f"-{key}" for key in parent_state if key not in state)
    return out


def content_address_matches(s: Snapshot) -> bool:
    """The id is documented as SHA256 of the JSON state; Go's serialisation may differ in spacing or order."""
    try:
        return hashlib.sha256(orjson.dumps(s.state)).hexdigest() == s.id
    except TypeError:
        return False


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
        "branches": [
            {"from": b.origin.id if b.origin else None, "fromIndex": b.origin.index if b.origin else None,
             "snapshots": len(b.chain), "orphaned": b.orphaned,
             "indexes": [b.chain[0].index, b.chain[-1].index] if b.chain else None}
            for b in g.branches
        ],
    }
