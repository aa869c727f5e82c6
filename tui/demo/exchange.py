"""One full captured LLM round trip (``llm_exchange``): request + response in either dialect, with or without
HTTP headers, streamed or not, plus the SDK's view of the response (``sdk_response``)."""

from __future__ import annotations

import random
from typing import Any

import orjson

from .anthropic_bodies import _anthropic_req_headers, anthropic_json_response, anthropic_request_body, anthropic_sse
from .framing import http_request, http_response
from .gemini_bodies import gemini_chunks, gemini_json_array, gemini_request_body, gemini_response, gemini_sse
from .llm_types import Exchange, ToolCall, Usage, dialect_of
from .ollama_bodies import ollama_chat_lines, ollama_ndjson, ollama_request_body, ollama_response
from .openai_bodies import _openai_req_headers, openai_json_response, openai_request_body, openai_sse
from .prose import _B36, rand_id

__all__ = ["llm_exchange", "sdk_response"]


def sdk_response(
    *, resp_id: str, model: str, ts_iso: str, reasoning: str, text_out: str, tool_calls: list[ToolCall],
    finish_reason: str, usage: Usage, provider: str,
) -> bytes:
    """The SDK's view of the response (AI SDK style ``content`` parts)."""
    content: list[dict[str, Any]] = []
    if reasoning:
        content.append({"type": "reasoning", "text": reasoning})
    if text_out:
        content.append({"type": "text", "text": text_out})
    for tc in tool_calls:
        content.append(
            {"type": "tool-call", "toolCallId": tc.id, "toolName": tc.name, "input": orjson.dumps(tc.input).decode()}
        )
    u: dict[str, Any] = {
        "inputTokens": usage.input,
        "outputTokens": usage.output,
        "totalTokens": usage.input + usage.output + usage.cache_read + usage.cache_write,
        "cachedInputTokens": usage.cache_read,
    }
    if usage.reasoning:
        u["reasoningTokens"] = usage.reasoning
    meta: dict[str, Any]
    if provider == "anthropic":
        meta = {"anthropic": {"cacheCreationInputTokens": usage.cache_write, "stopSequence": None}}
    else:
        meta = {provider: {"cachedPromptTokens": usage.cache_read}}
    return orjson.dumps(
        {
            "id": resp_id,
            "modelId": model,
            "timestamp": ts_iso,
            "finishReason": finish_reason,
            "usage": u,
            "content": content,
            "providerMetadata": meta,
        }
    )


_OA_FINISH = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length", "stop_sequence": "stop"}
_SDK_FINISH = {"tool_use": "tool-calls", "end_turn": "stop", "max_tokens": "length", "stop_sequence": "stop"}


