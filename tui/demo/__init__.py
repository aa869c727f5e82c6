"""Deterministic test data for aiagent-monitor (pure Python + orjson; never imports textual/rich).

* ``tree`` - ``make_tree``: an ai-agent ``opTree`` (SessionNode) like real snapshot files, and walks over it;
* ``files`` - ``write_ledger`` (v3 ledgers + payload files) and ``populate`` (a whole sessions directory, what
  ``aiagent-monitor generate DIR`` writes); ``snapshots`` - snapshot files, ``accounting.jsonl``, payload refs;
* ``bodies`` - the LLM wire captures of every provider dialect; ``ops`` - the ops of a session;
* ``jules`` / ``genkit`` - the other agents' files; ``start`` - the built-in demo.
"""

from .catalog import HOSTILE_STRINGS
from .files import populate, write_ledger
from .snapshots import externalize_payloads, snapshot_document, write_accounting, write_snapshot
from .tree import TOTALS_KEYS, compute_totals, iter_ops, iter_sessions, last_activity, make_tree, op_path_index

__all__ = ["HOSTILE_STRINGS", "TOTALS_KEYS", "compute_totals", "externalize_payloads", "iter_ops", "iter_sessions",
           "last_activity", "make_tree", "op_path_index", "populate", "snapshot_document", "write_accounting",
           "write_ledger", "write_snapshot"]
