"""Ollama's native API: NDJSON streams of `/api/chat` and `/api/generate`, or one object when `stream: false`.

Every line is a JSON object `{model, created_at, ..., done}`; `/api/chat` lines carry `message {role, content,
thinking?, tool_calls?}` where a tool call's `function.arguments` is an OBJECT (not a JSON string as in OpenAI);
`/api/generate` lines carry `response` and `thinking`. The last line has `done: true`, `done_reason`,
`prompt_eval_count` / `eval_count` and the durations (nanoseconds). An error is a line `{"error": "..."}`.
Ollama's body is not SSE, so the producer stores it with format `http`.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, lst, s

_USAGE_KEYS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration",
               "eval_duration")


def is_ollama(obj: dict) -> bool:
    """Ollama's shape: `done` as a bool beside `message` or `response` (or `created_at`)."""
    return isinstance(obj.get("done"), bool) and (
        isinstance(obj.get("message"), dict) or isinstance(obj.get("response"), str) or "created_at" in obj)


def feed(b: Builder, obj: dict) -> None:
    if obj.get("error") is not None:
        b.error(obj)
    b.model(obj.get("model"))
    msg = obj.get("message")
    if isinstance(msg, dict):
        b.r.dialect = "ollama-chat"
        b.append("thinking", s(msg.get("thinking")), key="thinking")
        b.append("text", s(msg.get("content")), key="text")
        for tc in lst(msg.get("tool_calls")):
            fn = d(d(tc).get("function"))
            call = b.tool(None, name=s(fn.get("name")), id=s(d(tc).get("id")))
            args = fn.get("arguments")
            call.arguments = args if isinstance(args, str) else compact(args) if args is not None else ""
            b.r.blocks[-1].parts[:] = [call.arguments] if call.arguments else []
    elif isinstance(obj.get("response"), str) or isinstance(obj.get("thinking"), str):
        b.r.dialect = "ollama-generate"
        b.append("thinking", s(obj.get("thinking")), key="thinking")
        b.append("text", s(obj.get("response")), key="text")
    if obj.get("done") is True:
        b.stop(s(obj.get("done_reason")) or "done")
        b.set_usage({k: obj[k] for k in _USAGE_KEYS if isinstance(obj.get(k), (int, float))})
