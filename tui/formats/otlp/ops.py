"""One span becomes one op of the session tree (formats.md section 1), one log record one LogEntry.

Two vocabularies are read. ai-agent's own (src/telemetry, tools/tools.ts, session-turn-runner.ts): `agent.llm.turn`
spans carry `ai.llm.provider/model/is_final_turn/latency_ms/prompt_tokens/completion_tokens/cache_read_tokens/
cache_write_tokens/retry_count/request_bytes/response_bytes/stop_reason/status`; `agent.tool` spans carry
`ai.tool.requested_name/name/provider/kind/status/latency_ms/input_bytes/output_bytes` and a `tool.manage.error`
event on failure. Any other framework's through the OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name`,
`gen_ai.provider.name` (older `gen_ai.system`), `gen_ai.request.model` / `gen_ai.response.model`,
`gen_ai.usage.input_tokens` / `output_tokens` (older `prompt_tokens` / `completion_tokens`) and the cache counts
`gen_ai.usage.cache_read.input_tokens` / `cache_creation.input_tokens`, `gen_ai.response.finish_reasons`,
`error.type`, `gen_ai.tool.name/call.id/call.arguments/call.result`, and the messages `gen_ai.input.messages`,
`gen_ai.output.messages`, `gen_ai.system_instructions` (JSON text or structured values).

Tokens go into an accounting entry of type "llm" so the tree's totals are recomputed as for a snapshot. The GenAI
conventions count cached tokens inside `input_tokens`; ai-agent's trees count them apart (as Anthropic does), so
the cache reads and writes are taken out of the input count here (never below zero). The messages become the op's
request and response captures (JSON text, `encoding: text`) in the shape tui.payloads.genai reads, so the payload
viewer's messages view shows them.
"""

from __future__ import annotations

from collections.abc import Iterable

from tui.formats.otlp.records import STATUS_ERROR, LogRecord, Span
from tui.inputs import json_load

LLM_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "embeddings"})
AGENT_OPERATIONS = frozenset({"invoke_agent", "invoke_workflow"})
TOOL_OPERATION = "execute_tool"
MAX_ATTRIBUTE_CHARS = 4000  # a span attribute copied onto an op's attributes is cut to this (messages are not)
_SEVERITY = {1: "TRC", 5: "DBG", 9: "INF", 13: "WRN", 17: "ERR", 21: "FATAL"}  # OTLP SeverityNumber ranges
_LOG_KEYS = {
    "type": "type", "direction": "direction", "tool_kind": "toolKind", "remote": "remoteIdentifier",
    "agent": "agentId", "call_path": "callPath", "txn_id": "txnId", "parent_txn_id": "parentTxnId",
    "origin_txn_id": "originTxnId", "headend": "headendId", "agent_path": "agentPath", "turn_path": "turnPath",
}


def role(span: Span) -> str:
    """"session", "llm", "tool" or "" (a span that is none of them: its children are lifted to its parent)."""
    name = span.name
    if name == "agent.session":
        return "session"
    if name == "agent.llm.turn":
        return "llm"
    if name == "agent.tool":
        return "tool"
    attrs = span.attrs
    operation = attrs.get("gen_ai.operation.name")
    if operation in LLM_OPERATIONS:
        return "llm"
    if operation == TOOL_OPERATION:
        return "tool"
    if operation in AGENT_OPERATIONS:
        return "session"
    if operation is None and ("gen_ai.request.model" in attrs or "gen_ai.usage.input_tokens" in attrs):
        return "llm"  # older instrumentations name no operation
    return ""


def ms(ns: int) -> int:
    return ns // 1_000_000 if isinstance(ns, int) and ns > 0 else 0


