"""Build the normalised tree from an ai-agent SessionNode (`opTree`), in one walk over it.

The walk is iterative: each session is a generator that yields the child sessions it meets and receives them
built, driven from one loop, so sub-agents nested hundreds of levels deep cost no Python recursion.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import cast

from tui.model.fields import as_ms, as_opt_bool, ms_field, str_field, type_name
from tui.formats.aiagent import heads
from tui.model.nodes import Op, Session, Turn, begin_op, begin_session, set_lazy_raw
from tui.formats.aiagent.turn_build import build_turn as _turn
from tui.model.totals import Totals, llm_entry_usage, mismatched_keys, stored_totals
from tui.model.trampoline import drive

_CHILD_REF_KEYS = ("childSessionRef", "childSessionSummary")
_USAGE_KEYS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cachedTokens", "cacheWriteInputTokens")

# a log or accounting entry as the full parse or the heads give it (both read with .get)
_LOG_ENTRY = (dict, heads.LogHead)
_ACCOUNTING_ENTRY = (dict, heads.AccountingHead)

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
                op_source = None
                if where is not None:
                    op_node, op_source = heads.op_head(op_node, where, key, position, op_position)
                op = _op(t, op_node, path, walk)
                t.ops.append(op)
                child = op_node.get("childSession") if op.has_raw else None
                if op_source is not None and op.has_raw:
                    _lazy_op(op, op_source)
                if child is None:
                    continue
                if op_source is not None:
                    child = (child, op_source.child())
                if op.kind == "session":
                    op.child = yield _session(child, op, path, depth + 1, walk)
                    s.totals.agentsRun += op.child.totals.agentsRun
                else:  # shown, but (like the producer) not counted in the parent's totals
                    op.child = yield _session(child, op, path, depth + 1, _Walk(walk.lazy))
                s.counts.add(op.child.counts)
                s.max_depth = max(s.max_depth, op.child.max_depth, op.child.depth)
    walk.open_totals.pop()
    s.mismatch = mismatched_keys(s.stored_totals, s.totals)
    return s


def _lazy_op(op: Op, source: heads.OpSource) -> None:
    """The op's dict is read from its bytes on first use; one that names a sub-agent by reference is read now
    (tui.formats.aiagent.child_refs finds it by the identity of that reference)."""
    if op.child_ref is None:
        set_lazy_raw(op, source)
        if op.log_heads is None and not op.log_count:
            op.log_heads = []  # no logs: nothing for the logs pane to decode either
        return
    raw = source.load()
    if isinstance(raw, dict):
        op.raw = raw
        ref = next((raw[key] for key in _CHILD_REF_KEYS if raw.get(key) is not None), None)
        op.child_ref = ref if isinstance(ref, dict) else op.child_ref


def _op(t: Turn, node: object, path: str, walk: _Walk) -> Op:
    """An op without its sub-agent (the session walk builds that next)."""
    op = Op(t, path)
    s = t.session
    counts = s.counts
    node = begin_op(op, node, counts)  # the same object, now known to be a dict
    if node is None:
        return op
    problems = op.problems
    status = node.get("status")
    if isinstance(status, str):
        op.status = status
    elif status is not None:
        problems.append(f"status is {type_name(status)}, expected a string")
    if op.status == "failed":
        counts.failed += 1
    op.started_at = ms_field(node, "startedAt", problems)
    op.ended_at = ms_field(node, "endedAt", problems)
    attrs = node.get("attributes")
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
    if not op.error and isinstance(node.get("error"), str):
        op.error = node["error"]
    value = node.get("request")
    if value is not None:
        op.request_bytes = _size(value)
    value = node.get("response")
    if value is not None:
        op.response_bytes = _size(value)
    refs = node.get("payloadRefs")  # a v3 ledger op replayed as a tree keeps its payload files here
    op.payload_refs = refs if isinstance(refs, list) else None

    if op.kind == "tool":
        for totals in walk.open_totals:
            totals.toolsRun += 1
    _accounting(op, node.get("accounting"), walk)
    _logs(op, node.get("logs"), counts)

    child = node.get("childSession")
    if child is None:
        for key in _CHILD_REF_KEYS:
            ref = node.get(key)
            if ref is not None:
                op.child_ref = ref if isinstance(ref, dict) else {"value": ref}
                break
    return op


def _accounting(op: Op, entries: object, walk: _Walk) -> None:
    if entries is None:
        return
    if not isinstance(entries, list):
        op.problems.append(f"accounting is {type_name(entries)}, expected an array")
        return
    for position, entry in enumerate(entries):
        if not isinstance(entry, _ACCOUNTING_ENTRY):
            op.problems.append(f"accounting[{position}] is {type_name(entry)}, expected an object")
            continue
        entry = cast(dict, entry)  # or an AccountingHead, read alike with .get
        if op.ts_fallback is None and op.started_at is None:
            op.ts_fallback = as_ms(entry.get("timestamp"))
        if entry.get("type") != "llm":
            _tool_chars(op, entry)
            continue
        tin, tout, cread, cwrite, cost = llm_entry_usage(entry)
        if not _plain_usage(entry):
            _usage_problems(op, entry, position)
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


def _tool_chars(op: Op, entry: dict) -> None:
    """charactersIn/Out of a tool accounting entry, added up over the op's entries."""
    value = entry.get("charactersIn")
    if type(value) is int and value >= 0:
        op.chars_in = (op.chars_in or 0) + value
    value = entry.get("charactersOut")
    if type(value) is int and value >= 0:
        op.chars_out = (op.chars_out or 0) + value


