"""Cohere v2 Chat (`POST /v2/chat`): the SSE stream and the JSON answer (cohere-python's v2 types).

Stream events carry their name in `type` (hyphenated, unlike Anthropic's): `message-start` {id, delta.message.role},
`content-start` / `content-delta` {index, delta.message.content: {type: text|thinking, text | thinking}},
`content-end`, `tool-plan-delta` {delta.message.tool_plan}, `tool-call-start` {index, delta.message.tool_calls:
{id, type: function, function: {name, arguments}}}, `tool-call-delta` {index, delta.message.tool_calls.function.
arguments}, `tool-call-end`, `citation-start` {index, delta.message.citations: {start, end, text, sources[],
type}}, `citation-end`, `message-end` {delta: {finish_reason, usage: {billed_units, tokens, cached_tokens},
error?}}, and `debug`. The answer: `{id, finish_reason, message: {role: assistant, content: [{type: text, text} |
{type: thinking, thinking}], tool_plan, tool_calls[], citations[]}, usage}`.

The tool plan ("a chain-of-thought style reflection and plan that the model generates when working with tools")
is reasoning the model wrote before its calls: it is kept as a thinking block, ahead of them.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, lst, s

DIALECT = "cohere"
STREAM_TYPES = frozenset({"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta",
                          "tool-call-start", "tool-call-delta", "tool-call-end", "citation-start", "citation-end",
                          "message-end", "debug"})


def is_answer(obj: dict) -> bool:
    """`finish_reason` beside an assistant `message` (OpenAI puts both inside `choices[]`, Ollama adds `done`)."""
    msg = obj.get("message")
    return isinstance(msg, dict) and isinstance(obj.get("finish_reason"), str) and "choices" not in obj and \
        "done" not in obj and (msg.get("role") in (None, "assistant"))


def feed(b: Builder, obj: dict) -> None:
    t = s(obj.get("type"))
    delta = d(obj.get("delta"))
    msg = d(delta.get("message"))
    index = obj.get("index")
    if t in ("content-start", "content-delta"):
        content = d(msg.get("content"))
        kind = "thinking" if content.get("type") == "thinking" or isinstance(content.get("thinking"), str) \
            else "text"
        key = ("content", index)
        if t == "content-start":
            b.block(key, kind)
        b.append(kind, s(content.get(kind)), key=key)
    elif t == "tool-plan-delta":
        b.append("thinking", s(msg.get("tool_plan")), key="tool_plan")
    elif t in ("tool-call-start", "tool-call-delta"):
        call = d(msg.get("tool_calls"))
        fn = d(call.get("function"))
        key = ("tool", index)
        b.tool(key, name=s(fn.get("name")), id=s(call.get("id")))
        b.args(key, s(fn.get("arguments")))
    elif t == "citation-start":
        _citation(b, d(msg.get("citations")))
    elif t == "message-end":
        b.stop(delta.get("finish_reason"))
        b.set_usage(delta.get("usage"))
        if s(delta.get("error")):
            b.error(s(delta.get("error")))


def message(b: Builder, obj: dict) -> None:
    """A non-streamed answer: tool plan, content blocks in order, tool calls, citations, finish reason, usage."""
    b.r.streamed = False
    msg = d(obj.get("message"))
    b.append("thinking", s(msg.get("tool_plan")), key="tool_plan")
    for i, item in enumerate(lst(msg.get("content"))):
        item = d(item)
        kind = "thinking" if item.get("type") == "thinking" else "text"
        b.append(kind, s(item.get(kind)), key=("content", i))
    for i, call in enumerate(lst(msg.get("tool_calls"))):
        call = d(call)
        fn = d(call.get("function"))
        b.tool(("tool", i), name=s(fn.get("name")), id=s(call.get("id")))
        args = fn.get("arguments")
        b.args(("tool", i), args if isinstance(args, str) else compact(args) if args is not None else "")
    for c in lst(msg.get("citations")):
        _citation(b, d(c))
    b.stop(obj.get("finish_reason"))
    b.set_usage(obj.get("usage"))


def _citation(b: Builder, c: dict) -> None:
    """`“cited text”` and where it came from: a document's title or id, or the tool whose output it is."""
    if not c:
        return
    where = []
    for src in lst(c.get("sources")):
        src = d(src)
        doc = d(src.get("document"))
        where.append(s(doc.get("title")) or s(doc.get("url")) or s(src.get("id")) or s(doc.get("id")) or
                     s(src.get("type")))
    cited = s(c.get("text")).strip().replace("\n", " ")
    label = ", ".join(w for w in where if w) or "source"
    b.block(None, "citation").parts.append(f"{label}: “{cited[:200]}”" if cited else label)
