"""Read payload files named by a `ref` (snapshot `payload.ref` or a v3 ledger `payloadRefs[]` entry).

A ref's `path` is relative to the sessions directory and must never lead outside it. Files are usually gzip;
decompression is incremental and capped so that a gzip bomb is never materialised.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from pathlib import Path

from tui.inputs.files import (
    EMPTY_GZIP_MEMBER_SIZE, EMPTY_GZIP_MEMBERS, MEMBER_BYTES, NotRegularFileError, document_limit, max_gzip_members,
    open_regular,
)

MAX_PAYLOAD_BYTES = 256 * 1024 * 1024
_READ_CHUNK = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_PLAIN = {"", "none", "identity", "raw", "plain"}
_GZIP = {"gzip", "gz", "x-gzip"}


class PayloadError(Exception):
    """A payload cannot be read; the message is a one-line reason fit to show a person."""


class Gunzip:
    """Incremental, capped gzip decoder (multi-member aware).

    `feed` raises PayloadError past `max_bytes`; `finish` reports a stream that stopped mid-member.
    Garbage after at least one complete member is ignored with a warning, as gzip(1) does.
    """

    __slots__ = ("max_bytes", "out", "warnings", "_d", "_fed", "_members", "_done")

    def __init__(self, max_bytes: int = MAX_PAYLOAD_BYTES) -> None:
        self.max_bytes = max_bytes
        self.out = bytearray()
        self.warnings: list[str] = []
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._fed = False
        self._members = 0
        self._done = False

    def feed(self, chunk: bytes) -> None:
        data = chunk
        while data and not self._done:
            if not self._fed:  # at a member boundary: runs of empty members skipped in C
                skip = EMPTY_GZIP_MEMBERS.match(data)
                if skip is not None:
                    count = skip.end() // EMPTY_GZIP_MEMBER_SIZE
                    self._members += count
                    self._check_members()
                    data = data[skip.end():]
                    continue
            self._fed = True
            room = self.max_bytes - len(self.out) + 1
            try:
                piece = self._d.decompress(data, room)
            except zlib.error as e:
                if self._members:
                    self.warnings.append("trailing garbage after gzip data ignored")
                    self._done = True
                    return
                raise PayloadError(f"corrupt gzip data: {e}") from None
            self.out += piece
            if len(self.out) > self.max_bytes:
                raise PayloadError(
                    f"payload exceeds the {self.max_bytes:,} byte cap once decompressed (gzip bomb guard)"
                )
            if self._d.eof:
                self._members += 1
                self._check_members()
                data = self._d.unused_data
                self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                self._fed = False
                # Some writers pad files with NULs after the last member.
                if data and not data.strip(b"\x00"):
                    return
            else:
                data = self._d.unconsumed_tail

    def _check_members(self) -> None:
        if self._members > max_gzip_members(self.max_bytes):
            raise PayloadError(f"more than {max_gzip_members(self.max_bytes):,} gzip members (one per "
                               f"{MEMBER_BYTES:,} bytes of the {self.max_bytes:,} byte cap)")

    def finish(self) -> bytes:
        if self._fed and not self._done:
            try:
                self.out += self._d.flush()
            except zlib.error:
                pass
            if len(self.out) > self.max_bytes:
                raise PayloadError(f"payload exceeds the {self.max_bytes:,} byte cap once decompressed")
            raise PayloadError(
                f"truncated gzip: the compressed stream ends early ({len(self.out):,} bytes recovered)"
            )
        if not self._members:
            raise PayloadError("empty gzip data: nothing to decompress")
        return bytes(self.out)


def gunzip_capped(data: bytes, max_bytes: int = MAX_PAYLOAD_BYTES) -> tuple[bytes, list[str]]:
    """Decompress gzip bytes held in memory; raises PayloadError like a file read would."""
    g = Gunzip(max_bytes)
    view = memoryview(data)
    for i in range(0, len(data), _READ_CHUNK):
        g.feed(bytes(view[i : i + _READ_CHUNK]))
    return g.finish(), g.warnings


def _resolve_inside(rel: object, sessions_dir: str | os.PathLike | None) -> Path:
    if not isinstance(rel, str) or not rel:
        what = "missing" if rel is None or rel == "" else f"of wrong type {type(rel).__name__}"
        raise PayloadError(f"payload ref path is {what}")
    if sessions_dir is None:
        raise PayloadError(f"no sessions directory known to resolve payload path {rel!r}")
    if "\x00" in rel:
        raise PayloadError("payload ref path contains a NUL byte")
    norm = rel.replace("\\", "/")
    if os.path.isabs(rel) or norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        raise PayloadError(f"payload ref path {rel!r} is absolute; refusing to read outside the sessions directory")
    if ".." in norm.split("/"):
        raise PayloadError(f"payload ref path {rel!r} contains '..'; refusing to read outside the sessions directory")
    try:
        base = Path(sessions_dir).resolve()
        target = (base / norm).resolve()
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        raise PayloadError(f"payload ref path {rel!r} is a symbolic link loop") from None
    except OSError as e:
        raise PayloadError(f"cannot resolve payload path {rel!r}: {e}") from None
    if not target.is_relative_to(base):
        raise PayloadError(f"payload ref path {rel!r} resolves outside the sessions directory (symlink?)")
    return target


def _open(target: Path, rel: str):
    try:
        return open_regular(target, follow_symlinks=False)  # never a FIFO or a device (it would block or never end)
    except FileNotFoundError:
        raise PayloadError(f"payload file not found: {rel}") from None
    except NotRegularFileError as e:
        raise PayloadError(f"payload path is {e.strerror}: {rel}") from None
    except IsADirectoryError:
        raise PayloadError(f"payload path is a directory, not a regular file: {rel}") from None
    except OSError as e:
        raise PayloadError(f"cannot open payload file {rel}: {e.strerror or e}") from None


def payload_limit() -> int:
    """The cap on one payload file's decompressed size: 256 MiB, or less when --max-bytes is lower."""
    return min(MAX_PAYLOAD_BYTES, document_limit())


