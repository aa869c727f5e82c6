"""Writers: snapshot files, v3 ledgers with payload files, accounting.jsonl and a whole sessions directory.

Deterministic: the same trees give the same bytes (gzip headers carry no mtime/file name). Files are written
the way the producer writes them: ``<name>.tmp-<pid>-<ms>`` then ``os.replace``.
Pure Python + orjson (never imports textual or rich).

The code lives in small modules; this one re-exports all of it (import from here):

* ``snapshots`` - ``snapshot_document``, ``write_snapshot``;
* ``payloads`` - payload files and refs, ``externalize_payloads``;
* ``ledger`` - ``write_ledger``; ``accounting_jsonl`` - ``write_accounting``;
* ``sessions_dir`` - ``populate``; ``file_io`` - gzip, atomic writes, mtimes; ``walk`` - ``last_activity``.
"""

from __future__ import annotations

# ruff: noqa: F401  (a facade: every import is a re-export; private ones keep working for existing importers)
from .accounting_jsonl import _accounting_entries, write_accounting
from .clock import _BASE_MS, _iso
from .file_io import _LEVEL, _atomic_write, _gz, _touch
from .generator import make_tree
from .ledger import _ZERO_ACC, _add_acc, _child_link, _ledger, _op_accounting, _session_status, write_ledger
from .payloads import (
    _decode_capture,
    _decode_capture_raw,
    _op_refs,
    _snapshot_ref,
    _sniff,
    _Store,
    externalize_payloads,
)
from .prose import HOSTILE_STRINGS
from .sessions_dir import populate
from .snapshots import snapshot_document, write_snapshot
from .walk import iter_sessions, last_activity

__all__ = [
    "externalize_payloads",
    "last_activity",
    "populate",
    "snapshot_document",
    "write_accounting",
    "write_ledger",
    "write_snapshot",
]
