"""Build the normalised tree from an ai-agent SessionNode (`opTree`), in one walk over it."""

from __future__ import annotations

from tui.model.fields import as_dict, as_ms, as_opt_bool, as_opt_str, as_str, type_name
from tui.model.nodes import Op, Session, Turn, begin_op
from tui.model.totals import Totals, llm_entry_usage, mismatched_keys, stored_totals

_CHILD_REF_KEYS = ("childSessionRef", "childSessionSummary")


def _ms(value: object) -> int | None:
    return value if type(value) is int else as_ms(value)  # as_ms's answer for an int, without the call


class _Walk:
    """State of one walk: the sessions whose totals are open, so costs add up in the producer's order."""

    __slots__ = ("open_totals",)

    def __init__(self) -> None:
        self.open_totals: list[Totals] = []


def build_session(node: object, *, parent_op: Op | None = None, prefix: str = "", depth: int = 0) -> Session:
    """A Session from a SessionNode dict; parts with wrong types become broken nodes, never errors."""
    return _session(node, parent_op, prefix, depth, _Walk())


def _session(node: object, parent_op: Op | None, prefix: str, depth: int, walk: _Walk) -> Session:
    s = Session()
    s.parent_op = parent_op
    s.depth = depth
    s.path_prefix = prefix
    s.counts.sessions = 1
    s.totals.agentsRun = 1
    if not isinstance(node, dict):
        s.problems.append(f"session is {type_name(node)}, expected an object")
        s.id = "?"
        return s
    s.raw = node
    s.id = as_str(node.get("id"))
    s.trace_id = as_str(node.get("traceId"))
    s.agent_id = as_str(node.get("agentId"))
    s.call_path = as_str(node.get("callPath"))
    s.title = as_str(node.get("sessionTitle"))
    s.latest_status = as_str(node.get("latestStatus"))
    s.started_at = as_ms(node.get("startedAt"))
    s.ended_at = as_ms(node.get("endedAt"))
    s.success = as_opt_bool(node.get("success"))
    s.error = as_opt_str(node.get("error")) or None
    s.final_report = node.get("finalReport")
    s.stored_totals = stored_totals(node.get("totals"))
    if "totals" in node and node["totals"] is not None and s.stored_totals is None:
        s.problems.append(f"totals is {type_name(node['totals'])}, expected an object")

    walk.open_totals.append(s.totals)
    for key, kind in (("turns", "turn"), ("steps", "step")):
        items = node.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            s.problems.append(f"{key} is {type_name(items)}, expected an array")
            continue
        for position, item in enumerate(items):
            s.turns.append(_turn(s, item, kind, position, walk))
    walk.open_totals.pop()
    s.mismatch = mismatched_keys(s.stored_totals, s.totals)
    return s


def _turn(s: Session, node: object, kind: str, position: int, walk: _Walk) -> Turn:
    t = Turn(s, kind, position)
    if kind == "turn":
        s.counts.turns += 1
    else:
        s.counts.steps += 1
    if not isinstance(node, dict):
        t.problems.append(f"{kind} {position} is {type_name(node)}, expected an object")
        return t
    t.raw = node
    index = node.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        t.index = index
    t.id = as_str(node.get("id"))
    t.started_at = _ms(node.get("startedAt"))
    t.ended_at = _ms(node.get("endedAt"))
    t.step_kind = as_str(node.get("kind"))
    attrs = as_dict(node.get("attributes"))
    t.system = attrs.get("system") is True or node.get("system") is True
    t.label = as_str(attrs.get("label")) or as_str(node.get("label"))
    prompts = attrs.get("prompts")
    t.prompts = prompts if isinstance(prompts, dict) else None
    ops = node.get("ops")
    if ops is not None and not isinstance(ops, list):
        t.problems.append(f"ops is {type_name(ops)}, expected an array")
        return t
    seg_prefix = f"{s.path_prefix}." if s.path_prefix else ""
    seg_turn = f"s{t.index}" if kind == "step" else str(t.index)
    for position, item in enumerate(ops or ()):
        t.ops.append(_op(t, item, f"{seg_prefix}{seg_turn}-{position + 1}", walk))
    return t


def _op(t: Turn, node: object, path: str, walk: _Walk) -> Op:
    op = Op(t, path)
    s = t.session
    counts = s.counts
    if begin_op(op, node, counts) is None:
        return op
    status = node.get("status")
    op.status = status if isinstance(status, str) else None
    if op.status == "failed":
        counts.failed += 1
    op.started_at = _ms(node.get("startedAt"))
    op.ended_at = _ms(node.get("endedAt"))
    attrs = node.get("attributes")
    if isinstance(attrs, dict):
        op.attributes = attrs
        op.name = as_str(attrs.get("name"))
        op.provider = as_str(attrs.get("provider"))
        op.model = as_str(attrs.get("model"))
        op.label = as_str(attrs.get("label"))
        err = attrs.get("error")
        op.error = err if isinstance(err, str) else ""
    elif attrs is not None:
        op.problems.append(f"attributes is {type_name(attrs)}, expected an object")
    if not op.error and isinstance(node.get("error"), str):
        op.error = node["error"]

    if op.kind == "tool":
        for totals in walk.open_totals:
            totals.toolsRun += 1
    _accounting(op, node.get("accounting"), walk)
    _logs(op, node.get("logs"), counts)

    child = node.get("childSession")
    if child is not None:
        op.child = _session(child, op, path, s.depth + 1, walk) if op.kind == "session" else _detached(child, op, path)
        counts.add(op.child.counts)
        s.max_depth = max(s.max_depth, op.child.max_depth, op.child.depth)
        if op.kind == "session":
            s.totals.agentsRun += op.child.totals.agentsRun
    else:
        for key in _CHILD_REF_KEYS:
            ref = node.get(key)
            if ref is not None:
                op.child_ref = ref if isinstance(ref, dict) else {"value": ref}
                break
    return op


def _detached(child: object, op: Op, path: str) -> Session:
    """A childSession on a non-session op: shown, but (like the producer) not counted in the parent's totals."""
    return _session(child, op, path, op.session.depth + 1, _Walk())


def _accounting(op: Op, entries: object, walk: _Walk) -> None:
    if entries is None:
        return
    if not isinstance(entries, list):
        op.problems.append(f"accounting is {type_name(entries)}, expected an array")
        return
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("type") != "llm":
            continue
        tin, tout, cread, cwrite, cost = llm_entry_usage(entry)
        op.tokens_in += tin
        op.tokens_out += tout
        op.cache_read += cread
        op.cache_write += cwrite
        op.cost += cost
        for totals in walk.open_totals:
            totals.tokensIn += tin
            totals.tokensOut += tout
            totals.tokensCacheRead += cread
            totals.tokensCacheWrite += cwrite
            totals.costUsd += cost


def _logs(op: Op, logs: object, counts) -> None:
    if logs is None:
        return
    if not isinstance(logs, list):
        op.problems.append(f"logs is {type_name(logs)}, expected an array")
        return
    warnings = errors = 0
    for entry in logs:
        if isinstance(entry, dict):
            severity = entry.get("severity")
            if severity == "WRN":
                warnings += 1
            elif severity == "ERR":
                errors += 1
    op.log_count = len(logs)
    op.warnings = warnings
    op.errors = errors
    counts.logs += len(logs)
    counts.warnings += warnings
    counts.errors += errors

