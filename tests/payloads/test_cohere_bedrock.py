"""Cohere v2 Chat and Amazon Bedrock Converse answers and streams, in every framing they arrive in (SSE with CRLF,
JSON answer, boto3's JSON events, the binary amazon eventstream), decoded into the common result; and eventstream
frames that are cut, corrupt or absurd never crash or hang: what decoded is shown, what was wrong is said."""

from __future__ import annotations

import base64
import json
import struct
import time

from helpers import eventstream_encoder as es
from helpers.payloadfixtures import b64, llm_op, tree
from helpers.stream_fixtures import fixture
from tui.formats.aiagent.snapshot import build_session
from tui.payloads.check import describe, payload_problems
from tui.payloads.decode import decode_bytes
from tui.payloads.messages import conversation_lines, conversation_of
from tui.payloads.op_captures import payload_views


def text_view(data: bytes, fmt: str = "http") -> list[str]:
    return list(dict(payload_views(None, decode_bytes(data, fmt)))["text"])


def test_cohere_tool_stream_crlf():
    r = decode_bytes(fixture("cohere-v2-tools-stream.sse"), "sse").reassembled
    assert r.label == "Cohere v2 Chat stream" and r.stop_reason == "TOOL_CALL"
    assert r.thinking == "I will search for the weather in Madrid and Brasilia, then compare them."  # the tool plan
    assert [(c.name, c.id, json.loads(c.arguments)) for c in r.tool_calls] == [
        ("get_weather", "get_weather_1byjy32y4hvq", {"location": "Madrid"}),
        ("get_weather", "get_weather_e5z6rk2h5r3n", {"location": "Brasilia"})]
    assert r.usage["billed_units"] == {"input_tokens": 37, "output_tokens": 28}
    assert r.usage["tokens"] == {"input_tokens": 913, "output_tokens": 83}


def test_cohere_thinking_text_and_citations_stream():
    lines = text_view(fixture("cohere-v2-rag-stream.sse"), "sse")
    assert lines[:2] == ["── Cohere v2 Chat stream · stop COMPLETE",
                         "── usage billed_units.input_tokens=41, billed_units.output_tokens=9, "
                         "tokens.input_tokens=1107, tokens.output_tokens=61"]
    assert lines[2:] == ["── thinking", "The documents list the benefits.", "── text", "We offer gym memberships.",
                         "── citations (1)", "doc:1: “gym memberships”"]


def test_cohere_stream_as_ndjson_or_data_only_sse_reads_the_same():
    events = [e.data for e in decode_bytes(fixture("cohere-v2-rag-stream.sse"), "sse").events]
    for body in ("\n".join(events), "".join(f"data: {e}\n\n" for e in events)):
        r = decode_bytes(body.encode(), "http").reassembled
        assert (r.label, r.text, r.thinking) == ("Cohere v2 Chat stream", "We offer gym memberships.",
                                                 "The documents list the benefits.")


