"""A normalised session tree as OTLP spans: GenAI semantic conventions plus ai-agent's own `ai.*` attributes.

One trace per exported session: its id is the session's `traceId` when that is a UUID (dashes removed, so a trace
store shows the id ai-agent logged), else the first 16 bytes of a SHA-256 of it. Span ids are the first 8 bytes of
a SHA-256 of (trace id, op path): exporting the same file twice gives the same ids, so a trace store that
deduplicates keeps one copy.

Spans: `invoke_agent {agent}` per session (INTERNAL; a sub-agent's span is the child of the op that ran it),
`chat {model}` per LLM op (CLIENT), `execute_tool {tool}` per tool op and per sub-agent op (INTERNAL), and a span
named by its label per system op (init, fin, final-report). Times come from startedAt/endedAt. An op or session
still running when the file was written has no end: its span ends at the latest time known below it (a child's
end, a log), else at its start, and says `ai.op.running` / `ai.session.running` = true. Failed ops and sessions
get status ERROR with their error message and `error.type` (the error slug, else "failed"). Op logs are span events
named "log" (at most EVENTS_PER_SPAN per span; the rest counted in `ai.export.logs_dropped`).

Token attributes follow the semconv: `gen_ai.usage.input_tokens` counts every input token (prompt + cache read +
cache write: the conventions say cache tokens SHOULD be included), while `ai.llm.prompt_tokens` keeps the
producer's own prompt count as ai-agent's telemetry writes it.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from tui.formats.otlp.records import STATUS_ERROR, STATUS_OK, Span, SpanEvent
from tui.model.fields import as_dict, as_list, as_str
from tui.model.logs import LogEntry, op_logs
from tui.model.nodes import Op, Session, user_turns

KIND_INTERNAL, KIND_CLIENT = 1, 3
EVENTS_PER_SPAN = 256  # logs kept as events on one span
LOG_MESSAGE_CHARS = 2048  # characters of one log message in an event
TEXT_CHARS = 4096  # characters of any other free text (error messages, titles)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_MS = 1_000_000  # ns per ms

# ai-agent's provider names (its configuration's keys) that name a provider the semconv lists
PROVIDER_NAMES = {"anthropic": "anthropic", "openai": "openai", "google": "gcp.gemini", "gemini": "gcp.gemini",
                  "vertex": "gcp.vertex_ai", "bedrock": "aws.bedrock", "deepseek": "deepseek", "groq": "groq",
                  "mistral": "mistral_ai", "xai": "x_ai", "perplexity": "perplexity", "cohere": "cohere"}
_LOG_FIELDS = (("turn", "turn"), ("subturn", "subturn"), ("direction", "direction"), ("type", "type"),
               ("toolKind", "tool_kind"), ("remoteIdentifier", "remote"), ("agentId", "agent"),
               ("callPath", "call_path"), ("txnId", "txn_id"))


@dataclass(slots=True)
class Exported:
    spans: list[Span]
    sessions: int
    running: int  # spans whose end was not recorded (see the module docstring)


def trace_id_of(session: Session) -> str:
    """32 hex digits: the session's UUID trace id without dashes, else a stable hash of what identifies it."""
    tid = session.trace_id or ""
    if _UUID.match(tid) and set(tid.replace("-", "")) != {"0"}:
        return tid.replace("-", "").lower()
    return _hex(f"trace\0{tid or session.id or session.agent_id}", 16)


def span_id_of(trace_id: str, key: str) -> str:
    return _hex(f"{trace_id}\0{key}", 8)


def _hex(text: str, size: int) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[: size * 2]
    return digest if set(digest) != {"0"} else "1".rjust(size * 2, "0")  # all-zero ids mean "absent" in OTLP


def _ns(ms: int | None) -> int:
    return ms * _MS if isinstance(ms, int) and ms > 0 else 0


def _text(value: object, limit: int = TEXT_CHARS) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # lone surrogates: not valid UTF-8
    return text if len(text) <= limit else text[:limit] + "…"