def _int(value: object) -> int | None:
    """A count or a number of milliseconds from an attribute, None for anything else: no bool, no number outside
    int64/uint64, no string but 1 to 20 ASCII digits ("²" passes str.isdigit() and fails int(), 5,000 digits fail
    int() too: either one killed the assembling thread, and no OTLP session appeared again)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else None
    if isinstance(value, float) and value == value and abs(value) < 2**53:
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if 0 < len(text) <= 20 and text.isascii() and text.isdigit():
            return int(text)
    return None


def _first(attrs: dict, *keys: str) -> object:
    for key in keys:
        value = attrs.get(key)
        if value is not None and value != "":
            return value
    return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _shown_attrs(span: Span) -> dict:
    """The span's own attributes, each cut to MAX_ATTRIBUTE_CHARS (the messages live in the captures)."""
    out: dict = {}
    for key, value in span.attrs.items():
        if key in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"):
            continue
        if isinstance(value, str) and len(value) > MAX_ATTRIBUTE_CHARS:
            value = value[:MAX_ATTRIBUTE_CHARS] + "…"
        elif isinstance(value, bytes):
            value = f"({len(value):,} bytes)"
        elif isinstance(value, (list, dict)):
            text = repr(value)
            value = text if len(text) <= MAX_ATTRIBUTE_CHARS else text[:MAX_ATTRIBUTE_CHARS] + "…"
        out[key] = value
    return out


def _error_of(span: Span) -> str:
    for event in span.events:
        if event.name in ("exception", "tool.manage.error"):
            text = _text(_first(event.attrs, "exception.message", "ai.tool.error", "exception.type"))
            if text:
                return text
    return span.status_message or _text(_first(span.attrs, "error.type", "ai.llm.status", "ai.tool.error"))


def _status(span: Span, failed: bool) -> dict:
    out: dict = {"startedAt": ms(span.start_ns)}
    if span.end_ns:
        out["endedAt"] = ms(span.end_ns)
        out["status"] = "failed" if failed else "ok"
    return out


MESSAGE_KEYS = ("gen_ai.input.messages", "gen_ai.system_instructions", "gen_ai.output.messages",
                "gen_ai.response.finish_reasons")


def llm_op(span: Span, meta: dict, records: Iterable[LogRecord] = ()) -> dict:
    """An llm op with its accounting entry (tokens), its status, and its messages as captures when sent (on the
    span, on its `gen_ai.client.inference.operation.details` event, or on a log record emitted in it: `records`)."""
    a = span.attrs
    provider = _text(_first(a, "ai.llm.provider", "gen_ai.provider.name", "gen_ai.system"))
    model = _text(_first(a, "ai.llm.model", "gen_ai.response.model", "gen_ai.request.model"))
    status_attr = _text(a.get("ai.llm.status"))
    failed = span.status == STATUS_ERROR or bool(status_attr and status_attr != "success") or "error.type" in a
    attributes = _shown_attrs(span)
    attributes.update({"provider": provider, "model": model})
    latency = _int(a.get("ai.llm.latency_ms"))
    if latency is None and span.end_ns:
        latency = ms(span.end_ns) - ms(span.start_ns)
    if latency is not None:
        attributes["latency"] = latency
    if isinstance(a.get("ai.llm.is_final_turn"), bool):
        attributes["isFinalTurn"] = a["ai.llm.is_final_turn"]
    stop = a.get("ai.llm.stop_reason") or a.get("gen_ai.response.finish_reasons")
    stop_text = ", ".join(map(_text, stop)) if isinstance(stop, list) else _text(stop)
    if failed:
        attributes["error"] = _error_of(span) or status_attr or "failed"
    op = {"opId": span.span_id, "kind": "llm", **_status(span, failed), "attributes": attributes, "logs": []}
    tokens_in = _int(_first(a, "ai.llm.prompt_tokens", "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"))
    tokens_out = _int(_first(a, "ai.llm.completion_tokens", "gen_ai.usage.output_tokens",
                             "gen_ai.usage.completion_tokens"))
    cache_read = _int(_first(a, "ai.llm.cache_read_tokens", "gen_ai.usage.cache_read.input_tokens",
                             "gen_ai.usage.cache_read_input_tokens"))
    cache_write = _int(_first(a, "ai.llm.cache_write_tokens", "gen_ai.usage.cache_creation.input_tokens",
                              "gen_ai.usage.cache_creation_input_tokens"))
    if tokens_in is not None and "ai.llm.prompt_tokens" not in a:  # GenAI: input counts the cached tokens too
        tokens_in = max(0, tokens_in - (cache_read or 0) - (cache_write or 0))
    cost = cost_of(span)
    accounting: list = []
    if cost is not None or any(v is not None for v in (tokens_in, tokens_out, cache_read, cache_write)):
        tokens = {"inputTokens": tokens_in or 0, "outputTokens": tokens_out or 0,
                  "cacheReadInputTokens": cache_read or 0, "cacheWriteInputTokens": cache_write or 0}
        tokens["totalTokens"] = sum(tokens.values())
        entry = {"type": "llm", "timestamp": ms(span.end_ns or span.start_ns), "status": "failed" if failed else "ok",
                 "provider": provider, "model": model, "tokens": tokens, **meta}
        if latency is not None:
            entry["latency"] = latency
        if cost is not None:
            entry["costUsd"] = cost
        if stop_text:
            entry["stopReason"] = stop_text
        accounting.append(entry)
    op["accounting"] = accounting
    extra = {k: r.attrs[k] for r in records for k in MESSAGE_KEYS if k in r.attrs}
    _messages_into(op, span, model, extra)
    return op


