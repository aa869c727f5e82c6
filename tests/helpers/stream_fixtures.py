"""Hand-written, real-shaped provider streams and answers (from each provider's public API reference and SDK
streaming code: anthropic-sdk-python lib/streaming, openai-python lib/streaming/chat and responses, google-genai,
ollama api/types.go). Shared by the decoder tests and the payload-screen tests."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "streams"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def sse(*events: tuple[str | None, object], eol: str = "\n") -> str:
    """`event:` (when named) + one `data:` line per event, each closed by a blank line."""
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out.append((f"event: {name}{eol}" if name else "") + f"data: {payload}{eol}{eol}")
    return "".join(out)


def a(name: str, **data) -> tuple[str, dict]:
    """An Anthropic event: the event name repeated as the data's `type`."""
    return name, {"type": name, **data}


def text_block(index: int, *texts: str, citations=()) -> list:
    out = [a("content_block_start", index=index, content_block={"type": "text", "text": ""})]
    out += [a("content_block_delta", index=index, delta={"type": "text_delta", "text": t}) for t in texts]
    out += [a("content_block_delta", index=index, delta={"type": "citations_delta", "citation": c})
            for c in citations]
    out.append(a("content_block_stop", index=index))
    return out


def thinking_block(index: int, *texts: str) -> list:
    return [a("content_block_start", index=index, content_block={"type": "thinking", "thinking": ""}),
            *[a("content_block_delta", index=index, delta={"type": "thinking_delta", "thinking": t}) for t in texts],
            a("content_block_delta", index=index, delta={"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
            a("content_block_stop", index=index)]


def message_start(model="claude-sonnet-4-5-20250929", **usage) -> tuple[str, dict]:
    return a("message_start", message={"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
                                       "content": [], "model": model, "stop_reason": None, "stop_sequence": None,
                                       "usage": {"input_tokens": 472, "output_tokens": 2, **usage}})


# Interleaved thinking: two thinking blocks, a redacted one, text between, a tool call, pings.
ANTHROPIC_INTERLEAVED = sse(
    message_start(cache_read_input_tokens=1200),
    a("ping"),
    *thinking_block(0, "First, find the file. ", "Then read it."),
    *text_block(1, "I'll look for the config."),
    a("content_block_start", index=2, content_block={"type": "redacted_thinking",
                                                     "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3"}),
    a("content_block_stop", index=2),
    *thinking_block(3, "The tool result says port 19999."),
    a("ping"),
    *text_block(4, "Netdata listens on ", "port 19999."),
    a("content_block_start", index=5, content_block={"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                                                     "name": "read_file", "input": {}}),
    a("content_block_delta", index=5, delta={"type": "input_json_delta", "partial_json": ""}),
    a("content_block_delta", index=5, delta={"type": "input_json_delta", "partial_json": '{"path": "/etc/net'}),
    a("content_block_delta", index=5, delta={"type": "input_json_delta", "partial_json": 'data/netdata.conf"}'}),
    a("content_block_stop", index=5),
    a("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None}, usage={"output_tokens": 219}),
    a("message_stop"),
)

# Web search: server_tool_use, web_search_tool_result, text with citations_delta.
ANTHROPIC_WEB_SEARCH = sse(
    message_start(model="claude-opus-4-1-20250805"),
    a("content_block_start", index=0, content_block={"type": "server_tool_use", "id": "srvtoolu_014hJH82Qum7Td6UZ",
                                                     "name": "web_search", "input": {}}),
    a("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"query": "netdata lat'}),
    a("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": 'est release"}'}),
    a("content_block_stop", index=0),
    a("content_block_start", index=1, content_block={
        "type": "web_search_tool_result", "tool_use_id": "srvtoolu_014hJH82Qum7Td6UZ",
        "content": [{"type": "web_search_result", "title": "Releases · netdata/netdata", "url":
                     "https://github.com/netdata/netdata/releases", "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
                     "page_age": "2 days ago"},
                    {"type": "web_search_result", "title": "Netdata v2.6", "url": "https://www.netdata.cloud/blog/",
                     "encrypted_content": "EpcBCioIARgBIiQ"}]}),
    a("content_block_stop", index=1),
    *text_block(2, "The latest release is v2.6.", citations=[
        {"type": "web_search_result_location", "url": "https://github.com/netdata/netdata/releases",
         "title": "Releases · netdata/netdata", "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0",
         "cited_text": "v2.6.0 Latest"}]),
    a("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None},
      usage={"output_tokens": 91, "server_tool_use": {"web_search_requests": 1}}),
    a("message_stop"),
)

ANTHROPIC_REFUSAL = sse(
    message_start(),
    *text_block(0, "I can"),
    a("message_delta", delta={"stop_reason": "refusal", "stop_sequence": None,
                              "stop_details": {"type": "refusal", "category": "cyber",
                                               "explanation": "request for malware"}},
      usage={"output_tokens": 3}),
    a("message_stop"),
)

ANTHROPIC_ERROR_MID_STREAM = sse(
    message_start(),
    a("ping"),
    *text_block(0, "Partial answ"),
    a("error", error={"type": "overloaded_error", "message": "Overloaded"}),
)

ANTHROPIC_MESSAGE = {
    "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "thinking", "thinking": "Simple arithmetic.", "signature": "EqQBCgIYAhIM"},
                {"type": "text", "text": "2 + 2 = 4."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "calculator",
                 "input": {"expression": "2+2"}}],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 2095, "output_tokens": 503, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0},
}


def chat_chunk(delta: dict | None = None, finish=None, index: int = 0, **extra) -> dict:
    chunk = {"id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "chat.completion.chunk",
             "created": 1741569952, "model": "gpt-4.1-2025-04-14", "system_fingerprint": "fp_44709d6fcb",
             "choices": [] if delta is None else [{"index": index, "delta": delta, "logprobs": None,
                                                   "finish_reason": finish}]}
    chunk.update(extra)
    return chunk


OPENAI_REFUSAL = sse(
    (None, chat_chunk({"role": "assistant", "content": None, "refusal": ""})),
    (None, chat_chunk({"refusal": "I'm sorry, "})),
    (None, chat_chunk({"refusal": "I can't help with that."})),
    (None, chat_chunk({}, finish="stop")),
    (None, "[DONE]"),
)

OPENAI_N2 = sse(
    (None, chat_chunk({"role": "assistant", "content": ""}, index=0)),
    (None, chat_chunk({"role": "assistant", "content": ""}, index=1)),
    (None, chat_chunk({"content": "Red "}, index=0)),
    (None, chat_chunk({"content": "Blue "}, index=1)),
    (None, chat_chunk({"content": "apple."}, index=0)),
    (None, chat_chunk({"content": "sky."}, index=1)),
    (None, chat_chunk({}, finish="stop", index=0)),
    (None, chat_chunk({}, finish="length", index=1)),
    (None, chat_chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 6, "total_tokens": 15,
                                   "prompt_tokens_details": {"cached_tokens": 0}})),
    (None, "[DONE]"),
)

OPENAI_ERROR_MID_STREAM = sse(
    (None, chat_chunk({"role": "assistant", "content": "Hal"})),
    (None, {"error": {"message": "The server had an error while processing your request.", "type": "server_error",
                      "param": None, "code": None}}),
)

# DeepSeek reasoner: reasoning_content first, then content; usage on the last chunk.
DEEPSEEK = sse(
    (None, {**chat_chunk({"role": "assistant", "content": None, "reasoning_content": ""}),
            "model": "deepseek-reasoner"}),
    (None, {**chat_chunk({"content": None, "reasoning_content": "9.11 vs 9.8: compare tenths."}),
            "model": "deepseek-reasoner"}),
    (None, {**chat_chunk({"content": "9.8 is larger.", "reasoning_content": None}), "model": "deepseek-reasoner"}),
    (None, {**chat_chunk({"content": ""}, finish="stop",
                         usage={"prompt_tokens": 15, "completion_tokens": 90, "total_tokens": 105,
                                "completion_tokens_details": {"reasoning_tokens": 70}}),
            "model": "deepseek-reasoner"}),
    (None, "[DONE]"),
)

# OpenRouter: `: OPENROUTER PROCESSING` comments, `provider`, `reasoning`, usage with cost, CRLF line ends.
OPENROUTER = (
    ": OPENROUTER PROCESSING\r\n\r\n: OPENROUTER PROCESSING\r\n\r\n"
    + sse(
        (None, {**chat_chunk({"role": "assistant", "content": "", "reasoning": "Think."}),
                "provider": "Fireworks", "model": "deepseek/deepseek-r1"}),
        (None, {**chat_chunk({"content": "Answer."}), "provider": "Fireworks", "model": "deepseek/deepseek-r1"}),
        (None, {**chat_chunk({}, finish="stop"), "provider": "Fireworks", "model": "deepseek/deepseek-r1"}),
        (None, {**chat_chunk(None), "provider": "Fireworks", "model": "deepseek/deepseek-r1",
                "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14, "cost": 0.0000285,
                          "is_byok": False, "cost_details": {"upstream_inference_cost": None}}}),
        (None, "[DONE]"), eol="\r\n")
)

