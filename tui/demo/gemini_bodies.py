"""Google Gemini wire bodies (``POST /v1beta/models/<model>:streamGenerateContent``): the request body and the
streamed answer in both of its shapes.

* with ``?alt=sse`` the answer is SSE: ``data: <GenerateContentResponse>`` events separated by CRLF CRLF (the
  capture's format is ``sse``);
* without it the answer is one JSON array of GenerateContentResponse objects, pretty-printed and separated by
  ``,\\r\\n`` (served as application/json, so the capture's format is ``http``).

Each GenerateContentResponse holds ``candidates[0].content.parts[]``: ``{text}``, ``{text, thought: true}`` for
thinking, ``{functionCall: {name, args}}`` (args an object, never streamed in pieces), sometimes a
``thoughtSignature``; the last one carries ``finishReason`` (``STOP``, ``MAX_TOKENS``...). ``usageMetadata``
(promptTokenCount, candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount, totalTokenCount) comes with
every chunk, cumulative. The non-stream answer is one such object.
"""

from __future__ import annotations

import random
from typing import Any

import orjson

from .conversation import _history, per_message_bytes
from .framing import _pieces
from .llm_types import ToolCall, Usage
from .prose import rand_id

__all__ = ["gemini_json_array", "gemini_request_body", "gemini_response", "gemini_sse"]

_FINISH = {"tool_use": "STOP", "end_turn": "STOP", "max_tokens": "MAX_TOKENS", "stop_sequence": "STOP"}


def gemini_request_body(
    rng: random.Random,
    *,
    system: str,
    user_prompt: str,
    tools: list[dict[str, Any]],
    n_messages: int,
    target_bytes: int,
    thinking: bool,
) -> dict[str, Any]:
    decls = [{"name": t["name"], "description": t["description"], "parameters": t["schema"]} for t in tools]
    per_msg = per_message_bytes(target_bytes, n_messages, system, user_prompt, [d["description"] for d in decls], 160)
    contents: list[dict[str, Any]] = []
    for role, txt, tname, _cid in _history(rng, n_messages, per_msg, user_prompt, [t["name"] for t in tools]):
        if role == "user":
            contents.append({"role": "user", "parts": [{"text": txt}]})
        elif role == "assistant":
            contents.append({"role": "model", "parts": [{"text": txt},
                                                        {"functionCall": {"name": tname, "args": {"q": txt[:40]}}}]})
        else:
            contents.append({"role": "user", "parts": [{"functionResponse": {"name": tname,
                                                                             "response": {"content": txt}}}]})
    gen: dict[str, Any] = {"temperature": 0.2, "maxOutputTokens": 8192}
    if thinking:
        gen["thinkingConfig"] = {"includeThoughts": True, "thinkingBudget": 4096}
    return {"contents": contents, "systemInstruction": {"parts": [{"text": system}]},
            "tools": [{"functionDeclarations": decls}], "generationConfig": gen}


def _usage(usage: Usage, *, final: bool, out_so_far: int) -> dict[str, Any]:
    u: dict[str, Any] = {"promptTokenCount": usage.input}
    out = usage.output if final else out_so_far
    if out:
        u["candidatesTokenCount"] = out
    if usage.cache_read:
        u["cachedContentTokenCount"] = usage.cache_read
    if usage.reasoning:
        u["thoughtsTokenCount"] = usage.reasoning
    u["totalTokenCount"] = usage.input + out + usage.reasoning
    return u


def gemini_chunks(
    rng: random.Random,
    *,
    model: str,
    response_id: str,
    thinking: str,
    text_out: str,
    tool_calls: list[ToolCall],
    stop_reason: str,
    usage: Usage,
) -> list[dict[str, Any]]:
    """The GenerateContentResponse objects of one streamed answer."""
    parts: list[dict[str, Any]] = []
    for p in _pieces(rng, thinking, 60, 220) if thinking else []:
        parts.append({"text": p, "thought": True})
    for p in _pieces(rng, text_out, 24, 120) if text_out else []:
        parts.append({"text": p})
    signature = rand_id(rng, 48) if thinking else ""
    for i, tc in enumerate(tool_calls):
        part: dict[str, Any] = {"functionCall": {"name": tc.name, "args": tc.input}}
        if signature and i == 0:
            part["thoughtSignature"] = signature
        parts.append(part)
    if not parts:
        parts.append({"text": ""})
    chunks = []
    out = 0
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        out += max(1, len(part.get("text", "")) // 4)
        cand: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if last:
            cand["finishReason"] = _FINISH.get(stop_reason, "STOP")
        chunks.append({"candidates": [cand], "usageMetadata": _usage(usage, final=last, out_so_far=out),
                       "modelVersion": model, "responseId": response_id})
    return chunks


def gemini_sse(chunks: list[dict[str, Any]]) -> bytes:
    """``alt=sse``: one ``data:`` event per chunk, CRLF line ends (what Google's servers send)."""
    return b"".join(b"data: " + orjson.dumps(c) + b"\r\n\r\n" for c in chunks)


def gemini_json_array(chunks: list[dict[str, Any]]) -> bytes:
    """Without ``alt=sse``: one JSON array, its objects pretty-printed and separated by ``,\\r\\n``."""
    return b"[" + b",\r\n".join(orjson.dumps(c, option=orjson.OPT_INDENT_2) for c in chunks) + b"]"


def gemini_response(chunks: list[dict[str, Any]]) -> bytes:
    """The non-stream ``generateContent`` answer: the chunks' parts in one object."""
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    last = dict(chunks[-1])
    cand = dict(last["candidates"][0])
    cand["content"] = {"parts": parts, "role": "model"}
    last["candidates"] = [cand]
    return orjson.dumps(last)
