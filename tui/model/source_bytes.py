"""Reading a file (or stdin) into bytes: gzip or plain, capped so a gzip bomb cannot exhaust memory."""

from __future__ import annotations

import os
import sys
import zlib
from pathlib import Path

# Largest decompressed document we accept. Real snapshots reach a few hundred MB; the cap is for gzip bombs.
MAX_DOCUMENT_BYTES = int(os.environ.get("AIAGENT_MONITOR_MAX_BYTES", 1024 * 1024 * 1024))
GZIP_MAGIC = b"\x1f\x8b"


class LoadError(Exception):
    """A document that cannot be read at all; str() is one clear line naming the file and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_source(path: str, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The decompressed content of `path` ("-" = stdin)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            p = Path(path)
            if p.is_dir():
                raise LoadError(path, "is a directory, expected a snapshot or ledger file")
            data = p.read_bytes()
    except FileNotFoundError:
        raise LoadError(path, "no such file") from None
    except PermissionError:
        raise LoadError(path, "permission denied") from None
    except IsADirectoryError:
        raise LoadError(path, "is a directory, expected a snapshot or ledger file") from None
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    if not data:
        raise LoadError(path, "empty file (0 bytes)")
    if data[:2] == GZIP_MAGIC:
        return gunzip(data, path, max_bytes)
    if len(data) > max_bytes:
        raise LoadError(path, f"larger than the {max_bytes:,}-byte limit")
    return data


def gunzip(data: bytes, path: str, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """Decompress every gzip member of `data`, stopping with a LoadError past max_bytes."""
    parts: list[bytes] = []
    total = 0
    rest = data
    while rest:
        d = zlib.decompressobj(wbits=31)
        try:
            part = d.decompress(rest, max_bytes + 1 - total)
        except zlib.error as exc:
            raise LoadError(path, f"corrupt gzip data ({exc})") from None
        total += len(part)
        if total > max_bytes or d.unconsumed_tail:
            raise LoadError(path, f"decompresses past the {max_bytes:,}-byte limit (gzip bomb?)")
        parts.append(part)
        if not d.eof:
            raise LoadError(path, f"truncated gzip: the stream ends early after {total:,} decompressed bytes")
        rest = d.unused_data
        if rest[:2] != GZIP_MAGIC:
            break  # trailing garbage after the last member is ignored, as gzip(1) does
    return parts[0] if len(parts) == 1 else b"".join(parts)
