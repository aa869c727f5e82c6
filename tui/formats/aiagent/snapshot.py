"""Build the normalised tree from an ai-agent SessionNode (`opTree`), in one walk over it.

The walk is iterative: each session is a generator that yields the child sessions it meets and receives them
built, driven from one loop, so sub-agents nested hundreds of levels deep cost no Python recursion.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import cast

from tui.model.fields import as_ms, as_opt_bool, ms_field, ms_value, str_field, type_name
from tui.formats.aiagent import heads
from tui.model.nodes import Op, Session, Turn, begin_op, begin_op_fields, begin_session, set_lazy_raw
from tui.formats.aiagent.turn_build import build_turn as _turn
from tui.model.totals import Totals, llm_usage, mismatched_keys, plain_usage, stored_totals
from tui.model.trampoline import drive

_CHILD_REF_KEYS = ("childSessionRef", "childSessionSummary")
_USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cachedTokens", "cacheWriteInputTokens")

# a log entry as the full parse or the heads give it (both read with .get)
_LOG_ENTRY = (dict, heads.LogHead)
# The fields an op and an accounting entry are read by, in the order of their heads' fields (a head gives its
# values as a tuple in that order, a dict its .get of each key: both are read by one unpacking).
_OP_FIELDS = ("opId", "kind", "status", "startedAt", "endedAt", "attributes", "error", "request", "response",
              "payloadRefs", "accounting", "logs", "childSession", "childSessionRef", "childSessionSummary")
_ACCOUNTING_FIELDS = ("type", "timestamp", "tokens", "costUsd", "charactersIn", "charactersOut", "error")
if heads.OpHead.__struct_fields__ != _OP_FIELDS or heads.AccountingHead.__struct_fields__ != _ACCOUNTING_FIELDS:
    raise ImportError("snapshot: _OP_FIELDS / _ACCOUNTING_FIELDS no longer follow the heads' field order")
_as_tuple = heads.as_tuple
# (the heads the walk tells apart by `type(x) is`, read as globals: once per op and entry)
_OpHead, _AccountingHead, _LogHead, _SizeHead = heads.OpHead, heads.AccountingHead, heads.LogHead, heads.SizeHead
_OpSource = heads.OpSource

SessionWalk = Generator["SessionWalk", Session, Session]


class _Walk:
    """State of one walk: the sessions whose totals are open, so costs add up in the producer's order; `lazy`: the
    nodes are msgspec.Raw bytes, read through tui.formats.aiagent.heads (their dicts decoded on first use)."""

    __slots__ = ("open_totals", "lazy")

    def __init__(self, lazy: bool = False) -> None:
        self.open_totals: list[Totals] = []
        self.lazy = lazy


def build_session(node: object, *, parent_op: Op | None = None, prefix: str = "", depth: int = 0) -> Session:
    """A Session from a SessionNode dict; parts with wrong types become broken nodes, never errors."""
    return drive(_session(node, parent_op, prefix, depth, _Walk()))


def build_lazy_session(head: heads.SessionHead, where: heads.Locator) -> Session:
    """A Session from the head of a SessionNode (tui.formats.aiagent.heads), its ops' dicts decoded on first use
    from the bytes `where` finds."""
    return drive(_session((head, where), None, "", 0, _Walk(lazy=True)))


def _session(node: object, parent_op: Op | None, prefix: str, depth: int, walk: _Walk) -> SessionWalk:
    s = begin_session(parent_op, prefix, depth)
    source: heads.SessionSource | None = None
    where: heads.Locator | None = None
    if walk.lazy:
        head, where = cast("tuple[heads.SessionHead, heads.Locator]", node)
        node, source = heads.session_head(head, where)
    if not isinstance(node, dict):
        s.problems.append(f"session is {type_name(node)}, expected an object")
        s.id = "?"
        return s
    problems = s.problems
    if source is None:
        s.raw = node
    else:
        set_lazy_raw(s, source)
        s.head = {"attributes": node.get("attributes"), "pluginMetas": node.get("pluginMetas")}
    s.id = str_field(node, "id", problems)
    s.trace_id = str_field(node, "traceId", problems)
    s.agent_id = str_field(node, "agentId", problems)
    s.call_path = str_field(node, "callPath", problems)
    s.title = str_field(node, "sessionTitle", problems)
    s.latest_status = str_field(node, "latestStatus", problems)
    s.started_at = ms_field(node, "startedAt", problems)
    s.ended_at = ms_field(node, "endedAt", problems)
    s.success = as_opt_bool(node.get("success"))
    if s.success is None and node.get("success") is not None:
        problems.append(f"success is {type_name(node['success'])}, expected true or false")
    s.error = str_field(node, "error", problems) or None
    s.final_report = node.get("finalReport")
    s.stored_totals = stored_totals(node.get("totals"))
    if "totals" in node and node["totals"] is not None and s.stored_totals is None:
        problems.append(f"totals is {type_name(node['totals'])}, expected an object")

    walk.open_totals.append(s.totals)
    seg_prefix = f"{prefix}." if prefix else ""
    for key, kind in (("turns", "turn"), ("steps", "step")):
        items = node.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            problems.append(f"{key} is {type_name(items)}, expected an array")
            continue
        for position, item in enumerate(items):
            t, ops = _turn(s, item, kind, position)
            s.turns.append(t)
            seg_turn = f"{seg_prefix}S{t.index}-" if kind == "step" else f"{seg_prefix}{t.index}-"
            for op_position, op_node in enumerate(ops):
                path = f"{seg_turn}{op_position + 1}"
                op = _op(t, op_node, path, walk)
                t.ops.append(op)
                if where is None:
                    child = op_node.get("childSession") if op.has_raw else None
                else:  # an OpHead (msgspec takes no other shape for an op)
                    child = op_node.childSession
                    # the op's dict is read from its bytes on first use; one that names a sub-agent by reference
                    # is read now (tui.formats.aiagent.child_refs finds it by the identity of that reference)
                    op_source = _OpSource(where, key, position, op_position, child is not None)
                    if op.child_ref is not None:
                        _read_ref_op(op, op_source)
                    else:
                        set_lazy_raw(op, op_source)
                        if op.log_heads is None and not op.log_count:
                            op.log_heads = []  # no logs: nothing for the logs pane to decode either
                    if child is not None:
                        child = (child, op_source.child())
                if child is None:
                    continue
                if op.kind == "session":
                    op.child = yield _session(child, op, path, depth + 1, walk)
                    s.totals.agentsRun += op.child.totals.agentsRun
                else:  # shown, but (like the producer) not counted in the parent's totals
                    op.child = yield _session(child, op, path, depth + 1, _Walk(walk.lazy))
                s.counts.add(op.child.counts)
                s.max_depth = max(s.max_depth, op.child.max_depth, op.child.depth)
                if op.child.running and (op.status is not None or op.ended_at is not None):
                    op.child.settled = True  # its op ended: a child without an end of its own is not running
    walk.open_totals.pop()
    s.mismatch = mismatched_keys(s.stored_totals, s.totals)
    return s


def _read_ref_op(op: Op, source: heads.OpSource) -> None:
    """A lazily read op that names a sub-agent by reference: its dict now, and the reference from it."""
    raw = source.load()
    if isinstance(raw, dict):
        op.raw = raw
        ref = next((raw[key] for key in _CHILD_REF_KEYS if raw.get(key) is not None), None)
        op.child_ref = ref if isinstance(ref, dict) else op.child_ref


def _op(t: Turn, node: object, path: str, walk: _Walk) -> Op:
    """An op without its sub-agent (the session walk builds that next), from an op dict or an OpHead (lazily
    read: its `raw` is set by the walk), read alike: its fields in _OP_FIELDS order."""
    op = Op(t, path)
    counts = t.session.counts
    is_head = type(node) is _OpHead
    if not is_head and begin_op(op, node, counts) is None:
        return op
    fields = _as_tuple(cast(heads.OpHead, node)) if is_head else map(cast(dict, node).get, _OP_FIELDS)
    (op_id, kind, status, started_at, ended_at, attrs, error, request, response, refs, accounting, logs, child,
     child_ref, child_summary) = fields
    if is_head:
        begin_op_fields(op, op_id, kind, counts)
    problems = op.problems
    if isinstance(status, str):
        op.status = status
        if status == "failed":
            counts.failed += 1
    elif status is not None:
        problems.append(f"status is {type_name(status)}, expected a string")
    op.started_at = ms_value(started_at, "startedAt", problems)
    op.ended_at = ms_value(ended_at, "endedAt", problems)
    if isinstance(attrs, dict):
        # (the usual value, a string or nothing, read without a call: 20,000 ops open in the first second;
        # Op's defaults are the empty strings)
        op.attributes = attrs
        get = attrs.get
        value = get("name")
        if value is not None:
            op.name = value if type(value) is str else str_field(attrs, "name", problems)
        value = get("provider")
        if value is not None:
            op.provider = value if type(value) is str else str_field(attrs, "provider", problems)
        value = get("model")
        if value is not None:
            op.model = value if type(value) is str else str_field(attrs, "model", problems)
        value = get("label")
        if value is not None:
            op.label = value if type(value) is str else str_field(attrs, "label", problems)
        err = get("error")
        op.error = err if isinstance(err, str) else ""
    elif attrs is not None:
        problems.append(f"attributes is {type_name(attrs)}, expected an object")
    if not op.error and isinstance(error, str):
        op.error = error
    if request is not None:
        op.request_bytes = _size(request)
    if response is not None:
        op.response_bytes = _size(response)
    # a v3 ledger op replayed as a tree keeps its payload files in payloadRefs
    op.payload_refs = refs if isinstance(refs, list) else None

    if op.kind == "tool":
        for totals in walk.open_totals:
            totals.toolsRun += 1
    if accounting is not None:
        _accounting(op, accounting, walk)
    if logs is not None:
        _logs(op, logs, counts)

    if child is None:  # a sub-agent named by reference (_CHILD_REF_KEYS, in that order)
        ref = child_ref if child_ref is not None else child_summary
        if ref is not None:
            op.child_ref = ref if isinstance(ref, dict) else {"value": ref}
    return op


def _accounting(op: Op, entries: object, walk: _Walk) -> None:
    if not isinstance(entries, list):
        op.problems.append(f"accounting is {type_name(entries)}, expected an array")
        return
    for position, entry in enumerate(entries):
        # an AccountingHead or a dict, read alike: its fields in _ACCOUNTING_FIELDS order
        if type(entry) is _AccountingHead:
            kind, timestamp, tokens, cost_usd, chars_in, chars_out, error = _as_tuple(entry)
        elif isinstance(entry, dict):
            kind, timestamp, tokens, cost_usd, chars_in, chars_out, error = map(entry.get, _ACCOUNTING_FIELDS)
        else:
            op.problems.append(f"accounting[{position}] is {type_name(entry)}, expected an object")
            continue
        if error and not op.error and op.status == "failed" and isinstance(error, str):
            # the real producer writes a failed LLM op without attributes.error: its reason
            # (`refusal:content-filter`, the provider's message) is only in its accounting entry
            op.error = error
        if op.started_at is None and op.ts_fallback is None:
            op.ts_fallback = as_ms(timestamp)
        if kind != "llm":  # a tool's: charactersIn/Out, added up over the op's entries
            if type(chars_in) is int and chars_in >= 0:
                op.chars_in = (op.chars_in or 0) + chars_in
            if type(chars_out) is int and chars_out >= 0:
                op.chars_out = (op.chars_out or 0) + chars_out
            continue
        tin, tout, cread, cwrite, cost = llm_usage(tokens, cost_usd)
        if not plain_usage(tokens, cost_usd):
            _usage_problems(op, tokens, cost_usd, position)
        op.tokens_in += tin
        op.tokens_out += tout
        op.cache_read += cread
        op.cache_write += cwrite
        op.cost += cost
        for totals in walk.open_totals:
            totals.add_usage(tin, tout, cread, cwrite, cost)


def _size(payload: object) -> int | None:
    """The `size` of a request or response object (None when it is not a count of bytes)."""
    if type(payload) is _SizeHead:
        size = payload.size
    else:
        size = payload.get("size") if isinstance(payload, dict) else None
    return size if type(size) is int and size >= 0 else None


def _usage_problems(op: Op, tokens: object, cost: object, position: int) -> None:
    """Numbers stored as something else read as 0 (in an entry's `tokens` and `costUsd`): say so."""
    if tokens is not None and not isinstance(tokens, dict):
        op.problems.append(f"accounting[{position}].tokens is {type_name(tokens)}, expected an object")
        tokens = None
    for key in _USAGE_KEYS if tokens else ():
        value = cast(dict, tokens).get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            op.problems.append(f"accounting[{position}].tokens.{key} is {type_name(value)}, expected a number")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float))):
        op.problems.append(f"accounting[{position}].costUsd is {type_name(cost)}, expected a number")