COST_ATTRIBUTE = "ai.llm.cost_usd"  # written by the monitor's own export (tui.text.otlp.spans); ai-agent sends none


def cost_of(span: Span) -> float | None:
    """An llm span's cost in USD, None when it states none (ai-agent's own telemetry never does: its cost is
    unknown, not zero). A negative, infinite or non-numeric value is no cost."""
    value = span.attrs.get(COST_ATTRIBUTE)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value < float("inf") else None


def tool_op(span: Span, meta: dict) -> dict:
    a = span.attrs
    name = _text(_first(a, "ai.tool.name", "ai.tool.requested_name", "gen_ai.tool.name")) or span.name
    status_attr = _text(a.get("ai.tool.status"))
    failed = span.status == STATUS_ERROR or status_attr in ("error", "failed") or "error.type" in a
    attributes = _shown_attrs(span)
    attributes.update({"name": name, "provider": _text(_first(a, "ai.tool.provider", "gen_ai.tool.type")),
                       "kind": _text(_first(a, "ai.tool.kind", "gen_ai.tool.type"))})
    latency = _int(a.get("ai.tool.latency_ms"))
    if latency is None and span.end_ns:
        latency = ms(span.end_ns) - ms(span.start_ns)
    if latency is not None:
        attributes["latency"] = latency
    if failed:
        attributes["error"] = _error_of(span) or status_attr or "failed"
    # ai-agent's tools.ts: tools of kind `agent` (sub-agents, tool_output) are `session` ops, not counted as tools
    kind = "session" if a.get("ai.tool.kind") == "agent" else "tool"
    op = {"opId": span.span_id, "kind": kind, **_status(span, failed), "attributes": attributes, "logs": []}
    entry = {"type": "tool", "timestamp": ms(span.end_ns or span.start_ns), "status": "failed" if failed else "ok",
             "command": name, **meta}
    for key, attr in (("charactersIn", "ai.tool.input_bytes"), ("charactersOut", "ai.tool.output_bytes")):
        value = _int(a.get(attr))
        if value is not None:
            entry[key] = value
    if latency is not None:
        entry["latency"] = latency
    op["accounting"] = [entry]
    arguments, result = a.get("gen_ai.tool.call.arguments"), a.get("gen_ai.tool.call.result")
    if arguments is not None:
        op["request"] = {"kind": "tool", "payload": _capture(arguments)}
    if result is not None:
        op["response"] = {"payload": _capture(result)}
    return op


def _structured(value: object) -> object:
    """A messages attribute: JSON text (as most SDKs send it) parsed, a structured value as it is."""
    if isinstance(value, str):
        try:
            return json_load.loads(value)
        except (json_load.JSONDecodeError, ValueError):
            return value
    return value


