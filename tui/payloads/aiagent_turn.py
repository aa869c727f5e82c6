"""ai-agent's own objects in its `sdk` captures (pure): the TurnRequest it hands its LLM client and the TurnResult
it gets back. They are not a provider's bodies: ai-agent serializes them itself (src/session-turn-runner.ts,
`captureSdkRequestSnapshot` / `captureSdkResponseSnapshot`: `JSON.stringify` of a plain object it builds, so no
function or abort signal is in them), base64-encoded as `payload.sdk = {format: "sdk", encoding: "base64", value}`,
or in a v3 payload file (payloadRef kind `sdk_request` / `sdk_response`, `*-sdk-request.*` / `*-sdk-response.*`).

The request: `{provider, model, stream, temperature, topP, topK, maxOutputTokens, repeatPenalty, reasoningLevel,
reasoningValue, interleaved, sendReasoning, toolChoice, tools: [{name, description, inputSchema}], messages,
turnMetadata}`, `messages` being the whole conversation sent on that turn: `{role: system|user|assistant|tool,
content: string, toolCalls?: [{id, name, parameters}], toolCallId?, reasoning?: [{type: "reasoning", text}],
noticeType?, metadata?}`. The result: `{status: {type, message?, retryable?, retryAfterMs?, httpStatus?,
hasToolCalls?, finalAnswer?}, stopReason, response, messages (what the turn added: the assistant message, the
results of tools run during it), hasReasoning, hasContent, tokens: {inputTokens, outputTokens, cachedTokens,
cacheReadInputTokens, cacheWriteInputTokens, totalTokens}, providerMetadata: {actualProvider, actualModel,
reportedCostUsd, ...}}` (`latencyMs` when a producer keeps it).

Which of the two a capture holds is told by where it was found and its side (tui.payloads.decode gets `sdk`),
never from a body's shape: a provider's request has `messages` and `tools` too. A body holding none of the object's
own keys is left as plain JSON, unnamed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.payloads.lines import SECTION_PREFIX, part_lines, split_lines
from tui.payloads.message_readers import NO_ROLE, ROLES, Message, Part, tool_names
from tui.payloads.requests import RequestInfo
from tui.payloads.result import Builder, Reassembled, ToolCall, compact, d, lst, s

__all__ = ["DIALECT", "TurnRequestInfo", "capture_name", "request_info", "request_lines", "request_messages",
           "result_of"]

DIALECT = "aiagent"  # a key of result.DIALECT_LABELS
NAMES = {"request": "ai-agent turn request", "response": "ai-agent turn result"}
_REQUEST_KEYS = ("messages", "tools", "provider", "turnMetadata")
_RESULT_KEYS = ("status", "stopReason", "response", "tokens", "hasContent", "hasReasoning")
_SETTINGS = ("temperature", "topP", "topK", "maxOutputTokens", "repeatPenalty", "reasoningLevel", "reasoningValue",
             "interleaved", "sendReasoning", "toolChoice")
_TOOL_FAILED = "(tool failed:"  # how ai-agent words a tool result that is an error (llm-providers/base.ts)
_DESCRIPTION_CHARS = 200


def capture_name(side: str) -> str:
    """What an `sdk` capture of this side is, for every place that names a capture."""
    return NAMES.get(side, "ai-agent turn object")


@dataclass(slots=True)
class TurnRequestInfo(RequestInfo):
    """A TurnRequest, named like a provider's request is (tui.payloads.requests.RequestInfo), with its provider."""

    TOOLS_WORD = "offered"

    @property
    def title(self) -> str:
        return NAMES["request"]


def request_info(body: object) -> TurnRequestInfo | None:
    if not isinstance(body, dict) or not any(k in body for k in _REQUEST_KEYS):
        return None
    stream = body.get("stream") if isinstance(body.get("stream"), bool) else None
    return TurnRequestInfo(dialect=DIALECT, model=s(body.get("model")), messages=len(lst(body.get("messages"))),
                           tools=len(lst(body.get("tools"))), stream=stream, provider=s(body.get("provider")))


# Messages ----------------------------------------------------------------------------------------------------


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else compact(value)


def _reasoning(m: dict) -> list[Part]:
    """ReasoningOutput[] (`{type: "reasoning", text}`), strings tolerated."""
    texts = [r if isinstance(r, str) else s(d(r).get("text")) for r in lst(m.get("reasoning"))]
    return [Part("thinking", t) for t in texts if t]


def _calls(m: dict) -> list[Part]:
    out = []
    for call in lst(m.get("toolCalls")):
        c = d(call)
        out.append(Part("tool_call", _text(c.get("parameters", c.get("arguments"))), s(c.get("name")),
                        s(c.get("id"))))
    return out


def _message(raw: object) -> Message:
    """One ConversationMessage; what ai-agent itself added says so (a notice's `noticeType`, an injected tool
    result)."""
    if not isinstance(raw, dict):
        return Message("user", [Part("other", _text(raw))] if raw is not None else [], NO_ROLE)
    m = raw
    word = s(m.get("role"))
    role = word.lower() if word.lower() in ROLES else "user"
    label = "" if word.lower() in ROLES else (word or NO_ROLE)
    parts = _reasoning(m)
    content = m.get("content")
    if role == "tool":
        text = _text(content)
        parts.append(Part("tool_result", text, "", s(m.get("toolCallId")), text.startswith(_TOOL_FAILED)))
    elif content is not None and content != "":
        parts.append(Part("text", _text(content)))
    parts.extend(_calls(m))
    injected = "injected" if d(m.get("metadata")).get("injectedToolResult") is True else ""
    return Message(role, parts, label or s(m.get("noticeType")) or injected)


