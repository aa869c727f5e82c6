"""`accounting.jsonl`: one AccountingEntry per line, appended by the producer at every `accounting_flush`.

A session's flush holds its whole tree's entries, sub-agents included, so a sub-agent's entries are appended again
at every ancestor's flush, as identical lines (formats.md §6: a real master with researchers and deep agents wrote
63 lines for 21 entries). Each entry counts once: its identity is the whole entry (timestamp, txnId, tokens, ...;
tool entries may lack txnId and agentId), compared as parsed JSON whatever the key order. Every reader of
accounting entries (dump, stats, the live hub's flushes) goes through EntrySet.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import TypeGuard

from tui.model.document import AccountingSummary
from tui.model.json_text import canonical
from tui.model.totals import llm_entry_usage

_DIGEST = 16  # bytes of an entry's identity kept (a 128-bit hash: a collision is not a real risk)


def looks_like_accounting(record: object) -> TypeGuard[dict]:
    return isinstance(record, dict) and record.get("type") in ("llm", "tool") and "recordType" not in record


def entry_identity(entry: object) -> bytes:
    """What makes two accounting entries one: a hash of the whole entry, keys sorted at every level."""
    return blake2b(canonical(entry), digest_size=_DIGEST).digest()


class EntrySet:
    """The accounting entries seen so far, by identity: `first(entry)` is True once per entry, and the repeats are
    counted in `duplicates`. Keeps 16 bytes per distinct entry, never the entries; past `limit` distinct entries
    (a stream that never ends) new ones are counted but no longer remembered."""

    __slots__ = ("_seen", "duplicates", "limit", "unremembered")

    def __init__(self, limit: int | None = None) -> None:
        self._seen: set[bytes] = set()
        self.duplicates = 0
        self.limit = limit
        self.unremembered = 0

    def first(self, entry: object) -> bool:
        key = entry_identity(entry)
        if key in self._seen:
            self.duplicates += 1
            return False
        if self.limit is not None and len(self._seen) >= self.limit:
            self.unremembered += 1
        else:
            self._seen.add(key)
        return True

    def __len__(self) -> int:
        """Distinct entries seen."""
        return len(self._seen) + self.unremembered


def summarise_accounting(records: list[dict]) -> AccountingSummary:
    """Totals and counts of the distinct entries of `records` (a repeated entry counts once, in `duplicates`)."""
    out = AccountingSummary()
    agents: set[object] = set()  # a txnId, or ("origin", originTxnId)
    seen = EntrySet()
    for entry in records:
        if not seen.first(entry):
            continue
        out.entries += 1
        kind = entry.get("type")
        if kind == "llm":
            out.llm += 1
            out.totals.add_usage(*llm_entry_usage(entry))
        elif kind == "tool":
            out.tool += 1
            out.totals.toolsRun += 1
        else:
            out.other += 1
        if entry.get("status") == "failed":
            out.failed += 1
        txn_id, origin = entry.get("txnId"), entry.get("originTxnId")
        if isinstance(txn_id, str) and txn_id:
            agents.add(txn_id)
        elif isinstance(origin, str) and origin:
            agents.add(("origin", origin))
    out.totals.agentsRun = len(agents)
    out.duplicates = seen.duplicates
    return out
