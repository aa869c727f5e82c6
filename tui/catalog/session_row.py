"""One line of the sessions browser: what a directory listing knows about a file, then its loaded summary.

Pure model code (no textual): `row_from_entry` builds a row from the listing alone (name, mtime, size), and
`fill_row` loads the document and fills the summary. `fill_row` never raises: a file that cannot be read becomes a
row with `broken` set to the one-line reason.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

import orjson

from tui.formats.aiagent.file_identity import misfiled, misfiled_title
from tui.inputs import json_load
from tui.inputs.files import LoadError, database_of_key, document_limit, open_regular
from tui.model.document import ACCOUNTING, GENKIT, JULES
from tui.model.fields import one_line
from tui.model.agent_nodes import session_project
from tui.model.nodes import Session, release_tree, user_turns
from tui.inputs.agent_roots import LOCATIONS
from tui.model.session_facts import cost_estimated, cost_unknown, node_duration
from tui.catalog.absurd import sane_row
from tui.catalog.liveness import shown_status
from tui.catalog.row_facts import TreeFacts, row_name, row_project, row_title, tree_facts



class RowKind:
    """The kinds of browser row: the one vocabulary of the scan, the app's directory watch and live rows, and the
    browser's tags. Plain strings (a row's `kind` is shown, filtered on and sorted like any text); a namespace so
    that they are not mistaken for the format ids of tui.model.document (SNAPSHOT there is "aiagent-snapshot")."""

    SNAPSHOT = "snapshot"  # an ai-agent SessionNode snapshot (.json.gz / .json)
    LEDGER = "ledger"  # a v3 ledger of a root session (.jsonl)
    CHILD = "child"  # a v3 ledger of a sub-agent: embedded in its root's tree, not a session of its own
    JULES = "jules"  # a Jules SessionSnapshot file
    GENKIT = "genkit"  # Genkit session snapshots: a JSON array, or a directory of snapshot files
    LIVE = "live"  # a session streamed to the monitor (--listen / --connect): no file behind it
    # Other coding agents' session files (tui.inputs.agent_roots.LOCATIONS): their location's kind, e.g.
    # "claude-code"; AGENT_KINDS lists them.


AGENT_KINDS = frozenset(loc.kind for loc in LOCATIONS)


LIVE_PREFIX = "live:"  # a live row's key and path: LIVE_PREFIX + the root session id
FOREIGN_KINDS = {JULES: RowKind.JULES, GENKIT: RowKind.GENKIT}  # format id -> row kind

# The browser loads every file in the background: keep one pathological file from taking all the memory.
ROW_MAX_BYTES = 512 * 1024 * 1024
FIRST_LINE_BYTES = 64 * 1024
EMPTY_REASON = "empty file (0 bytes)"
# session_start.headendId: where a session came from. A person starts a root; the producer starts a sub-agent.
ROOT_HEADENDS = frozenset({"cli", "api", "web", "embed", "slack"})
CHILD_HEADENDS = frozenset({"sub-agent", "tool_output", "history_compaction"})
_SUFFIXES = (".json.gz", ".jsonl", ".json", ".gz")
SUMMARY_FIELDS = ("started_at", "agent", "title", "status", "duration_ms", "turns", "tokens", "cost", "mismatch",
                  "models", "cost_estimated", "project")


@dataclass(slots=True)
class SessionRow:
    key: str  # absolute path: unique and stable across rescans
    path: Path
    kind: str  # a RowKind
    session_id: str  # from the file name
    mtime: float  # seconds since the epoch
    size: int
    loaded: bool = False
    broken: str = ""  # why the file cannot be shown; "" when fine
    started_at: int | None = None  # ms since the epoch
    agent: str = ""
    title: str = ""
    status: str = ""  # "running" | "ok" | "failed" ("" until loaded)
    duration_ms: int | None = None
    turns: int | None = None
    tokens: int | None = None  # tokensIn + tokensOut
    cost: float | None = None
    mismatch: bool = False  # stored totals disagree with the recomputed ones
    models: tuple[str, ...] = ()  # the LLM models used, main one first (tui.catalog.row_facts)
    events: int | None = None  # live rows: events received over the root and its sub-agents
    gaps: int | None = None  # live rows: sequence numbers never received
    mtime_ns: int = 0  # with size, inode and ctime_ns: the key the sessions index checks (tui.catalog.index)
    inode: int = 0
    suspect: str = ""  # absurd numbers in the file, clamped (tui.catalog.absurd); "" when every number is sane
    ctime_ns: int = 0  # a file replaced with its size and mtime put back (cp -p, rsync -t) still changes this
    cost_estimated: bool = False  # the cost is the price table's estimate (an agent file records none)
    project: str = ""  # the project the session worked in (tui.model.agent_nodes.session_project); "" unknown

    @property
    def started_or_mtime_ms(self) -> int:
        """When the session started; the file's mtime until it is loaded (or when the start is unknown)."""
        return self.started_at if self.started_at is not None else int(self.mtime * 1000)


