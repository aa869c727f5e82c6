"""An LLM op's request and answer as the GenAI semantic conventions' `gen_ai.input.messages` and
`gen_ai.output.messages` (JSON strings of `[{role, parts: [...]}]`).

The captures are read by the same code the payload viewer's messages view uses (`op_captures`,
`decode_with_notes`, `conversation_of`), so every dialect the monitor reads (Anthropic, OpenAI Chat and Responses,
Gemini, Ollama) exports the same way. Parts: `text`, `reasoning` (thinking), `tool_call` {id, name, arguments},
`tool_call_response` {id, response} (also for the tools the provider ran: web search, code execution, MCP,
grounding sources), `compaction` {content}; media, refusals and unknown parts become text lines. Sizes are capped so a span
stays far below a collector's request limit: each part's text at PART_CHARS characters, each attribute at
MESSAGES_BYTES bytes of JSON (the oldest input messages are dropped first: the latest context is what explains the
answer; how many were dropped is returned). A capture that cannot be read gives no messages, never an error.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from tui.model.nodes import Op

PART_CHARS = 8192  # characters of one part's text (a tool result, a long prompt) before it is cut
MESSAGES_BYTES = 64 * 1024  # bytes of one gen_ai.*.messages attribute (JSON, UTF-8)
_CUT = "… [cut by aiagent-monitor export]"


@dataclass(slots=True)
class OpMessages:
    input: str = ""  # gen_ai.input.messages JSON ("" when unknown)
    output: str = ""  # gen_ai.output.messages JSON
    finish_reason: str = ""
    dropped: int = 0  # input messages left out to stay under MESSAGES_BYTES
    calls: list[tuple[str, str]] = field(default_factory=list)  # (tool call id, tool name) the answer asked for


def op_messages(op: Op, sessions_dir: str | os.PathLike | None = None) -> OpMessages:
    """The messages of an LLM op's captures; empty when it has none that read as an LLM's."""
    try:
        conv = _conversation(op, sessions_dir)
    except Exception:  # noqa: BLE001 - a capture nobody can read is not worth failing an export over
        return OpMessages()
    if conv is None:
        return OpMessages()
    inputs = [m for m in conv.messages if m.response is None]
    # the answer's own messages; tools a call ran itself (ai-agent's turn result) are the next call's input
    outputs = [m for m in conv.messages if m.response is not None and m.role == "assistant"]
    finish = ""
    for m in outputs:
        finish = finish or str(getattr(m.response, "stop_reason", "") or "")
    in_json, dropped = _capped([_message(m) for m in inputs])
    out_items = [dict(_message(m), finish_reason=finish or "unknown") for m in outputs]
    out_json, _ = _capped(out_items)
    parts = [p for item in out_items for p in item["parts"]]
    answered = {p["id"] for p in parts if p["type"] == "tool_call_response"}  # the provider ran these itself
    calls = [(p["id"], p["name"]) for p in parts
             if p["type"] == "tool_call" and p["id"] and p["name"] and p["id"] not in answered]
    return OpMessages(in_json, out_json, finish, dropped, calls)


def _conversation(op: Op, sessions_dir):
    from tui.payloads.messages import conversation_of, is_llm_view
    from tui.payloads.op_captures import decode_with_notes, op_captures, usable

    captures = [c for c in op_captures(op) if usable(c) and c.source in ("raw", "sdk")]
    views = {}
    for side in ("request", "response"):
        for source in ("raw", "sdk"):  # the HTTP body first: what the provider really saw
            found = next((c for c in captures if c.side == side and c.source == source), None)
            if found is None:
                continue
            try:
                view, _notes = decode_with_notes(found, sessions_dir)
            except Exception:  # noqa: BLE001 - try the other source
                continue
            if is_llm_view(view):
                views[side] = view
                break
    request, response = views.get("request"), views.get("response")
    if request is not None and request.request is None:
        request = None
    if request is None and response is None:
        return None
    return conversation_of(request, response)


def _cut(text: str) -> str:
    return text if len(text) <= PART_CHARS else text[:PART_CHARS] + _CUT


def _part(p) -> dict:
    if p.kind == "text":
        return {"type": "text", "content": _cut(p.text)}
    if p.kind == "thinking":
        return {"type": "reasoning", "content": _cut(p.text)}
    if p.kind == "tool_call":
        name = p.name.rsplit(" tool ", 1)[-1]  # the reader prefixes a dialect's tool kind ("server tool x")
        try:
            arguments: object = json.loads(p.text) if p.text else {}
        except (ValueError, RecursionError):
            arguments = _cut(p.text)
        if len(p.text) > PART_CHARS:
            arguments = _cut(p.text)
        return {"type": "tool_call", "id": p.call_id or None, "name": name, "arguments": arguments}
    if p.kind == "tool_result":  # a tool's answer, the caller's or one the provider ran (search, code, MCP)
        return {"type": "tool_call_response", "id": p.call_id or None, "response": _cut(p.text)}
    if p.kind == "compaction":  # the summary of the compacted context (Anthropic): a generic part of its own type
        return {"type": "compaction", "content": _cut(p.text)}
    return {"type": "text", "content": _cut(p.text)}  # media lines, refusals, parts nobody knows


def _message(m) -> dict:
    return {"role": m.role if m.role in ("system", "user", "assistant", "tool") else "user",
            "parts": [_part(p) for p in m.parts]}


def _dumps(items: list[dict]) -> str:
    return json.dumps(items, ensure_ascii=False, separators=(",", ":"))


def _capped(items: list[dict]) -> tuple[str, int]:
    """The JSON of `items`, dropping from the front until it fits MESSAGES_BYTES; ("", n) when nothing fits."""
    if not items:
        return "", 0
    sizes = [len(_dumps([item]).encode("utf-8", "surrogatepass")) - 1 for item in items]  # each, with a comma
    total, start = sum(sizes) + 1, 0
    while start < len(items) and total > MESSAGES_BYTES:
        total -= sizes[start]
        start += 1
    if start == len(items):
        return "", len(items)
    text = _dumps(items[start:])
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"), start
