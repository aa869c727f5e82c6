"""Deterministic test-data generator for aiagent-monitor (pure Python + orjson; never imports textual/rich).

* ``make_tree`` builds an ai-agent ``opTree`` (SessionNode) like real snapshot files; ``compute_totals``
  recomputes its totals the way the producer does.
* ``write_snapshot`` / ``write_ledger`` / ``write_accounting`` write the on-disk formats; ``populate`` fills a
  whole sessions directory (``aiagent-monitor generate DIR``).
* ``tui.demo.bodies`` has the HTTP/SSE/SDK capture builders.

``tree``, ``bodies`` and ``files`` are facades re-exporting small single-purpose modules (listed in their
docstrings); import from the facades.
"""

from .bodies import HOSTILE_STRINGS
from .files import (
    externalize_payloads,
    last_activity,
    populate,
    snapshot_document,
    write_accounting,
    write_ledger,
    write_snapshot,
)
from .tree import TOTALS_KEYS, compute_totals, iter_ops, iter_sessions, make_tree, op_path_index

__all__ = [
    "HOSTILE_STRINGS",
    "TOTALS_KEYS",
    "compute_totals",
    "externalize_payloads",
    "iter_ops",
    "iter_sessions",
    "last_activity",
    "make_tree",
    "op_path_index",
    "populate",
    "snapshot_document",
    "write_accounting",
    "write_ledger",
    "write_snapshot",
]
