"""LLM wire captures of every dialect the producer captures: one writer; ``DIALECTS`` and the answers differ."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson

from .catalog import B36, DATA, fill, iso, rand_id, text

FINISH = DATA["finish_reasons"]  # Anthropic's ``stop_reason`` in another dialect's words


def binary_blob(rng: random.Random, n: int = 48) -> bytes:
    """A few random bytes, e.g. a gzip-encoded body captured without decoding."""
    head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    return head + bytes(rng.getrandbits(8) for _ in range(max(0, n - len(head))))


@dataclass
class Usage:
    input: int  # uncached input tokens (Anthropic semantics) / prompt tokens (OpenAI semantics)
    output: int
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass
class Reply:
    """One LLM call: its request's size target and what the model says (``stop`` in Anthropic's words)."""

    is_final: bool
    target: int
    calls: list[dict[str, Any]]  # the tool calls: their id, name and input
    thinking: str = ""
    text_out: str = ""
    model: str = ""
    provider: str = ""
    stop: str = ""
    usage: Usage = field(default_factory=lambda: Usage(0, 0))
    created_s: int = 0


def _pieces(rng: random.Random, s: str, lo: int, hi: int) -> list[str]:
    out, i = [], 0
    while i < len(s):
        j = i + rng.randint(lo, hi)
        out.append(s[i:j])
        i = j
    return out


def _arg_pieces(rng: random.Random, tc: dict[str, Any]) -> list[str]:
    s = orjson.dumps(tc["input"]).decode()
    parts = min(6, max(2, len(s) // 80 + 1))
    if len(s) <= parts:
        return [s] if s else [""]
    cuts = [0, *sorted(rng.sample(range(1, len(s)), parts - 1)), len(s)]
    return [s[a:b] for a, b in zip(cuts, cuts[1:])]


def http_message(first: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """A request or response as captured by other tools: first line, headers, blank line, body."""
    return (first + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n").encode() + body


#: stream framings: (line head, line tail, end of stream); ``event``'s head names each object's type (Anthropic)
FRAMES = {"event": (b"event: %s\ndata: ", b"\n\n", b""), "sse": (b"data: ", b"\n\n", b"data: [DONE]\n\n"),
          "sse_crlf": (b"data: ", b"\r\n\r\n", b""), "ndjson": (b"", b"\n", b"")}


def _frame(kind: str, objs: list[dict[str, Any]]) -> bytes:
    """A response body from its objects: one JSON object, Gemini's JSON array, or a stream (``FRAMES``)."""
    if kind == "json":
        return orjson.dumps(objs[0])
    if kind == "array":  # objects pretty-printed and separated by ",\r\n"
        return b"[" + b",\r\n".join(orjson.dumps(o, option=orjson.OPT_INDENT_2) for o in objs) + b"]"
    head, tail, end = FRAMES[kind]
    return b"".join((head % o["type"].encode() if kind == "event" else head) + orjson.dumps(o) + tail
                    for o in objs) + end


def _values(a: Reply, **more: Any) -> dict[str, Any]:
    """What the answer templates (data.json's ``answer_*``) are filled with."""
    u = a.usage
    return {"model": a.model, "stop": a.stop, "created": a.created_s, "in": u.input, "out": u.output,
            "cr": u.cache_read, "cw": u.cache_write, "rs": u.reasoning, "total": u.input + u.output} | more


#: what an answer writer returns: the response id, its objects, their framing, extra headers, the reasoning shown
Answer = tuple[str, list[dict[str, Any]], str, list[tuple[str, str]], str]