# A row's fields after its key and path, in order: row_from_fields' `values` (the sessions index's warm image holds
# exactly these tuples: tui.catalog.index.image), and the defaults of those a listing does not know yet
ROW_FIELDS = tuple(field.name for field in fields(SessionRow))[2:]
_UNFILLED = tuple(field.default for field in fields(SessionRow))[8:20]  # started_at ... gaps


def row_from_fields(key: str, path: Path, values: tuple) -> SessionRow:
    """The one place a row is made: `values` are its fields after key and path, in order (ROW_FIELDS).
    Positional, because a warm start restores 100,000s of rows from the sessions index (its warm image's values are
    these tuples as stored, tui.catalog.index.sync; its SQLite rows: tui.catalog.index.indexer.row_from_record);
    a listing's rows come through row_from_entry."""
    return SessionRow(key, path, *values)


def session_id_from_name(name: str) -> str:
    if database_of_key(name) is not None:  # a session of a database (OpenCode's `opencode.db#<session id>`)
        return name.rpartition("#")[2]
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def row_from_entry(path: Path | str, mtime: float, size: int, kind: str, *, key: str | None = None,
                   session_id: str | None = None, loaded: bool = False, broken: str = "", mtime_ns: int = 0,
                   inode: int = 0, ctime_ns: int = 0) -> SessionRow:
    """A row from what a listing knows (a directory entry, a watcher's stat, a live root): nothing is opened.
    `key` defaults to the path, `session_id` to the file name without its suffix; an empty file that is not
    `loaded` already is loaded at once, broken for being empty. (A row the sessions index kept: row_from_fields.)"""
    if path is not None and not isinstance(path, Path):
        path = Path(path)
    if key is None:
        key = str(path)
    if session_id is None:
        session_id = session_id_from_name(os.path.basename(key))
    if size == 0 and not loaded:
        broken, loaded = EMPTY_REASON, True
    return row_from_fields(key, path, (kind, session_id, mtime, size, loaded, broken, *_UNFILLED, mtime_ns, inode, "",
                                       ctime_ns, False))


# ----------------------------------------------------------------------------------------- the row's kind
# Where a row's kind is decided, and only here: by where its file sits (the listing and the watcher), by its first
# line (a v3 ledger of a sub-agent is no session), by what its content turned out to be (the fill).

def kind_of_path(path: Path, hint: str | None = None) -> str | None:
    """The kind of a changed path the watcher reports: `hint` when its location says (other agents' roots), a
    Genkit snapshot directory, a ledger (`.jsonl`) or a snapshot; None for a directory that holds no session."""
    kind = hint or (RowKind.LEDGER if path.suffix == ".jsonl" else RowKind.SNAPSHOT)
    if path.is_dir():  # a Genkit snapshot directory (tui.inputs.watch.genkit_dir_of)
        from tui.formats.genkit.snapshot import looks_like_genkit_dir

        return RowKind.GENKIT if looks_like_genkit_dir(path) else None
    return kind


def kind_of_stored(listed: str, stored: str) -> str:
    """The kind of a listed file filled from the sessions index: the stored one (what its content turned out to be,
    kind_of_content), except for a Genkit snapshot directory, which only the listing knows as one."""
    return listed if listed == RowKind.GENKIT else stored


def not_a_session(row: SessionRow) -> bool:
    """A sub-agent's row, which the browser does not list (its tree is embedded in its root's): a ledger found to
    be one, or an unloaded ledger whose first line names a parent."""
    return row.kind == RowKind.CHILD or (row.kind == RowKind.LEDGER and not row.loaded
                                         and bool(ledger_parent(row.path)))


def kind_of_content(kind: str, doc_format: str) -> str:
    """A file's kind once its document is loaded: a foreign format (Jules, Genkit) or another agent's file
    (Claude Code, Codex, Gemini CLI), wherever it was listed; else the kind it was listed with."""
    if doc_format in FOREIGN_KINDS:
        return FOREIGN_KINDS[doc_format]
    from tui.formats.agents import kind_of_format

    return kind_of_format(doc_format) or kind


