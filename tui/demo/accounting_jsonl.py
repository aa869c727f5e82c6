"""``accounting.jsonl``: every llm and tool AccountingEntry, sub-agents first (post-order)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import orjson

from .file_io import _atomic_write

__all__ = ["write_accounting"]


def _accounting_entries(node: dict) -> Iterable[dict[str, Any]]:
    """Post-order: a sub-agent's entries are appended when it ends, before its parent's."""
    own: list[dict[str, Any]] = []
    for group in (node.get("turns") or [], node.get("steps") or []):
        for t in group:
            for op in t.get("ops") or []:
                child = op.get("childSession")
                if op.get("kind") == "session" and isinstance(child, dict):
                    yield from _accounting_entries(child)
                own.extend(a for a in op.get("accounting") or [] if a.get("type") in ("llm", "tool"))
    yield from own


def write_accounting(path: str | os.PathLike, trees: Iterable[dict]) -> Path:
    """Write ``accounting.jsonl``: one AccountingEntry per line (all llm + tool entries, sub-agents included)."""
    p = Path(path)
    out = bytearray()
    for tree in trees:
        for e in _accounting_entries(tree):
            out += orjson.dumps(e)
            out += b"\n"
    _atomic_write(p, bytes(out))
    return p