def _anthropic_answer(rng: random.Random, a: Reply, stream: bool, d: dict[str, Any]) -> Answer:
    v = _values(a, id="msg_01" + rand_id(rng, 22), sig=rand_id(rng, 64) if a.thinking else "")
    blocks: list[tuple[dict, dict, list[dict]]] = []  # (the block, its start when streamed, its deltas)
    if a.thinking:
        blocks.append(({"type": "thinking", "thinking": a.thinking, "signature": v["sig"]},
                       {"type": "thinking", "thinking": "", "signature": ""},
                       [{"type": "thinking_delta", "thinking": p} for p in _pieces(rng, a.thinking, 40, 160)]
                       + [{"type": "signature_delta", "signature": v["sig"]}] if stream else []))
    ping = stream and rng.random() < 0.3
    if a.text_out:
        blocks.append(({"type": "text", "text": a.text_out}, {"type": "text", "text": ""},
                       [{"type": "text_delta", "text": p} for p in _pieces(rng, a.text_out, 24, 100)] if stream
                       else []))
    for tc in a.calls:
        whole = {"type": "tool_use", **tc}
        blocks.append((whole, whole | {"input": {}}, [{"type": "input_json_delta", "partial_json": p}
                                                      for p in ["", *_arg_pieces(rng, tc)]] if stream else []))
    if stream:
        events = [[{"type": "content_block_start", "index": i, "content_block": start},
                   *({"type": "content_block_delta", "index": i, "delta": x} for x in deltas),
                   {"type": "content_block_stop", "index": i}] for i, (_, start, deltas) in enumerate(blocks)]
        events[1 if a.thinking else 0:0] = [[{"type": "ping"}]] if ping else []  # after the thinking block
        objs = [fill(d["answer_start"], v), *(e for group in events for e in group), fill(d["answer_delta"], v),
                {"type": "message_stop"}]
    else:
        objs = [fill(d["answer_message"], v | {"content": [block for block, _, _ in blocks]})]
    return v["id"], objs, "event" if stream else "json", [
        ("request-id", "req_011C" + rand_id(rng, 18)), ("anthropic-organization-id", "[REDACTED]"),
        ("cache-control", "no-cache")], a.thinking


def _openai_answer(rng: random.Random, a: Reply, stream: bool, d: dict[str, Any]) -> Answer:
    """OpenRouter streams ``delta.reasoning``; OpenAI's streams carry no reasoning text (nor does the SDK's view)."""
    reasoning = a.thinking if a.provider == "openrouter" else ""
    v = _values(a, id="chatcmpl-" + rand_id(rng, 29), fp="fp_" + rand_id(rng, 10, B36),
                finish=FINISH["openai"].get(a.stop, "stop"))
    v["usage"] = fill(d["answer_usage"], v)
    if stream:
        deltas: list[dict] = [{"role": "assistant", "content": "", "refusal": None}]
        deltas += [{"reasoning": p} for p in _pieces(rng, reasoning, 40, 160)]
        deltas += [{"content": p} for p in _pieces(rng, a.text_out, 20, 90)]
        for i, tc in enumerate(a.calls):
            deltas.append({"tool_calls": [{"index": i, "id": tc["id"], "type": "function",
                                           "function": {"name": tc["name"], "arguments": ""}}]})
            deltas += [{"tool_calls": [{"index": i, "function": {"arguments": p}}]} for p in _arg_pieces(rng, tc)]
        head = fill(d["answer_head"], v)  # the last delta ({}) carries the finish reason
        objs = [{**head, "choices": [{"index": 0, "delta": x, "logprobs": None, "finish_reason": None if x else
                                      v["finish"]}]} for x in [*deltas, {}]]
        objs.append({**head, "choices": [], "usage": v["usage"]})
    else:
        msg: dict[str, Any] = {"role": "assistant", "content": a.text_out or None, "refusal": None}
        if a.calls:
            msg["tool_calls"] = [{"id": tc["id"], "type": "function", "function": {
                "name": tc["name"], "arguments": orjson.dumps(tc["input"]).decode()}} for tc in a.calls]
        objs = [fill(d["answer_message"], v | {"msg": msg})]
    return v["id"], objs, "sse" if stream else "json", [
        ("x-request-id", "req_" + rand_id(rng, 24, B36)), ("openai-processing-ms", str(rng.randint(200, 9000)))], ""


