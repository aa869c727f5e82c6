"""Reading a file (or stdin) into bytes: gzip or plain, capped so a gzip bomb cannot exhaust memory.

The cap (default 1 GiB) is the most decompressed bytes a document may have. It is set by `--max-bytes` or the
AIAGENT_MONITOR_MAX_BYTES environment variable. Decompression is incremental (bounded steps in, bounded steps
out), so a bomb is refused after at most the cap plus one step of memory, never after inflating it whole.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import types
import zlib

from tui.model.fields import printable

inflate: types.ModuleType = zlib
try:  # ISA-L's inflate: about twice zlib's speed, a third of opening a big snapshot once parsing is lazy (README)
    from isal import isal_zlib

    inflate = isal_zlib
except ImportError:  # pragma: no cover - a dependency; zlib reads the same streams
    pass
_INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error, inflate.error)

DEFAULT_MAX_BYTES = 1024 * 1024 * 1024
ENV_MAX_BYTES = "AIAGENT_MONITOR_MAX_BYTES"
GZIP_MAGIC = b"\x1f\x8b"
_IN_STEP = 256 * 1024  # compressed bytes fed per call (an unconsumed tail is copied: keep it small)
_OUT_STEP = 1024 * 1024  # decompressed bytes produced per call (small: zlib's output buffer is copied once more)
_FIRST_IN_STEP = 4096  # a member's first feed: a small member leaves at most this much to copy as unused_data
_DEFLATE_MAX_RATIO = 1032  # deflate never expands more than this: a trailer stating more is lying
MEMBER_BYTES = 16 * 1024  # one gzip member allowed per this many bytes of the limit...
MIN_MEMBERS = 1024  # ...and never fewer than this
# Members holding nothing (gzip of b"" with no optional header fields, 20 bytes each): skipped by one C-level match
EMPTY_GZIP_MEMBER_SIZE = 20
EMPTY_GZIP_MEMBERS = re.compile(rb"(?:\x1f\x8b\x08\x00.{6}\x03\x00\x00{8}){1,4096}", re.DOTALL)
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


NOT_REGULAR = "not a regular file"
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))
_FILE_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotRegularFileError(OSError):
    """The path names a FIFO, a device or a socket: refused before any byte is read (an OSError, so that every
    reader that already copes with unreadable files copes with this one)."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(errno.EINVAL, f"{NOT_REGULAR} ({what}): never opened", path)


def _kind_of(mode: int) -> str:
    return next((name for test, name in _FILE_KINDS if test(mode)), "an unknown kind of file")


def not_regular_reason(mode: int) -> str:
    """Why a file of this st_mode is never opened ("" for a regular file or a directory)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    return f"{NOT_REGULAR} ({_kind_of(mode)})"


def open_regular(path: str | os.PathLike, *, follow_symlinks: bool = True):
    """A binary file object on the regular file at `path`; anything else raises before a byte is read.

    NotRegularFileError for a FIFO, a device or a socket; IsADirectoryError for a directory; the usual OSErrors
    (missing, permission, symlink loop; ELOOP for a symbolic link when follow_symlinks is False)."""
    flags = _OPEN_FLAGS | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fsdecode(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(os.fsdecode(path), _kind_of(mode))
        if flags & getattr(os, "O_NONBLOCK", 0):  # regular files ignore it; cleared all the same for plain reads
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def database_of_key(key: str) -> str | None:
    """The database file of a key (a row's, a path's name) naming a session of a database, `<file>.db#<session
    id>` (an OpenCode `opencode.db`: tui.formats.opencode.database), else None: the one place such a key is read."""
    base, sep, _ = key.rpartition("#")
    return base if sep and base.endswith(".db") else None


def source_stat(path: str) -> os.stat_result:
    """os.stat(path), or for a session of a database named `<file>.db#<session id>` (an OpenCode `opencode.db`:
    tui.formats.opencode.database), that of the database file: the listing and the sessions index key its rows so."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        database = database_of_key(path)
        if database is None:
            raise
        return os.stat(database)


