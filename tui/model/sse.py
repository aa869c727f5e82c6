"""Server-sent events: parse the text into events and reassemble what a person wants to read.

Reassembly understands Anthropic Messages streaming, OpenAI Chat Completions streaming and the OpenAI
Responses API, plus a generic fallback (`{"text": ...}` / `{"delta": "..."}`). All of it is linear in the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

from tui.model import json_load

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_FIELD_LINE = re.compile(r"(?m)^(?:event|data):")


@dataclass(slots=True)
class SseEvent:
    event: str
    data: str
    id: str = ""


@dataclass(slots=True)
class Reassembled:
    text: str = ""
    thinking: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    stop_reason: str = ""
    usage: dict | None = None
    model: str = ""
    errors: list[str] = field(default_factory=list)


def looks_like_sse(text: str) -> bool:
    """True when the first non-empty line is an `event:`/`data:` field, or a comment followed by one."""
    head = text[:4096]
    for line in _LINE_SPLIT.split(head):
        s = line.strip()
        if not s:
            continue
        if s.startswith(("event:", "data:")):
            return True
        if s.startswith(":"):
            return bool(_FIELD_LINE.search(head))
        return False
    return False


def parse_sse(text: str) -> list[SseEvent]:
    """Parse per the WHATWG SSE rules; a final event without its blank line is still kept (captures end abruptly)."""
    events: list[SseEvent] = []
    name = ""
    data: list[str] = []
    last_id = ""
    pending = False
    if text.startswith("\ufeff"):
        text = text[1:]
    for line in _LINE_SPLIT.split(text):
        if not line:
            if pending:
                events.append(SseEvent(name, "\n".join(data), last_id))
            name, data, pending = "", [], False
            continue
        if line[0] == ":":
            continue
        key, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if key == "data":
            data.append(value)
            pending = True
        elif key == "event":
            name = value
            pending = True
        elif key == "id":
            if "\x00" not in value:
                last_id = value
    if pending:
        events.append(SseEvent(name, "\n".join(data), last_id))
    return events


class _Builder:
    __slots__ = ("text", "thinking", "tools", "by_key", "stop", "usage", "model", "errors", "hit")

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.tools: list[list] = []  # [name, [arg parts], fallback input]
        self.by_key: dict[object, int] = {}
        self.stop = ""
        self.usage: dict | None = None
        self.model = ""
        self.errors: list[str] = []
        self.hit = False

    def tool(self, key: object, name: str = "", fallback: str = "") -> list:
        idx = self.by_key.get(key)
        if idx is None:
            idx = len(self.tools)
            self.tools.append([name, [], fallback])
            self.by_key[key] = idx
        elif name and not self.tools[idx][0]:
            self.tools[idx][0] = name
        return self.tools[idx]

    def set_usage(self, u: object, merge: bool = False) -> None:
        if isinstance(u, dict):
            self.usage = {**self.usage, **u} if merge and self.usage else dict(u)

    def error(self, obj: dict) -> None:
        err = obj.get("error")
        if not isinstance(err, dict):
            err = obj if err is None else {"message": err}
        kind = err.get("type") if err.get("type") != "error" else None
        kind = kind or err.get("code") or ""
        msg = err.get("message") or ""
        if not msg and not kind:
            msg = _compact(err)
        self.errors.append(f"{kind}: {msg}" if kind and msg else str(kind or msg))

    def result(self) -> Reassembled:
        calls = []
        for name, parts, fallback in self.tools:
            args = "".join(parts)
            calls.append((name, args or fallback))
        return Reassembled("".join(self.text), "".join(self.thinking), calls, self.stop, self.usage,
                           self.model, self.errors)


def _compact(value: object) -> str:
    """Compact JSON of a parsed value; orjson writes 255 levels of nesting, fewer than it reads (1,024)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return "[nested too deeply to show]"


def _s(v: object) -> str:
    return v if isinstance(v, str) else ""


def _anthropic(b: _Builder, t: str, obj: dict) -> bool:
    if t == "message_start":
        msg = obj.get("message")
        if isinstance(msg, dict):
            b.model = _s(msg.get("model")) or b.model
            b.set_usage(msg.get("usage"), merge=True)
    elif t == "content_block_start":
        block = obj.get("content_block")
        if not isinstance(block, dict):
            return True
        bt = block.get("type")
        if bt in ("tool_use", "server_tool_use", "mcp_tool_use"):
            inp = block.get("input")
            fallback = _compact(inp) if isinstance(inp, dict) and inp else ""
            b.tool(("a", obj.get("index")), _s(block.get("name")), fallback)
        elif bt == "text":
            b.text.append(_s(block.get("text")))
        elif bt == "thinking":
            b.thinking.append(_s(block.get("thinking")))
        elif bt == "redacted_thinking":
            b.thinking.append("[redacted thinking]")
    elif t == "content_block_delta":
        d = obj.get("delta")
        if not isinstance(d, dict):
            return True
        dt = d.get("type")
        if dt == "text_delta":
            b.text.append(_s(d.get("text")))
        elif dt == "thinking_delta":
            b.thinking.append(_s(d.get("thinking")))
        elif dt == "input_json_delta":
            b.tool(("a", obj.get("index")))[1].append(_s(d.get("partial_json")))
    elif t == "message_delta":
        d = obj.get("delta")
        if isinstance(d, dict) and isinstance(d.get("stop_reason"), str):
            b.stop = d["stop_reason"]
        b.set_usage(obj.get("usage"), merge=True)
    elif t not in ("content_block_stop", "message_stop", "ping"):
        return False
    return True