def _gemini_answer(rng: random.Random, a: Reply, stream: bool, d: dict[str, Any]) -> Answer:
    """One part a chunk, a ``thoughtSignature`` on the first call after thinking; ``usageMetadata`` cumulative."""
    sse = stream and rng.random() < 0.7
    resp_id = rand_id(rng, 22)
    parts: list[dict[str, Any]] = [{"text": p, "thought": True} for p in _pieces(rng, a.thinking, 60, 220)]
    parts += [{"text": p} for p in _pieces(rng, a.text_out, 24, 120)]
    signature = rand_id(rng, 48) if a.thinking else ""
    for i, tc in enumerate(a.calls):
        parts.append({"functionCall": {"name": tc["name"], "args": tc["input"]},
                      **({"thoughtSignature": signature} if signature and i == 0 else {})})
    parts = parts or [{"text": ""}]
    chunks: list[dict[str, Any]] = []
    out, u = 0, a.usage
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        out += max(1, len(part.get("text", "")) // 4)
        cand = {"content": {"parts": [part], "role": "model"}, "index": 0,
                **({"finishReason": FINISH["gemini"].get(a.stop, "STOP")} if last else {})}
        shown = u.output if last else out
        meta = fill(d["answer_meta"], {"in": u.input, "shown": shown or None, "cr": u.cache_read or None,
                                       "rs": u.reasoning or None, "total": u.input + shown + u.reasoning})
        chunks.append({"candidates": [cand], "usageMetadata": meta, "modelVersion": a.model, "responseId": resp_id})
    if not stream:  # generateContent: every part in one object
        chunks = [{**chunks[-1], "candidates": [{**chunks[-1]["candidates"][0], "content": {"parts": parts,
                                                                                             "role": "model"}}]}]
    return resp_id, chunks, "sse_crlf" if sse else "array" if stream else "json", [], a.thinking


def _ollama_answer(rng: random.Random, a: Reply, stream: bool, d: dict[str, Any]) -> Answer:
    """Pieces with ``done: false``, then ``done: true`` with counts and durations (ns); tool calls whole."""
    resp_id, latency = "ollama-" + rand_id(rng, 12), rng.randint(800, 9000)
    pieces: list[dict[str, Any]] = [{"role": "assistant", "content": "", "thinking": p}
                                    for p in _pieces(rng, a.thinking, 8, 40)]
    pieces += [{"role": "assistant", "content": p} for p in _pieces(rng, a.text_out, 4, 24)]
    calls = [{"function": {"name": tc["name"], "arguments": tc["input"]}} for tc in a.calls]  # whole, in one piece
    pieces += [{"role": "assistant", "content": "", "tool_calls": calls}] if calls else []
    t, lines, ns = a.created_s * 1000, [], 1_000_000
    for piece in pieces:
        t += rng.randint(5, 60)
        lines.append({"model": a.model, "created_at": iso(t, 123_456), "message": piece, "done": False})
    prompt_ns = rng.randint(50, 900) * ns
    done = fill(d["answer_done"], _values(
        a, at=iso(a.created_s * 1000 + latency, 123_456), reason="length" if a.stop == "max_tokens" else "stop",
        total=latency * ns, load=rng.randint(5, 300) * ns, prompt_ns=prompt_ns, eval=max(ns, latency * ns - prompt_ns)))
    if stream:
        return resp_id, [*lines, done], "ndjson", [], a.thinking
    msg: dict[str, Any] = {"role": "assistant", "content": "".join(p.get("content", "") for p in pieces)}
    msg |= {"thinking": "".join(p.get("thinking", "") for p in pieces)} if a.thinking else {}
    msg |= {"tool_calls": calls} if calls else {}
    return resp_id, [{**done, "message": msg}], "json", [], a.thinking


#: per dialect (data.json's ``dialects``, OpenRouter like OpenAI but for its host and path): the request's templates
#: (tool definition, system, history messages, body, path), host and headers; ``if_<flag>``: [off, on] values
DIALECTS: dict[str, dict[str, Any]] = {name: DATA["dialects"].get(d.get("like"), {}) | d
                                       for name, d in DATA["dialects"].items()}
ANSWERS: dict[str, Callable[[random.Random, Reply, bool, dict[str, Any]], Answer]] = {
    "anthropic": _anthropic_answer, "openai": _openai_answer, "openrouter": _openai_answer, "gemini": _gemini_answer,
    "ollama": _ollama_answer}


def flags(d: dict[str, Any], **on: bool) -> dict[str, Any]:
    return {k: pair[on[flag]] for flag in on for k, pair in d.get(f"if_{flag}", {}).items()}


def request_body(rng: random.Random, dialect: str, *, model: str, system: str, user_prompt: str, tools: list[dict],
                 n_messages: int, target_bytes: int, thinking: bool, stream: bool = True) -> dict[str, Any]:
    """A body near ``target_bytes``: the history shares what the prompts and tool definitions leave."""
    d = DIALECTS[dialect]
    defs = [fill(d["tool_def"], t) for t in tools]
    fixed = len(system) + sum(len(t["description"]) + d["per_tool"] for t in tools) + len(user_prompt) + 200
    per_msg = max(12, (target_bytes - fixed) // max(1, n_messages))
    msgs = ([fill(d["system"], {"system": system})] if "system" in d else []) + [fill(d["user"], {"txt": user_prompt})]
    names = [t["name"] for t in tools]
    for _ in range(n_messages // 2):  # (a call, its result) pairs after the user prompt: n_messages is odd
        name, cid = rng.choice(names) if names else "web__search", rand_id(rng, 22)
        txt = text(rng, max(8, per_msg // 3))
        msgs.append(fill(d["assistant"], {"txt": txt, "name": name, "cid": cid, "q": txt[:40],
                                          "args": orjson.dumps({"q": txt[:40]}).decode()}))
        msgs.append(fill(d["result"], {"txt": text(rng, per_msg), "name": name, "cid": cid}))
    values = {"model": model, "system": system, "messages": msgs, "defs": defs, "stream": stream}
    return fill(d["body"], values | flags(d, thinking=thinking, stream=stream))


def sdk_response(*, resp_id: str, ts_iso: str, reasoning: str, a: Reply) -> bytes:
    """The SDK's view of the response (AI SDK style ``content`` parts)."""
    u = a.usage
    content = ([{"type": "reasoning", "text": reasoning}] if reasoning else []) + \
        ([{"type": "text", "text": a.text_out}] if a.text_out else []) + \
        [{"type": "tool-call", "toolCallId": tc["id"], "toolName": tc["name"],
          "input": orjson.dumps(tc["input"]).decode()} for tc in a.calls]
    meta = {"anthropic": {"cacheCreationInputTokens": u.cache_write, "stopSequence": None}} \
        if a.provider == "anthropic" else {a.provider: {"cachedPromptTokens": u.cache_read}}
    return orjson.dumps(fill(DATA["sdk_response"], _values(
        a, id=resp_id, ts=ts_iso, finish=FINISH["sdk"].get(a.stop, "stop"), rs=u.reasoning or None, content=content,
        meta=meta, total=u.input + u.output + u.cache_read + u.cache_write)))


#: what ``llm_exchange`` returns: the request (as captured, the SDK's body, its message count) and the response (as
#: captured, its format ``http`` or ``sse``, the SDK's view)
Exchange = tuple[tuple[bytes, bytes, int], tuple[bytes, str, bytes]]


def llm_exchange(rng: random.Random, a: Reply, *, system: str, user_prompt: str, tools: list[dict[str, Any]],
                 n_messages: int, ts_iso: str, headers: bool = True, stream: bool = True) -> Exchange:
    """One LLM call's captures, trimmed to stay near ``target_bytes``; only other tools' captures have headers."""
    # the wire dialect a provider speaks: other OpenAI-compatible servers than OpenRouter speak ``openai``
    dialect, target_bytes, model = DATA["dialect_of"].get(a.provider, "openai"), a.target, a.model
    called = {tc["name"] for tc in a.calls}
    tools = [t for t in tools if t["name"] in called] + [t for t in tools if t["name"] not in called]
    tools = tools[: min(len(tools), max(len(called), target_bytes // 450))]
    n_messages = max(1, min(n_messages, target_bytes // 240))
    n_messages -= 1 - n_messages % 2
    body = request_body(rng, dialect, model=model, system=system[: max(40, target_bytes // 4)],
                        user_prompt=user_prompt[: max(40, target_bytes // 3)], tools=tools, n_messages=n_messages,
                        target_bytes=target_bytes, thinking=bool(a.thinking), stream=stream)
    d = DIALECTS[dialect]
    resp_id, objs, frame, resp_headers, reasoning = ANSWERS[dialect](rng, a, stream, d)
    resp_body, sse = _frame(frame, objs), frame in ("event", "sse", "sse_crlf")
    resp_headers = [("content-type", d["answer_ctype"][frame]), *resp_headers]
    body_bytes = orjson.dumps(body)
    path = fill(d["path"], {"model": model} | flags(d, stream=stream, sse=sse))
    req_headers = [("host", d["host"]), *d["headers"], ("user-agent", "ai-agent/1.0 (node)"),
                   ("content-length", str(len(body_bytes)))]
    request = http_message(f"POST {path} HTTP/1.1", req_headers, body_bytes) if headers else body_bytes
    response = http_message("HTTP/1.1 200 OK", resp_headers, resp_body) if headers else resp_body
    return (request, body_bytes, len(body.get("messages") or body.get("contents") or [])), (
        response, "sse" if sse else "http", sdk_response(resp_id=resp_id, ts_iso=ts_iso, reasoning=reasoning, a=a))
