"""Realistic LLM HTTP request/response bodies, SSE streams and SDK captures.

Pure Python + orjson; every function takes a seeded ``random.Random`` so the output is deterministic.
All builders return ``bytes``.

Two wire dialects are produced:

* Anthropic Messages (``POST /v1/messages``), streamed as ``event:``/``data:`` SSE with thinking, text and
  tool_use content blocks;
* OpenAI Chat Completions (``POST /v1/chat/completions``; also used for OpenRouter and other
  OpenAI-compatible providers), streamed as ``data: {...}`` chunks ending with a usage chunk and ``[DONE]``.

Plus the ``sdk`` capture (the serialized SDK request/response as JSON), non-stream JSON responses, captures
without HTTP headers, and the odd binary blob.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = [
    "HOSTILE_STRINGS",
    "Exchange",
    "ToolCall",
    "Usage",
    "anthropic_json_response",
    "anthropic_request_body",
    "anthropic_sse",
    "binary_blob",
    "dialect_of",
    "http_request",
    "http_response",
    "llm_exchange",
    "openai_json_response",
    "openai_request_body",
    "openai_sse",
    "rand_id",
    "sdk_response",
    "sentence",
    "text",
    "tool_definitions",
]

# --------------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------------

#: Strings a terminal UI must render literally (escape sequences, Rich markup).
HOSTILE_STRINGS: tuple[str, ...] = (
    "\x1b[31mred\x1b[0m",
    "\x1b]0;title\x07",
    "[bold red]not markup[/]",
    "[link=https://evil.example]click[/link]",
    "\x1b[2J\x1b[Hcleared?",
    "tab\there\rcarriage [/] [[escaped]]",
)

_WORDS = (
    "the a of to and in for on with by from as at is are was be this that these those it its we our "
    "query metric metrics node nodes chart charts alert alerts dimension dimensions latency cpu memory disk "
    "network bandwidth packet packets error errors warning timeout retry retries request requests response "
    "responses token tokens cache cached budget cost session sessions agent agents tool tools report result "
    "results table tables dataset datasets row rows column columns schema select where group order limit join "
    "customer customers account accounts invoice invoices subscription subscriptions revenue churn trial plan "
    "plans space spaces room rooms claim claimed agent_id netdata cloud parent child streaming replication "
    "database tier tiers retention ingestion collector collectors plugin plugins python go ebpf systemd "
    "journal logs log kubernetes pod pods container containers cgroup cgroups docker postgres mysql redis nginx "
    "apache haproxy prometheus exporter endpoint endpoints http https api json yaml config configuration "
    "dashboard dashboards anomaly anomalies ml model models training trained detection score scores rate "
    "average median p95 p99 percentile spike spikes drop drops increase decrease trend trends week weeks day "
    "days hour hours minute minutes second seconds last previous next first total totals summary summarize "
    "analysis analyze investigate found shows showing indicates suggests likely because however therefore "
    "also only more less than most least each every some many few several across between within during "
    "after before since until while when which who what how why search searching fetched fetch page pages "
    "source sources documentation docs github issue issues pull commit commits release releases version "
    "versions upgrade upgraded deploy deployed deployment incident incidents outage outages root cause fix "
    "fixed patch patched user users team teams support ticket tickets slack channel thread message messages "
    "hubspot deal deals pipeline stage contact contacts company companies owner owners region regions "
    "europe america asia production staging cluster clusters host hosts virtual physical instance instances"
).split()

_CORPUS_WORDS = 60_000
_corpus: str | None = None


def _get_corpus() -> str:
    global _corpus
    if _corpus is None:
        r = random.Random(0x5EED)
        out: list[str] = []
        n = 0
        words = _WORDS
        while n < _CORPUS_WORDS:
            k = r.randint(6, 22)
            sent = [words[r.randrange(len(words))] for _ in range(k)]
            sent[0] = sent[0].capitalize()
            if r.random() < 0.15:
                sent.insert(r.randrange(1, k), str(r.randint(2, 98_000)))
            if r.random() < 0.1:
                sent.insert(r.randrange(1, k), f"{r.randint(1, 99)}.{r.randint(0, 9)}%")
            out.append(" ".join(sent) + r.choice((".", ".", ".", ".", "?", ":", ";")))
            n += k
        _corpus = " ".join(out) + " "
    return _corpus


def text(rng: random.Random, n: int) -> str:
    """About ``n`` characters of plausible prose (a slice of a fixed corpus, starting at a word)."""
    if n <= 0:
        return ""
    corpus = _get_corpus()
    size = len(corpus)
    if n >= size - 64:
        reps = n // size + 1
        return (corpus * reps)[:n].strip()
    start = rng.randrange(0, size - n - 32)
    sp = corpus.find(" ", start)
    if sp < 0 or sp > start + 24:
        sp = start
    return corpus[sp + 1 : sp + 1 + n].strip()


def sentence(rng: random.Random, lo: int = 30, hi: int = 90) -> str:
    s = text(rng, rng.randint(lo, hi))
    if not s:
        return "Done."
    return s[0].upper() + s[1:].rstrip(" .,;:?") + "."


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def rand_id(rng: random.Random, n: int, alphabet: str = _B62) -> str:
    k = len(alphabet)
    return "".join(alphabet[rng.randrange(k)] for _ in range(n))


def binary_blob(rng: random.Random, n: int = 48) -> bytes:
    """A few random bytes, e.g. a gzip-encoded body captured without decoding."""
    head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    return head + bytes(rng.getrandbits(8) for _ in range(max(0, n - len(head))))


# --------------------------------------------------------------------------------------------------
# Data classes
# --------------------------------------------------------------------------------------------------


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class Usage:
    input: int  # uncached input tokens (Anthropic semantics) / prompt tokens (OpenAI semantics)
    output: int
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass
class Exchange:
    """One captured LLM round trip."""

    request_raw: bytes
    request_format: str  # "http" | "json"
    response_raw: bytes
    response_format: str  # "sse" | "http" | "json"
    sdk_request: bytes
    sdk_response: bytes
    messages: int
    request_body_bytes: int
    extra: dict[str, Any] = field(default_factory=dict)


def dialect_of(provider: str) -> str:
    return "anthropic" if provider == "anthropic" else "openai"


# --------------------------------------------------------------------------------------------------
# HTTP framing
# --------------------------------------------------------------------------------------------------


def http_request(method: str, path: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


def http_response(status: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + body


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


def _openai_req_headers(host: str, body_len: int) -> list[tuple[str, str]]:
    return [
        ("host", host),
        ("content-type", "application/json"),
        ("authorization", "Bearer [REDACTED]"),
        ("user-agent", "ai-agent/1.0 (node)"),
        ("content-length", str(body_len)),
    ]


# --------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------


def tool_definitions(tools: list[dict[str, Any]], dialect: str) -> list[dict[str, Any]]:
    """``tools``: ``[{name, description, schema}]`` -> provider tool definitions."""
    if dialect == "anthropic":
        return [{"name": t["name"], "description": t["description"], "input_schema": t["schema"]} for t in tools]
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["schema"]},
        }
        for t in tools
    ]


# --------------------------------------------------------------------------------------------------
# Request bodies
# --------------------------------------------------------------------------------------------------


def _history(rng: random.Random, n_messages: int, per_msg: int, user_prompt: str, tool_names: list[str]):
    """Yield (role, text, tool_name, call_id) tuples for a conversation of ``n_messages`` messages."""
    out = [("user", user_prompt, None, None)]
    call_id = None
    tname = None
    for i in range(1, n_messages):
        if i % 2 == 1:
            tname = tool_names[rng.randrange(len(tool_names))] if tool_names else "web__search"
            call_id = rand_id(rng, 22)
            out.append(("assistant", text(rng, max(8, per_msg // 3)), tname, call_id))
        else:
            out.append(("tool", text(rng, per_msg), tname, call_id))
    return out


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
    fixed = len(system) + sum(len(d["description"]) + 160 for d in defs) + len(user_prompt) + 200
    per_msg = max(12, (target_bytes - fixed) // max(1, n_messages))
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
    fixed = len(system) + sum(len(d["function"]["description"]) + 180 for d in defs) + len(user_prompt) + 200
    per_msg = max(12, (target_bytes - fixed) // max(1, n_messages))
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


# --------------------------------------------------------------------------------------------------
# Streams
# --------------------------------------------------------------------------------------------------


def _pieces(rng: random.Random, s: str, lo: int, hi: int) -> list[str]:
    out = []
    i = 0
    n = len(s)
    while i < n:
        j = i + rng.randint(lo, hi)
        out.append(s[i:j])
        i = j
    return out


def _split_n(rng: random.Random, s: str, parts: int) -> list[str]:
    """Split ``s`` into about ``parts`` non-empty pieces (at least one)."""
    if len(s) <= parts:
        return [s] if s else [""]
    cuts = sorted(rng.sample(range(1, len(s)), parts - 1))
    out = []
    prev = 0
    for c in cuts:
        out.append(s[prev:c])
        prev = c
    out.append(s[prev:])
    return out


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


# --------------------------------------------------------------------------------------------------
# One full exchange
# --------------------------------------------------------------------------------------------------

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
        request_format = "json"

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
    response_format = "sse" if stream else ("http" if headers else "json")

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
