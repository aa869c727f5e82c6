"""The rows of what the directory watcher saw change (tui.inputs.watch): the catalog's side of a file event.

Each changed path is stat'ed, given its kind (tui.catalog.session_row.kind_of_path) and made an unloaded row (the
browser's fill reads it); removed paths and whether the directory came back pass through. Runs off the UI thread
(the app hands each batch to one thread, in order, and posts the result to the browser as SessionFilesChanged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui.catalog.session_row import SessionRow, kind_of_path, row_from_entry
from tui.inputs.agent_roots import content_stat
from tui.inputs.watch import DirChanges


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
    for path in batch.updated:
        try:
            kind = kind_of_path(path, batch.kinds.get(path))
            st = content_stat(kind, path, path.stat()) if kind is not None else None  # (OpenCode: its messages')
        except OSError:
            continue
        if kind is not None and st is not None:
            rows.append(row_from_entry(path, st.st_mtime, st.st_size or 1, kind))
    return WatchedRows(rows, frozenset(batch.removed), batch.complete)
