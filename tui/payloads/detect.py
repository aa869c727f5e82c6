"""Which LLM dialect a body speaks, told from the shapes of its data (never from event names alone, never from the
op's provider: a router or a compatible server may answer in another provider's dialect), and the reassembly that
follows. An event named `ping` or `error` says nothing about the dialect: Anthropic, OpenAI-compatible servers and
proxies all send them.
"""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from tui.inputs import json_load
from tui.payloads import anthropic, cohere, converse, eventstream, gemini, genai, ollama, openai_chat, openai_responses
from tui.payloads.result import Builder, Reassembled, s
from tui.payloads.sse import SseEvent

_FEED = {
    "anthropic": anthropic.feed,
    "openai-chat": openai_chat.feed,
    "openai-responses": openai_responses.feed,
    "gemini": gemini.feed,
    "ollama": ollama.feed,
    cohere.DIALECT: cohere.feed,
    converse.DIALECT: converse.feed,
}
# Whole answers told by a predicate of their own module: (is it, dialect, reader), tried in order.
_ANSWERS = (
    (converse.is_answer, converse.DIALECT, converse.message),
    (cohere.is_answer, cohere.DIALECT, cohere.message),
)


def chunk_dialect(obj: dict) -> str:
    """The dialect one streamed chunk shows, or "" when it could be anyone's (ping, error, empty)."""
    t = obj.get("type")
    if isinstance(t, str):
        if t in anthropic.STREAM_TYPES:
            return "anthropic"
        if t.startswith("response."):
            return "openai-responses"
        if t in cohere.STREAM_TYPES:
            return cohere.DIALECT
    if isinstance(obj.get("choices"), list) or obj.get("object") in ("chat.completion.chunk", "chat.completion"):
        return "openai-chat"
    if isinstance(obj.get("candidates"), list) or isinstance(obj.get("usageMetadata"), dict) or \
            isinstance(obj.get("promptFeedback"), dict):
        return "gemini"
    if ollama.is_ollama(obj):
        return "ollama"
    if converse.is_event(obj):
        return converse.DIALECT
    return ""


def stream_dialect(objs: Iterable[dict]) -> str:
    generic = False
    for obj in objs:
        dialect = chunk_dialect(obj)
        if dialect:
            return dialect
        if isinstance(obj.get("text"), str) or isinstance(obj.get("delta"), str):
            generic = True
    return "generic" if generic else "unknown"


def reassemble_chunks(pairs: list[tuple[str, dict]], streamed: bool = True) -> Reassembled:
    """Reassemble (event name, data object) pairs; the dialect is the first one a chunk's shape shows."""
    dialect = stream_dialect(obj for _, obj in pairs)
    b = Builder(dialect, streamed)
    feed = _FEED.get(dialect)
    for event, obj in pairs:
        if obj.get("type") == "error" or event == "error":
            b.error(obj)
        elif feed is not None:
            feed(b, obj)
        elif dialect == "generic" and (isinstance(obj.get("text"), str) or isinstance(obj.get("delta"), str)):
            b.append("text", s(obj.get("text")) or s(obj.get("delta")), key="text")
        elif obj.get("error") is not None:
            b.error(obj)
    if b.r.dialect == "ollama":
        b.r.dialect = "ollama-chat"
    return b.result()


def reassemble_events(events: list[SseEvent]) -> Reassembled:
    """Reassemble an SSE stream. Data that is not a JSON object (`[DONE]`, plain words) is skipped."""
    pairs: list[tuple[str, dict]] = []
    for ev in events:
        data = ev.data.strip()
        if not data or data[0] not in "{[":
            continue
        try:
            obj = json_load.loads(data)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            pairs.append((ev.event, obj))
        elif isinstance(obj, list):
            pairs.extend((ev.event, o) for o in obj if isinstance(o, dict))
    return reassemble_chunks(pairs)


def reassemble_eventstream(frames: list[eventstream.Frame]) -> tuple[list[SseEvent], Reassembled]:
    """The frames of a binary eventstream as events (the event type, the payload as text) and the answer they make
    (Bedrock ConverseStream, or the model's own chunks inside InvokeModelWithResponseStream `chunk` events)."""
    events: list[SseEvent] = []
    pairs: list[tuple[str, dict]] = []
    for name, obj, text in eventstream.events(frames):
        events.append(SseEvent(name or "(no event type)", text))
        if isinstance(obj, dict):
            pairs.append((name, obj))
    return events, reassemble_chunks(pairs)


def reassemble_values(values: list[object]) -> Reassembled | None:
    """Several JSON values in a row (NDJSON, a Gemini array of chunks): a stream when their shapes say which one."""
    objs = [v for v in values if isinstance(v, dict)]
    if not objs:
        return None
    return reassemble_chunks([("", o) for o in objs])


def reassemble_json(value: object) -> Reassembled | None:
    """A whole JSON body: a non-streaming answer, an array of stream chunks, or an error; None for anything else
    (a request, a tool result): that is shown as JSON."""
    if isinstance(value, list):
        objs = [v for v in value if isinstance(v, dict)]
        if objs and (stream_dialect(objs) not in ("unknown", "generic") or
                     any(o.get("error") is not None for o in objs)):  # a stream that failed before any chunk
            return reassemble_chunks([("", o) for o in objs])
        return None
    if not isinstance(value, dict):
        return None
    t = value.get("type")
    if genai.is_answer(value):
        return genai.answer(value)
    if t == "message" and isinstance(value.get("content"), list):
        b = Builder("anthropic", streamed=False)
        anthropic.message(b, value)
        return b.result()
    if isinstance(value.get("choices"), list) and (value.get("object") != "chat.completion.chunk"):
        b = Builder("openai-chat", streamed=False)
        openai_chat.message(b, value)
        return b.result()
    if value.get("object") == "chat.completion.chunk":
        return reassemble_chunks([("", value)])
    if value.get("object") == "response" and isinstance(value.get("output"), list):
        b = Builder("openai-responses", streamed=False)
        openai_responses.message(b, value)
        return b.result()
    if isinstance(value.get("candidates"), list) or isinstance(value.get("promptFeedback"), dict):
        b = Builder("gemini", streamed=False)
        gemini.message(b, value)
        return b.result()
    for is_answer, dialect, read in _ANSWERS:
        if is_answer(value):
            b = Builder(dialect, streamed=False)
            read(b, value)
            return b.result()
    if ollama.is_ollama(value):
        b = Builder("ollama-chat", streamed=False)
        ollama.feed(b, value)
        return b.result()
    if value.get("error") is not None and (t in (None, "error")) and len(value) <= 3:
        b = Builder("error", streamed=False)
        b.error(value)
        return b.result()
    return None
