"""Every provider's stream and answer, decoded (tui.payloads via tui.payloads.decode / op_captures): dialect detected
from the data, reassembled text / thinking / tool calls / stop / usage / errors, and the SSE framing cases."""

from __future__ import annotations

import base64
import gzip
import json

import pytest

from helpers.stream_fixtures import (
    ANTHROPIC_ERROR_MID_STREAM, ANTHROPIC_INTERLEAVED, ANTHROPIC_MESSAGE, ANTHROPIC_REFUSAL, ANTHROPIC_WEB_SEARCH,
    CHAT_COMPLETION, DEEPSEEK, GEMINI_ERROR, GEMINI_RESPONSE, GEMINI_SSE, OLLAMA_CHAT_ONE, OPENAI_ERROR_MID_STREAM,
    OPENAI_N2, OPENAI_REFUSAL, OPENAI_WITH_PINGS, OPENROUTER, RESPONSE_OBJECT, RESPONSES_ALL_ITEMS, RESPONSES_FAILED,
    RESPONSES_INCOMPLETE_AND_ERROR, RESPONSES_REFUSAL, a, chat_chunk, fixture, message_start, sse, text_block,
)
from tui.payloads import parse_sse, reassemble_events
from tui.payloads.captures import Capture, find_captures
from tui.payloads.decode import decode_bytes, decode_capture
from tui.payloads.op_captures import payload_views


def decoded(body: str | bytes, fmt: str = ""):
    return decode_bytes(body.encode() if isinstance(body, str) else body, fmt)


def text_view(body: str | bytes, fmt: str = "") -> list[str]:
    return list(dict(payload_views(None, decoded(body, fmt)))["text"])


def calls(r) -> list[tuple[str, str]]:
    return [(tc.name, tc.arguments) for tc in r.tool_calls]


# --- Anthropic Messages -------------------------------------------------------------------------------


def test_anthropic_thinking_blocks_apart_redacted_on_its_own_line():
    v = decoded(ANTHROPIC_INTERLEAVED, "sse")
    r = v.reassembled
    assert r.dialect == "anthropic" and r.label == "Anthropic Messages stream"
    assert r.thinking_blocks == ["First, find the file. Then read it.", "[redacted thinking]",
                                 "The tool result says port 19999."]
    assert r.text == "I'll look for the config.\n\nNetdata listens on port 19999."
    assert calls(r) == [("read_file", '{"path": "/etc/netdata/netdata.conf"}')]
    assert r.tool_calls[0].id == "toolu_01T1x1fJ34qAmk2tNTrN7Up6"
    assert r.stop_reason == "tool_use" and r.usage["output_tokens"] == 219
    assert r.usage["cache_read_input_tokens"] == 1200
    text = text_view(ANTHROPIC_INTERLEAVED, "sse")
    assert "── thinking (1 of 3)" in text and "── thinking (3 of 3)" in text
    i = text.index("── thinking (2 of 3)")
    assert text[i + 1] == "[redacted thinking]"
    assert text[0].startswith("── Anthropic Messages stream · model claude-sonnet-4-5-20250929 · stop tool_use")


def test_anthropic_web_search_and_citations():
    r = decoded(ANTHROPIC_WEB_SEARCH, "sse").reassembled
    assert r.tool_calls[0].name == "web_search" and r.tool_calls[0].kind == "server"
    assert json.loads(r.tool_calls[0].arguments) == {"query": "netdata latest release"}
    assert [b.text for b in r.of_kind("search_result")] == [
        "Releases · netdata/netdata <https://github.com/netdata/netdata/releases>",
        "Netdata v2.6 <https://www.netdata.cloud/blog/>"]
    assert [b.text for b in r.of_kind("citation")] == [
        "Releases · netdata/netdata <https://github.com/netdata/netdata/releases>: “v2.6.0 Latest”"]
    assert r.text == "The latest release is v2.6."
    assert r.usage["server_tool_use"] == {"web_search_requests": 1}
    text = text_view(ANTHROPIC_WEB_SEARCH, "sse")
    assert "── search results (2)" in text and "── citations (1)" in text
    assert any("server_tool_use.web_search_requests=1" in ln for ln in text)