def llm_exchange(
    rng: random.Random,
    *,
    provider: str,
    model: str,
    system: str,
    user_prompt: str,
    tools: list[dict[str, Any]],
    n_messages: int,
    target_bytes: int,
    thinking: str,
    text_out: str,
    tool_calls: list[ToolCall],
    stop_reason: str,
    usage: Usage,
    created_s: int,
    ts_iso: str,
    headers: bool = True,
    stream: bool = True,
) -> Exchange:
    """Build request + response captures for one LLM call.

    ``stop_reason`` uses Anthropic vocabulary (``tool_use``, ``end_turn``, ``max_tokens``) and is mapped for
    OpenAI. ``thinking`` is the reasoning text (Anthropic thinking blocks; OpenRouter ``delta.reasoning``;
    plain OpenAI streams don't carry it).
    """
    dialect = dialect_of(provider)
    # Keep the body close to ``target_bytes``: fewer tools, fewer (odd count: ends with a user/tool message)
    # history messages and a shorter system prompt when the budget is small.
    called = {tc.name for tc in tool_calls}
    tools = [t for t in tools if t["name"] in called] + [t for t in tools if t["name"] not in called]
    n_tools = min(len(tools), max(len(called), target_bytes // 450))
    tools = tools[:n_tools]
    n_messages = max(1, min(n_messages, target_bytes // 240))
    if n_messages % 2 == 0:
        n_messages -= 1
    system = system[: max(40, target_bytes // 4)]
    user_prompt = user_prompt[: max(40, target_bytes // 3)]
    if dialect in ("gemini", "ollama"):
        return _native_exchange(
            rng, dialect=dialect, provider=provider, model=model, system=system, user_prompt=user_prompt,
            tools=tools, n_messages=n_messages, target_bytes=target_bytes, thinking=thinking, text_out=text_out,
            tool_calls=tool_calls, stop_reason=stop_reason, usage=usage, created_s=created_s, ts_iso=ts_iso,
            headers=headers, stream=stream,
        )
    if dialect == "anthropic":
        body = anthropic_request_body(
            rng, model=model, system=system, user_prompt=user_prompt, tools=tools, n_messages=n_messages,
            target_bytes=target_bytes, thinking=bool(thinking), stream=stream,
        )
    else:
        body = openai_request_body(
            rng, model=model, system=system, user_prompt=user_prompt, tools=tools, n_messages=n_messages,
            target_bytes=target_bytes, thinking=bool(thinking), stream=stream,
        )
    body_bytes = orjson.dumps(body)
    n_msgs = len(body["messages"])
    if dialect == "anthropic":
        path = "/v1/messages"
        req_headers = _anthropic_req_headers(len(body_bytes))
    elif provider == "openrouter":
        path = "/api/v1/chat/completions"
        req_headers = _openai_req_headers("openrouter.ai", len(body_bytes))
    else:
        path = "/v1/chat/completions"
        req_headers = _openai_req_headers("api.openai.com", len(body_bytes))
    if headers:
        request_raw = http_request("POST", path, req_headers, body_bytes)
        request_format = "http"
    else:
        request_raw = body_bytes
        request_format = "http"  # the producer's format for any body that is not text/event-stream

    if dialect == "anthropic":
        msg_id = "msg_01" + rand_id(rng, 22)
        signature = rand_id(rng, 64) if thinking else ""
        if stream:
            resp_body = anthropic_sse(
                rng, msg_id=msg_id, model=model, thinking=thinking, signature=signature, text_out=text_out,
                tool_calls=tool_calls, stop_reason=stop_reason, usage=usage,
            )
            ctype = "text/event-stream; charset=utf-8"
        else:
            resp_body = anthropic_json_response(
                msg_id=msg_id, model=model, thinking=thinking, signature=signature, text_out=text_out,
                tool_calls=tool_calls, stop_reason=stop_reason, usage=usage,
            )
            ctype = "application/json"
        resp_headers = [("content-type", ctype), ("request-id", "req_011C" + rand_id(rng, 18)),
                        ("anthropic-organization-id", "[REDACTED]"), ("cache-control", "no-cache")]
        resp_id = msg_id
    else:
        resp_id = "chatcmpl-" + rand_id(rng, 29)
        fp = "fp_" + rand_id(rng, 10, _B36)
        finish = _OA_FINISH.get(stop_reason, "stop")
        reasoning = thinking if provider == "openrouter" else ""
        if stream:
            resp_body = openai_sse(
                rng, chunk_id=resp_id, created=created_s, model=model, reasoning=reasoning, text_out=text_out,
                tool_calls=tool_calls, finish_reason=finish, usage=usage, fingerprint=fp,
            )
            ctype = "text/event-stream; charset=utf-8"
        else:
            resp_body = openai_json_response(
                chunk_id=resp_id, created=created_s, model=model, text_out=text_out, tool_calls=tool_calls,
                finish_reason=finish, usage=usage, fingerprint=fp,
            )
            ctype = "application/json"
        resp_headers = [("content-type", ctype), ("x-request-id", "req_" + rand_id(rng, 24, _B36)),
                        ("openai-processing-ms", str(rng.randint(200, 9000)))]
    if headers:
        response_raw = http_response("200 OK", resp_headers, resp_body)
    else:
        response_raw = resp_body
    response_format = "sse" if stream else "http"

    sdk_req = body_bytes
    sdk_resp = sdk_response(
        resp_id=resp_id, model=model, ts_iso=ts_iso, reasoning=thinking if dialect == "anthropic" else "",
        text_out=text_out, tool_calls=tool_calls, finish_reason=_SDK_FINISH.get(stop_reason, "stop"), usage=usage,
        provider=provider,
    )
    return Exchange(
        request_raw=request_raw,
        request_format=request_format,
        response_raw=response_raw,
        response_format=response_format,
        sdk_request=sdk_req,
        sdk_response=sdk_resp,
        messages=n_msgs,
        request_body_bytes=len(body_bytes),
    )


def _native_exchange(
    rng: random.Random, *, dialect: str, provider: str, model: str, system: str, user_prompt: str,
    tools: list[dict[str, Any]], n_messages: int, target_bytes: int, thinking: str, text_out: str,
    tool_calls: list[ToolCall], stop_reason: str, usage: Usage, created_s: int, ts_iso: str, headers: bool,
    stream: bool,
) -> Exchange:
    """Gemini (``streamGenerateContent``, SSE with ``alt=sse`` or one JSON array) and Ollama (``/api/chat``
    NDJSON) round trips. Their answers are not ``text/event-stream`` except Gemini's SSE, so the producer stores
    them as ``http``."""
    if dialect == "gemini":
        body = gemini_request_body(rng, system=system, user_prompt=user_prompt, tools=tools, n_messages=n_messages,
                                   target_bytes=target_bytes, thinking=bool(thinking))
        n_msgs = len(body["contents"])
        sse = stream and rng.random() < 0.7
        verb = "streamGenerateContent" if stream else "generateContent"
        path = f"/v1beta/models/{model}:{verb}" + ("?alt=sse" if sse else "")
        host = "generativelanguage.googleapis.com"
        resp_id = rand_id(rng, 22)
        chunks = gemini_chunks(rng, model=model, response_id=resp_id, thinking=thinking, text_out=text_out,
                               tool_calls=tool_calls, stop_reason=stop_reason, usage=usage)
        if not stream:
            resp_body, ctype = gemini_response(chunks), "application/json; charset=UTF-8"
        elif sse:
            resp_body, ctype = gemini_sse(chunks), "text/event-stream"
        else:
            resp_body, ctype = gemini_json_array(chunks), "application/json; charset=UTF-8"
        req_headers = [("host", host), ("content-type", "application/json"), ("x-goog-api-key", "[REDACTED]"),
                       ("user-agent", "ai-agent/1.0 (node)")]
    else:
        body = ollama_request_body(rng, model=model, system=system, user_prompt=user_prompt, tools=tools,
                                   n_messages=n_messages, target_bytes=target_bytes, thinking=bool(thinking),
                                   stream=stream)
        n_msgs = len(body["messages"])
        sse = False
        path = "/api/chat"
        resp_id = "ollama-" + rand_id(rng, 12)
        lines = ollama_chat_lines(rng, model=model, start_ms=created_s * 1000, thinking=thinking, text_out=text_out,
                                  tool_calls=tool_calls, stop_reason=stop_reason, usage=usage,
                                  latency_ms=rng.randint(800, 9000))
        if stream:
            resp_body, ctype = ollama_ndjson(lines), "application/x-ndjson"
        else:
            resp_body, ctype = ollama_response(lines), "application/json; charset=utf-8"
        req_headers = [("host", "localhost:11434"), ("content-type", "application/json"),
                       ("user-agent", "ai-agent/1.0 (node)")]
    body_bytes = orjson.dumps(body)
    req_headers.append(("content-length", str(len(body_bytes))))
    request_raw = http_request("POST", path, req_headers, body_bytes) if headers else body_bytes
    response_raw = http_response("200 OK", [("content-type", ctype)], resp_body) if headers else resp_body
    sdk_resp = sdk_response(
        resp_id=resp_id, model=model, ts_iso=ts_iso, reasoning=thinking, text_out=text_out, tool_calls=tool_calls,
        finish_reason=_SDK_FINISH.get(stop_reason, "stop"), usage=usage, provider=provider,
    )
    return Exchange(
        request_raw=request_raw,
        request_format="http",
        response_raw=response_raw,
        response_format="sse" if sse else "http",
        sdk_request=body_bytes,
        sdk_response=sdk_resp,
        messages=n_msgs,
        request_body_bytes=len(body_bytes),
    )
