"""The warm image of a sessions index: every stored row, ready to become a browser row, in one file beside the
index (`sessions-<hash>.sqlite.warm`), so that a warm start loads one blob instead of querying 100,000s of rows.

At 100,000 rows (measured under load, 2 cores), reading the stored rows from SQLite and making them row arguments
takes ~0.75 s; loading the image ~0.25 s (marshal, ~22 MB): each value is already SessionRow's positional arguments
after the key and the path (a row is `SessionRow(key, path, *value)`), repeated strings and model tuples are stored
once, and the values are laid out in the directory's listing order.

Never trusted when stale: the image names the state of the index it was made from (the index file's creation time,
and the counter that every change of `sessions` bumps: schema.GENERATION_TRIGGERS, so every writer does, whatever
its version) and is used only while the index is still in that state. A changed, new or deleted file is then seen
exactly as without an image: the listing checks each file's (size, mtime_ns, inode) against the image's, as it
would against the table's. A missing, stale, damaged (checksum), foreign (format line) or wrong-valued image is
ignored (the rows are read from SQLite). It is written once the index is up to date (`keep`: after the browser's
fill or listing, at most once per REWRITE_EVERY_S for a trickle of changed files; tui.catalog.index.sync.refresh
after reading many files), atomically (a temporary file renamed over it), never through a symbolic link, beside
the index (never in the sessions directory), and deleted with it.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import sqlite3
import struct
import sys
import threading
import time
import zlib
from pathlib import Path

from tui.catalog.index.store import Index, image_path
from tui.catalog.session_row import SessionRow
from tui.inputs.files import open_regular

MAGIC = b"AIMWARM\x01"
_LENGTHS = struct.Struct("<II")  # the head's length, the body's crc32
HEAD_MAX = 4096
# SessionRow's fields after key and path: an image value holds exactly these, in this order
VALUE_FIELDS = ("kind", "session_id", "mtime", "size", "loaded", "broken", "started_at", "agent", "title", "status",
                "duration_ms", "turns", "tokens", "cost", "mismatch", "models", "events", "gaps", "mtime_ns", "inode",
                "cost_estimated")
SIZE, MTIME_NS, INODE = (VALUE_FIELDS.index(name) for name in ("size", "mtime_ns", "inode"))
# What an image is made of: a change of SessionRow, of the values or of Python's marshal makes older images foreign
FORMAT = (f"aiagent-monitor warm image 1; marshal {marshal.version}; "
          f"python {sys.version_info[0]}.{sys.version_info[1]}; "
          + ",".join(field.name for field in dataclasses.fields(SessionRow)))
# The float os.stat gives for mtime_ns: CPython's `sec + nsec * 1e-9` of the timespec (whole seconds rounded down,
# 0 <= nsec < 1e9, also before 1970), done by SQLite with the same two double operations. (SQLite's / and %
# truncate toward zero: a negative mtime_ns needs its remainder moved up by a second.)
_NSEC = "((mtime_ns % 1000000000) + 1000000000) % 1000000000"
MTIME_SQL = f"((mtime_ns - {_NSEC}) / 1000000000) + {_NSEC} * 1e-9"
# The stored columns a value is made of (tokens: the sum SQLite makes, NULL when either is).
STORED_COLUMNS = ("path", "kind", "session_id", MTIME_SQL, "size",
                  "broken", "started_ms", "agent", "title", "status", "duration_ms", "turns", "tokens_in + tokens_out",
                  "cost_usd", "mismatch != 0", "models", "mtime_ns", "inode", "cost_estimated != 0")

# models_tuple's tuples by joined string (read directly by the warm start's per-row loops: a call per row costs)
SHARED_MODELS: dict[str, tuple[str, ...]] = {}


def models_tuple(joined: str) -> tuple[str, ...]:
    """The models tuple of a stored row ('\\n'-joined): 100,000s of rows share a few combinations, one tuple each."""
    found = SHARED_MODELS.get(joined)
    if found is None:
        found = tuple(sys.intern(m) for m in joined.split("\n")) if joined else ()
        if len(SHARED_MODELS) < 10_000:
            SHARED_MODELS[joined] = found
    return found


def values(stored: list[tuple], *, share: bool = False) -> dict[str, tuple]:
    """{path: SessionRow arguments after key and path} of stored STORED_COLUMNS tuples. `share`: equal strings
    become one object (the image then stores and loads each once: worth it when writing, not when used at once)."""
    models_of = SHARED_MODELS.get
    shared: dict[str, str] = {}
    one = shared.setdefault if share else _same
    out: dict[str, tuple] = {}
    for (path, kind, session_id, mtime, size, broken, started, agent, title, status, duration, turns, tokens, cost,
         mismatch, models, mtime_ns, inode, estimated) in stored:
        out[path] = (one(kind, kind), session_id, mtime, size, True, one(broken, broken), started, one(agent, agent),
                     one(title, title), one(status, status), duration, turns, tokens, cost, mismatch == 1,
                     models_of(models) or models_tuple(models), None, None, mtime_ns, inode, estimated == 1)
    return out


def _same(value: str, _: str) -> str:
    return value


def load(index: Index) -> dict[str, tuple] | None:
    """The values of the image, or None when there is none, or it is stale, damaged or foreign. Never raises."""
    try:
        with open_regular(image_path(index.path), follow_symlinks=False) as fh:
            head = _head(fh)
            if head is None or head[0] != index.state():
                return None
            length, crc = head[1], head[2]
            body = fh.read(length + 1)
        if len(body) != length or zlib.crc32(body) != crc:
            return None
        loaded = marshal.loads(body)
    except (OSError, sqlite3.Error, ValueError, EOFError, TypeError):
        return None
    return loaded if type(loaded) is dict else None


def is_current(index: Index) -> bool:
    """Whether the image is there and made from the index as it is now (its head alone is read)."""
    try:
        with open_regular(image_path(index.path), follow_symlinks=False) as fh:
            head = _head(fh)
        return head is not None and head[0] == index.state()
    except (OSError, sqlite3.Error):
        return False


def _head(fh) -> tuple[tuple[str, int], int, int] | None:
    """((created, generation), body length, body crc32) of an image of this FORMAT, else None (the file is left
    positioned at the body)."""
    start = fh.read(len(MAGIC) + _LENGTHS.size)
    if len(start) != len(MAGIC) + _LENGTHS.size or not start.startswith(MAGIC):
        return None
    head_length, crc = _LENGTHS.unpack_from(start, len(MAGIC))
    if head_length > HEAD_MAX:
        return None
    try:
        head = marshal.loads(fh.read(head_length))
    except (ValueError, EOFError, TypeError):
        return None
    if (type(head) is not tuple or len(head) != 4 or head[0] != FORMAT or type(head[1]) is not str
            or type(head[2]) is not int or type(head[3]) is not int):
        return None
    return (head[1], head[2]), head[3], crc


# Writing the image costs ~1-2 s of CPU at 100,000 rows (every row read, shared, marshalled): worth it once per
# process and after a fill that read many files, not after each file a watcher saw change (a session being written
# changes every few seconds). A stale image costs only the SQLite read at the next start, so a process rewrites it
# for a few changed rows at most every REWRITE_EVERY_S.
MANY_READ = 200
REWRITE_EVERY_S = 300.0


def keep(index: Index, *, read: int, last_written: float | None) -> bool:
    """Make the image current after the index was brought up to date (the browser's listing or fill), when it
    pays: `read` files were just read, `last_written` is when (time.monotonic) this process last wrote it (None:
    never). Nothing is written while the one there is current (its head alone is read). Whether it was written."""
    if is_current(index):
        return False
    if read < MANY_READ and last_written is not None and time.monotonic() - last_written < REWRITE_EVERY_S:
        return False
    return save(index) == ""


def save(index: Index) -> str:
    """Write the image of the index as it is now: "" when written, else why not (the index is only a cache: an
    image that cannot be written only makes the next warm start read SQLite)."""
    try:
        (created, generation), stored = index.snapshot(STORED_COLUMNS)
    except sqlite3.Error as exc:
        return f"warm image not written: {exc}"
    body = marshal.dumps(values(_listing_order(stored, index.sessions_dir), share=True))
    head = marshal.dumps((FORMAT, created, generation, len(body)))
    path = image_path(index.path)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + _LENGTHS.pack(len(head), zlib.crc32(body)) + head)
                fh.write(body)
            os.replace(temporary, path)  # a rename: a symbolic link at `path` is replaced, never followed
        except BaseException:
            _unlink(temporary)
            raise
    except OSError as exc:
        return f"warm image not written: {exc.strerror or exc}"
    return ""


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _listing_order(stored: list[tuple], sessions_dir: Path) -> list[tuple]:
    """The stored rows in the order the directory lists its files (os.scandir's, stable while the directory is
    unchanged), the rest after: loaded in that order, the image's values lie in memory as the listing meets them."""
    from tui.catalog.scan import LEDGER_DIR  # (lazy, as in tui.catalog.index.sync: scan is this package's neighbour)

    rank: dict[str, int] = {}
    for folder in (sessions_dir, sessions_dir / LEDGER_DIR):
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    rank[entry.path] = len(rank)
        except OSError:
            continue
    last = len(rank)
    return sorted(stored, key=lambda t: rank.get(t[0], last))
