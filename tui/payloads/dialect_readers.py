"""Reading the messages of the request dialects added after `message_readers`: Bedrock Converse, Cohere v2 Chat, and
a request whose dialect is unknown (read as plain role / content messages, whatever blocks they hold).

Bedrock Converse (`system: [{text}]`, `messages[].content[]` blocks keyed by what they hold: `{text}`, `{image:
{format, source: {bytes}}}`, `{document}`, `{toolUse: {toolUseId, name, input}}`, `{toolResult: {toolUseId, content:
[{text} | {json}], status}}`, `{reasoningContent: {reasoningText: {text}}}`, `{cachePoint}`). Cohere v2 (OpenAI-like
roles and `tool_calls`, plus an assistant's `tool_plan`, tool results as `{type: document, document: {data}}`
items, and the request's own `documents`, shown as one folded system message).
"""

from __future__ import annotations

from tui.payloads.message_readers import (
    Message, Part, _anthropic_block, _args_text, _content_part, _media, _message, _openai_chat, _other, _text_parts,
)
from tui.payloads.result import compact, d, lst, s

_ANTHROPIC_TYPES = ("tool_use", "server_tool_use", "mcp_tool_use", "tool_result", "thinking", "redacted_thinking",
                    "search_result")


def _converse(body: dict) -> list[Message]:
    out: list[Message] = []
    system = [p for b in lst(body.get("system")) for p in _converse_block(b)]
    if system:
        out.append(Message("system", system))
    for m in lst(body.get("messages")):
        m = d(m)
        content = m.get("content")
        parts = [p for b in content for p in _converse_block(b)] if isinstance(content, list) else \
            _text_parts(content)
        out.append(_message(m.get("role"), parts))
    return out


def _converse_block(block: object) -> list[Part]:
    """One Converse content block as parts ([] for a cache point, which holds nothing to read)."""
    b = d(block)
    if isinstance(b.get("text"), str):
        return [Part("text", b["text"])]
    for kind in ("image", "document", "video"):
        if isinstance(b.get(kind), dict):
            media = b[kind]
            src = d(media.get("source"))
            fmt = s(media.get("format"))
            return [_media("file" if kind == "document" else kind, f"{kind}/{fmt}" if fmt else "",
                           s(d(src.get("s3Location")).get("uri")), src.get("bytes"), s(media.get("name")))]
    if isinstance(b.get("toolUse"), dict):
        tu = b["toolUse"]
        return [Part("tool_call", _args_text(tu.get("input")), s(tu.get("name")), s(tu.get("toolUseId")))]
    if isinstance(b.get("toolResult"), dict):
        tr = b["toolResult"]
        pieces = [s(d(c).get("text")) or (compact(d(c)["json"]) if "json" in d(c) else compact(c))
                  for c in lst(tr.get("content"))]
        return [Part("tool_result", "\n".join(pieces), "", s(tr.get("toolUseId")), tr.get("status") == "error")]
    reasoning = d(b.get("reasoningContent"))
    if reasoning:
        text = s(d(reasoning.get("reasoningText")).get("text"))
        return [Part("thinking", text or "[redacted thinking]")]
    guard = d(b.get("guardContent"))
    if guard:
        return [Part("text", s(d(guard.get("text")).get("text")))]
    if "cachePoint" in b:
        return []
    return [_other(block)]


def _cohere(body: dict) -> list[Message]:
    out: list[Message] = []
    docs = [(s(x) if isinstance(x, str) else _document_text(x)) for x in lst(body.get("documents"))]
    if docs:
        out.append(Message("system", [Part("text", "\n\n".join(docs))], "documents"))
    messages = lst(body.get("messages"))
    read = _openai_chat({"messages": [_cohere_message(m) for m in messages]})
    for m, raw in zip(read, messages):
        plan = s(d(raw).get("tool_plan"))
        if plan:
            m.parts.insert(0, Part("thinking", plan))
    out.extend(read)
    return out


def _cohere_message(raw: object) -> object:
    """A Cohere message with its `document` items made text, so the OpenAI reader reads the rest."""
    m = d(raw)
    content = m.get("content")
    if not isinstance(content, list):
        return raw
    items = [{"type": "text", "text": _document_text(d(i).get("document"))} if d(i).get("type") == "document"
             else i for i in content]
    return {**m, "content": items}


def _document_text(doc: object) -> str:
    """A Cohere document: `{id?, data: {...} | str}`: its data as text (a JSON object compact)."""
    data = d(doc).get("data", doc)
    return data if isinstance(data, str) else compact(data)


def _unknown(body: dict) -> list[Message]:
    """A request of no clear dialect: a top-level `system`, then messages read block by block by whichever
    dialect knows the block (Anthropic's typed blocks, Bedrock's keyed ones, OpenAI's parts)."""
    out: list[Message] = []
    system = body.get("system")
    if system is not None and system != "" and system != []:
        out.append(Message("system", [p for b in system for p in _any_block(b)] if isinstance(system, list)
                           else _text_parts(system)))
    for m in lst(body.get("messages")):
        m = d(m)
        if m.get("role") in ("tool", "function") or _openai_like(m):
            out.extend(_openai_chat({"messages": [m]}))
            continue
        content = m.get("content")
        parts = [p for b in content for p in _any_block(b)] if isinstance(content, list) else _text_parts(content)
        out.append(_message(m.get("role"), parts))
    return out


_OPENAI_MESSAGE_KEYS = ("tool_calls", "reasoning_details", "reasoning_content", "reasoning")


def _openai_like(message: dict) -> bool:
    """A message in the OpenAI Chat family's shape whatever the request around it: tool calls, reasoning sent back
    (`reasoning_details`, `reasoning_content`, `reasoning`) or Mistral's typed `thinking` chunks (a list of texts,
    where Anthropic's thinking block holds a string)."""
    if any(message.get(key) for key in _OPENAI_MESSAGE_KEYS):
        return True
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "thinking" and isinstance(b.get("thinking"), list) for b in content)


def _any_block(block: object) -> list[Part]:
    t = d(block).get("type")
    if t in _ANTHROPIC_TYPES:
        return [_anthropic_block(block)]
    if isinstance(block, dict) and t is None and not isinstance(block.get("text"), str):
        return _converse_block(block)
    return [_content_part(block)]


READERS = {"bedrock-converse": _converse, "cohere": _cohere, "unknown": _unknown}
