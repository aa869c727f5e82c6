"""`accounting.jsonl`: one AccountingEntry per line, appended by the producer at the end of each session."""

from __future__ import annotations

from tui.model.document import AccountingSummary
from tui.model.totals import llm_entry_usage


def looks_like_accounting(record: object) -> bool:
    return isinstance(record, dict) and record.get("type") in ("llm", "tool") and "recordType" not in record


def summarise_accounting(records: list[dict]) -> AccountingSummary:
    out = AccountingSummary()
    agents: set[tuple] = set()
    for entry in records:
        out.entries += 1
        kind = entry.get("type")
        if kind == "llm":
            out.llm += 1
            tin, tout, cread, cwrite, cost = llm_entry_usage(entry)
            t = out.totals
            t.tokensIn += tin
            t.tokensOut += tout
            t.tokensCacheRead += cread
            t.tokensCacheWrite += cwrite
            t.costUsd += cost
        elif kind == "tool":
            out.tool += 1
            out.totals.toolsRun += 1
        else:
            out.other += 1
        if entry.get("status") == "failed":
            out.failed += 1
        txn = entry.get("txnId"), entry.get("originTxnId")
        if any(isinstance(v, str) and v for v in txn):
            agents.add(txn[0] if isinstance(txn[0], str) and txn[0] else ("origin", txn[1]))
    out.totals.agentsRun = len(agents)
    return out