def ledger_parent(path: Path | str) -> str | None:
    """Whom a ledger's session belongs under, from its session_start (its first line): "" for a root, None when
    unknown, else the parentSessionId; a sub-agent written without one (older producers: about 3% of them) gives
    its originId (the root's id) or "?". Its parent's childSessions link it into the root's tree all the same.

    Reads at most FIRST_LINE_BYTES: cheap enough to tell children from roots without loading the ledger.
    """
    try:
        with open_regular(path) as fh:  # a FIFO named x.jsonl would block the browser's fill thread
            head = fh.read(FIRST_LINE_BYTES)
    except OSError:
        return None
    line = head.split(b"\n", 1)[0]
    try:
        record = json_load.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict) or record.get("recordType") != "session_start":
        return None
    parent = record.get("parentSessionId")
    if isinstance(parent, str) and parent:
        return parent
    return _implied_parent(record)


def _implied_parent(start: dict) -> str:
    """A session_start without parentSessionId: "" for a root; for a sub-agent, its originId or "?".

    A sub-agent is started by a headend that is not a person's entry point (sub-agent, tool_output,
    history_compaction); without a headendId, a session whose originId (its root's id) is not its own id.
    """
    headend, origin, session_id = start.get("headendId"), start.get("originId"), start.get("sessionId")
    origin = origin if isinstance(origin, str) else ""
    if isinstance(headend, str) and headend:
        if headend in ROOT_HEADENDS:
            return ""
        if headend in CHILD_HEADENDS:
            return origin if origin and origin != session_id else "?"
    if origin and isinstance(session_id, str) and session_id and origin != session_id:
        return origin
    return ""


def fill_row(row: SessionRow, on_tree: Callable[[Session], None] | None = None, *,
             data: bytes | bytearray | None = None) -> SessionRow:
    """Load the row's document and fill the summary in place (returns the same row). Never raises.
    `on_tree`: called with the loaded tree before it is released (the sessions index reads more facts from it);
    `data`: the file's content when it was read already."""
    if row.loaded:
        return row
    try:
        _fill(row, on_tree, data)
    except LoadError as exc:
        row.broken = one_line(exc.reason or "cannot be read")
    except MemoryError:
        row.broken = "too large to load (out of memory)"
    except RecursionError:
        row.broken = "nested too deeply to load"
    except Exception as exc:  # noqa: BLE001 - a bad file must never take the browser down
        row.broken = one_line(f"cannot load: {type(exc).__name__}: {exc}")
    row.loaded = True
    return row


def _fill(row: SessionRow, on_tree: Callable[[Session], None] | None, data: bytes | bytearray | None) -> None:
    from tui.formats.load import load  # the document model is heavy: import on first use

    if row.size == 0:
        row.broken = EMPTY_REASON
        return
    if row.kind == RowKind.LEDGER and ledger_parent(row.path):  # (not_a_session: a loaded ledger's rule)
        row.kind = RowKind.CHILD
        return
    doc = load(str(row.path), max_bytes=row_max_bytes(), data=data)
    s = doc.root
    if doc.format == ACCOUNTING or s is None:
        row.broken = "an accounting ledger, not a session"
        return
    summarise_file_row(row, s, tree_facts(s))
    row.kind = kind_of_content(row.kind, doc.format)
    if doc.format in FOREIGN_KINDS:  # Jules / Genkit: no tokens or cost; the kind shows in the Id column
        row.tokens = row.cost = None
        if s.status == "ok" and s.success is None and s.latest_status:
            row.status = one_line(s.latest_status, 20)  # a Jules session snapshotted while going: its state
        row.agent = row.agent or s.display_agent
        row.mismatch = bool(getattr(doc.extra, "mismatch", None))
    else:
        from tui.formats.agents import kind_of_format

        agent_kind = kind_of_format(doc.format)
        if agent_kind is not None and _agent_child(s, agent_kind, row.path):
            # (an OpenCode sub-agent's session has a file of its own, and is read below its parent's task call)
            row.kind = RowKind.CHILD
    if on_tree is not None:
        on_tree(s)
    release_tree(s)


def _agent_child(s: Session, kind: str, path: Path) -> bool:
    """Whether an agent's session file is a sub-agent's shown within its parent's tree (its `parentID`: a Codex
    spawned thread, an OpenCode task session), the parent's file being there to show it."""
    from tui.inputs.agent_roots import parent_session_file

    attributes = s.field("attributes")
    parent = attributes.get("parentID") if isinstance(attributes, dict) else None
    return isinstance(parent, str) and bool(parent) and parent_session_file(kind, Path(path), parent) is not None


