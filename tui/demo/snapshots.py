"""Snapshot files: the JSON document in every shape/version and the (gzipped) file."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from .file_io import _LEVEL, _atomic_write, _gz
from .walk import last_activity

__all__ = ["snapshot_document", "write_snapshot"]


def snapshot_document(tree: dict, *, version: int = 2, reason: str = "final", shape: str = "file") -> dict:
    """The JSON document of a snapshot file (see ``write_snapshot``)."""
    sid = tree.get("traceId") or tree.get("id")
    ts = last_activity(tree)
    if shape == "bare":
        return tree
    if shape == "envelope":
        return {"reason": reason, "sessionId": sid, "originId": sid, "timestamp": ts,
                "snapshot": {"version": version, "opTree": tree}}
    if shape != "file":
        raise ValueError(f"unknown shape {shape!r}")
    if version == 1:
        return {"version": 1, "reason": reason, "opTree": tree}
    return {"version": version, "reason": reason, "opTree": tree, "sessionId": sid, "originId": sid,
            "originTxnId": sid, "parentId": None, "parentTxnId": None, "timestamp": ts}


def write_snapshot(
    dir: str | os.PathLike,
    tree: dict,
    *,
    version: int = 2,
    reason: str = "final",
    shape: str = "file",
    gzip: bool = True,
    name: str | None = None,
    compresslevel: int = _LEVEL,
) -> Path:
    """Write one snapshot file and return its path.

    shape ``file``: version 1 ``{version, reason, opTree}`` or version 2 (adds sessionId, originId, originTxnId,
    parentId, parentTxnId, timestamp); ``envelope``: ``{reason, sessionId, originId, timestamp, snapshot:
    {version, opTree}}``; ``bare``: the SessionNode itself. Default name ``<traceId>.json.gz`` (``.json``
    without gzip).
    """
    d = Path(dir)
    if name is None:
        name = f"{tree.get('traceId') or tree.get('id')}.json" + (".gz" if gzip else "")
    data = orjson.dumps(snapshot_document(tree, version=version, reason=reason, shape=shape))
    if gzip:
        data = _gz(data, compresslevel)
    path = d / name
    _atomic_write(path, data)
    return path
