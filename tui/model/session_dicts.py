"""A normalised Session back into plain dicts: the one converter of each output shape.

- `session_node(s)`: the ai-agent SessionNode shape, what a producer writes (`turns`/`steps` -> `ops` ->
  `childSession`, accounting entries, logs). `replay` sends it as the tree of a v3 ledger, and loading it again
  gives the same totals and counts (the property tests check the round trip).
- `export_session(s)`: the normalised model as `aiagent-monitor export --format json` (and the app's `x`) write it:
  every field the model computed (status, durations, totals, facts, problems), payload bodies left out.

Both walk sub-agents from a stack, never by recursion: a document's sub-agents nest as deep as it likes.
"""

from __future__ import annotations

from tui.model.fields import as_dict, as_list
from tui.model.logs import LogEntry, op_logs
from tui.model.nodes import Op, Session, Turn
from tui.model.op_facts import op_facts
from tui.model.session_facts import node_duration, session_facts, shown_counts

_NODE_KINDS = {"llm", "tool", "session", "system"}


# the SessionNode shape ---------------------------------------------------------------------------------------


def session_node(root: Session) -> dict:
    """A SessionNode dict for a normalised Session (used for v3 ledgers): same totals and counts once rebuilt.

    Each op's token/cost accounting becomes one `llm` accounting entry; turn warnings/errors and session errors
    become logs on an op of the same session (a session without any op cannot carry them).
    """
    out, pending = _node_fields(root)
    while pending:
        op_out, child = pending.pop()
        op_out["childSession"], more = _node_fields(child)  # the key is in place already: the order stays
        pending.extend(more)
    return out


def _node_fields(s: Session) -> tuple[dict, list[tuple[dict, Session]]]:
    """The session's own fields, turns and ops; (op dict, sub-agent) pairs for the caller to fill in."""
    node: dict = {"id": s.id, "traceId": s.trace_id or s.id, "agentId": s.agent_id, "callPath": s.call_path,
                  "sessionTitle": s.title, "turns": []}
    if s.started_at is not None:
        node["startedAt"] = s.started_at
    if s.latest_status:
        node["latestStatus"] = s.latest_status
    if s.ended_at is not None:
        node["endedAt"] = s.ended_at
    if s.success is not None:
        node["success"] = s.success
    if s.error:
        node["error"] = s.error
    if isinstance(s.final_report, dict):
        node["finalReport"] = s.final_report
    all_ops: list[dict] = []
    homeless: list[dict] = []
    children: list[tuple[dict, Session]] = []
    for turn in s.turns:
        t: dict = {"id": turn.id or f"turn-{turn.index}", "index": turn.index, "ops": []}
        if turn.started_at is not None:
            t["startedAt"] = turn.started_at
        if turn.ended_at is not None:
            t["endedAt"] = turn.ended_at
        attrs = dict(as_dict(turn.raw.get("attributes"))) if turn.raw is not None else {}
        if turn.status:
            attrs["status"] = turn.status
        if attrs:
            t["attributes"] = attrs
        if turn.step_kind:
            t["kind"] = turn.step_kind
        for op in turn.ops:
            op_out = _node_op(op)
            t["ops"].append(op_out)
            if op.child is not None:
                children.append((op_out, op.child))
        extra = [_node_log(entry) for entry in turn.extra_logs]
        if t["ops"]:
            t["ops"][-1]["logs"].extend(extra)
        else:
            homeless.extend(extra)
        all_ops.extend(t["ops"])
        node.setdefault("steps" if turn.kind == "step" else "turns", []).append(t)
    homeless.extend(_node_log(entry) for entry in s.extra_logs)
    if homeless and all_ops:
        all_ops[-1]["logs"].extend(homeless)
    return node, children