def test_anthropic_refusal_with_stop_details():
    r = decoded(ANTHROPIC_REFUSAL, "sse").reassembled
    assert r.stop_reason == "refusal" and "category cyber" in r.stop_details
    assert text_view(ANTHROPIC_REFUSAL)[0].endswith(
        "stop refusal (type refusal, category cyber, explanation request for malware)")
    assert text_view(ANTHROPIC_REFUSAL)[1] == "── usage input_tokens=472, output_tokens=3"


def test_anthropic_error_mid_stream_and_pings():
    v = decoded(ANTHROPIC_ERROR_MID_STREAM)
    assert v.kind == "sse" and v.reassembled.dialect == "anthropic"
    assert v.reassembled.errors == ["overloaded_error: Overloaded"] and v.reassembled.text == "Partial answ"
    text = text_view(ANTHROPIC_ERROR_MID_STREAM)
    assert text[2:4] == ["── errors (1)", "overloaded_error: Overloaded"] and "Partial answ" in text


def test_anthropic_message_non_streaming():
    body = json.dumps(ANTHROPIC_MESSAGE)
    v = decoded(body, "http")
    assert v.kind == "json" and v.reassembled.label == "Anthropic Messages response"
    assert v.reassembled.text == "2 + 2 = 4." and v.reassembled.thinking == "Simple arithmetic."
    assert calls(v.reassembled) == [("calculator", '{"expression":"2+2"}')]
    views = dict(payload_views(None, v))
    assert list(views) == ["text", "json", "raw", "hex"]
    assert "2 + 2 = 4." in views["text"] and '  "type": "message",' in views["json"]


# --- OpenAI Chat Completions and compatible servers ----------------------------------------------------


def test_openai_refusal_is_shown():
    r = decoded(OPENAI_REFUSAL).reassembled
    assert r.dialect == "openai-chat" and r.refusal == "I'm sorry, I can't help with that."
    text = text_view(OPENAI_REFUSAL)
    assert "(no text)" not in text
    assert text[text.index("── refusal") + 1] == "I'm sorry, I can't help with that."


def test_openai_every_choice_when_n_is_2():
    r = decoded(OPENAI_N2).reassembled
    assert r.choices == [0, 1] and r.text_of(0) == "Red apple." and r.text_of(1) == "Blue sky."
    assert r.stops == {0: "stop", 1: "length"}
    text = text_view(OPENAI_N2)
    assert text[text.index("── text (choice 0, stop stop)") + 1] == "Red apple."
    assert text[text.index("── text (choice 1, stop length)") + 1] == "Blue sky."
    assert "prompt_tokens_details.cached_tokens=0" in text[1] and text[1].startswith("── usage ")


def test_openai_error_mid_stream():
    r = decoded(OPENAI_ERROR_MID_STREAM).reassembled
    assert r.dialect == "openai-chat" and r.text == "Hal"
    assert r.errors == ["server_error: The server had an error while processing your request."]


def test_deepseek_reasoning_content_and_openrouter():
    r = decoded(DEEPSEEK).reassembled
    assert r.thinking == "9.11 vs 9.8: compare tenths." and r.text == "9.8 is larger."
    assert r.usage["completion_tokens_details"] == {"reasoning_tokens": 70}
    v = decoded(OPENROUTER, "sse")
    r = v.reassembled
    assert r.dialect == "openai-chat" and r.provider == "Fireworks" and r.model == "deepseek/deepseek-r1"
    assert r.thinking == "Think." and r.text == "Answer." and r.usage["cost"] == 0.0000285
    assert all(not e.data.startswith(":") for e in v.events)  # comments are not events
    # the cost leads the usage heading: on the dialect's line it ran past the screen's edge
    assert "via Fireworks" in text_view(OPENROUTER)[0] and text_view(OPENROUTER)[1].startswith("── usage cost=0.0000285,")