def _size(payload: object) -> int | None:
    """The `size` of a request or response object (None when it is not a count of bytes)."""
    if type(payload) is heads.SizeHead:
        size = payload.size
    else:
        size = payload.get("size") if isinstance(payload, dict) else None
    return size if type(size) is int and size >= 0 else None


def _plain_usage(entry: dict) -> bool:
    """True for the usual entry: every token count and the cost are numbers (or absent)."""
    cost = type(entry.get("costUsd"))
    if cost is not float and cost is not int and cost is not type(None):
        return False
    tokens = entry.get("tokens")
    if tokens is None:
        return True
    if type(tokens) is not dict:
        return False
    return all(type(v) is int or type(v) is float for v in tokens.values())


def _usage_problems(op: Op, entry: dict, position: int) -> None:
    """Numbers stored as something else read as 0: say so."""
    tokens = entry.get("tokens")
    if tokens is not None and not isinstance(tokens, dict):
        op.problems.append(f"accounting[{position}].tokens is {type_name(tokens)}, expected an object")
        tokens = None
    for key in _USAGE_KEYS if tokens else ():
        value = tokens.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            op.problems.append(f"accounting[{position}].tokens.{key} is {type_name(value)}, expected a number")
    cost = entry.get("costUsd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float))):
        op.problems.append(f"accounting[{position}].costUsd is {type_name(cost)}, expected a number")


def _logs(op: Op, logs: object, counts) -> None:
    if logs is None:
        return
    if not isinstance(logs, list):
        op.problems.append(f"logs is {type_name(logs)}, expected an array")
        return
    warnings = errors = odd = 0
    for entry in logs:
        if type(entry) is heads.LogHead:
            severity = entry.severity
        elif isinstance(entry, dict):
            severity = entry.get("severity")
        else:
            odd += 1
            continue
        if severity == "WRN":
            warnings += 1
        elif severity == "ERR":
            errors += 1
    if op.started_at is None and op.ts_fallback is None:  # no start and no accounting time: the first log's
        op.ts_fallback = next((as_ms(e.get("timestamp")) for e in logs if isinstance(e, _LOG_ENTRY)), None)
    if odd:
        op.problems.append(f"{odd} log entr{'y is' if odd == 1 else 'ies are'} not objects")
    if not odd and logs and type(logs[0]) is heads.LogHead:  # the logs pane reads these until it draws one
        for position, entry in enumerate(logs):
            entry.log_position = position
        op.log_heads = logs
    op.log_count = len(logs)
    op.warnings = warnings
    op.errors = errors
    counts.logs += len(logs)
    counts.warnings += warnings
    counts.errors += errors