def _node_op(op: Op) -> dict:
    """One op; a sub-agent's `childSession` is a placeholder session_node fills in."""
    raw = op.raw if isinstance(op.raw, dict) else {}
    kind = op.kind if op.kind in _NODE_KINDS else raw.get("kind")
    attrs = {**op.attributes}
    for key, value in (("name", op.name), ("provider", op.provider), ("model", op.model)):
        if value and key not in attrs:
            attrs[key] = value
    if op.error and "error" not in attrs:
        attrs["error"] = op.error
    out: dict = {"opId": op.op_id, "kind": kind, "attributes": attrs, "logs": list(as_list(raw.get("logs"))),
                 "accounting": []}
    if op.started_at is not None:
        out["startedAt"] = op.started_at
    if op.ended_at is not None:
        out["endedAt"] = op.ended_at
    if op.status is not None:
        out["status"] = op.status
    if isinstance(raw.get("accounting"), list):  # a snapshot op: its own entries (regrouped, costs round apart)
        out["accounting"] = list(raw["accounting"])
    elif op.tokens_in or op.tokens_out or op.cache_read or op.cache_write or op.cost:
        out["accounting"].append({
            "type": "llm", "timestamp": op.ended_at or op.started_at, "status": op.status or "ok",
            "provider": op.provider, "model": op.model, "costUsd": op.cost,
            "tokens": {"inputTokens": op.tokens_in, "outputTokens": op.tokens_out,
                       "cacheReadInputTokens": op.cache_read, "cacheWriteInputTokens": op.cache_write,
                       "totalTokens": op.tokens_in + op.tokens_out + op.cache_read + op.cache_write},
        })
    if op.payload_refs is not None:
        out["payloadRefs"] = op.payload_refs
    if op.child is not None:
        out["childSession"] = None
    elif op.child_ref is not None:
        out["childSessionRef"] = op.child_ref
    return out


def _node_log(entry: LogEntry) -> dict:
    out: dict = {"severity": entry.severity, "message": entry.message, "path": entry.path}
    if entry.ts is not None:
        out["timestamp"] = entry.ts
    return out


# the export shape --------------------------------------------------------------------------------------------


def export_session(root: Session) -> dict:
    """The session and everything below it; sub-agents are filled in from a stack (no recursion: any depth)."""
    out = _export_fields(root)
    stack = [(out, root)]
    while stack:
        into, session = stack.pop()
        for turn_out, turn in zip(into["turns"], session.turns):
            for op_out, op in zip(turn_out["ops"], turn.ops):
                if op.child is not None:
                    op_out["childSession"] = _export_fields(op.child)
                    stack.append((op_out["childSession"], op.child))
    return out


def _export_fields(s: Session) -> dict:
    facts = session_facts(s)
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
        "durationMs": facts.duration_ms,
        "durationPartial": facts.partial,
        "lastActivityMs": facts.last_activity_ms,
        "depth": s.depth,
        "totals": s.totals.as_dict(),
        "storedTotals": s.stored_totals.as_dict() if s.stored_totals is not None else None,
        "totalsMismatch": list(s.mismatch),
        "counts": shown_counts(s),
        "costUsd": facts.cost,
        "finalReport": s.final_report,
        "pluginMetas": s.field("pluginMetas"),
        "userTurns": facts.turns,
        "problems": list(s.problems),
        "logs": [export_log(entry) for entry in s.extra_logs],
        "turns": [export_turn(t) for t in s.turns],
    }


def _duration(node: Turn | Op) -> dict:
    """durationMs as every view shows it (tui.model.session_facts), and whether it is only "at least"."""
    duration, partial = node_duration(node)
    return {"durationMs": duration, "durationPartial": partial}


def export_turn(t: Turn) -> dict:
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
        **_duration(t),
        "prompts": t.prompts,
        "problems": list(t.problems),
        "logs": [export_log(entry) for entry in t.extra_logs],
        "ops": [export_op(op) for op in t.ops],
    }


def export_op(op: Op) -> dict:
    """One op without its sub-agent (`childSession` is None here; export_session fills it in)."""
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
        **_duration(op),
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
        "logs": [export_log(entry) for entry in op_logs(op)],
        "childSession": None,  # filled in by export_session
        "childRef": op.child_ref,
    }


def export_log(entry: LogEntry) -> dict:
    return {"ts": entry.ts, "severity": entry.severity, "message": entry.message, "path": entry.path}


def _size(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