def row_max_bytes() -> int:
    """The most a row reads of a file, decompressed."""
    return min(document_limit(), ROW_MAX_BYTES)


def summarise_file_row(row: SessionRow, s: Session, facts: TreeFacts) -> None:
    """The summary of a file's root session: a tree's, or one read by tui.formats.aiagent.facts (the sessions
    index: `facts` gathered in its walk) with the same fields, totals and root turns."""
    _summarise(row, s, facts)
    row.agent = row_name(s.agent_id or s.call_path or "")  # a few agents over 100k rows
    row.project = row_project(session_project(s))
    if misfiled(row.key, s.trace_id):  # the producer's handoff bug: said in the title, which the index keeps
        row.title = misfiled_title(s.trace_id, s.call_path or s.agent_id, row.title)


def _summarise(row: SessionRow, s: Session, facts: TreeFacts | None = None) -> None:
    """The summary of a session tree, the same for a file's row and a live one."""
    if facts is None:
        facts = tree_facts(s)
    row.started_at = s.started_at
    row.title = row_title(s)
    row.status = s.status
    row.duration_ms = node_duration(s, facts.last_activity_ms)[0]  # the one rule (tui.model.session_facts)
    row.turns = user_turns(s)  # the one definition of Turns (tui.model.nodes), shared with live rows and Totals
    row.tokens = s.totals.tokensIn + s.totals.tokensOut
    row.cost = None if cost_unknown(s) else s.totals.cost  # (a path that records none: "-", never $0.0000)
    row.cost_estimated = cost_estimated(s)
    row.mismatch = bool(s.mismatch)
    row.models = facts.models
    sane_row(row)  # one file's absurd numbers must not break the index, stats or the browser for all


def live_session_row(root: str, session: Session, events: int, gaps: int, updated: float | None) -> SessionRow:
    """The row of a session streamed to the monitor: its key is LIVE_PREFIX + the root id, its "mtime" the wall
    time of its last event (`updated`, what the stale rule and the Age column read); events and gaps have their
    own column, the title stays the session's."""
    row = row_from_entry(Path(LIVE_PREFIX + root), updated or time.time(), 0, RowKind.LIVE, key=LIVE_PREFIX + root,
                         session_id=root, loaded=True)
    _summarise(row, session)
    row.agent = session.display_agent
    row.events, row.gaps = events, gaps
    return row


def matches(row: SessionRow, needle: str, status: str | None = None) -> bool:
    """Case-insensitive filter on agent, title, session id, status, kind and models (needle already lower-cased).
    `status`: the status as shown (`stale`, tui.catalog.liveness) when it is not the row's own."""
    if not needle:
        return True
    if status is None:
        status = "broken" if row.broken else row.status
    return (
        needle in row.session_id.lower()
        or needle in row.agent.lower()
        or needle in row.title.lower()
        or needle in status.lower()  # a Jules state such as "inProgress"
        or needle in row.kind
        or any(needle in model.lower() for model in row.models)
        or (bool(row.broken) and needle in row.broken.lower())
    )


def sort_value(row: SessionRow, column: str, now_s: float | None = None):
    """The value a browser column sorts by; None when not known (the browser sorts those last either way).
    `now_s`: sort a running session that went silent as `stale` (tui.catalog.liveness)."""
    if column == "started":
        return row.started_or_mtime_ms
    if column == "id":
        return row.session_id.lower()
    if column == "age":
        return -row.mtime  # the youngest first when ascending
    if column == "kind":
        return row.kind
    if row.broken:
        return "broken" if column == "status" else None
    if column == "status" and now_s is not None:
        return shown_status(row.status, row.mtime, now_s).lower() or None
    if column in ("agent", "title", "status"):
        value = getattr(row, column)
        return value.lower() if value else None
    if column == "model":
        return row.models[0].lower() if row.models else None
    return {"duration": row.duration_ms, "turns": row.turns, "tokens": row.tokens, "cost": row.cost,
            "events": row.events}.get(column)


def carry_summary(old: SessionRow, new: SessionRow) -> None:
    """Copy a loaded row's summary into its not-yet-loaded successor (same file, rewritten), so the list keeps
    showing the last known values until the new content is loaded."""
    if old.status and not old.broken and not new.loaded:
        for name in SUMMARY_FIELDS:
            setattr(new, name, getattr(old, name))