def request_messages(body: object) -> list[Message]:
    """The conversation a TurnRequest sends, in order."""
    return [_message(m) for m in lst(d(body).get("messages"))]


# The result --------------------------------------------------------------------------------------------------


def _status(b: Builder, status: object) -> None:
    st = d(status)
    kind = s(st.get("type")) or s(status) or ("?" if status is not None else "")
    flags = [w for w, key in (("tool calls", "hasToolCalls"), ("final answer", "finalAnswer")) if st.get(key) is True]
    b.r.status = kind + (f" ({', '.join(flags)})" if flags else "")
    if kind and kind != "success":
        facts = [x for x in (f"HTTP {st['httpStatus']}" if isinstance(st.get("httpStatus"), int) else "",
                             f"retry after {st['retryAfterMs']} ms" if isinstance(st.get("retryAfterMs"), int) else "",
                             "retryable" if st.get("retryable") is True else "") if x]
        message = _text(st.get("message"))
        b.r.errors.append(kind + (f": {message}" if message else "") + (f" ({', '.join(facts)})" if facts else ""))


def _answer_blocks(b: Builder, body: dict) -> None:
    """Thinking, text and tool calls of the assistant messages in order, then the tool results the turn holds; the
    `response` string stands in for the text when no message has any."""
    names: dict[str, str] = {}
    has_text = False
    results: list[Part] = []
    for raw in lst(body.get("messages")):
        msg = _message(raw)
        if msg.role != "assistant":
            results.extend(p for p in msg.parts if p.kind == "tool_result")
            continue
        for p in msg.parts:
            if p.kind == "tool_call":
                blk = b.block(None, "tool_call")
                blk.tool = ToolCall(p.name, p.call_id)
                blk.parts.append(p.text)
                names[p.call_id] = p.name
            elif p.text:
                b.block(None, "thinking" if p.kind == "thinking" else "text").parts.append(p.text)
                has_text = has_text or p.kind == "text"
    response = body.get("response")
    if not has_text and isinstance(response, str) and response:
        b.block(None, "text").parts.append(response)
    for p in results:
        blk = b.block(None, "tool_error" if p.error else "tool_result")
        blk.tool = ToolCall(names.get(p.call_id, ""), p.call_id)
        blk.parts.append(p.text)


def result_of(body: object) -> Reassembled | None:
    """A TurnResult as an answer: status (a failure's message as an error), stop reason, text, thinking, tool calls
    and results, tokens as usage, the provider and model that answered."""
    if not isinstance(body, dict) or not any(k in body for k in _RESULT_KEYS):
        return None
    b = Builder(DIALECT, streamed=False)
    _status(b, body.get("status"))
    b.stop(body.get("stopReason"))
    b.set_usage({k: v for k, v in d(body.get("tokens")).items() if isinstance(v, (int, float))})
    meta = d(body.get("providerMetadata"))
    metadata = next((d(d(m).get("metadata")) for m in lst(body.get("messages")) if d(d(m).get("metadata"))), {})
    b.model(s(meta.get("actualModel")) or s(metadata.get("model")))
    b.r.provider = s(meta.get("actualProvider"))  # a router's destination: shown as "via"
    if not b.r.provider and s(metadata.get("provider")):
        b.r.meta.append(f"provider {metadata['provider']}")
    cost = next((v for v in (meta.get("reportedCostUsd"), meta.get("effectiveCostUsd")) if _number(v)), None)
    if cost is not None:
        b.r.meta.append(f"cost ${cost:g}")
    if _number(body.get("latencyMs")):
        b.r.meta.append(f"latency {body['latencyMs']:,} ms")
    _answer_blocks(b, body)
    result = b.result()
    for blk in result.blocks:  # Builder.result() copied a result's text into its ToolCall's arguments
        if blk.kind in ("tool_result", "tool_error") and blk.tool is not None:
            blk.tool.arguments = ""
    return result


# The text view of a request ------------------------------------------------------------------------------------


def request_lines(body: object) -> list[str]:
    """A TurnRequest for a person: what it asks (provider, model, settings), the tools it offers, its messages."""
    info = request_info(body)
    if info is None or not isinstance(body, dict):
        return []
    out = [f"{SECTION_PREFIX}{info.line}"]
    settings = [f"{k} {_text(body[k])}" for k in _SETTINGS if body.get(k) is not None]
    if settings:
        out.append(" · ".join(settings))
    tools = lst(body.get("tools"))
    if tools:
        out.append(f"{SECTION_PREFIX}tools offered ({len(tools)})")
        for name, tool in zip(tool_names(body), tools):
            first = next(iter(split_lines(s(d(tool).get("description")).strip())), "")
            cut = first[:_DESCRIPTION_CHARS] + ("…" if len(first) > _DESCRIPTION_CHARS else "")
            out.append(f"{name}: {cut}" if cut else name)
    messages = request_messages(body)
    names = {p.call_id: p.name for m in messages for p in m.parts if p.kind == "tool_call" and p.call_id}
    for m in messages:
        out.append(f"{SECTION_PREFIX}{m.role}" + (f" ({m.label})" if m.label else ""))
        lines = [ln for p in m.parts for ln in part_lines(p, names)]
        out.extend(lines or ["(no content)"])
    return out
