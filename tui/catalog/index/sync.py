"""The listing meets the index: rows whose file is unchanged are filled from it, rows of gone files are dropped.

A file is unchanged when its (size, mtime_ns, inode, ctime_ns) are the ones stored: it is never read again. A changed file
keeps its unloaded row (the pool reads it and its row is replaced); a file no longer listed loses its row.
The stored rows come from the index's warm image when it is current (tui.catalog.index.image), else from SQLite.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.catalog.index import image, indexer
from tui.catalog.index.image import CTIME_NS, INODE, MTIME_NS, SIZE, models_tuple
from tui.catalog.index.indexer import ROW_COLUMNS, FileKey
from tui.catalog.index.store import Index, image_path, open_index
from tui.catalog.session_row import AGENT_KINDS, RowKind, SessionRow, kind_of_stored, row_from_fields
from tui.model.gc_pause import paused_gc

if TYPE_CHECKING:
    from tui.catalog.scan import Known, Roots

# Rows the index holds but the listing does not show: deleted only for these kinds (a live row is not a file)
FILE_KINDS = frozenset({RowKind.SNAPSHOT, RowKind.LEDGER, RowKind.CHILD, RowKind.JULES, RowKind.GENKIT, *AGENT_KINDS})


@dataclass(slots=True)
class WarmResult:
    filled: int = 0  # rows filled from the index
    removed: int = 0  # index rows of files that are gone
    error: str = ""  # the index failed while read: the rows stay unloaded (the pool fills them)
    from_image: bool = False  # the stored rows came from the warm image (it was current)


def warm_scan(sessions_dir: Path | str, index: Index, *, prune: bool = True,
              roots: Roots = ()) -> tuple[list[SessionRow], WarmResult]:
    """The listing with every unchanged file's row filled from the index, in one pass: the stored rows are read
    first (from the warm image when it is current, tui.catalog.index.image, else from SQLite), then the listing
    builds each unchanged file's row filled at once (one object, no second pass, no file opened). Rows of files no
    longer listed are deleted from the index. `roots`: other agents' roots listed with the directory (their rows
    are kept in the same index, keyed by their absolute paths)."""
    from tui.catalog.scan import scan  # (lazy: scan is this package's neighbour, see update_index)

    result = WarmResult()
    # 100,000s of tuples made at once: collections would walk them all for nothing (scan freezes them)
    with paused_gc():
        hits: list[str] = []
        stored = image.load(index)
        rows: list[SessionRow] | None = None
        if stored is not None:
            try:
                rows = scan(sessions_dir, known=_known(stored, hits), roots=roots)
                result.from_image = True
            except (TypeError, IndexError, ValueError):  # an image of the right format holding wrong values
                hits.clear()
        if stored is None or rows is None:
            try:
                stored = {t[0]: t for chunk in index.tuples(WARM_COLUMNS, size=20_000) for t in chunk}
            except sqlite3.Error as exc:
                result.error = f"sessions index not read: {exc}"
                return scan(sessions_dir, roots=roots), result
            rows = scan(sessions_dir, known=_known_stored(stored, hits), roots=roots)
    result.filled = len(hits)
    if prune and len(hits) < len(stored):
        listed = {row.key for row in rows}
        gone = [path for path in stored if path not in listed]
        try:
            result.removed = index.remove(gone) if gone else 0
        except sqlite3.Error as exc:
            result.error = f"sessions index not written: {exc}"
    return rows, result


def _known(stored: dict[str, tuple], hits: list[str]) -> Known:
    """scan's `known` from the warm image's values: the filled row of a listed file whose (size, mtime_ns, inode)
    are the stored ones (its key goes to `hits`), built from the stored value in one call."""
    get = stored.get
    make = row_from_fields
    hit = hits.append

    def known(key: str, path: Path, st) -> SessionRow | None:
        value = get(key)
        if value is None or value[SIZE] != st.st_size or value[MTIME_NS] != st.st_mtime_ns \
                or value[INODE] != st.st_ino or value[CTIME_NS] != st.st_ctime_ns:
            return None
        hit(key)
        return make(key, path, value)

    return known


def _known_stored(stored: dict[str, tuple], hits: list[str]) -> Known:
    """_known for the stored WARM_COLUMNS tuples read from SQLite (no current image): each row is built from its
    tuple at once (no intermediate value per row: at 100,000 rows, that pass cost ~0.2 s)."""
    get = stored.get
    make = row_from_fields
    models_of = image.SHARED_MODELS.get
    hit = hits.append

    def known(key: str, path: Path, st) -> SessionRow | None:
        t = get(key)
        if t is None or t[1] != st.st_size or t[2] != st.st_mtime_ns or t[3] != st.st_ino or t[17] != st.st_ctime_ns:
            return None
        hit(key)
        return make(key, path, (t[4], t[5], st.st_mtime, t[1], True, t[16], t[9], t[6], t[7], t[8], t[10], t[11],
                                t[12], t[13], t[15], models_of(t[14]) or models_tuple(t[14]), None, None, t[2], t[3],
                                t[18], t[17], t[19], t[20]))

    return known


def fill_from_index(index: Index, rows: list[SessionRow], *, prune: bool = True) -> WarmResult:
    """Fill `rows` (a fresh listing) in place from the index; delete the index rows of files not listed."""
    try:
        return join_stored(index, rows, index.tuples(WARM_COLUMNS), prune=prune)
    except sqlite3.Error as exc:
        return WarmResult(error=f"sessions index not read: {exc}")


def join_stored(index: Index, rows: list[SessionRow], stored, *, prune: bool = True) -> WarmResult:
    """Fill `rows` in place from chunks of stored WARM_COLUMNS tuples (one O(n) pass; rows are built positionally:
    at 300,000 rows every Python operation per row counts); prune the index rows of files not listed."""
    result = WarmResult()
    by_key = {row.key: i for i, row in enumerate(rows)}
    gone: list[str] = []
    get = by_key.get
    make = row_from_fields
    kind_of = kind_of_stored
    models_of = image.SHARED_MODELS.get
    filled = 0
    try:
        for chunk in stored:
            for (path, size, mtime_ns, inode, kind, session_id, agent, title, status, started, duration, turns,
                 tokens, cost, models, mismatch, broken, ctime_ns, suspect, estimated, project) in chunk:
                i = get(path)
                if i is None:
                    gone.append(path)
                    continue
                row = rows[i]
                if row.loaded or row.size != size or row.mtime_ns != mtime_ns or row.inode != inode \
                        or row.ctime_ns != ctime_ns:
                    continue
                rows[i] = make(path, row.path, (kind_of(row.kind, kind), session_id, row.mtime, size, True, broken,
                                                started, agent, title, status, duration, turns, tokens, cost, mismatch,
                                                models_of(models) or models_tuple(models), None, None, mtime_ns,
                                                inode, suspect, ctime_ns, estimated, project))
                filled += 1
        result.filled = filled
        if prune and gone:
            result.removed = index.remove(gone)
    except sqlite3.Error as exc:
        result.error = f"sessions index not read: {exc}"
    return result


# ROW_COLUMNS with the sums and truths done by SQLite (at 300,000 rows, every Python operation per row counts)
_COMPUTED = {"tokens_in": "tokens_in + tokens_out", "mismatch": "mismatch != 0",
             "cost_estimated": "cost_estimated != 0"}
WARM_COLUMNS: tuple[str, ...] = tuple(_COMPUTED.get(name, name) for name in ROW_COLUMNS if name != "tokens_out")


def to_index(rows: list[SessionRow]) -> list[FileKey]:
    """What the pool should read: the listed rows that are not filled yet (files only)."""
    return [FileKey(row.key, row.kind) for row in rows if not row.loaded and row.kind in FILE_KINDS]


POOL_MIN = 200  # fewer files than this are read in this process (starting worker processes costs about a second)
WRITE_EVERY = 256


@dataclass(slots=True)
class Refreshed:
    filled: int = 0  # rows taken from the index unchanged
    read: int = 0  # files read (new or changed)
    removed: int = 0  # rows of files that are gone
    error: str = ""


def refresh(index: Index, rows: list[SessionRow], *, pool: bool | None = None) -> Refreshed:
    """Bring the index up to date with a listing: unchanged files are not read, changed and new ones are (on a
    process pool when there are many, or when `pool`), rows of gone files are deleted. `rows` is filled in place.

    The one call a command without a screen needs (`aiagent-monitor stats` before its queries)."""
    warm = fill_from_index(index, rows)
    done = Refreshed(filled=warm.filled, removed=warm.removed, error=warm.error)
    if warm.error:
        return done
    todo = to_index(rows)
    use_pool = len(todo) >= POOL_MIN if pool is None else pool
    try:
        # rows are written WRITE_EVERY at a time: a transaction per 32 rows cost ~20% more CPU per row (0.049 ms
        # against 0.041), taken from the workers on 2 cores
        batch: list[dict] = []
        found = indexer.index_files(todo) if use_pool else ([indexer.index_file(f.path, f.kind)] for f in todo)
        for records in found:
            batch += records
            if len(batch) >= WRITE_EVERY:
                index.write([r for r in batch if r["mtime_ns"]])
                done.read += len(batch)
                batch = []
        index.write([r for r in batch if r["mtime_ns"]])
        done.read += len(batch)
    except sqlite3.Error as exc:
        done.error = f"sessions index not written: {exc}"
        return done
    if done.read >= image.MANY_READ or not os.path.lexists(image_path(index.path)):
        image.save(index)  # the next warm start loads it instead of SQLite (not written: it reads SQLite, no harm)
    return done


def update_index(sessions_dir: Path | str, *, pool: bool | None = None,
                 roots: Roots = ()) -> tuple[Index | None, str, Refreshed]:
    """Open the index of a sessions directory and bring it up to date: (index or None, notice, what was done)."""
    from tui.catalog.scan import scan  # (scan imports this package's neighbours only: no cycle, but kept lazy)

    index, notice = open_index(sessions_dir)
    if index is None:
        return None, notice, Refreshed()
    return index, notice, refresh(index, scan(sessions_dir, roots=roots))
