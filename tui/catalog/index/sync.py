"""The listing meets the index: rows whose file is unchanged are filled from it, rows of gone files are dropped.

A file is unchanged when its (size, mtime_ns, inode) are the ones stored: it is never read again. A changed file
keeps its unloaded row (the pool reads it and its row is replaced); a file no longer listed loses its row.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tui.catalog.index.indexer import ROW_COLUMNS, FileKey, row_from_record
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
    """Fill `rows` (a fresh listing) in place from the index; delete the index rows of files not listed."""
    result = WarmResult()
    by_key = {row.key: i for i, row in enumerate(rows)}
    gone: list[str] = []
    try:
        for record in index.records(ROW_COLUMNS):
            path = record["path"]
            i = by_key.get(path)
            if i is None:
                gone.append(path)
                continue
            row = rows[i]
            if row.loaded or row.size != record["size"] or row.mtime_ns != record["mtime_ns"] \
                    or row.inode != record["inode"]:
                continue
            filled = row_from_record(record, row.mtime)
            if row.kind == RowKind.GENKIT:
                filled.kind = row.kind
            rows[i] = filled
            result.filled += 1
        if prune and gone:
            result.removed = index.remove(gone)
    except sqlite3.Error as exc:
        result.error = f"sessions index not read: {exc}"
    return result


def to_index(rows: list[SessionRow]) -> list[FileKey]:
    """What the pool should read: the listed rows that are not filled yet (files only)."""
    return [FileKey(row.key, row.kind) for row in rows if not row.loaded and row.kind in FILE_KINDS]