def _openai_chat(b: _Builder, obj: dict) -> None:
    b.model = b.model or _s(obj.get("model"))
    if obj.get("usage"):
        b.set_usage(obj.get("usage"))
    if obj.get("error") is not None:
        b.error(obj)
    choices = obj.get("choices")
    if not isinstance(choices, list):
        return
    for ch in choices:
        # n > 1 streams interleave choices; a person reads the first one.
        if not isinstance(ch, dict) or ch.get("index", 0) not in (0, None):
            continue
        if isinstance(ch.get("finish_reason"), str):
            b.stop = ch["finish_reason"]
        d = ch.get("delta")
        if not isinstance(d, dict):
            d = ch.get("message") if isinstance(ch.get("message"), dict) else {}
        b.text.append(_s(d.get("content")))
        b.thinking.append(_s(d.get("reasoning_content")) or _s(d.get("reasoning")))
        calls = d.get("tool_calls")
        if not isinstance(calls, list):
            continue
        for pos, tc in enumerate(calls):
            if not isinstance(tc, dict):
                continue
            idx, tid = tc.get("index"), tc.get("id")
            if isinstance(idx, int):
                key: object = ("o", idx)
            elif isinstance(tid, str) and tid:
                key = ("id", tid)
            else:
                key = ("o", pos)
            fn = tc.get("function") if isinstance(tc.get("function"), dict) else {}
            b.tool(key, _s(fn.get("name")))[1].append(_s(fn.get("arguments")))


def _responses(b: _Builder, t: str, obj: dict) -> None:
    if t in ("response.output_text.delta", "response.refusal.delta"):
        b.text.append(_s(obj.get("delta")))
    elif t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        b.thinking.append(_s(obj.get("delta")))
    elif t == "response.output_item.added":
        item = obj.get("item")
        if isinstance(item, dict) and item.get("type") in ("function_call", "custom_tool_call"):
            key = ("r", obj.get("output_index"))
            b.tool(key, _s(item.get("name")))[1].append(_s(item.get("arguments")) or _s(item.get("input")))
            if isinstance(item.get("id"), str):
                b.by_key[("rid", item["id"])] = b.by_key[key]
    elif t in ("response.function_call_arguments.delta", "response.function_call_arguments.done"):
        key = ("r", obj.get("output_index"))
        if key not in b.by_key and ("rid", obj.get("item_id")) in b.by_key:
            key = ("rid", obj.get("item_id"))
        entry = b.tool(key)
        if t.endswith(".delta"):
            entry[1].append(_s(obj.get("delta")))
        elif isinstance(obj.get("arguments"), str):
            entry[1][:] = [obj["arguments"]]  # .done carries the full string
    elif t in ("response.created", "response.in_progress", "response.completed", "response.incomplete",
               "response.failed"):
        r = obj.get("response")
        if not isinstance(r, dict):
            return
        b.model = _s(r.get("model")) or b.model
        b.set_usage(r.get("usage"))
        if t != "response.created" and t != "response.in_progress":
            inc = r.get("incomplete_details")
            reason = inc.get("reason") if isinstance(inc, dict) else None
            b.stop = _s(reason) or _s(r.get("status")) or b.stop
        if r.get("error"):
            b.error(r)


def reassemble(events: list[SseEvent]) -> Reassembled | None:
    """Reassemble streamed deltas; None when no event was recognised."""
    b = _Builder()
    for ev in events:
        data = ev.data.strip()
        if not data or data[0] not in "{[":
            continue
        try:
            obj = json_load.loads(data)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict):
            continue
        t = obj.get("type")
        t = t if isinstance(t, str) else ev.event
        if t == "error" or ev.event == "error":
            b.error(obj)
        elif t.startswith("response."):
            _responses(b, t, obj)
        elif "choices" in obj or obj.get("object") == "chat.completion.chunk":
            _openai_chat(b, obj)
        elif _anthropic(b, t, obj):
            pass
        elif isinstance(obj.get("text"), str):
            b.text.append(obj["text"])
        elif isinstance(obj.get("delta"), str):
            b.text.append(obj["delta"])
        elif obj.get("error") is not None:
            b.error(obj)
        else:
            continue
        b.hit = True
    return b.result() if b.hit else None
