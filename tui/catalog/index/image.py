"""The warm image of a sessions index: every stored row, ready to become a browser row, in one file beside the
index (`sessions-<hash>.sqlite.warm`), so that a warm start loads one blob instead of querying 100,000s of rows.

Each value is a row's fields after the key and the path (a row is `row_from_fields(key, path, value)`, the one
constructor of tui.catalog.session_row),
laid out in the directory's listing order; msgspec decodes the whole image in one call (MessagePack: at 300,000
rows 1.15 s of CPU, digest included, where reading the stored rows from SQLite takes 1.97 s; measured on 2 busy
cores, issue 28).

The image is bytes from a file anyone with the user's rights can write, so nothing in it is trusted: it was marshal
(0.91 s at 300,000 rows, and its repeated strings shared: ~90 MB less memory), but 29 bytes of marshal (a set
holding a tuple that holds itself) crash the interpreter as they load, before any check. MessagePack decoded by msgspec against a typed schema (VALUE: each field's type, and the bounds of
tui.catalog.absurd on the numbers) cannot crash on any bytes: a wrong type, a str cost, a negative size or an absurd
number fails the decode, and the image is ignored. Its digest is BLAKE2b keyed by a random key stored in the index
(store.Index.image_key): an image made without reading the index (copied from elsewhere, or made up) is refused
before it is decoded, so it is trusted exactly as much as the index it sits beside.

Never trusted when stale: the image names the state of the index it was made from (the index file's creation time,
and the counter that every change of `sessions` bumps: schema.GENERATION_TRIGGERS, so every writer does, whatever
its version) and is used only while the index is still in that state. A changed, new or deleted file is then seen
exactly as without an image: the listing checks each file's (size, mtime_ns, inode, ctime_ns) against the image's,
as it would against the table's. A missing, stale, damaged, foreign (format line), unkeyed or wrong-valued image is
ignored (the rows are read from SQLite). It is written once the index is up to date (`keep`: after the browser's
fill or listing, at most once per REWRITE_EVERY_S for a trickle of changed files; tui.catalog.index.sync.refresh
after reading many files), atomically (a temporary file renamed over it), never through a symbolic link, beside
the index (never in the sessions directory), and deleted with it.

Why this trick is kept (issue 29: only where it wins 25% on a number the user sees): benchmark row "Index | warm
start: every row filled from the index and sorted by cost" (tests/benchmarks/README.md, `run.py --sections index`;
tests/benchmarks/index_run.py warm). 2026-11-28, 100,000 files, 2 busy cores (load 3-5), alternated: 2.23 s and
2.41 s from the image against 5.38 s and 3.87 s with the image moved aside (the rows read from SQLite): 38-58% less.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import sqlite3
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Optional

import msgspec

from tui.catalog import absurd
from tui.catalog.index.store import Index, image_path
from tui.catalog.session_row import ROW_FIELDS, SessionRow
from tui.inputs.files import open_regular

MAGIC = b"AIMWARM\x02"
DIGEST_SIZE = 16
_LENGTHS = struct.Struct(f"<I{DIGEST_SIZE}s")  # the head's length, the keyed digest of head and body
HEAD_MAX = 4096
# SessionRow's fields after key and path (row_from_fields' values): an image value holds exactly these, in this order
VALUE_FIELDS = ROW_FIELDS
SIZE, MTIME_NS, INODE, CTIME_NS = (VALUE_FIELDS.index(name) for name in ("size", "mtime_ns", "inode", "ctime_ns"))
# What an image is made of: a change of SessionRow or of the values makes older images foreign
FORMAT = ("aiagent-monitor warm image 3; msgpack; "
          + ",".join(field.name for field in dataclasses.fields(SessionRow)))

# The type of a value (VALUE_FIELDS in order), checked by msgspec as it decodes (in C: no pass over the rows)
_Count = Annotated[int, msgspec.Meta(ge=0, le=2 ** 62)]
_Text = Annotated[str, msgspec.Meta(max_length=1 << 20)]
VALUE = tuple[
    Annotated[str, msgspec.Meta(max_length=40)], _Text, float, _Count, bool, _Text,  # kind: a RowKind or agent kind
    Optional[Annotated[int, msgspec.Meta(ge=0, lt=absurd.MAX_START_MS)]], _Text, _Text, _Text,
    Optional[Annotated[int, msgspec.Meta(ge=0, le=absurd.MAX_DURATION_MS)]],
    Optional[Annotated[int, msgspec.Meta(ge=0, le=absurd.MAX_COUNT)]],
    Optional[Annotated[int, msgspec.Meta(ge=0, le=2 * absurd.MAX_TOKENS)]],
    Optional[Annotated[float, msgspec.Meta(ge=0, le=absurd.MAX_COST_USD)]], bool, tuple[_Text, ...], None, None, int,
    _Count, _Text, int, bool, _Text]
_HEAD = tuple[str, str, int, _Count]  # FORMAT, created, generation, body length
_decode_body = msgspec.msgpack.Decoder(dict[str, VALUE]).decode
_decode_head = msgspec.msgpack.Decoder(_HEAD).decode
_encode = msgspec.msgpack.Encoder().encode
# The float os.stat gives for mtime_ns: CPython's `sec + nsec * 1e-9` of the timespec (whole seconds rounded down,
# 0 <= nsec < 1e9, also before 1970), done by SQLite with the same two double operations. (SQLite's / and %
# truncate toward zero: a negative mtime_ns needs its remainder moved up by a second.)
_NSEC = "((mtime_ns % 1000000000) + 1000000000) % 1000000000"
MTIME_SQL = f"((mtime_ns - {_NSEC}) / 1000000000) + {_NSEC} * 1e-9"
# The stored columns a value is made of (tokens: the sum SQLite makes, NULL when either is).
STORED_COLUMNS = ("path", "kind", "session_id", MTIME_SQL, "size",
                  "broken", "started_ms", "agent", "title", "status", "duration_ms", "turns", "tokens_in + tokens_out",
                  "cost_usd", "mismatch != 0", "models", "mtime_ns", "inode", "suspect", "ctime_ns", "cost_estimated",
                  "project")

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


def values(stored: list[tuple]) -> dict[str, tuple]:
    """{path: a row's fields after key and path (row_from_fields' values)} of stored STORED_COLUMNS tuples."""
    models_of = SHARED_MODELS.get
    out: dict[str, tuple] = {}
    for (path, kind, session_id, mtime, size, broken, started, agent, title, status, duration, turns, tokens, cost,
         mismatch, models, mtime_ns, inode, suspect, ctime_ns, estimated, project) in stored:
        out[path] = (kind, session_id, mtime, size, True, broken, started, agent, title, status, duration, turns,
                     tokens, cost, mismatch == 1, models_of(models) or models_tuple(models), None, None, mtime_ns,
                     inode, suspect, ctime_ns, estimated == 1, project)
    return out


def load(index: Index) -> dict[str, tuple] | None:
    """The values of the image, or None when there is none, or it is stale, damaged, foreign, not made with this
    index's key, or holds a value of the wrong type or out of bounds. Never raises, whatever the bytes."""
    try:
        with open_regular(image_path(index.path), follow_symlinks=False) as fh:
            head = _head(fh)
            if head is None or head[0] != index.state():
                return None
            length, digest, head_bytes = head[1], head[2], head[3]
            body = fh.read(length + 1)
        key = index.image_key()
        if not key or len(body) != length or not hmac.compare_digest(_digest(key, head_bytes, body), digest):
            return None
        loaded = _decode_body(body)
    except (OSError, sqlite3.Error, ValueError, msgspec.MsgspecError):
        return None
    return loaded


