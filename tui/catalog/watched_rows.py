"""The rows of what the directory watcher saw change (tui.inputs.watch): the catalog's side of a file event.

Each changed path is stat'ed, given its kind (tui.catalog.session_row.kind_of_path) and made an unloaded row (the
browser's fill reads it); removed paths and whether the directory came back pass through. Runs off the UI thread
(the app hands each batch to one thread, in order, and posts the result to the browser as SessionFilesChanged).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from tui.catalog.scan import database_rows
from tui.catalog.session_row import SessionRow, kind_of_path, row_from_entry
from tui.formats.opencode.database import changed_sessions, session_ids, session_key
from tui.inputs.agent_roots import OPENCODE, content_stat, opencode_sources
from tui.inputs.watch import DirChanges


_checked: dict[str, int] = {}  # database -> when its changes were last looked for (epoch ms)
_listed: dict[str, set[str]] = {}  # database -> its sessions listed at that look
FIRST_LOOK_MS = 10_000  # the first change to a database seen: its sessions written this recently are its rows
SLACK_MS = 2_000  # rows written during the watcher's debounce, or by a clock a little behind, are not missed


def changed_database_sessions(db: Path) -> tuple[set[str], set[str]]:
    """(The listed sessions of an OpenCode database that changed since its previous look, those gone since): the
    watcher says only that the file or its `-wal` was written. Runs in the one watched-rows thread."""
    now = int(time.time() * 1000)
    since = _checked.get(str(db), now - FIRST_LOOK_MS) - SLACK_MS
    _checked[str(db)] = now
    changed, listed = changed_sessions(str(db), since)
    before = _listed.get(str(db))
    _listed[str(db)] = listed
    if before is None:  # (the first look: the listing's rows are as fresh as this)
        return changed, set()
    return changed | (listed - before), before - listed  # (a session copied in with old times is new all the same)


@dataclass(frozen=True, slots=True)
class WatchedRows:
    """A watcher batch as the browser takes it: rows to upsert, paths whose rows go, and whether the directory came
    back (then rows of files no longer there go too)."""

    rows: list[SessionRow] = field(default_factory=list)
    removed: frozenset[Path] = frozenset()
    complete: bool = False

    def __bool__(self) -> bool:
        return bool(self.rows or self.removed or self.complete)


def watched_rows(batch: DirChanges) -> WatchedRows:
    """The rows of a batch's updated paths (a path gone since, or a directory that holds no session, gives none)."""
    rows: list[SessionRow] = []
    removed = set(batch.removed)
    for path in batch.updated:
        if batch.kinds.get(path) == OPENCODE.kind and path.name.endswith(".db"):
            changed, gone = changed_database_sessions(path)
            rows.extend(database_rows(path, ids=sorted(changed)))
            removed.update(Path(session_key(str(path), sid)) for sid in gone)
            continue
        try:
            kind = kind_of_path(path, batch.kinds.get(path))
            st = content_stat(kind, path, path.stat()) if kind is not None else None  # (OpenCode: its messages')
        except OSError:
            continue
        if kind is not None and st is not None and not (kind == OPENCODE.kind and in_a_database(path)):
            rows.append(row_from_entry(path, st.st_mtime, st.st_size or 1, kind))
    return WatchedRows(rows, frozenset(removed), batch.complete)


def in_a_database(session_file: Path) -> bool:
    """An OpenCode storage session (`<data>/storage/session/<project>/<id>.json`) that a database beside its storage
    holds too: its row is the database's (tui.catalog.scan.migrated_hidden), never listed again by a change."""
    if len(session_file.parents) < 4 or session_file.suffix != ".json":
        return False
    sid = session_file.name.removesuffix(".json")
    return any(sid in session_ids(str(db)) for db in opencode_sources(session_file.parents[2])[1])