def read_ref_checked(
    ref: dict, sessions_dir: str | os.PathLike | None, max_bytes: int | None = None
) -> tuple[bytes, list[str]]:
    """Return the payload bytes and warnings (integrity mismatches, producer flags). Raises PayloadError."""
    max_bytes = payload_limit() if max_bytes is None else max_bytes
    if not isinstance(ref, dict):
        raise PayloadError(f"payload ref has wrong type {type(ref).__name__}")
    if ref.get("captured") is False:
        raise PayloadError("not captured: the producer stored nothing for this payload (captured: false)")
    rel = ref.get("path")
    target = _resolve_inside(rel, sessions_dir)
    comp = ref.get("compression")
    comp_key = comp.strip().lower() if isinstance(comp, str) else ("" if comp is None else None)
    if comp_key is None:
        raise PayloadError(f"payload ref compression has wrong type {type(comp).__name__}")
    if comp_key not in _PLAIN and comp_key not in _GZIP:
        raise PayloadError(f"unsupported payload compression {comp!r}")

    warnings: list[str] = []
    compressed_size = 0
    with _open(target, str(rel)) as f:
        first = f.read(_READ_CHUNK)
        gz = comp_key in _GZIP
        if comp is None and first.startswith(_GZIP_MAGIC):
            gz = True
            warnings.append("compression not stated but the file is gzip: decompressed")
        if gz:
            g = Gunzip(max_bytes)
            chunk = first
            while chunk:
                compressed_size += len(chunk)
                g.feed(chunk)
                chunk = f.read(_READ_CHUNK)
            data = g.finish()
            warnings.extend(g.warnings)
        else:
            buf = bytearray(first)
            while len(buf) <= max_bytes:
                chunk = f.read(_READ_CHUNK)
                if not chunk:
                    break
                buf += chunk
            if len(buf) > max_bytes:
                raise PayloadError(f"payload file is larger than the {max_bytes:,} byte cap")
            data = bytes(buf)
            compressed_size = len(data)

    warnings.extend(_integrity_warnings(ref, data, compressed_size if gz else None))
    return data, warnings


def _integrity_warnings(ref: dict, data: bytes, compressed_size: int | None) -> list[str]:
    out: list[str] = []
    want = ref.get("sha256")
    if isinstance(want, str) and want:
        got = hashlib.sha256(data).hexdigest()
        if got != want.strip().lower():
            out.append(f"sha256 mismatch: ref says {want[:16]}…, file gives {got[:16]}…")
    orig = ref.get("originalBytes")
    if isinstance(orig, int) and not isinstance(orig, bool) and orig != len(data):
        out.append(f"originalBytes says {orig}, got {len(data)}")
    comp = ref.get("compressedBytes")
    if (
        compressed_size is not None
        and isinstance(comp, int)
        and not isinstance(comp, bool)
        and comp != compressed_size
    ):
        out.append(f"compressedBytes says {comp}, file has {compressed_size}")
    if ref.get("truncated") is True:
        out.append("truncated by producer")
    if ref.get("redacted") is True:
        out.append("redacted by producer")
    return out


def read_ref(ref: dict, sessions_dir: str | os.PathLike | None, max_bytes: int | None = None) -> bytes:
    """Return the (decompressed) payload bytes; integrity warnings are dropped (see read_ref_checked)."""
    return read_ref_checked(ref, sessions_dir, max_bytes)[0]