def test_ping_event_does_not_make_a_stream_anthropic():
    v = decoded(OPENAI_WITH_PINGS)
    assert v.kind == "sse" and [e.event for e in v.events][:2] == ["ping", "ping"]
    assert v.reassembled.dialect == "openai-chat" and v.reassembled.text == "pong"
    assert v.reassembled.errors == []


def test_chat_completion_non_streaming():
    v = decoded(json.dumps(CHAT_COMPLETION))
    r = v.reassembled
    assert r.label == "OpenAI Chat Completions response" and r.stop_reason == "tool_calls"
    assert calls(r) == [("get_current_weather", '{\n"location": "Boston, MA"\n}')]
    text = text_view(json.dumps(CHAT_COMPLETION))
    assert "get_current_weather [call_abc123]:" in text and '    "location": "Boston, MA"' in text


# --- OpenAI Responses API ------------------------------------------------------------------------------


def test_responses_every_output_item_type():
    r = decoded(RESPONSES_ALL_ITEMS, "sse").reassembled
    assert r.dialect == "openai-responses" and r.text == "Patched and checked."
    assert r.thinking_blocks == ["**Planning** the patch.", "Then search."]
    got = {tc.name: (tc.kind, tc.arguments, tc.id) for tc in r.tool_calls}
    assert got["apply_patch"] == ("custom", "*** Begin Patch\n*** End Patch", "call_Xc2")
    assert got["get_weather"] == ("", '{"city": "Oslo"}', "call_9")
    assert json.loads(got["web_search_call"][1]) == {"type": "search", "query": "apply_patch grammar"}
    assert json.loads(got["file_search_call"][1]) == {"queries": ["patch format"]}
    assert r.usage["output_tokens_details"] == {"reasoning_tokens": 64} and r.stop_reason == "completed"
    text = text_view(RESPONSES_ALL_ITEMS)
    i = text.index("apply_patch [custom tool, call_Xc2]:")
    assert text[i + 1: i + 3] == ["  *** Begin Patch", "  *** End Patch"]
    assert "(no arguments)" not in text


def test_responses_refusal_failed_incomplete_and_error_event():
    r = decoded(RESPONSES_REFUSAL).reassembled
    assert r.refusal == "I can't help with that." and r.text == ""
    r = decoded(RESPONSES_FAILED).reassembled
    assert r.errors == ["server_error: The model failed."] and r.stop_reason == "failed" and r.text == "Half"
    r = decoded(RESPONSES_INCOMPLETE_AND_ERROR).reassembled
    assert r.errors == ["rate_limit_exceeded: Slow down."] and r.stop_reason == "max_output_tokens"


def test_response_object_non_streaming():
    r = decoded(json.dumps(RESPONSE_OBJECT)).reassembled
    assert r.label == "OpenAI Responses response" and r.thinking == "Brief plan."
    assert r.text == "In a quiet forest, a unicorn slept." and calls(r) == [("save", '{"x":1}')]
    assert [b.text for b in r.of_kind("citation")] == ["Unicorns <https://example.org/u>"]


# --- Google Gemini --------------------------------------------------------------------------------------


def test_gemini_stream_as_pretty_json_array_stored_as_http():
    body = fixture("gemini-stream-array.json")
    assert b",\r\n{" in body and body.startswith(b"[{\r\n")
    v = decode_bytes(body, "http")
    assert v.kind == "json" and len(v.events) == 3
    r = v.reassembled
    assert r.label == "Google Gemini stream" and r.model == "gemini-2.5-flash"
    assert r.thinking == "**Weighing the sources**\n\nThe user wants the capital; check both."
    assert r.text == "The capital of Greece is Athens (Αθήνα)."
    assert calls(r) == [("get_weather", '{"city":"Athens","unit":"celsius"}')]
    assert r.stop_reason == "STOP"
    assert r.usage == {"promptTokenCount": 41, "candidatesTokenCount": 25, "totalTokenCount": 131,
                       "cachedContentTokenCount": 12, "thoughtsTokenCount": 65}
    assert not any("not valid JSON" in n for n in v.notes)


