"""Filling the sessions index: the facts of one file as one `sessions` row, and many files on a process pool.

`index_file` reads a plain snapshot without building its tree (tui.catalog.index.facts_fill: the same row, in
about half the time); any other file through the browser's fill (tui.catalog.session_row.fill_row), reading what
the index adds (tui.catalog.index.row_extras) from the same tree before it is released. `IndexPool`
runs chunks of files in worker processes on every core: loading a session is CPU-bound Python, so threads would
share one core. `row_from_record` turns a stored row back into a browser row: a warm start fills every row from the
index without opening a file.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from tui.catalog.absurd import SUSPECT_HEAD, sane_record, suspect_text
from tui.catalog.index.facts_fill import fill_from_facts
from tui.catalog.index.row_extras import TEXT_KINDS, OpTally, empty_extras, headend_of, op_text, write_extras
from tui.catalog.session_row import RowKind, SessionRow, fill_row, row_from_entry, row_from_fields
from tui.inputs.agent_roots import content_stat
from tui.inputs.files import not_regular_reason, source_stat
from tui.model.nodes import Session
from tui.model.search import walk_ops

CHUNK = 128  # files per pool task (~45 ms of work): 32 left the workers idle between tasks a fifth of the time
# (cold indexing of 100,000 files: 28.0 s with 32, 23.1 s with 128, 22.9 s with 256); rows still come steadily
# What the browser needs of a stored row (the warm start reads only these)
ROW_COLUMNS = ("path", "size", "mtime_ns", "inode", "kind", "session_id", "agent", "title", "status", "started_ms",
               "duration_ms", "turns", "tokens_in", "tokens_out", "cost_usd", "models", "mismatch", "broken",
               "ctime_ns", "suspect", "cost_estimated", "project")


@dataclass(frozen=True, slots=True)
class FileKey:
    """What a pool task gets for one file: its path and the kind the listing gave it."""

    path: str
    kind: str


def _extras(record: dict):
    def read(s: Session) -> None:
        tally = OpTally(s)
        for op in walk_ops(s):
            child = op.child
            tally.add(op.status, op.error, op.kind, op.name, child.agent_id if child is not None else "")
            if op.kind in TEXT_KINDS and tally.wants_text(op.kind):
                tally.add_text(op.kind, op_text(op))
            if child is not None:
                tally.add_turn_answers(child.turns)
        write_extras(record, s, headend_of(s), tally)
    return read


def index_file(path: str, kind: str) -> dict:
    """The `sessions` row of one file (never raises: a file that cannot be read is a row with `broken` set).

    The key (size, mtime_ns, inode) is taken before reading: a file rewritten meanwhile is read again next time."""
    not_regular = ""
    try:
        info = content_stat(kind, path, source_stat(path))  # (an OpenCode session: its messages' newest change)
        size, mtime_ns, inode, mtime, ctime_ns = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_mtime,
                                                  info.st_ctime_ns)
        not_regular = not_regular_reason(info.st_mode)  # a FIFO has size 0: it is not an empty file
    except OSError:
        size = mtime_ns = inode = ctime_ns = 0
        mtime = 0.0
    # (its Path is made only for the tree's reader: the facts reader opens the file by its key, the same path, and
    # a Path costs ~6 us of the ~250 of a file it reads)
    row = row_from_entry(cast(Path, None), mtime, size, kind, key=path, loaded=True)
    row.loaded = False  # (an empty file is read like any other here: fill_row says it is empty, facts included)
    record = empty_extras()
    if size == 0 and mtime_ns == 0:
        row.broken, row.loaded = "cannot be read (vanished)", True
    elif not_regular:
        row.broken, row.loaded = not_regular, True
    data = None
    if not row.loaded and kind == RowKind.SNAPSHOT:
        data = fill_from_facts(row, record)  # a plain snapshot: no tree (the same row, tests/catalog)
    if not row.loaded:
        row.path = Path(path)
        fill_row(row, _extras(record), data=data)
    if row.tokens is None:  # Jules / Genkit: no tokens
        record["tokens_in"] = record["tokens_out"] = record["tokens_cache_read"] = record["tokens_cache_write"] = None
    if row.broken and not record["errors"]:
        record["errors"] = row.broken
    reasons = [row.suspect[len(SUSPECT_HEAD):]] if row.suspect else []
    sane_record(record, reasons)  # (the row's own numbers were clamped as it was summarised)
    return {
        "path": path, "size": size, "mtime_ns": mtime_ns, "ctime_ns": ctime_ns, "inode": inode, "kind": row.kind,
        "format": "", "session_id": row.session_id, "agent": row.agent, "title": row.title,
        "status": row.status if not row.broken else "", "started_ms": row.started_at,
        "ended_ms": (row.started_at + row.duration_ms if row.started_at is not None and row.duration_ms is not None
                     and row.status != "running" else None),
        "duration_ms": row.duration_ms, "turns": row.turns, **record, "cost_usd": row.cost,
        "models": "\n".join(row.models), "mismatch": int(row.mismatch), "broken": row.broken,
        "suspect": suspect_text(reasons), "cost_estimated": int(row.cost_estimated), "project": row.project,
        "indexed_at": time.time(),
    }


def index_chunk(files: list[FileKey]) -> list[dict]:
    """One pool task: the rows of a chunk of files."""
    return [index_file(f.path, f.kind) for f in files]


def row_from_record(record, mtime: float | None = None) -> SessionRow:
    """A filled browser row from a stored one (a sqlite3.Row or a dict with ROW_COLUMNS)."""
    path = record["path"]
    tokens_in, tokens_out = record["tokens_in"], record["tokens_out"]
    tokens = None if tokens_in is None or tokens_out is None else tokens_in + tokens_out
    models = record["models"]
    return row_from_fields(path, Path(path), (
        record["kind"], record["session_id"], record["mtime_ns"] / 1e9 if mtime is None else mtime, record["size"],
        True, record["broken"], record["started_ms"], record["agent"], record["title"], record["status"],
        record["duration_ms"], record["turns"], tokens, record["cost_usd"], bool(record["mismatch"]),
        tuple(models.split("\n")) if models else (), None, None,
        record["mtime_ns"], record["inode"], record["suspect"], record["ctime_ns"], bool(record["cost_estimated"]), record["project"]))


def chunks(files: Iterable[FileKey], size: int = CHUNK) -> Iterator[list[FileKey]]:
    batch: list[FileKey] = []
    for f in files:
        batch.append(f)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def workers() -> int:
    return max(1, os.cpu_count() or 1)


class IndexPool:
    """A process pool (one worker per core) indexing chunks of files; results come back as they complete.

    Workers are started with `forkserver` (Linux) or `spawn`: never `fork` from a process running threads (the
    app's), whose locks a forked child could inherit held."""

    def __init__(self, max_workers: int | None = None) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self.max_workers = max_workers or workers()
        _start_helpers(context.get_start_method())
        self._pool = cf.ProcessPoolExecutor(max_workers=self.max_workers, mp_context=context)

    def submit(self, chunk: list[FileKey]) -> cf.Future:
        return self._pool.submit(index_chunk, chunk)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def run(self, files: Iterable[FileKey], in_flight: int | None = None) -> Iterator[list[dict]]:
        """Index every file, yielding each chunk's rows as it completes (at most `in_flight` chunks queued)."""
        limit = in_flight or 2 * self.max_workers
        todo = chunks(files)
        running: set[cf.Future] = set()
        for chunk in todo:
            running.add(self.submit(chunk))
            if len(running) >= limit:
                break
        while running:
            done, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for future in done:
                yield future.result()
                nxt = next(todo, None)
                if nxt is not None:
                    running.add(self.submit(nxt))


def _start_helpers(method: str) -> None:
    """Start multiprocessing's resource tracker (and fork server) with a real stderr: inside the app, textual has
    replaced sys.stderr by an object whose fileno() is -1, which the tracker would hand to the child it starts
    ("bad value(s) in fds_to_keep"). The helpers write to /dev/null then: nothing may scribble over the screen."""
    from multiprocessing import forkserver, resource_tracker

    saved = sys.stderr
    try:
        fd = saved.fileno() if saved is not None else -1
    except (OSError, ValueError, AttributeError):
        fd = -1
    if fd >= 0:
        return
    with open(os.devnull, "w") as null:
        sys.stderr = null
        try:
            resource_tracker.ensure_running()
            if method == "forkserver":
                forkserver.ensure_running()
        finally:
            sys.stderr = saved


def index_files(files: Iterable[FileKey], max_workers: int | None = None) -> Iterator[list[dict]]:
    """Index files on a fresh pool (shut down at the end)."""
    pool = IndexPool(max_workers)
    try:
        yield from pool.run(files)
    finally:
        pool.shutdown()