def first_user_text(span: Span) -> str:
    """The text of the first user message of an LLM span's gen_ai.input.messages ("" when none): the session's
    prompt, which the browser shows as the title of a session that has none (tui.catalog.row_facts)."""
    messages = _structured(span.attrs.get("gen_ai.input.messages"))
    if not isinstance(messages, list):
        return ""
    for message in messages[:50]:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        parts = message.get("parts")
        texts = [p.get("content") for p in parts[:20] if isinstance(p, dict) and p.get("type") == "text"] \
            if isinstance(parts, list) else []
        text = " ".join(t for t in texts if isinstance(t, str))
        if text.strip():
            return text[:4096]
    return ""


def _capture(value: object) -> dict:
    """A value as an inline JSON capture (text encoding: the viewer reads it as it is)."""
    text = value if isinstance(value, str) else json_text(value)
    return {"raw": {"format": "json", "encoding": "text", "value": text}}


def json_text(value: object) -> str:
    import orjson

    try:
        return orjson.dumps(value, default=repr).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return repr(value)


def _messages_into(op: dict, span: Span, model: str, extra: dict) -> None:
    """gen_ai.input.messages (+ system instructions) as the request capture, gen_ai.output.messages as the
    response, in the shape tui.payloads.genai reads (its keys are the attributes' names)."""
    a = {**extra, **span.attrs} if extra else span.attrs
    for event in span.events:  # the conventions also allow the details on an event of the span
        if event.name == "gen_ai.client.inference.operation.details":
            a = {**event.attrs, **a}
    inputs, system = a.get("gen_ai.input.messages"), a.get("gen_ai.system_instructions")
    outputs = a.get("gen_ai.output.messages")
    if inputs is not None or system is not None:
        body: dict = {"gen_ai.request.model": model}
        if system is not None:
            body["gen_ai.system_instructions"] = _structured(system)
        body["gen_ai.input.messages"] = _structured(inputs) if inputs is not None else []
        op["request"] = {"kind": "llm", "payload": _capture(body)}
    if outputs is not None:
        body = {"gen_ai.response.model": model, "gen_ai.output.messages": _structured(outputs)}
        reasons = a.get("gen_ai.response.finish_reasons")
        if isinstance(reasons, list):
            body["gen_ai.response.finish_reasons"] = reasons
        op["response"] = {"payload": _capture(body)}


def log_entry(record: LogRecord, path: str = "") -> dict:
    """A LogEntry (formats.md section 1) from an OTLP log record of ai-agent's (or anyone's) shape."""
    a = record.attrs
    severity = _text(a.get("severity")) or record.severity_text
    if not severity:
        severity = _SEVERITY.get(max((k for k in _SEVERITY if k <= record.severity_number), default=5), "INF")
    if a.get("fatal") is True:  # a producer that marks a fatal ERR as ai-agent's files do: listed as FATAL
        severity = "FATAL"
    body = record.body
    entry: dict = {"timestamp": ms(record.time_ns), "severity": severity,
                   "message": body if isinstance(body, str) else "" if body is None else json_text(body)}
    for key in ("turn", "subturn"):
        value = _int(a.get(key))
        if value is not None:
            entry[key] = value
    for key, name in _LOG_KEYS.items():
        text = a.get(key)
        if isinstance(text, str) and text:
            entry[name] = text
    if path:
        entry["path"] = path
    details = {k: (v[:MAX_ATTRIBUTE_CHARS] + "…" if isinstance(v, str) and len(v) > MAX_ATTRIBUTE_CHARS else v)
               for k, v in a.items() if k not in _LOG_KEYS and k not in ("turn", "subturn", "severity", "fatal")
               and isinstance(v, (str, int, float, bool))}
    if details:
        entry["details"] = details
    return entry


def log_turn(record: LogRecord) -> int | None:
    return _int(record.attrs.get("turn"))