def test_gemini_stream_as_sse_and_cut_array():
    v = decoded(GEMINI_SSE, "sse")
    r = v.reassembled
    assert r.dialect == "gemini" and r.thinking == "Plan: call the tool." and r.text == "Looking it up. "
    assert calls(r) == [("search_docs", '{"q":"alerts","limit":3}')] and r.usage["thoughtsTokenCount"] == 40
    cut = fixture("gemini-stream-array.json")[:-200]
    v = decode_bytes(cut, "http")
    assert v.kind == "ndjson" and v.reassembled.dialect == "gemini"
    assert v.reassembled.text == "The capital of Greece is " and any("cut off" in n for n in v.notes)


def test_gemini_error_candidates_and_non_streaming():
    arr = json.dumps([json.loads(json.dumps(GEMINI_RESPONSE)), GEMINI_ERROR])
    r = decoded(arr).reassembled
    assert r.errors == ["RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota)."]
    r = decoded(json.dumps(GEMINI_RESPONSE)).reassembled
    assert r.label == "Google Gemini response" and r.choices == [0, 1]
    assert r.text_of(1) == "Hi there!" and r.stops == {0: "STOP", 1: "MAX_TOKENS"}
    r = decoded(json.dumps(GEMINI_ERROR)).reassembled
    assert r.label == "error response" and r.errors[0].startswith("RESOURCE_EXHAUSTED")
    v = decoded(json.dumps([GEMINI_ERROR]), "http")  # a stream that failed before its first chunk
    assert v.reassembled.errors[0].startswith("RESOURCE_EXHAUSTED")
    assert dict(payload_views(None, v))["text"][1:3] == ["── errors (1)", v.reassembled.errors[0]]


# --- Ollama ---------------------------------------------------------------------------------------------


def test_ollama_chat_ndjson_with_tool_calls():
    v = decode_bytes(fixture("ollama-chat.ndjson"), "http")
    assert v.kind == "ndjson" and v.notes == [] and len(v.events) == 6
    r = v.reassembled
    assert r.label == "Ollama /api/chat stream" and r.model == "qwen3:8b"
    assert r.thinking == "The user asks for weather; call the tool." and r.text == "Checking the weather…"
    assert calls(r) == [("get_weather", '{"city":"Paris","days":2}')]
    assert r.stop_reason == "stop" and r.usage["prompt_eval_count"] == 26 and r.usage["eval_count"] == 282
    text = text_view(fixture("ollama-chat.ndjson"), "http")
    assert '    "city": "Paris",' in text


def test_ollama_generate_and_single_object():
    r = decode_bytes(fixture("ollama-generate.ndjson"), "http").reassembled
    assert r.label == "Ollama /api/generate stream" and r.thinking == "Count the letters in strawberry."
    assert r.text == "There are three r's." and r.stop_reason == "length"
    r = decoded(json.dumps(OLLAMA_CHAT_ONE), "http").reassembled
    assert r.label == "Ollama /api/chat response" and r.text == "Hello! How are you today?"
    r = decoded('{"error":"model \\"llama9\\" not found, try pulling it first"}', "http").reassembled
    assert r.errors == ['model "llama9" not found, try pulling it first']


# --- requests, unknown dialects -------------------------------------------------------------------------


