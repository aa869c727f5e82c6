"""A session as JSON: the normalised model (session -> turns -> ops -> child sessions), with totals, logs and insights.

Payload bodies are left out (they are the bulk of a snapshot and stay in the file); their sizes are kept.
"""

from __future__ import annotations

from tui.model.fields import as_dict
from tui.model.insights import Insights, compute
from tui.model.logs import LogEntry, op_logs
from tui.model.nodes import Op, Session, Turn, user_turns
from tui.model.op_facts import op_facts

EXPORT_FORMAT = "aiagent-monitor-export"
EXPORT_VERSION = 1


def export(session: Session, *, source: str = "", source_format: str = "", insights: Insights | None = None) -> dict:
    ins = insights if insights is not None else compute(session)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "source": {"path": source or None, "format": source_format or None},
        "session": session_dict(session),
        "insights": ins.as_dict(),
    }


def session_dict(root: Session) -> dict:
    """The session and everything below it; sub-agents are filled in from a stack (no recursion: any depth)."""
    out = _session_fields(root)
    stack = [(out, root)]
    while stack:
        into, session = stack.pop()
        for turn_out, turn in zip(into["turns"], session.turns):
            for op_out, op in zip(turn_out["ops"], turn.ops):
                if op.child is not None:
                    op_out["childSession"] = _session_fields(op.child)
                    stack.append((op_out["childSession"], op.child))
    return out


def _session_fields(s: Session) -> dict:
    return {
        "path": s.path_prefix,
        "id": s.id or None,
        "traceId": s.trace_id or None,
        "agentId": s.agent_id or None,
        "callPath": s.call_path or None,
        "title": s.title,
        "latestStatus": s.latest_status or None,
        "status": s.status,
        "success": s.success,
        "error": s.error,
        "startedAt": s.started_at,
        "endedAt": s.ended_at,
        "durationMs": s.duration_ms,
        "depth": s.depth,
        "totals": s.totals.as_dict(),
        "storedTotals": s.stored_totals.as_dict() if s.stored_totals is not None else None,
        "totalsMismatch": list(s.mismatch),
        "counts": s.counts.as_dict(),
        "finalReport": s.final_report,
        "pluginMetas": s.raw.get("pluginMetas") if isinstance(s.raw, dict) else None,
        "userTurns": user_turns(s),
        "problems": list(s.problems),
        "logs": [log_dict(entry) for entry in s.extra_logs],
        "turns": [turn_dict(t) for t in s.turns],
    }


def turn_dict(t: Turn) -> dict:
    return {
        "kind": t.kind,
        "index": t.index,
        "title": t.title,
        "id": t.id or None,
        "label": t.label or None,
        "stepKind": t.step_kind or None,
        "system": t.system,
        "status": t.status or None,
        "startedAt": t.started_at,
        "endedAt": t.ended_at,
        "durationMs": t.duration_ms,
        "prompts": t.prompts,
        "problems": list(t.problems),
        "logs": [log_dict(entry) for entry in t.extra_logs],
        "ops": [op_dict(op) for op in t.ops],
    }


def op_dict(op: Op) -> dict:
    raw = op.raw or {}
    request, response = as_dict(raw.get("request")), as_dict(raw.get("response"))
    return {
        "path": op.path,
        "opId": op.op_id or None,
        "kind": op.kind,
        "status": op.status,
        "running": op.running,
        "name": op.name or None,
        "provider": op.provider or None,
        "model": op.model or None,
        "target": op.target or None,
        "label": op.label or None,
        "error": op.error or None,
        "startedAt": op.started_at,
        "endedAt": op.ended_at,
        "durationMs": op.duration_ms,
        "tokensIn": op.tokens_in,
        "tokensOut": op.tokens_out,
        "cacheRead": op.cache_read,
        "cacheWrite": op.cache_write,
        "costUsd": round(op.cost, 6),
        "requestSize": _size(request.get("size")),
        "responseSize": _size(response.get("size")),
        "responseTruncated": response.get("truncated") is True,
        **op_facts(op).as_dict(),
        "attributes": op.attributes,
        "problems": list(op.problems),
        "logs": [log_dict(entry) for entry in op_logs(op)],
        "childSession": None,  # filled in by session_dict
        "childRef": op.child_ref,
    }


def log_dict(entry: LogEntry) -> dict:
    return {"ts": entry.ts, "severity": entry.severity, "message": entry.message, "path": entry.path}


def _size(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