def test_cohere_json_answer_and_an_error_at_the_end():
    r = decode_bytes(fixture("cohere-v2-chat.json"), "http").reassembled
    assert r.label == "Cohere v2 Chat response" and r.stop_reason == "TOOL_CALL"
    assert r.thinking_blocks == ["I will look up the weather in Madrid and Brasilia.", "Two cities: two calls."]
    assert [c.arguments for c in r.tool_calls] == ['{"location":"Madrid"}', '{"location":"Brasilia"}']
    failed = "".join(f"event: {e['type']}\r\ndata: {json.dumps(e)}\r\n\r\n" for e in (
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "Half"}}}},
        {"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "internal error, please retry"}}))
    r = decode_bytes(failed.encode(), "sse").reassembled
    assert r.text == "Half" and r.stop_reason == "ERROR" and r.errors == ["internal error, please retry"]


def test_converse_json_answer():
    lines = text_view(fixture("bedrock-converse.json"))
    assert lines[0] == "── Amazon Bedrock Converse response · stop tool_use"
    assert lines[1].startswith("── usage inputTokens=375, outputTokens=72, totalTokens=447")
    assert lines[1].endswith("metrics.latencyMs=1843")
    assert lines[2:5] == ["── thinking", "The user wants the most popular song on WZPZ.", "── text"]
    assert "top_song [tooluse_kZJMlvQmRJ6eAyJE5GIl7Q]:" in lines and '    "sign": "WZPZ"' in lines


def test_converse_citations_content():
    answer = {"output": {"message": {"role": "assistant", "content": [{"citationsContent": {
        "content": [{"text": "Emperor penguins are the tallest."}],
        "citations": [{"title": "penguins.pdf", "sourceContent": [{"text": "The emperor penguin is the tallest"}],
                       "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 34}}}]}}]}},
        "stopReason": "end_turn", "usage": {"inputTokens": 9, "outputTokens": 8, "totalTokens": 17}}
    r = decode_bytes(json.dumps(answer).encode(), "http").reassembled
    assert r.text == "Emperor penguins are the tallest." and r.stop_reason == "end_turn"
    assert [b.text for b in r.of_kind("citation")] == ["penguins.pdf: “The emperor penguin is the tallest”"]


def test_converse_stream_as_boto3_events_and_as_binary_frames_agree():
    as_json = decode_bytes(fixture("bedrock-converse-stream.json"), "http")
    binary = fixture("bedrock-converse-stream.eventstream")
    assert binary == es.converse_stream()  # the fixture is what the encoder writes
    framed = decode_bytes(binary, "http")
    assert framed.kind == "eventstream" and framed.notes == []
    for view in (as_json, framed):
        r = view.reassembled
        assert r.label == "Amazon Bedrock Converse stream" and r.stop_reason == "tool_use"
        assert r.thinking == "The user wants the most popular song."
        assert r.text == "I'll look up the top song on WZPZ."
        assert [(c.name, c.id, c.arguments) for c in r.tool_calls] == [
            ("top_song", "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", '{"sign": "WZPZ"}')]
        assert r.usage == {"inputTokens": 375, "outputTokens": 72, "totalTokens": 447, "metrics": {"latencyMs": 1843}}
    events = dict(payload_views(None, framed))["events"]
    assert len(events) == len(es.CONVERSE_EVENTS) and events[0].startswith("messageStart ")
    assert '"delta":{"text":"I\'ll look up "}' in events[5]


def test_eventstream_in_an_http_capture_with_an_exception_mid_stream():
    body = b"".join(es.event(name, payload) for name, payload in es.CONVERSE_EVENTS[:6])
    body += es.exception("throttlingException", "Too many requests, please wait.")
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n"
    view = decode_bytes(head + body, "http")
    assert view.kind == "http" and view.body_kind == "eventstream"
    assert view.reassembled.errors == ["throttlingException: Too many requests, please wait."]
    line, fine = describe(head + body, "http")
    assert line.startswith("http · Amazon Bedrock Converse stream · 1 error mid-stream: throttlingException") and not fine


def test_invoke_model_chunks_carry_the_models_own_stream():
    chunks = [{"type": "message_start", "message": {"model": "claude-3-haiku", "usage": {"input_tokens": 9}}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi there"}},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}]
    body = b"".join(es.event("chunk", {"bytes": base64.b64encode(json.dumps(c).encode()).decode()}) for c in chunks)
    r = decode_bytes(body, "http").reassembled
    assert r.label == "Anthropic Messages stream" and r.text == "Hi there" and r.stop_reason == "end_turn"


def _reads_quickly(data: bytes) -> object:
    t0 = time.thread_time()  # (CPU of this thread: the same bound however busy the machine is)
    view = decode_bytes(data, "http")
    assert time.thread_time() - t0 < 1.0
    return view


def test_cut_corrupt_and_absurd_frames_show_what_decoded_and_say_what_is_wrong():
    good = es.converse_stream()
    first = struct.unpack(">I", good[:4])[0]
    cut = _reads_quickly(good[:-10])
    assert cut.kind == "eventstream" and cut.reassembled.stop_reason == "tool_use"  # all but the metadata frame
    assert cut.notes[0].startswith(f"eventstream cut off: frame {len(es.CONVERSE_EVENTS)} at byte ")
    flipped = bytearray(good)
    flipped[first - 20] ^= 0x01  # inside the first frame's payload: its message CRC fails, its length holds
    bad_crc = _reads_quickly(bytes(flipped))
    assert bad_crc.notes == [f"eventstream frame 1 at byte 0: {bad_crc.notes[0].split(': ', 1)[1]}"]
    assert "message CRC mismatch" in bad_crc.notes[0] and bad_crc.reassembled.text == "I'll look up the top song on WZPZ."
    broken_prelude = bytearray(good)
    broken_prelude[first + 2] ^= 0xFF  # the second frame's total length: its prelude CRC fails
    stopped = _reads_quickly(bytes(broken_prelude))
    assert len(stopped.events) == 1 and "prelude CRC mismatch" in stopped.notes[0]
    huge = struct.pack(">II", 0xFFFFFFF0, 0)
    absurd = _reads_quickly(good[:first] + huge + struct.pack(">I", es.zlib.crc32(huge)) + b"\0" * 64)
    assert len(absurd.events) == 1 and "absurd lengths" in absurd.notes[0]
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n\r\n"  # said, not guessed
    for total, hlen, said in ((8, 0, "shorter than an empty frame"), (20, 9, "runs past the frame's end")):
        prelude = struct.pack(">II", total, hlen)
        view = _reads_quickly(head + prelude + struct.pack(">I", es.zlib.crc32(prelude)) + b"\0" * 8)
        assert view.body_kind == "binary" and said in view.notes[0]
    garbage = _reads_quickly(head + b"not an eventstream at all")
    assert garbage.body_kind != "eventstream" and "prelude CRC mismatch" in garbage.notes[0]


def test_every_cut_and_bit_flip_keeps_the_whole_frames_before_it():
    good = es.converse_stream()
    ends, at = [], 0
    for name, payload in es.CONVERSE_EVENTS:
        at += len(es.event(name, payload))
        ends.append(at)
    for cut in range(0, len(good), 3):
        view = decode_bytes(good[:cut], "http")
        whole = sum(1 for e in ends if e <= cut)
        assert not any(n.startswith("internal decoder error") for n in view.notes), cut
        assert len(view.events) == whole or (whole == 0 and view.kind != "eventstream"), cut
    for pos in range(ends[0], len(good), 5):  # past the first frame: it always decodes
        flipped = bytearray(good)
        flipped[pos] ^= 0x5A
        view = decode_bytes(bytes(flipped), "http")
        assert not any(n.startswith("internal decoder error") for n in view.notes), pos
        assert view.kind == "eventstream" and view.events[0].event == "messageStart" and view.notes, pos


def test_messages_view_and_dump_show_the_new_dialects():
    request = {"messages": [{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
               "inferenceConfig": {"maxTokens": 512}}
    req = decode_bytes(json.dumps(request).encode(), "http")
    lines = conversation_lines(conversation_of(req, decode_bytes(es.converse_stream(), "http"))).lines
    assert lines[0] == "Amazon Bedrock Converse request + response · 1 message"
    i = lines.index("── assistant · response")
    assert lines[i + 1:i + 3] == ["Amazon Bedrock Converse stream · stop tool_use",
                                  "usage inputTokens=375, outputTokens=72, totalTokens=447, metrics.latencyMs=1843"]
    assert lines[i + 3:i + 7] == ["· thinking", "  The user wants the most popular song.",
                                  "I'll look up the top song on WZPZ.", "→ tool call top_song  [tooluse_kZJMlvQmRJ6eAyJE5GIl7Q]"]
    op = build_session(tree(llm_op(
        {"raw": {"format": "http", "encoding": "base64", "value": b64(json.dumps(request))}},
        {"raw": {"format": "http", "encoding": "base64", "value": b64(es.converse_stream())}}))).turns[1].ops[0]
    assert payload_problems(op, None) == [
        "· payload request/raw: http (json) · Amazon Bedrock Converse request · 1 message",
        "· payload response/raw: http (eventstream) · Amazon Bedrock Converse stream"]
    cohere = build_session(tree(llm_op(None, {"raw": {"format": "sse", "encoding": "base64",
                                                      "value": b64(fixture("cohere-v2-tools-stream.sse"))}})))
    assert payload_problems(cohere.turns[1].ops[0], None) == ["· payload response/raw: sse · Cohere v2 Chat stream"]