@pytest.mark.parametrize("body, line", [
    ({"model": "claude-x", "max_tokens": 10, "system": "s", "messages": [{"role": "user", "content": "hi"}],
      "stream": True}, "Anthropic Messages request · model claude-x · 1 message · streamed"),
    ({"model": "gpt-4o", "messages": [], "tools": [{"type": "function", "function": {"name": "f"}}]},
     "OpenAI Chat Completions request · model gpt-4o · 0 messages · 1 tool"),
    ({"model": "gpt-5", "input": [{"role": "user", "content": "hi"}], "stream": True},
     "OpenAI Responses request · model gpt-5 · 1 message · streamed"),
    ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": [{"functionDeclarations": [{}, {}]}]},
     "Google Gemini request · 1 message · 2 tools"),
    ({"model": "qwen3", "messages": [{}], "options": {"num_ctx": 8192}, "stream": False},
     "Ollama /api/chat request · model qwen3 · 1 message · not streamed"),
])
def test_request_bodies_are_named(body, line):
    text = text_view(json.dumps(body), "http")
    assert text[0] == f"── {line}" and text[1] == "{"


def test_unknown_dialect_events_view_and_one_line():
    body = sse(("status", {"state": "working", "pct": 40}), ("status", {"state": "done"}))
    v = decoded(body)
    assert v.kind == "sse" and v.reassembled.dialect == "unknown" and v.reassembled.errors == []
    views = dict(payload_views(None, v))
    assert views["text"][0] == "── stream dialect unknown: 2 events (see the events view)"
    assert not any("error" in ln.lower() for ln in views["text"])
    assert views["events"][0].startswith("status")
    plain = decoded(json.dumps({"result": {"rows": [1, 2]}}))
    assert plain.reassembled is None and plain.request is None
    assert dict(payload_views(None, plain))["text"][0] == "{"


# --- SSE framing (WHATWG) -------------------------------------------------------------------------------


def framing_stream(eol: str) -> str:
    return sse(message_start(), *text_block(0, "line one\n", "línea dos"), a("message_stop"), eol=eol)


@pytest.mark.parametrize("eol", ["\r\n", "\r", "\n"])
def test_line_endings(eol):
    r = decoded(framing_stream(eol)).reassembled
    assert r.dialect == "anthropic" and r.text == "line one\nlínea dos"


def test_comments_multiline_data_no_space_event_without_data_id_retry():
    body = (": hello\n"
            "retry: 3000\n"
            "id: 1\n"
            "event: content_block_delta\n"
            'data:{"type": "content_block_delta", "index": 0,\n'
            'data: "delta": {"type": "text_delta", "text": "joined"}}\n'
            "\n"
            "event: ping\n"
            "\n"
            ": keep-alive\n"
            'data: {"type": "message_start", "message": {"model": "m"}}\n'
            "\n")
    events = parse_sse(body)
    assert [(e.event, e.id) for e in events] == [("content_block_delta", "1"), ("ping", "1"), ("", "1")]
    assert events[0].data == ('{"type": "content_block_delta", "index": 0,\n'
                              '"delta": {"type": "text_delta", "text": "joined"}}')
    assert events[1].data == ""
    r = reassemble_events(events)
    assert r.dialect == "anthropic" and r.text == "joined" and r.model == "m"


def test_utf8_split_across_chunks_in_a_base64_http_capture():
    stream = sse(message_start(), *text_block(0, "Καλημέρα ", "κόσμε 🌍"), a("message_stop")).encode()
    at = stream.index("🌍".encode()) + 2  # a chunk boundary in the middle of the 4-byte emoji
    at2 = stream.index("Καλη".encode()) + 1  # and inside a 2-byte Greek letter
    chunks = [stream[:at2], stream[at2:at], stream[at:]]
    body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in chunks) + b"0\r\n\r\n"
    http = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" + body
    c = Capture("response", "raw", "sse", "inline", value=base64.b64encode(http).decode())
    v = decode_capture(c)
    assert v.body_kind == "sse" and v.reassembled.text == "Καλημέρα κόσμε 🌍"
    assert not any("replaced" in n for n in v.notes)
    # a truly broken byte is replaced once, the rest of the stream still reassembled
    broken = stream.replace("κόσμε".encode(), b"\xce" + "όσμε".encode())
    v = decode_bytes(broken, "sse")
    assert v.reassembled.text == "Καλημέρα \ufffdόσμε 🌍"
    assert "invalid UTF-8 in SSE stream replaced" in v.notes


