"""Deterministic, seeded test data for every input aiagent-monitor reads, and its built-in demo (pure Python)."""

from .catalog import HOSTILE_STRINGS
from .files import populate, write_ledger
from .snapshots import externalize_payloads, snapshot_document, write_accounting, write_snapshot
from .tree import TOTALS_KEYS, compute_totals, iter_ops, iter_sessions, last_activity, make_tree

__all__ = ["HOSTILE_STRINGS", "TOTALS_KEYS", "compute_totals", "externalize_payloads", "iter_ops", "iter_sessions",
           "last_activity", "make_tree", "populate", "snapshot_document", "write_accounting", "write_ledger",
           "write_snapshot"]