def session_spans(root: Session, *, sessions_dir: str | os.PathLike | None = None,
                  messages: Callable | None = None) -> Exported:
    """Every span of `root` and its sub-agents, parents before children. `messages(op, sessions_dir)` reads an LLM
    op's captures (tui.text.otlp.messages.op_messages; None: no messages). A tool op gets the
    `gen_ai.tool.call.id` of the first call of its name that an earlier answer of the same turn asked for."""
    trace = trace_id_of(root)
    conversation = root.trace_id or root.id
    spans: list[Span] = []
    sessions = 0
    seen: set[str] = set()
    stack: list[tuple[Session, Span | None]] = [(root, None)]
    while stack:
        session, parent = stack.pop()
        sessions += 1
        session_span = _session_span(session, trace, parent, conversation)
        spans.append(_unique(session_span, seen))
        children: list[tuple[Session, Span | None]] = []
        for turn in session.turns:
            calls: list[tuple[str, str]] = []  # tool calls asked for in this turn, not yet matched to a tool op
            for op in turn.ops:
                span = _unique(_op_span(op, trace, session_span, sessions_dir, messages, calls), seen)
                spans.append(span)
                if op.child is not None:
                    children.append((op.child, span))
            session_span.events.extend(_log_events(turn.extra_logs, session_span))
        session_span.events.extend(_log_events(session.extra_logs, session_span))
        stack.extend(reversed(children))
    running = _close_running(spans)
    return Exported(spans, sessions, running)


def _session_key(session: Session) -> str:
    return f"session\0{session.path_prefix}"


def _unique(span: Span, seen: set[str]) -> Span:
    """A broken file may repeat an op path: the second span gets an id derived from the first, never the same."""
    while span.span_id in seen:
        span.span_id = span_id_of(span.trace_id, f"again\0{span.span_id}")
    seen.add(span.span_id)
    return span


def _first_start(session: Session) -> int:
    """A session without startedAt starts with its first op that has one (0: none has)."""
    return next((_ns(op.started_at) for op in session.all_ops() if _ns(op.started_at)), 0)


def _session_span(session: Session, trace: str, parent: Span | None, conversation: str) -> Span:
    agent = session.agent_id or session.call_path or "agent"
    attrs: dict[str, object] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": _text(agent, 256),
        "gen_ai.agent.id": _text(session.id or session.trace_id, 256),
        "gen_ai.conversation.id": _text(conversation, 256),
        "ai.agent.id": _text(session.agent_id, 256),
        "ai.agent.call_path": _text(session.call_path or session.agent_id, 1024),
        "ai.agent.turn_count": user_turns(session),
        "ai.session.path": session.path_prefix,
    }
    if session.trace_id:
        attrs["ai.session.trace_id"] = _text(session.trace_id, 256)
    if session.title:
        attrs["ai.session.title"] = _text(session.title)
    attrs.update(_txn_attributes(session))
    if session.success is not None:
        attrs["ai.agent.success"] = bool(session.success)
    start = _ns(session.started_at) or (parent.start_ns if parent is not None else 0) or _first_start(session)
    span = Span(trace, span_id_of(trace, _session_key(session)), parent.span_id if parent is not None else "",
                f"invoke_agent {_text(agent, 200)}", start, _ns(session.ended_at),
                {k: v for k, v in attrs.items() if v != ""}, kind=KIND_INTERNAL)
    if session.status == "failed":
        _fail(span, session.error or "session failed", "failed")
    elif session.status == "ok":
        span.status = STATUS_OK
    return span


def _txn_attributes(session: Session) -> dict[str, object]:
    """ai.session.txn_id / parent_txn_id / origin_txn_id / headend_id: from the session's own record when it has
    them (v3 session_start, v2 top level), else from the first log or accounting entry of its ops that does."""
    want = {"txnId": "ai.session.txn_id", "parentTxnId": "ai.session.parent_txn_id",
            "originTxnId": "ai.session.origin_txn_id", "headendId": "ai.session.headend_id"}
    out: dict[str, object] = {}
    raw = as_dict(session.raw)
    for key, attr in want.items():
        if isinstance(raw.get(key), str) and raw[key]:
            out[attr] = _text(raw[key], 256)
    looked = 0
    for op in session.all_ops():
        if len(out) == len(want) or looked > 20:
            break
        looked += 1
        raw_op = as_dict(op.raw)
        for entry in as_list(raw_op.get("logs")) + as_list(raw_op.get("accounting")):
            entry = as_dict(entry)
            for key, attr in want.items():
                if attr not in out and isinstance(entry.get(key), str) and entry[key]:
                    out[attr] = _text(entry[key], 256)
    return out