def test_one_40kb_event():
    big = "x" * 40_000 + "é"
    v = decoded(sse(message_start(), *text_block(0, big), a("message_stop")))
    assert len(v.events[2].data) > 40_000 and v.reassembled.text == big


def test_data_that_is_a_json_array_per_event_and_done_marker():
    body = sse((None, [chat_chunk({"content": "a"}), chat_chunk({"content": "b"})]), (None, "[DONE]"))
    assert decoded(body).reassembled.text == "ab"


# --- ai-agent captures: [unavailable] and sdk ----------------------------------------------------------


UNAVAILABLE_B64 = "W3VuYXZhaWxhYmxlXQ=="


@pytest.mark.parametrize("raw", [
    {"format": "sse", "encoding": "base64", "value": UNAVAILABLE_B64},
    UNAVAILABLE_B64,
    {"format": "http", "value": "W3VuYXZhaWxhYmxlXQ"},
])
def test_base64_unavailable_is_the_producers_capture_bug(raw):
    op = {"kind": "llm", "response": {"payload": {"raw": raw, "sdk": UNAVAILABLE_B64}}}
    caps = find_captures(op)
    assert [(c.source, c.state) for c in caps] == [("raw", "unavailable"), ("sdk", "unavailable")]
    assert all("capture bug" in c.note for c in caps)


def test_sdk_format_is_known_and_decoded_as_json():
    value = base64.b64encode(json.dumps({"content": [{"type": "text", "text": "hi"}],
                                         "finishReason": "stop"}).encode()).decode()
    op = {"kind": "llm", "response": {"payload": {"sdk": {"format": "sdk", "encoding": "base64", "value": value}}}}
    (c,) = find_captures(op)
    assert c.format == "sdk" and c.note == "" and c.state == "inline"
    v = decode_capture(c)
    assert v.kind == "json" and v.notes == []
    bad = Capture("response", "sdk", "sdk", "inline", value=base64.b64encode(b"{not json").decode())
    assert decode_capture(bad).notes[0].startswith("body is not valid JSON")


def test_placeholder_in_a_ref_file(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "r.sse.gz").write_bytes(gzip.compress(b"[unavailable]"))
    c = Capture("response", "raw", "sse", "ref", ref={"path": "p/r.sse.gz", "compression": "gzip"})
    v = decode_capture(c, tmp_path)
    assert any("capture bug in the producer" in n for n in v.notes)
    assert not any("no SSE events" in n for n in v.notes)
    assert dict(payload_views(c, v))["text"][0].startswith("capture bug in the producer")


# --- bad input is normal input ------------------------------------------------------------------------


def _mutations(value, rnd, depth=0):
    """The same shape with some values swapped for other JSON types (a list where a dict was, null, a number)."""
    odd = [None, 7, -1, "", "x", [], {}, [1, "a"], {"type": 3}, True, 1.5]
    if depth > 8:
        return value
    if isinstance(value, dict):
        return {k: (rnd.choice(odd) if rnd.random() < 0.15 else _mutations(v, rnd, depth + 1))
                for k, v in value.items()}
    if isinstance(value, list):
        return [rnd.choice(odd) if rnd.random() < 0.15 else _mutations(v, rnd, depth + 1) for v in value]
    return value


