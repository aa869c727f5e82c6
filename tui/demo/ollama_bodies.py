"""Ollama wire bodies (``POST /api/chat``): the request body and the NDJSON stream of the answer.

The stream is one JSON object per line (served as application/x-ndjson, so the capture's format is ``http``):
``{model, created_at, message: {role, content, thinking?, tool_calls?}, done: false}`` pieces, then a last object
with ``done: true``, ``done_reason`` (``stop``, ``length``) and the counts and durations (``prompt_eval_count``,
``eval_count``, ``total_duration``... in nanoseconds). Tool calls come whole, ``function.arguments`` as an object
(not a JSON string as with OpenAI). The non-stream answer is one such object with the whole message and
``done: true``.
"""

from __future__ import annotations

import random
import time
from typing import Any

import orjson

from .conversation import _history, per_message_bytes, tool_definitions
from .framing import _pieces
from .llm_types import ToolCall, Usage

__all__ = ["ollama_chat_lines", "ollama_ndjson", "ollama_request_body", "ollama_response"]

_DONE_REASON = {"tool_use": "stop", "end_turn": "stop", "max_tokens": "length", "stop_sequence": "stop"}


def _created_at(ms: int) -> str:
    ns = (ms % 1000) * 1_000_000 + 123_456
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ns:09d}Z"


def ollama_request_body(
    rng: random.Random,
    *,
    model: str,
    system: str,
    user_prompt: str,
    tools: list[dict[str, Any]],
    n_messages: int,
    target_bytes: int,
    thinking: bool,
    stream: bool,
) -> dict[str, Any]:
    defs = tool_definitions(tools, "openai")
    per_msg = per_message_bytes(target_bytes, n_messages, system, user_prompt,
                                [d["function"]["description"] for d in defs], 180)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for role, txt, tname, _cid in _history(rng, n_messages, per_msg, user_prompt, [t["name"] for t in tools]):
        if role == "user":
            messages.append({"role": "user", "content": txt})
        elif role == "assistant":
            messages.append({"role": "assistant", "content": txt,
                             "tool_calls": [{"function": {"name": tname, "arguments": {"q": txt[:40]}}}]})
        else:
            messages.append({"role": "tool", "content": txt, "tool_name": tname})
    body: dict[str, Any] = {"model": model, "messages": messages, "tools": defs, "stream": stream,
                            "options": {"temperature": 0.2, "num_ctx": 32768}}
    if thinking:
        body["think"] = True
    return body


def ollama_chat_lines(
    rng: random.Random,
    *,
    model: str,
    start_ms: int,
    thinking: str,
    text_out: str,
    tool_calls: list[ToolCall],
    stop_reason: str,
    usage: Usage,
    latency_ms: int,
) -> list[dict[str, Any]]:
    """The objects of one streamed ``/api/chat`` answer (the last one has ``done: true``)."""
    lines: list[dict[str, Any]] = []
    t = start_ms
    pieces: list[dict[str, Any]] = []
    for p in _pieces(rng, thinking, 8, 40) if thinking else []:
        pieces.append({"role": "assistant", "content": "", "thinking": p})
    for p in _pieces(rng, text_out, 4, 24) if text_out else []:
        pieces.append({"role": "assistant", "content": p})
    if tool_calls:
        pieces.append({"role": "assistant", "content": "",
                       "tool_calls": [{"function": {"name": tc.name, "arguments": tc.input}} for tc in tool_calls]})
    for msg in pieces:
        t += rng.randint(5, 60)
        lines.append({"model": model, "created_at": _created_at(t), "message": msg, "done": False})
    ns = 1_000_000
    prompt_ns = rng.randint(50, 900) * ns
    lines.append({
        "model": model, "created_at": _created_at(start_ms + latency_ms),
        "message": {"role": "assistant", "content": ""}, "done": True,
        "done_reason": _DONE_REASON.get(stop_reason, "stop"),
        "total_duration": latency_ms * ns, "load_duration": rng.randint(5, 300) * ns,
        "prompt_eval_count": usage.input, "prompt_eval_duration": prompt_ns,
        "eval_count": usage.output, "eval_duration": max(ns, latency_ms * ns - prompt_ns),
    })
    return lines


def ollama_ndjson(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(x) + b"\n" for x in lines)


def ollama_response(lines: list[dict[str, Any]]) -> bytes:
    """The non-stream answer: the whole message in the ``done`` object."""
    msg: dict[str, Any] = {"role": "assistant", "content": "".join(x["message"].get("content", "") for x in lines)}
    thinking = "".join(x["message"].get("thinking", "") for x in lines)
    if thinking:
        msg["thinking"] = thinking
    calls = [c for x in lines for c in x["message"].get("tool_calls") or []]
    if calls:
        msg["tool_calls"] = calls
    final = dict(lines[-1])
    final["message"] = msg
    return orjson.dumps(final)
