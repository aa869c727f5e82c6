"""Anthropic Messages wire bodies (``POST /v1/messages``): request headers and body, the ``event:``/``data:``
SSE stream (thinking, text and tool_use content blocks) and the non-stream JSON response."""

from __future__ import annotations

import random
from typing import Any

import orjson

from .conversation import _history, per_message_bytes, tool_definitions
from .framing import _pieces, _split_n
from .llm_types import ToolCall, Usage

__all__ = ["anthropic_json_response", "anthropic_request_body", "anthropic_sse"]


def _anthropic_req_headers(body_len: int) -> list[tuple[str, str]]:
    return [
        ("host", "api.anthropic.com"),
        ("content-type", "application/json"),
        ("anthropic-version", "2023-06-01"),
        ("x-api-key", "[REDACTED]"),
        ("accept", "text/event-stream"),
        ("user-agent", "ai-agent/1.0 (node)"),
        ("content-length", str(body_len)),
    ]


def anthropic_request_body(
    rng: random.Random,
    *,
    model: str,
    system: str,
    user_prompt: str,
    tools: list[dict[str, Any]],
    n_messages: int,
    target_bytes: int,
    thinking: bool,
    stream: bool = True,
) -> dict[str, Any]:
    defs = tool_definitions(tools, "anthropic")
    per_msg = per_message_bytes(target_bytes, n_messages, system, user_prompt, [d["description"] for d in defs], 160)
    messages: list[dict[str, Any]] = []
    for role, txt, tname, cid in _history(rng, n_messages, per_msg, user_prompt, [t["name"] for t in tools]):
        if role == "user":
            messages.append({"role": "user", "content": txt})
        elif role == "assistant":
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": txt},
                        {"type": "tool_use", "id": f"toolu_01{cid}", "name": tname, "input": {"q": txt[:40]}},
                    ],
                }
            )
        else:
            messages.append(
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_01{cid}", "content": txt}]}
            )
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": 16384 if thinking else 8192,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
        "tools": defs,
        "tool_choice": {"type": "auto"},
        "stream": stream,
    }
    if thinking:
        body["thinking"] = {"type": "enabled", "budget_tokens": 4096}
    else:
        body["temperature"] = 0.2
    return body


def _ev(name: str, obj: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def anthropic_sse(
    rng: random.Random,
    *,
    msg_id: str,
    model: str,
    thinking: str,
    signature: str,
    text_out: str,
    tool_calls: list[ToolCall],
    stop_reason: str,
    usage: Usage,
) -> bytes:
    parts: list[bytes] = []
    ap = parts.append
    ap(
        _ev(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": usage.input,
                        "cache_creation_input_tokens": usage.cache_write,
                        "cache_read_input_tokens": usage.cache_read,
                        "output_tokens": 1,
                    },
                },
            },
        )
    )
    idx = 0
    if thinking:
        ap(
            _ev(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": idx,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                },
            )
        )
        for p in _pieces(rng, thinking, 40, 160):
            ap(
                _ev(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": idx, "delta": {"type": "thinking_delta", "thinking": p}},
                )
            )
        ap(
            _ev(
                "content_block_delta",
                {"type": "content_block_delta", "index": idx, "delta": {"type": "signature_delta", "signature": signature}},
            )
        )
        ap(_ev("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    if rng.random() < 0.3:
        ap(_ev("ping", {"type": "ping"}))
    if text_out:
        ap(
            _ev(
                "content_block_start",
                {"type": "content_block_start", "index": idx, "content_block": {"type": "text", "text": ""}},
            )
        )
        for p in _pieces(rng, text_out, 24, 100):
            ap(
                _ev(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": idx, "delta": {"type": "text_delta", "text": p}},
                )
            )
        ap(_ev("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    for tc in tool_calls:
        ap(
            _ev(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": idx,
                    "content_block": {"type": "tool_use", "id": tc.id, "name": tc.name, "input": {}},
                },
            )
        )
        args = orjson.dumps(tc.input).decode()
        ap(
            _ev(
                "content_block_delta",
                {"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": ""}},
            )
        )
        for p in _split_n(rng, args, min(6, max(2, len(args) // 80 + 1))):
            ap(
                _ev(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": p}},
                )
            )
        ap(_ev("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    ap(
        _ev(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {
                    "input_tokens": usage.input,
                    "output_tokens": usage.output,
                    "cache_read_input_tokens": usage.cache_read,
                    "cache_creation_input_tokens": usage.cache_write,
                },
            },
        )
    )
    ap(_ev("message_stop", {"type": "message_stop"}))
    return b"".join(parts)


def anthropic_json_response(
    *, msg_id: str, model: str, thinking: str, signature: str, text_out: str, tool_calls: list[ToolCall],
    stop_reason: str, usage: Usage,
) -> bytes:
    content: list[dict[str, Any]] = []
    if thinking:
        content.append({"type": "thinking", "thinking": thinking, "signature": signature})
    if text_out:
        content.append({"type": "text", "text": text_out})
    for tc in tool_calls:
        content.append({"type": "tool_use", "id": tc.id, "name": tc.name, "input": tc.input})
    return orjson.dumps(
        {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input,
                "cache_creation_input_tokens": usage.cache_write,
                "cache_read_input_tokens": usage.cache_read,
                "output_tokens": usage.output,
            },
        }
    )