def _op_span(op: Op, trace: str, parent: Span, sessions_dir, messages, calls: list[tuple[str, str]]) -> Span:
    attrs: dict[str, object] = {"ai.op.path": op.path, "ai.op.kind": op.kind, "ai.turn.index": op.turn.index}
    if op.op_id:
        attrs["ai.op.id"] = _text(op.op_id, 256)
    if op.kind == "llm":
        name, kind = f"chat {_text(op.model or op.provider or 'model', 200)}", KIND_CLIENT
        calls.extend(_llm_attributes(op, attrs, sessions_dir, messages))
    elif op.kind in ("tool", "session"):
        tool = op.name or op.label or "tool"
        name, kind = f"execute_tool {_text(tool, 200)}", KIND_INTERNAL
        _tool_attributes(op, tool, attrs, calls)
    else:
        name, kind = _text(op.label or op.name or op.kind or "op", 200), KIND_INTERNAL
    start = _ns(op.started_at) or _ns(op.ts_fallback) or _ns(op.turn.started_at) or parent.start_ns
    end = _ns(op.ended_at)
    span = Span(trace, span_id_of(trace, f"op\0{op.path}"), parent.span_id, name, start, end, attrs, kind=kind)
    if op.failed:
        _fail(span, op.error or f"{op.kind} op failed", _slug(op.error))
    elif op.status == "ok":
        span.status = STATUS_OK
    span.events.extend(_log_events(op_logs(op), span))
    return span


def _accounting(op: Op, kind: str) -> dict:
    for entry in as_list(as_dict(op.raw).get("accounting")):
        if isinstance(entry, dict) and entry.get("type") == kind:
            return entry
    return {}


def _llm_attributes(op: Op, attrs: dict[str, object], sessions_dir, messages) -> list[tuple[str, str]]:
    """Fills `attrs`; returns the (call id, tool name) pairs the answer asked for."""
    acc = _accounting(op, "llm")
    provider = op.provider or as_str(acc.get("provider"))
    attrs["gen_ai.operation.name"] = "chat"
    if provider:
        attrs["gen_ai.provider.name"] = PROVIDER_NAMES.get(provider.lower(), _text(provider, 256))
        attrs["ai.llm.provider"] = _text(provider, 256)
    if op.model:
        attrs["gen_ai.request.model"] = attrs["ai.llm.model"] = _text(op.model, 256)
    response_model = as_str(acc.get("actualModel")) or op.model
    if response_model:
        attrs["gen_ai.response.model"] = _text(response_model, 256)
    attrs["gen_ai.usage.input_tokens"] = op.tokens_in + op.cache_read + op.cache_write
    attrs["gen_ai.usage.output_tokens"] = op.tokens_out
    attrs["gen_ai.usage.cache_read.input_tokens"] = op.cache_read
    attrs["gen_ai.usage.cache_creation.input_tokens"] = op.cache_write
    attrs["ai.llm.prompt_tokens"] = op.tokens_in
    attrs["ai.llm.completion_tokens"] = op.tokens_out
    attrs["ai.llm.cache_read_tokens"] = op.cache_read
    attrs["ai.llm.cache_write_tokens"] = op.cache_write
    if op.cost:
        attrs["ai.llm.cost_usd"] = float(op.cost)
    latency = op.attributes.get("latency", acc.get("latency"))
    if isinstance(latency, (int, float)) and not isinstance(latency, bool):
        attrs["ai.llm.latency_ms"] = latency
    elif op.duration_ms is not None:
        attrs["ai.llm.latency_ms"] = op.duration_ms
    if isinstance(op.attributes.get("isFinalTurn"), bool):
        attrs["ai.llm.is_final_turn"] = op.attributes["isFinalTurn"]
    stop = as_str(acc.get("stopReason")) or as_str(op.attributes.get("stopReason"))
    if op.failed:
        attrs["ai.llm.status"] = _slug(op.error)
    read = messages(op, sessions_dir) if messages is not None else None
    if read is not None:
        if read.input:
            attrs["gen_ai.input.messages"] = read.input
        if read.output:
            attrs["gen_ai.output.messages"] = read.output
        if read.dropped:
            attrs["ai.export.input_messages_dropped"] = read.dropped
        stop = stop or read.finish_reason
    if stop:
        attrs["gen_ai.response.finish_reasons"] = [_text(stop, 256)]
        attrs["ai.llm.stop_reason"] = _text(stop, 256)
    return read.calls if read is not None else []


