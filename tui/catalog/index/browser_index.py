"""The browser's side of the sessions index: a warm start from it, and the fill of the rest on a process pool.

The browser shows the index's newest rows first (`BrowserIndex.first_page`), then lists the directory with every
unchanged file's row filled from the index in the same pass (`BrowserIndex.listing`, tui.catalog.index.sync.warm_scan),
and `BrowserIndex.fill` reads the other files: on a process pool (every core) when there are many, else in the fill
thread itself; each result goes to the browser's result deque (the UI applies them in batches) and to the index (one
transaction per batch). Once the index is up to date, its warm image is written (tui.catalog.index.image): the next
start loads that instead of reading every stored row from SQLite.
Nothing here touches a widget: the header asks `progress_line` what to say.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import dataclasses
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tui.catalog.index.indexer import CHUNK, ROW_COLUMNS, FileKey, IndexPool, index_chunk, index_file, row_from_record
from tui.catalog.index.store import Index, open_index
from tui.catalog.index import image, schema
from tui.catalog.index.sync import FILE_KINDS, to_index, warm_scan
from tui.catalog.scan import Roots, scan
from tui.catalog.session_row import SessionRow, fill_row
from tui.inputs.files import source_stat

POOL_MIN = 200  # fewer files than this are read in the fill thread (starting worker processes costs ~1 s)
WRITE_EVERY = 256  # rows written to the index per transaction, at least (in the thread's own fill)
BAR_WIDTH = 16
FIRST_PAGE = 200  # rows shown from the index before the listing ends (a screenful or two; each costs one stat)


@dataclasses.dataclass(slots=True)
class Progress:
    """How far the fill of not-yet-indexed files is: read by the UI thread, written by the fill thread."""

    total: int = 0
    done: int = 0
    started: float = 0.0
    pooled: bool = False  # many files to read (on the process pool): the header shows the bar

    def begin(self, total: int, pooled: bool) -> None:
        self.total, self.done, self.started, self.pooled = total, 0, time.monotonic(), pooled


def progress_line(progress: Progress, now: float | None = None) -> str:
    """`indexing ▕██████░░░░▏ 12,345 / 100,000 · 2,400 files/s · 0:36 left`: what the header says while many files
    are read ("" otherwise)."""
    total, done = progress.total, min(progress.done, progress.total)
    if not progress.pooled or total <= 0 or done >= total:
        return ""
    elapsed = max(1e-6, (time.monotonic() if now is None else now) - progress.started)
    filled = int(BAR_WIDTH * done / total)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    parts = [f"indexing ▕{bar}▏ {done:,} / {total:,}"]
    if done:
        rate = done / elapsed
        left = int((total - done) / rate) if rate > 0 else 0
        parts.append(f"{rate:,.0f} files/s")
        parts.append(f"{left // 60}:{left % 60:02d} left")
    return " · ".join(parts)


class BrowserIndex:
    """The index of one browser's directory (opened on first use, in a worker thread) and its fill."""

    def __init__(self, sessions_dir: Path, roots: Roots = ()) -> None:
        self.sessions_dir = sessions_dir
        self.roots = roots  # other agents' roots listed with it (tui.inputs.agent_roots), in the same index
        self.index: Index | None = None
        self.progress = Progress()
        self._opened = False
        self._notices: collections.deque[str] = collections.deque()
        self._lock = threading.Lock()
        self._image_written: float | None = None  # when this process last wrote the index's warm image

    def _open(self) -> Index | None:
        with self._lock:
            if not self._opened:
                self._opened = True
                self.index, notice = open_index(self.sessions_dir)
                if notice:
                    self._notices.append(notice)
            return self.index

    def take_notices(self) -> list[str]:
        """What to tell the user once (a rebuilt or bypassed index)."""
        return [self._notices.popleft() for _ in range(len(self._notices))]

    def _drop(self, why: str) -> None:
        """The index failed while in use: say so once and go on without it."""
        if self.index is not None:
            self.index = None
            self._notices.append(f"sessions index not used any more: {why}; the monitor works without it")

    def first_page(self, limit: int) -> tuple[list[SessionRow], int]:
        """Runs in the scan thread, before the listing: the newest `limit` sessions the index knows (by start, as
        the browser sorts first), each kept only when one stat finds its file unchanged, and how many sessions
        the index holds. The browser shows them while the directory is listed ("N sessions indexed · listing…")."""
        index = self._open()
        if index is None:
            return [], 0
        try:
            conn = index.connection()
            total = int(conn.execute(schema.COUNT_SESSIONS).fetchone()[0])
            stored = conn.execute(
                f"SELECT {', '.join(ROW_COLUMNS)} FROM sessions WHERE kind != 'child' "  # noqa: S608 - ours
                "ORDER BY started_ms DESC LIMIT ?", (limit,)).fetchall()
        except sqlite3.Error:
            return [], 0  # the listing's warm read says what went wrong
        rows: list[SessionRow] = []
        for record in stored:
            try:
                st = source_stat(record["path"])
            except OSError:
                continue  # gone: the listing drops its index row
            if (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns) != (record["size"], record["mtime_ns"],
                                                                           record["inode"], record["ctime_ns"]):
                continue  # changed: the listing shows it, the fill reads it
            rows.append(row_from_record(record, st.st_mtime))
        return rows, total

    def listing(self, show_first: Callable[[list[SessionRow], int], None] | None = None) -> list[SessionRow]:
        """Runs in the scan thread: the listing, filled from the index (tui.catalog.index.sync.warm_scan: the
        stored rows are read while the directory is listed). `show_first` gets the first page first (when the
        index has one): the browser shows it before the listing ends."""
        if show_first is not None:
            page, total = self.first_page(FIRST_PAGE)
            if page:
                show_first(page, total)
        index = self._open()
        if index is None:
            return scan(self.sessions_dir, roots=self.roots)
        rows, result = warm_scan(self.sessions_dir, index, roots=self.roots)
        if result.error:
            self._drop(result.error)
        elif not to_index(rows) and (result.removed or not result.from_image):
            # nothing for the fill to read (it would write the image at its end): written here, after the listing
            threading.Thread(target=self._keep_image, args=(0,), name="warm-image", daemon=False).start()
        return rows

    def _keep_image(self, read: int) -> None:
        """Write the warm image of the index once it is up to date (tui.catalog.index.image.keep says when it
        pays): the next start loads it instead of reading every stored row from SQLite."""
        index = self.index
        if index is not None and image.keep(index, read=read, last_written=self._image_written):
            self._image_written = time.monotonic()

    def fill(self, next_key: Callable[[], str | None], row_of: Callable[[str], SessionRow | None],
             results: collections.deque, cancelled: Callable[[], bool], active: threading.Event,
             pending: int) -> None:
        """Runs in the fill thread: read every pending row (`next_key` hands them out, visible ones first); once
        all are read, the warm image of the index is written."""
        self._fill(next_key, row_of, results, cancelled, active, pending)
        if not cancelled():
            self._keep_image(pending)

    def _fill(self, next_key, row_of, results, cancelled, active, pending: int) -> None:
        index = self._open()
        pooled = pending >= POOL_MIN
        self.progress.begin(pending, pooled)
        if pooled:
            left: list[SessionRow] = []
            try:
                self._fill_pooled(next_key, row_of, results, cancelled, active, left)
                return
            except Exception as exc:  # noqa: BLE001 - no worker processes here: read the files ourselves
                self._notices.append(f"cannot use worker processes ({type(exc).__name__}: {exc}): "
                                     "files are read one at a time")
            handed = iter([row.key for row in left])  # the rows handed to the pool and not back from it first
            later = next_key
            next_key = lambda: next(handed, None) or later()  # noqa: E731
        self._fill_here(next_key, row_of, results, cancelled, active, index)

    def _fill_here(self, next_key, row_of, results, cancelled, active, index: Index | None) -> None:
        records: list[dict] = []
        while not cancelled():
            if not active.wait(0.5):
                continue
            key = next_key()
            if key is None:
                break
            row = row_of(key)
            if row is None or row.loaded:
                continue
            if index is None or row.kind not in FILE_KINDS:
                results.append(fill_row(dataclasses.replace(row)))
            else:
                record = index_file(row.key, row.kind)
                records.append(record)
                results.append(_as_row(record, row))
                if len(records) >= WRITE_EVERY:
                    self._write(records)
                    records = []
            self.progress.done += 1
        self._write(records)

    def _fill_pooled(self, next_key, row_of, results, cancelled, active, left: list[SessionRow]) -> None:
        """`left` gets the rows handed to the pool but not read when it fails (the caller reads them itself)."""
        running: dict[cf.Future, list[SessionRow]] = {}
        chunk: list[SessionRow] = []
        try:
            self._pooled(IndexPool(), next_key, row_of, results, cancelled, active, running, chunk)
        except BaseException:
            left.extend(chunk)
            for rows in running.values():
                left.extend(rows)
            raise

    def _pooled(self, pool, next_key, row_of, results, cancelled, active, running, chunk) -> None:
        limit = 2 * pool.max_workers
        records: list[dict] = []  # read, not written yet: written WRITE_EVERY at a time (a transaction per 32
        # rows cost ~20% more CPU per row, taken from the workers on 2 cores)
        try:
            while not cancelled():
                if active.is_set():
                    while len(running) < limit:
                        chunk[:] = _next_chunk(next_key, row_of)
                        if not chunk:
                            break
                        running[pool.submit([FileKey(row.key, row.kind) for row in chunk])] = list(chunk)
                        chunk.clear()
                if not running:
                    if active.is_set():
                        return
                    active.wait(0.5)
                    continue
                done, _ = cf.wait(running, timeout=0.5, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    done_rows = running[future]
                    try:
                        got = future.result()
                    except cf.BrokenExecutor:
                        raise
                    except Exception:  # noqa: BLE001 - a worker's failure: read this chunk here
                        got = index_chunk([FileKey(row.key, row.kind) for row in done_rows])
                    del running[future]
                    for row, record in zip(done_rows, got):
                        results.append(_as_row(record, row))
                    records.extend(got)
                    self.progress.done += len(got)
                if len(records) >= WRITE_EVERY or not running:  # (the rows are on screen already: see results)
                    self._write(records)
                    records = []
        finally:
            self._write(records)
            pool.shutdown()

    def _write(self, records: list[dict]) -> None:
        index = self.index
        if index is None or not records:
            return
        try:
            index.write([r for r in records if r["kind"] in FILE_KINDS and r["mtime_ns"]])
        except Exception as exc:  # noqa: BLE001 - sqlite3.Error, or a full disk: the index is only a cache
            self._drop(f"{type(exc).__name__}: {exc}")


def _next_chunk(next_key: Callable[[], str | None], row_of: Callable[[str], SessionRow | None]) -> list[SessionRow]:
    chunk: list[SessionRow] = []
    while len(chunk) < CHUNK:
        key = next_key()
        if key is None:
            break
        row = row_of(key)
        if row is not None and not row.loaded:
            chunk.append(row)
    return chunk


def _as_row(record: dict, listed: SessionRow) -> SessionRow:
    """The browser row of a freshly read file, keeping the listing's mtime and size (the browser matches on them)."""
    row = row_from_record(record, listed.mtime)
    row.size = listed.size
    row.key, row.path = listed.key, listed.path
    return row
