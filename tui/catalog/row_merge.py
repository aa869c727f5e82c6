"""One session, one row: a session that reaches the monitor both as a file in the sessions directory and live
(over the event stream or OTLP: the same id, the root's txn id, names the file and the live session) is listed once.

While the live session runs, its live row is the one shown (it moves with every event and opens the live tree);
once it has ended, the file's row is (the snapshot or ledger is complete: payloads, reasoning, the final report),
and the live row steps aside. The browser asks this once per re-sort (`hidden_twins`); the cost is one pass over
the rows it sorts anyway, and nothing at all without live rows."""

from __future__ import annotations

from collections.abc import Mapping

from tui.catalog.session_row import RowKind, SessionRow

FILE_KINDS = frozenset({RowKind.SNAPSHOT, RowKind.LEDGER})


def hidden_twins(rows: Mapping[str, SessionRow], live_keys: set[str], folded: set[str] | None = None) -> set[str]:
    """The keys of the rows to leave out: for every session with a file row and a live row, the one not shown.
    `folded`, when given, receives the keys of the file rows shown in place of their (ended) live twin: the row
    says so, and `kind:live` finds it (tui.catalog.row_filter)."""
    if not live_keys:
        return set()
    live = {rows[k].session_id: k for k in live_keys if k in rows}
    hidden: set[str] = set()
    for key, row in rows.items():
        if row.kind not in FILE_KINDS:
            continue
        twin = live.get(row.session_id)
        if twin is None:
            continue
        running = rows[twin].status == "running"
        hidden.add(key if running else twin)
        if folded is not None and not running:
            folded.add(key)
    return hidden
