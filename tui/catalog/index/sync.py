"""The listing meets the index: rows whose file is unchanged are filled from it, rows of gone files are dropped.

A file is unchanged when its (size, mtime_ns, inode) are the ones stored: it is never read again. A changed file
keeps its unloaded row (the pool reads it and its row is replaced); a file no longer listed loses its row.
"""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass

from tui.catalog.index.indexer import ROW_COLUMNS, FileKey
from tui.catalog.index.store import Index
from tui.catalog.session_row import RowKind, SessionRow

# Rows the index holds but the listing does not show: deleted only for these kinds (a live row is not a file)
FILE_KINDS = frozenset({RowKind.SNAPSHOT, RowKind.LEDGER, RowKind.CHILD, RowKind.JULES, RowKind.GENKIT})


@dataclass(slots=True)
class WarmResult:
    filled: int = 0  # rows filled from the index
    removed: int = 0  # index rows of files that are gone
    error: str = ""  # the index failed while read: the rows stay unloaded (the pool fills them)


def fill_from_index(index: Index, rows: list[SessionRow], *, prune: bool = True) -> WarmResult:
    """Fill `rows` (a fresh listing) in place from the index; delete the index rows of files not listed.

    Rows are read as plain tuples and built positionally: at 300,000 rows this is most of a warm start."""
    result = WarmResult()
    by_key = {row.key: i for i, row in enumerate(rows)}
    gone: list[str] = []
    get = by_key.get
    make = SessionRow
    genkit = RowKind.GENKIT
    try:
        for chunk in index.tuples(ROW_COLUMNS):
            for (path, size, mtime_ns, inode, kind, session_id, agent, title, status, started, duration, turns,
                 tokens_in, tokens_out, cost, models, mismatch, broken) in chunk:
                i = get(path)
                if i is None:
                    gone.append(path)
                    continue
                row = rows[i]
                if row.loaded or row.size != size or row.mtime_ns != mtime_ns or row.inode != inode:
                    continue
                rows[i] = make(path, row.path, genkit if row.kind == genkit else kind, session_id, row.mtime, size,
                               True, broken, started, agent, title, status, duration, turns,
                               None if tokens_in is None or tokens_out is None else tokens_in + tokens_out, cost,
                               bool(mismatch), _models(models), None, None, mtime_ns, inode)
                result.filled += 1
        if prune and gone:
            result.removed = index.remove(gone)
    except sqlite3.Error as exc:
        result.error = f"sessions index not read: {exc}"
    return result


_MODELS: dict[str, tuple[str, ...]] = {}


def _models(joined: str) -> tuple[str, ...]:
    """The models tuple of a stored row: 300,000 rows share a few combinations, one tuple each."""
    found = _MODELS.get(joined)
    if found is None:
        found = tuple(sys.intern(m) for m in joined.split("\n")) if joined else ()
        if len(_MODELS) < 10_000:
            _MODELS[joined] = found
    return found


def to_index(rows: list[SessionRow]) -> list[FileKey]:
    """What the pool should read: the listed rows that are not filled yet (files only)."""
    return [FileKey(row.key, row.kind) for row in rows if not row.loaded and row.kind in FILE_KINDS]
