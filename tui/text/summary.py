"""The `dump --json` contract: one JSON object other tools depend on."""

from __future__ import annotations

from tui.formats.aiagent.file_identity import misfiled_note
from tui.model.document import ACCOUNTING, GENKIT, JULES, LEDGER, Document
from tui.model.nodes import Session
from tui.model.session_facts import session_facts, shown_counts


def summarise(doc: Document) -> dict:
    if doc.format == ACCOUNTING:
        acc = doc.accounting
        assert acc is not None
        return {
            "format": ACCOUNTING,
            "root": None,
            "totals": acc.totals.as_dict(),
            "storedTotals": None,
            "totalsMismatch": False,
            "counts": acc.counts(),
            "maxDepth": 0,
        }
    if doc.format in (JULES, GENKIT):
        from tui.text.foreign_text import summarise as foreign_summary

        return foreign_summary(doc, root_fields)
    assert doc.root is not None
    return tree_summary(doc.format, doc.root)


def tree_summary(fmt: str, root: Session) -> dict:
    """The summary of an ai-agent tree (a snapshot's or a ledger's) from its root: its own fields, totals, counts
    and max_depth (a root read by tui.formats.aiagent.facts, without ops, gives the same); `fileIdMismatch` only
    for a file that holds another session than the one it is named after."""
    stored = root.stored_totals.as_dict() if root.stored_totals is not None and fmt != LEDGER else None
    out = {
        "format": fmt,
        "root": root_fields(root),
        "facts": session_facts(root).as_dict(),  # status, duration, turns, cost as every view shows them
        "totals": root.totals.as_dict(),
        "storedTotals": stored,
        "totalsMismatch": bool(root.mismatch) if stored is not None else False,
        "counts": shown_counts(root),
        "maxDepth": root.max_depth,
    }
    if root.misfiled:
        out["fileIdMismatch"] = file_mismatch(root)
    return out


def file_mismatch(root: Session) -> dict | None:
    """{fileId, traceId, problem} of a file's root that is not the session the file is named after, else None."""
    if not root.misfiled:
        return None
    return {"fileId": root.misfiled, "traceId": root.trace_id,
            "problem": misfiled_note(root.misfiled, root.trace_id, root.call_path or root.agent_id)}


def root_fields(s: Session) -> dict:
    return {
        "traceId": s.trace_id or None,
        "agentId": s.agent_id or None,
        "callPath": s.call_path or None,
        "title": s.title,
        "success": s.success,
        "error": s.error,
        "startedAt": s.started_at,
        "endedAt": s.ended_at,
    }
