"""Is it Genkit? A value, or a directory of snapshot files, recognised by shape (the listing asks this of every
directory, so a directory is judged from at most `max_entries` names and the head of one file). Split from
tui.formats.genkit.snapshot (reading a store), which uses these.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.inputs.files import open_regular

_SUFFIXES = (".json", ".json.gz")


def looks_like_snapshot(value: object) -> bool:
    return looks_like_design_snapshot(value) or looks_like_shipped_snapshot(value)


def looks_like_design_snapshot(value: object) -> bool:
    return (isinstance(value, dict) and "sessionId" in value and ("turnIndex" in value or "index" in value)
            and ("state" in value or "event" in value or "parentId" in value))


def looks_like_shipped_snapshot(value: object) -> bool:
    """Go writes snapshotId and createdAt always (no omitempty), event and state too; a SessionFlowOutput has a
    snapshotId and a state but no createdAt."""
    return (isinstance(value, dict) and "snapshotId" in value and "createdAt" in value
            and ("event" in value or "state" in value))


def looks_like_genkit(value: object) -> bool:
    if isinstance(value, list):
        return any(looks_like_snapshot(item) for item in value[:5])
    if isinstance(value, dict):
        if looks_like_snapshot(value):
            return True
        inner = value.get("snapshots")
        return isinstance(inner, list) and any(looks_like_snapshot(item) for item in inner[:5])
    return False


def looks_like_genkit_dir(path: Path | str, *, max_entries: int = 200, head_bytes: int = 8192,
                          max_files: int = 3) -> bool:
    """Cheap: the first few JSON file names in the directory, and the start of at most `max_files` of them."""
    opened = 0
    try:
        with os.scandir(path) as it:
            for n, entry in enumerate(it):
                if n >= max_entries or opened >= max_files:
                    return False
                if is_candidate(entry.name) and entry.is_file():
                    opened += 1
                    if _head_looks_like(entry.path, head_bytes):
                        return True
    except OSError:
        return False
    return False


def is_candidate(name: str) -> bool:
    """A file name a snapshot directory's snapshot may have (not a temporary or hidden file)."""
    return name.endswith(_SUFFIXES) and ".tmp-" not in name and not name.startswith(".")


def _head_looks_like(path: str, head_bytes: int) -> bool:
    import zlib

    try:
        with open_regular(path) as fh:
            head = fh.read(head_bytes)
    except OSError:
        return False
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, head_bytes)
        except zlib.error:
            return False
    # Go writes id, parentId, sessionId, createdAt, then the state (maybe large), then index and turnIndex; the
    # shipped shape: snapshotId, parentId, createdAt, event, then the state
    if b'"opTree"' in head:
        return False
    return ((b'"sessionId"' in head and (b'"createdAt"' in head or b'"turnIndex"' in head))
            or (b'"snapshotId"' in head and b'"createdAt"' in head))