@pytest.mark.parametrize("seed", range(6))
def test_wrong_types_anywhere_never_raise(seed):
    import random

    rnd = random.Random(seed)
    streams = [ANTHROPIC_INTERLEAVED, ANTHROPIC_WEB_SEARCH, OPENAI_N2, OPENROUTER, RESPONSES_ALL_ITEMS, GEMINI_SSE]
    objects = [ANTHROPIC_MESSAGE, CHAT_COMPLETION, RESPONSE_OBJECT, GEMINI_RESPONSE, OLLAMA_CHAT_ONE, GEMINI_ERROR]
    for _ in range(20):
        for stream in streams:
            events = []
            for ev in parse_sse(stream):
                try:
                    data = json.dumps(_mutations(json.loads(ev.data), rnd))
                except ValueError:
                    data = ev.data
                events.append((ev.event or None, data))
            v = decoded(sse(*events))
            assert v.kind == "sse" and not any("internal decoder error" in n for n in v.notes), v.notes
            payload_views(None, v)
        for obj in objects:
            v = decoded(json.dumps(_mutations(obj, rnd)))
            assert not any("internal decoder error" in n for n in v.notes), v.notes
            payload_views(None, v)
        lines = fixture("ollama-chat.ndjson").decode().splitlines()
        body = "\n".join(json.dumps(_mutations(json.loads(ln), rnd)) for ln in lines)
        v = decoded(body, "http")
        assert not any("internal decoder error" in n for n in v.notes), v.notes
        payload_views(None, v)


def test_chat_tool_deltas_without_index_continue_the_last_call_and_legacy_completions():
    body = sse(
        (None, chat_chunk({"tool_calls": [{"id": "call_1", "type": "function",
                                           "function": {"name": "lookup", "arguments": '{"q": '}}]})),
        (None, chat_chunk({"tool_calls": [{"function": {"arguments": '"x"}'}}]})),
        (None, chat_chunk({}, finish="tool_calls")),
    )
    assert calls(decoded(body).reassembled) == [("lookup", '{"q": "x"}')]
    legacy = {"id": "cmpl-1", "object": "text_completion", "model": "llama",
              "choices": [{"index": 0, "text": "Once upon", "finish_reason": "length"}]}
    assert decoded(json.dumps(legacy)).reassembled.text == "Once upon"


def test_responses_annotation_events_are_citations():
    body = sse(
        ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "m", "output_index": 0,
                                        "content_index": 0, "delta": "See docs."}),
        ("response.output_text.annotation.added", {
            "type": "response.output_text.annotation.added", "item_id": "m", "output_index": 0,
            "content_index": 0, "annotation_index": 0,
            "annotation": {"type": "url_citation", "url": "https://learn.netdata.cloud", "title": "Docs"}}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": {
            "id": "m", "type": "message", "content": [{"type": "output_text", "text": "See docs.", "annotations": [
                {"type": "url_citation", "url": "https://learn.netdata.cloud", "title": "Docs"}]}]}}),
    )
    r = decoded(body).reassembled
    assert [b.text for b in r.of_kind("citation")] == ["Docs <https://learn.netdata.cloud>"]


def test_sse_sniffing_needs_a_data_or_event_line():
    assert decoded("id: 1\nmetadata: x\n").kind == "text"
    v = decoded("retry: 3000\n\nid: 9\ndata: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"hi\"}]}}]}\n\n")
    assert v.kind == "sse" and v.reassembled.dialect == "gemini" and v.reassembled.text == "hi"


def test_gemini_grounding_sources_listed_once():
    grounding = {"groundingChunks": [{"web": {"uri": "https://netdata.cloud", "title": "netdata.cloud"}}]}
    chunk = {"candidates": [{"content": {"parts": [{"text": "x"}]}, "groundingMetadata": grounding,
                             "citationMetadata": {"citations": [{"uri": "https://a.example"}]}}]}
    r = decoded(sse((None, chunk), (None, chunk))).reassembled
    assert [b.text for b in r.of_kind("search_result")] == ["netdata.cloud <https://netdata.cloud>"]
    assert [b.text for b in r.of_kind("citation")] == ["https://a.example"] and r.text == "xx"