def _logs(op: Op, logs: object, counts) -> None:
    if not isinstance(logs, list):
        op.problems.append(f"logs is {type_name(logs)}, expected an array")
        return
    warnings = errors = odd = 0
    if logs and type(logs[0]) is _LogHead:  # all of them (msgspec takes no other shape for a lazy op's logs)
        position = 0  # (counted by hand: enumerate's tuples cost about a quarter of this loop)
        for head in logs:
            head.log_position = position  # the logs pane reads the heads until it draws one
            position += 1
            severity = head.severity
            if severity == "WRN":
                warnings += 1
            elif severity == "ERR":
                errors += 1
        op.log_heads = logs
    else:
        for entry in logs:
            if not isinstance(entry, dict):
                odd += 1
                continue
            severity = entry.get("severity")
            if severity == "WRN":
                warnings += 1
            elif severity == "ERR":
                errors += 1
    if op.started_at is None and op.ts_fallback is None:  # no start and no accounting time: the first log's
        op.ts_fallback = next((as_ms(e.get("timestamp")) for e in logs if isinstance(e, _LOG_ENTRY)), None)
    if odd:
        op.problems.append(f"{odd} log entr{'y is' if odd == 1 else 'ies are'} not objects")
    op.log_count = len(logs)
    op.warnings = warnings
    op.errors = errors
    counts.logs += len(logs)
    counts.warnings += warnings
    counts.errors += errors