def _digest(key: bytes, head: bytes, body: bytes) -> bytes:
    mac = hashlib.blake2b(key=key, digest_size=DIGEST_SIZE)
    mac.update(head)
    mac.update(body)
    return mac.digest()


def is_current(index: Index) -> bool:
    """Whether the image is there and made from the index as it is now (its head alone is read)."""
    try:
        with open_regular(image_path(index.path), follow_symlinks=False) as fh:
            head = _head(fh)
        return head is not None and head[0] == index.state()
    except (OSError, sqlite3.Error):
        return False


def _head(fh) -> tuple[tuple[str, int], int, bytes, bytes] | None:
    """((created, generation), body length, digest, the head's bytes) of an image of this FORMAT, else None (the
    file is left positioned at the body)."""
    start = fh.read(len(MAGIC) + _LENGTHS.size)
    if len(start) != len(MAGIC) + _LENGTHS.size or not start.startswith(MAGIC):
        return None
    head_length, digest = _LENGTHS.unpack_from(start, len(MAGIC))
    if head_length > HEAD_MAX:
        return None
    head_bytes = fh.read(head_length)
    try:
        head = _decode_head(head_bytes)
    except msgspec.MsgspecError:
        return None
    if head[0] != FORMAT:
        return None
    return (head[1], head[2]), head[3], digest, head_bytes


# Writing the image costs ~1-2 s of CPU at 100,000 rows (every row read and encoded): worth it once per
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
        key = index.image_key()
    except sqlite3.Error as exc:
        return f"warm image not written: {exc}"
    if not key:
        return "warm image not written: the index has no image key"
    body = _encode(values(_listing_order(stored, index.sessions_dir)))
    head = _encode((FORMAT, created, generation, len(body)))
    path = image_path(index.path)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + _LENGTHS.pack(len(head), _digest(key, head, body)) + head)
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
