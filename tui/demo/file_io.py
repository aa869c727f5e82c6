"""Writing files like the producer: deterministic gzip (no mtime/file name), ``<name>.tmp-<pid>-<ms>`` then
``os.replace``, and setting mtimes."""

from __future__ import annotations

import gzip as _gzip
import os
import time
from pathlib import Path

_LEVEL = 6  # node's zlib default, what the producer uses


def _gz(data: bytes, level: int = _LEVEL) -> bytes:
    return _gzip.compress(data, compresslevel=level, mtime=0)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{int(time.time() * 1000)}")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _touch(path: Path, ms: int) -> None:
    os.utime(path, (ms / 1000, ms / 1000))