def _tool_attributes(op: Op, tool: str, attrs: dict[str, object], calls: list[tuple[str, str]]) -> None:
    acc = _accounting(op, "tool")
    kind = as_str(op.attributes.get("kind")) or ("agent" if op.kind == "session" else "")
    attrs["gen_ai.operation.name"] = "execute_tool"
    attrs["gen_ai.tool.name"] = attrs["ai.tool.name"] = _text(tool, 256)
    attrs["gen_ai.tool.type"] = "function"
    call_id = next((as_str(op.attributes.get(k)) for k in ("toolCallId", "callId", "tool_call_id")
                    if as_str(op.attributes.get(k))), "")
    if not call_id:
        match = next((i for i, (_id, name) in enumerate(calls) if name == tool), None)
        if match is not None:
            call_id = calls.pop(match)[0]
    if call_id:
        attrs["gen_ai.tool.call.id"] = _text(call_id, 256)
    provider = op.provider or as_str(acc.get("mcpServer"))
    if provider:
        attrs["ai.tool.provider"] = _text(provider, 256)
    if kind:
        attrs["ai.tool.kind"] = _text(kind, 64)
    if op.status is not None:
        attrs["ai.tool.status"] = "success" if op.status == "ok" else "error"
    latency = op.attributes.get("latency", acc.get("latency"))
    if isinstance(latency, (int, float)) and not isinstance(latency, bool):
        attrs["ai.tool.latency_ms"] = latency
    elif op.duration_ms is not None:
        attrs["ai.tool.latency_ms"] = op.duration_ms
    if op.chars_in is not None:
        attrs["ai.tool.input_bytes"] = op.chars_in
    if op.chars_out is not None:
        attrs["ai.tool.output_bytes"] = op.chars_out
    if op.child is not None:
        attrs["gen_ai.agent.name"] = _text(op.child.display_agent, 256)


def _slug(error: str) -> str:
    """error.type: the producer's slug when the error is one (`token_budget_exceeded`), else "failed"."""
    return error if error and len(error) <= 64 and re.fullmatch(r"[A-Za-z0-9_.:-]+", error) else "failed"


def _fail(span: Span, message: str, error_type: str) -> None:
    span.status, span.status_message = STATUS_ERROR, _text(message)
    span.attrs["error.type"] = error_type


def _log_events(entries: list[LogEntry], span: Span) -> list[SpanEvent]:
    """The logs as "log" events, as many as the span has room for (EVENTS_PER_SPAN); the rest are counted in
    `ai.export.logs_dropped`."""
    room = max(EVENTS_PER_SPAN - len(span.events), 0)
    dropped = len(entries) - min(room, len(entries))
    if dropped:
        previous = span.attrs.get("ai.export.logs_dropped", 0)
        span.attrs["ai.export.logs_dropped"] = (previous if isinstance(previous, int) else 0) + dropped
    out = []
    for entry in entries[:room]:
        attrs: dict[str, object] = {"severity": entry.severity, "message": _text(entry.message, LOG_MESSAGE_CHARS)}
        if entry.path:
            attrs["path"] = entry.path
        raw = entry.raw or {}
        for key, name in _LOG_FIELDS:
            value = raw.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
                attrs[name] = _text(value, 256) if isinstance(value, str) else value
        out.append(SpanEvent("log", _ns(entry.ts) or span.start_ns, attrs))
    return out


def _close_running(spans: list[Span]) -> int:
    """Give spans with no recorded end the latest time known below them (children's ends, events), else their
    start. Children come after their parents in `spans`, so one backwards pass sees every child first."""
    latest: dict[str, int] = {}
    running = 0
    for span in reversed(spans):
        known = max([span.start_ns, latest.get(span.span_id, 0)] + [e.time_ns for e in span.events])
        if span.end_ns == 0:
            running += 1
            span.attrs["ai.op.running" if "ai.op.path" in span.attrs else "ai.session.running"] = True
            span.end_ns = known
        elif span.end_ns < span.start_ns:  # an end before the start (a clock step): a zero-length span
            span.end_ns = span.start_ns
        if span.parent_id:
            latest[span.parent_id] = max(latest.get(span.parent_id, 0), span.end_ns)
    return running