class LoadError(Exception):
    """A document that cannot be read at all; str() is one clear line naming the file and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        # Both may carry file content or a hostile file name: keep them inert wherever the message is printed.
        super().__init__(f"{printable(path)}: {printable(reason)}")
        self.path = path
        self.reason = printable(reason)


def parse_size(text: str) -> int:
    """`1073741824`, `512M`, `1G`, `1GiB`, `50MB` (units are powers of 1024) -> bytes. Raises ValueError."""
    match = _SIZE.fullmatch(text or "")
    if match is None:
        raise ValueError(f"not a size: {text!r} (examples: 1073741824, 512M, 1GiB)")
    value = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if value < 1:
        raise ValueError(f"size must be at least 1 byte: {text!r}")
    return value


def _from_env() -> int:
    try:
        return parse_size(os.environ[ENV_MAX_BYTES])
    except (KeyError, ValueError):
        return DEFAULT_MAX_BYTES


_limit = _from_env()


def document_limit() -> int:
    """The largest decompressed document accepted now (bytes)."""
    return _limit


def set_document_limit(max_bytes: int) -> None:
    global _limit
    _limit = int(max_bytes)


def read_source(path: str, max_bytes: int | None = None) -> bytes | bytearray:
    """The decompressed content of `path` ("-" = stdin)."""
    limit = document_limit() if max_bytes is None else max_bytes
    try:
        if path == "-":
            data = _read_capped(sys.stdin.buffer, limit)
        else:
            with open_regular(path) as f:
                info = os.fstat(f.fileno())
                if info.st_size > limit:
                    raise LoadError(path, f"{info.st_size:,} bytes on disk: larger than the {limit:,}-byte limit "
                                          "(--max-bytes)")
                data = f.read(min(info.st_size, limit) + 1)  # one read of the known size (+1: it may be growing)
    except NotRegularFileError as exc:
        raise LoadError(path, str(exc.strerror)) from None  # (always set: NotRegularFileError's message)
    except FileNotFoundError:
        raise LoadError(path, _missing_reason(path)) from None
    except PermissionError:
        raise LoadError(path, "permission denied (the file is not readable by this user)") from None
    except IsADirectoryError:
        raise LoadError(path, "is a directory, expected a snapshot or ledger file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LoadError(path, "symbolic link loop (the link points back to itself)") from None
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not data:
        raise LoadError(path, "empty file (0 bytes)")
    if data[:2] == GZIP_MAGIC:
        return gunzip(data, path, limit)
    if len(data) > limit:
        raise LoadError(path, f"larger than the {limit:,}-byte limit (--max-bytes)")
    return data


def _missing_reason(path: str) -> str:
    if os.path.islink(path):
        return f"dangling symbolic link (its target {os.readlink(path)!r} does not exist)"
    return "no such file (deleted or renamed?)"


def _read_capped(stream, limit: int) -> bytes:
    """At most limit + 1 bytes: enough to tell that a stream (or a growing file) is over the limit."""
    parts: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = stream.read(min(limit + 1 - total, 64 * 1024 * 1024))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def gunzip(data: bytes, path: str, max_bytes: int | None = None) -> bytes | bytearray:
    """Decompress every gzip member of `data`, stopping with a LoadError past max_bytes.

    A document may have one member per MEMBER_BYTES of max_bytes (65,536 under the default 1 GiB), so that a
    million tiny members cannot cost seconds of CPU per load; runs of empty members (gzip of nothing) are skipped
    by regular-expression matches, without starting a decoder."""
    limit = document_limit() if max_bytes is None else max_bytes
    size = len(data)
    if size <= _IN_STEP:  # one member, whole: one call, no copy (indexing 100,000 files: 0.05 ms a file, not 0.09)
        whole = _one_member(data, limit)
        if whole is not None:
            return whole
    # The buffer is sized once from the size the gzip trailer states (a hint: it may lie, and covers only the
    # last member), never past the cap nor past what the compressed bytes could possibly hold (deflate expands
    # at most ~1032:1): a lying trailer costs no more memory than a true one. Growing the buffer step by step
    # would copy it, holding two copies at times.
    stated = int.from_bytes(data[-4:], "little") if size >= 18 else 0
    out = bytearray(min(stated, limit + 1, size * _DEFLATE_MAX_RATIO))
    filled = 0
    members, max_members = 0, max_gzip_members(limit)
    view = memoryview(data)
    pos = 0
    while True:  # one gzip member per turn
        skip = EMPTY_GZIP_MEMBERS.match(data, pos)
        if skip is not None:
            pos = skip.end()
            members += (pos - skip.start()) // EMPTY_GZIP_MEMBER_SIZE
            if members > max_members:
                raise LoadError(path, _too_many_members(limit))
            if EMPTY_GZIP_MEMBERS.match(data, pos):
                continue  # a longer run than one match takes
            if data[pos:pos + 2] != GZIP_MAGIC:
                break
        d = inflate.decompressobj(wbits=31)
        step = _FIRST_IN_STEP  # small first: what follows a small member is copied into unused_data
        while not d.eof:
            if pos >= size:
                raise LoadError(path, f"truncated gzip: the stream ends early after {filled:,} decompressed bytes")
            chunk = view[pos:pos + step]
            pos += len(chunk)
            step = _IN_STEP
            while True:
                try:
                    piece = d.decompress(chunk, _OUT_STEP)
                except _INFLATE_ERRORS as exc:
                    raise LoadError(path, f"corrupt gzip data ({exc})") from None
                end = filled + len(piece)
                if end > limit:
                    raise LoadError(path, f"decompresses past the {limit:,}-byte limit (gzip bomb?); "
                                          "--max-bytes raises the limit")
                if end <= len(out):
                    out[filled:end] = piece
                else:
                    del out[filled:]
                    out += piece
                filled = end
                chunk = d.unconsumed_tail
                if d.eof or (not chunk and len(piece) < _OUT_STEP):
                    break
        pos -= len(d.unused_data)
        members += 1
        if members > max_members:
            raise LoadError(path, _too_many_members(limit))
        if data[pos:pos + 2] != GZIP_MAGIC:
            break  # trailing garbage after the last member is ignored, as gzip(1) does
    del out[filled:]
    return out


def _one_member(data: bytes, limit: int) -> bytes | None:
    """The content of `data` when it is exactly one whole gzip member of at most `limit` bytes, else None (then
    the loop of gunzip reads it and says what is wrong: corrupt, truncated, past the limit, more members)."""
    d = inflate.decompressobj(wbits=31)
    try:
        whole = d.decompress(data, limit + 1)  # (at most ~1032x the compressed bytes, <= _IN_STEP of them)
    except _INFLATE_ERRORS:
        return None
    return whole if d.eof and not d.unused_data and len(whole) <= limit else None


def max_gzip_members(limit: int) -> int:
    """How many gzip members a document under `limit` may have: one per MEMBER_BYTES of the limit."""
    return max(MIN_MEMBERS, limit // MEMBER_BYTES)


def _too_many_members(limit: int) -> str:
    return (f"more than {max_gzip_members(limit):,} gzip members (one per {MEMBER_BYTES:,} bytes of the "
            f"{limit:,}-byte limit, --max-bytes)")
