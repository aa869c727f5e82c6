"""Writing a new file the user asked for (a payload saved with `w`): the monitor's only writes besides exports.

The rules: never into a sessions directory (the producer owns it: the current directory is used unless it is
inside one, then the system's temporary directory), never over an existing file, never through a planted link,
and private (mode 0600: captures carry prompts, keys and customer data). Exports, which replace a file the user
named, are written by tui.text.export.write_atomic under the same sessions-directory rule.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tui.inputs.paths import safe_resolve


def save_directory(*sessions_dirs: Path | None) -> Path:
    """Where `w` saves: the current directory, unless that is inside a sessions directory (the monitor never
    writes there: the producer owns it), then the system's temporary directory."""
    cwd = safe_resolve(Path.cwd())
    for folder in sessions_dirs:
        if folder is not None and cwd.is_relative_to(safe_resolve(Path(folder))):
            return Path(tempfile.gettempdir())
    return cwd


def write_new_file(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` to a new file in `directory`, mode 0600 (captures carry prompts, keys, customer data), never
    overwriting and never through a planted link (O_CREAT|O_EXCL|O_NOFOLLOW). In the current directory it is
    `name`, else name-1.ext, name-2.ext...; in the shared temporary directory the name gets a random part
    (mkstemp), so nobody can guess it in advance."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    if safe_resolve(directory) == safe_resolve(Path(tempfile.gettempdir())):
        fd, path = tempfile.mkstemp(dir=str(directory), prefix=f"{stem}-", suffix=f"{dot}{ext}")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return Path(path).resolve()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for n in range(10_000):
        candidate = directory / (name if n == 0 else f"{stem}-{n}{dot}{ext}")
        try:
            fd = os.open(candidate, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return candidate.resolve()
    raise OSError(f"too many files named {name} in {directory}")
