"""Amazon Bedrock Converse: the JSON answer and the ConverseStream events, whatever carried them.

Answer: `{output: {message: {role, content: [...]}}, stopReason, usage {inputTokens, outputTokens, totalTokens,
cacheReadInputTokens?, cacheWriteInputTokens?}, metrics {latencyMs}}`; content blocks are keyed by what they hold,
not typed: `{text}`, `{toolUse: {toolUseId, name, input}}`, `{reasoningContent: {reasoningText: {text, signature}} |
{redactedContent}}`, `{citationsContent: {content, citations}}`, `{image}`, `{document}`.

Stream: each event is one key naming it, the shape boto3 yields and `eventstream.events` rebuilds from the binary
framing: `{messageStart: {role}}`, `{contentBlockStart: {start: {toolUse: {toolUseId, name}}, contentBlockIndex}}`,
`{contentBlockDelta: {delta: {text} | {toolUse: {input: "<partial JSON>"}} | {reasoningContent: {text} |
{signature} | {redactedContent}} | {citation}, contentBlockIndex}}`, `{contentBlockStop}`, `{messageStop:
{stopReason}}`, `{metadata: {usage, metrics}}`, and the exceptions (`throttlingException`, `validationException`,
`modelStreamErrorException`, ...) as `{xException: {message}}`. The binary frames also carry a `p` padding field.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, lst, s

DIALECT = "bedrock-converse"
STREAM_EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
                           "messageStop"})  # `metadata` alone says nothing: too common a key


def is_event(obj: dict) -> bool:
    """One key naming a ConverseStream event, its value an object (a stray `metadata` key is not enough)."""
    return len(obj) == 1 and next(iter(obj)) in STREAM_EVENTS and isinstance(next(iter(obj.values())), dict)


def is_answer(obj: dict) -> bool:
    return isinstance(d(obj.get("output")).get("message"), dict) and (
        "stopReason" in obj or isinstance(obj.get("usage"), dict))


def feed(b: Builder, obj: dict) -> None:
    for name, ev in obj.items():
        ev = d(ev)
        key = ("c", ev.get("contentBlockIndex"))
        if name == "contentBlockStart":
            tool = d(d(ev.get("start")).get("toolUse"))
            if tool:
                b.tool(key, name=s(tool.get("name")), id=s(tool.get("toolUseId")))
        elif name == "contentBlockDelta":
            _delta(b, key, d(ev.get("delta")))
        elif name == "messageStop":
            b.stop(ev.get("stopReason"))
        elif name == "metadata":
            _usage(b, ev)
        elif name.endswith("Exception"):
            b.error({"error": {"type": name, "message": s(ev.get("message")) or s(ev.get("Message"))}})


def _delta(b: Builder, key: object, delta: dict) -> None:
    if isinstance(delta.get("text"), str):
        b.append("text", delta["text"], key=key)
    tool = delta.get("toolUse")
    if isinstance(tool, dict):
        b.args(key, s(tool.get("input")))
    reasoning = delta.get("reasoningContent")
    if isinstance(reasoning, dict):
        if isinstance(reasoning.get("text"), str):
            b.append("thinking", reasoning["text"], key=key)
        elif reasoning.get("redactedContent") is not None:
            b.block(key, "redacted_thinking")
    citation = delta.get("citation")
    if isinstance(citation, dict):
        _citation(b, citation)


def _usage(b: Builder, ev: dict) -> None:
    usage = dict(d(ev.get("usage")))
    metrics = d(ev.get("metrics"))
    if metrics:
        usage["metrics"] = metrics
    b.set_usage(usage)


def message(b: Builder, obj: dict) -> None:
    """A Converse answer: the blocks of `output.message.content` in order, then stop reason and usage."""
    b.r.streamed = False
    for i, block in enumerate(lst(d(d(obj.get("output")).get("message")).get("content"))):
        _block(b, ("m", i), d(block))
    b.stop(obj.get("stopReason"))
    _usage(b, obj)


def _block(b: Builder, key: object, block: dict) -> None:
    if isinstance(block.get("text"), str):
        b.append("text", block["text"], key=key)
    tool = block.get("toolUse")
    if isinstance(tool, dict):
        tc = b.tool(key, name=s(tool.get("name")), id=s(tool.get("toolUseId")))
        inp = tool.get("input")
        tc.arguments = inp if isinstance(inp, str) else compact(inp) if inp is not None else ""
        b.set_args(key, tc.arguments)
    reasoning = d(block.get("reasoningContent"))
    if isinstance(d(reasoning.get("reasoningText")).get("text"), str):
        b.block(key, "thinking").parts.append(reasoning["reasoningText"]["text"])
    elif reasoning.get("redactedContent") is not None:
        b.block(key, "redacted_thinking")
    cited = d(block.get("citationsContent"))
    if cited:
        b.append("text", "".join(s(d(c).get("text")) for c in lst(cited.get("content"))), key=key)
        for c in lst(cited.get("citations")):
            _citation(b, d(c))


def _citation(b: Builder, c: dict) -> None:
    """A Converse citation: a title and a location (web url, document) with the cited source text."""
    location = d(c.get("location"))
    web = d(location.get("web"))
    title, url = s(c.get("title")) or s(web.get("domain")), s(web.get("url")) or s(c.get("source"))
    where = f"{title} <{url}>" if title and url else title or url or next(iter(location), "citation")
    cited = " ".join(s(d(x).get("text")) for x in lst(c.get("sourceContent"))).strip().replace("\n", " ")
    b.block(None, "citation").parts.append(f"{where}: “{cited[:200]}”" if cited else where)
