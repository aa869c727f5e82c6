"""OpenAI Chat Completions wire bodies (``POST /v1/chat/completions``; also OpenRouter and other
OpenAI-compatible providers): request headers and body, the ``data: {...}`` SSE stream ending with a usage chunk
and ``[DONE]``, and the non-stream JSON response."""

from __future__ import annotations

import random
from typing import Any

import orjson

from .conversation import _history, per_message_bytes, tool_definitions
from .framing import _pieces, _split_n
from .llm_types import ToolCall, Usage

__all__ = ["openai_json_response", "openai_request_body", "openai_sse"]


def _openai_req_headers(host: str, body_len: int) -> list[tuple[str, str]]:
    return [
        ("host", host),
        ("content-type", "application/json"),
        ("authorization", "Bearer [REDACTED]"),
        ("user-agent", "ai-agent/1.0 (node)"),
        ("content-length", str(body_len)),
    ]


def openai_request_body(
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
    defs = tool_definitions(tools, "openai")
    per_msg = per_message_bytes(target_bytes, n_messages, system, user_prompt,
                                [d["function"]["description"] for d in defs], 180)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for role, txt, tname, cid in _history(rng, n_messages, per_msg, user_prompt, [t["name"] for t in tools]):
        if role == "user":
            messages.append({"role": "user", "content": txt})
        elif role == "assistant":
            messages.append(
                {
                    "role": "assistant",
                    "content": txt,
                    "tool_calls": [
                        {
                            "id": f"call_{cid}",
                            "type": "function",
                            "function": {"name": tname, "arguments": orjson.dumps({"q": txt[:40]}).decode()},
                        }
                    ],
                }
            )
        else:
            messages.append({"role": "tool", "tool_call_id": f"call_{cid}", "content": txt})
    body: dict[str, Any] = {"model": model, "messages": messages, "tools": defs, "tool_choice": "auto"}
    if thinking:
        body["reasoning_effort"] = "medium"
        body["max_completion_tokens"] = 16384
    else:
        body["temperature"] = 0.2
        body["max_tokens"] = 8192
    body["stream"] = stream
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def _oa_usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input,
        "completion_tokens": usage.output,
        "total_tokens": usage.input + usage.output,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning, "audio_tokens": 0},
    }


def openai_sse(
    rng: random.Random,
    *,
    chunk_id: str,
    created: int,
    model: str,
    reasoning: str,
    text_out: str,
    tool_calls: list[ToolCall],
    finish_reason: str,
    usage: Usage,
    fingerprint: str,
) -> bytes:
    parts: list[bytes] = []
    ap = parts.append
    head = {"id": chunk_id, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": fingerprint}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        obj = dict(head)
        obj["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        ap(b"data: " + orjson.dumps(obj) + b"\n\n")

    chunk({"role": "assistant", "content": "", "refusal": None})
    if reasoning:
        for p in _pieces(rng, reasoning, 40, 160):
            chunk({"reasoning": p})
    if text_out:
        for p in _pieces(rng, text_out, 20, 90):
            chunk({"content": p})
    for i, tc in enumerate(tool_calls):
        chunk({"tool_calls": [{"index": i, "id": tc.id, "type": "function", "function": {"name": tc.name, "arguments": ""}}]})
        args = orjson.dumps(tc.input).decode()
        for p in _split_n(rng, args, min(6, max(2, len(args) // 80 + 1))):
            chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]})
    chunk({}, finish_reason)
    obj = dict(head)
    obj["choices"] = []
    obj["usage"] = _oa_usage(usage)
    ap(b"data: " + orjson.dumps(obj) + b"\n\n")
    ap(b"data: [DONE]\n\n")
    return b"".join(parts)


def openai_json_response(
    *, chunk_id: str, created: int, model: str, text_out: str, tool_calls: list[ToolCall], finish_reason: str,
    usage: Usage, fingerprint: str,
) -> bytes:
    msg: dict[str, Any] = {"role": "assistant", "content": text_out or None, "refusal": None}
    if tool_calls:
        msg["tool_calls"] = [
            {"id": tc.id, "type": "function", "function": {"name": tc.name, "arguments": orjson.dumps(tc.input).decode()}}
            for tc in tool_calls
        ]
    return orjson.dumps(
        {
            "id": chunk_id,
            "object": "chat.completion",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "message": msg, "logprobs": None, "finish_reason": finish_reason}],
            "usage": _oa_usage(usage),
            "system_fingerprint": fingerprint,
        }
    )