# An OpenAI-compatible server that sends named `ping` events (and an empty one) before its chunks.
OPENAI_WITH_PINGS = (
    "event: ping\ndata: {\"type\": \"ping\"}\n\nevent: ping\n\n"
    + sse((None, chat_chunk({"role": "assistant", "content": "pong"})), (None, chat_chunk({}, finish="stop")),
          (None, "[DONE]"))
)

CHAT_COMPLETION = {
    "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion", "created": 1741570283,
    "model": "gpt-4o-2024-08-06",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": None,
                                         "tool_calls": [{"id": "call_abc123", "type": "function", "function": {
                                             "name": "get_current_weather",
                                             "arguments": "{\n\"location\": \"Boston, MA\"\n}"}}]},
                 "logprobs": None, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
}


def r(t: str, **data) -> tuple[str, dict]:
    """A Responses API event (event name = data type)."""
    return t, {"type": t, **data}


RESPONSE_BASE = {"id": "resp_67ccd3a9da748190baa7f1570fe91ac6", "object": "response", "created_at": 1741476777,
                 "model": "gpt-5-2025-08-07", "output": [], "usage": None}

RESPONSES_ALL_ITEMS = sse(
    r("response.created", sequence_number=0, response={**RESPONSE_BASE, "status": "in_progress"}),
    r("response.in_progress", sequence_number=1, response={**RESPONSE_BASE, "status": "in_progress"}),
    r("response.output_item.added", output_index=0, sequence_number=2,
      item={"id": "rs_1", "type": "reasoning", "summary": []}),
    r("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=0,
      part={"type": "summary_text", "text": ""}),
    r("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=0,
      delta="**Planning** the patch."),
    r("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=1,
      delta="Then search."),
    r("response.output_item.done", output_index=0,
      item={"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "**Planning** the patch."},
                                                           {"type": "summary_text", "text": "Then search."}]}),
    r("response.output_item.added", output_index=1,
      item={"id": "ws_1", "type": "web_search_call", "status": "in_progress"}),
    r("response.web_search_call.searching", output_index=1, item_id="ws_1"),
    r("response.output_item.done", output_index=1,
      item={"id": "ws_1", "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "apply_patch grammar"}}),
    r("response.output_item.added", output_index=2,
      item={"id": "fs_1", "type": "file_search_call", "status": "in_progress", "queries": []}),
    r("response.output_item.done", output_index=2,
      item={"id": "fs_1", "type": "file_search_call", "status": "completed", "queries": ["patch format"],
            "results": None}),
    r("response.output_item.added", output_index=3,
      item={"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_Xc2", "name": "apply_patch", "input": ""}),
    r("response.custom_tool_call_input.delta", item_id="ctc_1", output_index=3, delta="*** Begin Patch\n"),
    r("response.custom_tool_call_input.delta", item_id="ctc_1", output_index=3, delta="*** End Patch"),
    r("response.custom_tool_call_input.done", item_id="ctc_1", output_index=3,
      input="*** Begin Patch\n*** End Patch"),
    r("response.output_item.added", output_index=4,
      item={"id": "fc_1", "type": "function_call", "call_id": "call_9", "name": "get_weather", "arguments": ""}),
    r("response.function_call_arguments.delta", item_id="fc_1", output_index=4, delta='{"city":'),
    r("response.function_call_arguments.delta", item_id="fc_1", output_index=4, delta=' "Oslo"}'),
    r("response.function_call_arguments.done", item_id="fc_1", output_index=4, arguments='{"city": "Oslo"}'),
    r("response.output_item.added", output_index=5,
      item={"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
    r("response.content_part.added", item_id="msg_1", output_index=5, content_index=0,
      part={"type": "output_text", "text": "", "annotations": []}),
    r("response.output_text.delta", item_id="msg_1", output_index=5, content_index=0, delta="Patched "),
    r("response.output_text.delta", item_id="msg_1", output_index=5, content_index=0, delta="and checked."),
    r("response.output_text.done", item_id="msg_1", output_index=5, content_index=0, text="Patched and checked."),
    r("response.output_item.done", output_index=5,
      item={"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Patched and checked.", "annotations": []}]}),
    r("response.completed", response={**RESPONSE_BASE, "status": "completed",
                                      "usage": {"input_tokens": 36, "output_tokens": 87, "total_tokens": 123,
                                                "output_tokens_details": {"reasoning_tokens": 64}}}),
)

RESPONSES_REFUSAL = sse(
    r("response.created", response={**RESPONSE_BASE, "status": "in_progress"}),
    r("response.output_item.added", output_index=0,
      item={"id": "msg_2", "type": "message", "role": "assistant", "content": []}),
    r("response.refusal.delta", item_id="msg_2", output_index=0, content_index=0, delta="I can't help with that."),
    r("response.refusal.done", item_id="msg_2", output_index=0, content_index=0, refusal="I can't help with that."),
    r("response.completed", response={**RESPONSE_BASE, "status": "completed"}),
)

RESPONSES_FAILED = sse(
    r("response.created", response={**RESPONSE_BASE, "status": "in_progress"}),
    r("response.output_text.delta", item_id="msg_3", output_index=0, content_index=0, delta="Half"),
    r("response.failed", response={**RESPONSE_BASE, "status": "failed",
                                   "error": {"code": "server_error", "message": "The model failed."}}),
)

RESPONSES_INCOMPLETE_AND_ERROR = sse(
    r("response.output_text.delta", item_id="msg_4", output_index=0, content_index=0, delta="Long"),
    ("error", {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.", "param": None}),
    r("response.incomplete", response={**RESPONSE_BASE, "status": "incomplete",
                                       "incomplete_details": {"reason": "max_output_tokens"}}),
)

RESPONSE_OBJECT = {
    **RESPONSE_BASE, "status": "completed",
    "output": [
        {"type": "reasoning", "id": "rs_9", "summary": [{"type": "summary_text", "text": "Brief plan."}]},
        {"type": "message", "id": "msg_9", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "In a quiet forest, a unicorn slept.",
                      "annotations": [{"type": "url_citation", "url": "https://example.org/u", "title": "Unicorns",
                                       "start_index": 0, "end_index": 5}]}]},
        {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "save", "arguments": "{\"x\":1}"},
    ],
    "usage": {"input_tokens": 36, "output_tokens": 87, "total_tokens": 123},
}


def gemini_chunk(parts: list, finish: str | None = None, usage: dict | None = None, index: int = 0) -> dict:
    cand = {"content": {"parts": parts, "role": "model"}, "index": index}
    if finish:
        cand["finishReason"] = finish
    chunk = {"candidates": [cand], "modelVersion": "gemini-2.5-pro", "responseId": "mIk1aJ2mKc6w1MkP6t2-mAQ"}
    if usage:
        chunk["usageMetadata"] = usage
    return chunk


# `streamGenerateContent?alt=sse`: data lines only, CRLF line ends, no event names.
GEMINI_SSE = sse(
    (None, gemini_chunk([{"text": "Plan: call the tool.", "thought": True}],
                        usage={"promptTokenCount": 30, "totalTokenCount": 30})),
    (None, gemini_chunk([{"text": "Looking it up. "}])),
    (None, gemini_chunk([{"functionCall": {"name": "search_docs", "args": {"q": "alerts", "limit": 3}},
                          "thoughtSignature": "CiQB0e2Kb7xY"}], finish="STOP",
                        usage={"promptTokenCount": 30, "candidatesTokenCount": 12, "thoughtsTokenCount": 40,
                               "cachedContentTokenCount": 8, "totalTokenCount": 82})),
    eol="\r\n",
)

GEMINI_ERROR = {"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).",
                          "status": "RESOURCE_EXHAUSTED"}}

GEMINI_RESPONSE = {
    "candidates": [{"content": {"parts": [{"text": "Hello!"}], "role": "model"}, "finishReason": "STOP", "index": 0},
                   {"content": {"parts": [{"text": "Hi there!"}], "role": "model"}, "finishReason": "MAX_TOKENS",
                    "index": 1}],
    "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 5, "totalTokenCount": 9},
    "modelVersion": "gemini-2.0-flash",
}

OLLAMA_CHAT_ONE = {
    "model": "llama3.2", "created_at": "2023-12-12T14:13:43.416799Z",
    "message": {"role": "assistant", "content": "Hello! How are you today?"},
    "done": True, "done_reason": "stop", "total_duration": 5191566416, "load_duration": 2154458,
    "prompt_eval_count": 26, "prompt_eval_duration": 383809000, "eval_count": 298, "eval_duration": 4799921000,
}
