"""Payload bytes: ref files (path safety, gzip caps, integrity), base64, and the decoded views (HTTP/JSON/SSE/hex)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from tui.payloads.captures import Capture, find_captures
from tui.payloads.decode import capture_bytes, decode_bytes, decode_capture
from tui.payloads.detect import reassemble_events as reassemble
from tui.payloads.refs import Gunzip, PayloadError, read_ref, read_ref_checked
from tui.payloads.sse import parse_sse

# --- realistic fixtures ----------------------------------------------------------------------------

ANTHROPIC_BODY = {
    "model": "claude-sonnet-4-5-20250929",
    "max_tokens": 8192,
    "system": [{"type": "text", "text": "You are a web research agent. Answer in Ελληνικά if asked."}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Find the latest netdata release"}]}],
    "tools": [{"name": "web_search", "description": "Search the web",
               "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}],
    "thinking": {"type": "enabled", "budget_tokens": 2048},
    "stream": True,
}


def anthropic_request(body: bytes | None = None, crlf: str = "\r\n") -> bytes:
    body = body if body is not None else json.dumps(ANTHROPIC_BODY, ensure_ascii=False).encode()
    head = crlf.join([
        "POST /v1/messages HTTP/1.1",
        "host: api.anthropic.com",
        "content-type: application/json",
        "anthropic-version: 2023-06-01",
        "anthropic-beta: interleaved-thinking-2025-05-14",
        "x-api-key: [REDACTED]",
        f"content-length: {len(body)}",
    ])
    return head.encode() + (crlf * 2).encode() + body


def sse(*events: tuple[str | None, object]) -> str:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out)


def _a(name: str, **data) -> tuple[str, dict]:
    return name, {"type": name, **data}


ANTHROPIC_SSE = sse(
    _a("message_start", message={"id": "msg_01", "type": "message", "role": "assistant",
                                 "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": None,
                                 "usage": {"input_tokens": 1520, "output_tokens": 3,
                                           "cache_read_input_tokens": 1200}}),
    _a("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
    _a("ping"),
    _a("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "The user wants "}),
    _a("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "the latest release."}),
    _a("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "EqQBCgIYAhIM"}),
    _a("content_block_stop", index=0),
    _a("content_block_start", index=1, content_block={"type": "text", "text": ""}),
    _a("content_block_delta", index=1, delta={"type": "text_delta", "text": "Let me search "}),
    _a("content_block_delta", index=1, delta={"type": "text_delta", "text": "for that — ok."}),
    _a("content_block_stop", index=1),
    _a("content_block_start", index=2, content_block={"type": "tool_use", "id": "toolu_01", "name": "web_search",
                                                      "input": {}}),
    _a("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}),
    _a("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": '{"query": "netd'}),
    _a("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": 'ata release"}'}),
    _a("content_block_stop", index=2),
    _a("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None}, usage={"output_tokens": 87}),
    _a("message_stop"),
)


def openai_chunk(delta: dict, finish=None, usage=None) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1731000000, "model": "gpt-4o-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "usage": usage}


OPENAI_CHAT_SSE = sse(
    (None, openai_chunk({"role": "assistant", "content": ""})),
    (None, openai_chunk({"reasoning_content": "think "})),
    (None, openai_chunk({"reasoning": "harder"})),
    (None, openai_chunk({"content": "Hello"})),
    (None, openai_chunk({"content": ", world"})),
    (None, openai_chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
                                          "function": {"name": "get_weather", "arguments": ""}}]})),
    (None, openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"loc'}}]})),
    (None, openai_chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                                          "function": {"name": "get_time", "arguments": '{"tz":'}}]})),
    (None, openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ation": "Athens"}'}}]})),
    (None, openai_chunk({"tool_calls": [{"index": 1, "function": {"arguments": ' "UTC"}'}}]})),
    (None, openai_chunk({}, finish="tool_calls")),
    (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-4o-mini", "choices": [],
            "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}}),
    (None, "[DONE]"),
)

OPENAI_RESPONSES_SSE = sse(
    ("response.created", {"type": "response.created", "sequence_number": 0,
                          "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress", "usage": None}}),
    ("response.reasoning_summary_text.delta", {"type": "response.reasoning_summary_text.delta",
                                               "item_id": "rs_1", "output_index": 0, "delta": "Plan: "}),
    ("response.reasoning_summary_text.delta", {"type": "response.reasoning_summary_text.delta",
                                               "item_id": "rs_1", "output_index": 0, "delta": "answer."}),
    ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
                                    "content_index": 0, "delta": "Hi "}),
    ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
                                    "content_index": 0, "delta": "there"}),
    ("response.output_item.added", {"type": "response.output_item.added", "output_index": 2,
                                    "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1",
                                             "name": "lookup", "arguments": ""}}),
    ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta",
                                                "item_id": "fc_1", "output_index": 2, "delta": '{"id":'}),
    ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta",
                                                "item_id": "fc_1", "output_index": 2, "delta": " 7}"}),
    ("response.completed", {"type": "response.completed",
                            "response": {"id": "resp_1", "model": "gpt-5", "status": "completed",
                                         "usage": {"input_tokens": 11, "output_tokens": 22, "total_tokens": 33}}}),
)


def calls(r) -> list[tuple[str, str]]:
    return [(tc.name, tc.arguments) for tc in r.tool_calls]


def chunked(body: bytes, sizes: list[int]) -> bytes:
    out, pos = [], 0
    for n in sizes + [len(body)]:
        part = body[pos : pos + n]
        if not part:
            break
        out.append(b"%x\r\n%s\r\n" % (len(part), part))
        pos += len(part)
    return b"".join(out) + b"0\r\n\r\n"


# --- read_ref ----------------------------------------------------------------------------------------


def write_payload(root: Path, rel: str, content: bytes, gz: bool = True) -> dict:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    blob = gzip.compress(content) if gz else content
    p.write_bytes(blob)
    return {"path": rel, "format": "http", "compression": "gzip" if gz else "none", "originalBytes": len(content),
            "compressedBytes": len(blob), "sha256": hashlib.sha256(content).hexdigest(), "captured": True,
            "truncated": False, "redacted": False}


def test_read_ref_roundtrip(tmp_path):
    body = anthropic_request()
    ref = write_payload(tmp_path, "payloads/s1/turn-0001/llm-0001-request.http.gz", body)
    assert read_ref(ref, tmp_path) == body
    data, warnings = read_ref_checked(ref, str(tmp_path))
    assert data == body and warnings == []


def test_read_ref_plain_and_capped(tmp_path):
    ref = write_payload(tmp_path, "p/plain.txt", b"x" * 5000, gz=False)
    assert read_ref(ref, tmp_path) == b"x" * 5000
    with pytest.raises(PayloadError, match="cap"):
        read_ref(ref, tmp_path, max_bytes=100)
    ref.pop("compression")
    assert read_ref(ref, tmp_path) == b"x" * 5000


def test_read_ref_gzip_without_compression_field(tmp_path):
    ref = write_payload(tmp_path, "p/a.gz", b"hello")
    del ref["compression"]
    data, warnings = read_ref_checked(ref, tmp_path)
    assert data == b"hello" and any("compression not stated" in w for w in warnings)


def test_read_ref_integrity_warnings(tmp_path):
    ref = write_payload(tmp_path, "p/a.gz", b"the body")
    ref.update(sha256="0" * 64, originalBytes=99, truncated=True, redacted=True)
    data, warnings = read_ref_checked(ref, tmp_path)
    assert data == b"the body"
    assert any(w.startswith("sha256 mismatch") for w in warnings)
    assert "originalBytes says 99, got 8" in warnings
    assert "truncated by producer" in warnings and any("redacted" in w for w in warnings)
    assert read_ref(ref, tmp_path) == b"the body"  # a mismatch never fails the read


@pytest.mark.parametrize("bad", ["/etc/passwd", "../outside.gz", "payloads/../../outside.gz", "a/..\\..\\x.gz",
                                 "C:\\x.gz"])
def test_read_ref_rejects_escapes(tmp_path, bad):
    (tmp_path / "outside.gz").write_bytes(gzip.compress(b"secret"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    with pytest.raises(PayloadError, match="absolute|'\\.\\.'|outside"):
        read_ref({"path": bad, "compression": "gzip"}, sessions)


def test_read_ref_rejects_symlink_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.gz").write_bytes(gzip.compress(b"secret"))
    sessions = tmp_path / "sessions"
    (sessions / "payloads").mkdir(parents=True)
    os.symlink(outside / "secret.gz", sessions / "payloads" / "link.gz")
    os.symlink(outside, sessions / "payloads" / "dirlink")
    for rel in ("payloads/link.gz", "payloads/dirlink/secret.gz"):
        with pytest.raises(PayloadError, match="outside"):
            read_ref({"path": rel, "compression": "gzip"}, sessions)
    # A symlink that stays inside is fine.
    (sessions / "payloads" / "real.gz").write_bytes(gzip.compress(b"inside"))
    os.symlink(sessions / "payloads" / "real.gz", sessions / "payloads" / "alias.gz")
    assert read_ref({"path": "payloads/alias.gz", "compression": "gzip"}, sessions) == b"inside"


def test_read_ref_errors(tmp_path):
    with pytest.raises(PayloadError, match="no sessions directory"):
        read_ref({"path": "p/a.gz"}, None)
    with pytest.raises(PayloadError, match="not found"):
        read_ref({"path": "p/missing.gz", "compression": "gzip"}, tmp_path)
    with pytest.raises(PayloadError, match="captured: false"):
        read_ref({"path": "p/a.gz", "captured": False}, tmp_path)
    with pytest.raises(PayloadError, match="path is missing"):
        read_ref({"compression": "gzip"}, tmp_path)
    with pytest.raises(PayloadError, match="wrong type"):
        read_ref({"path": 5}, tmp_path)
    with pytest.raises(PayloadError, match="wrong type"):
        read_ref("p/a.gz", tmp_path)  # type: ignore[arg-type]
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "junk.gz").write_bytes(b"this is not gzip at all")
    with pytest.raises(PayloadError, match="corrupt gzip"):
        read_ref({"path": "p/junk.gz", "compression": "gzip"}, tmp_path)
    with pytest.raises(PayloadError, match="unsupported payload compression"):
        read_ref({"path": "p/junk.gz", "compression": "zstd"}, tmp_path)
    with pytest.raises(PayloadError, match="not a regular file"):
        read_ref({"path": "p", "compression": "none"}, tmp_path)


def test_read_ref_truncated_gzip(tmp_path):
    blob = gzip.compress(os.urandom(4000))
    (tmp_path / "t.gz").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(PayloadError, match="truncated gzip"):
        read_ref({"path": "t.gz", "compression": "gzip"}, tmp_path)
    (tmp_path / "e.gz").write_bytes(b"")
    with pytest.raises(PayloadError, match="empty"):
        read_ref({"path": "e.gz", "compression": "gzip"}, tmp_path)


def test_read_ref_gzip_bomb_is_capped(tmp_path):
    bomb = gzip.compress(b"\0" * (20 * 1024 * 1024), 9)
    assert len(bomb) < 64 * 1024
    (tmp_path / "bomb.gz").write_bytes(bomb)
    with pytest.raises(PayloadError, match="cap"):
        read_ref({"path": "bomb.gz", "compression": "gzip"}, tmp_path, max_bytes=1024 * 1024)
    g = Gunzip(max_bytes=1000)
    with pytest.raises(PayloadError):
        g.feed(bomb)
    assert len(g.out) <= 1001  # never inflated past the cap


def test_read_ref_multi_member_and_trailing_garbage(tmp_path):
    (tmp_path / "m.gz").write_bytes(gzip.compress(b"one ") + gzip.compress(b"two") + b"\0\0\0")
    assert read_ref({"path": "m.gz", "compression": "gzip"}, tmp_path) == b"one two"
    (tmp_path / "g.gz").write_bytes(gzip.compress(b"body") + b"garbage!")
    data, warnings = read_ref_checked({"path": "g.gz", "compression": "gzip"}, tmp_path)
    assert data == b"body" and any("trailing garbage" in w for w in warnings)


# --- capture_bytes / base64 ---------------------------------------------------------------------------


def inline(value: str, fmt: str = "", encoding: str = "base64") -> Capture:
    return Capture("request", "raw", fmt, "inline", value=value, encoding=encoding)


def test_base64_variants():
    data = bytes(range(256)) + b"\xfb\xff\xfe"
    std = base64.b64encode(data).decode()
    assert capture_bytes(inline(std)) == data
    assert capture_bytes(inline(std.rstrip("="))) == data
    wrapped = "\n".join(std[i : i + 76] for i in range(0, len(std), 76)) + "\n"
    assert capture_bytes(inline(wrapped)) == data
    assert capture_bytes(inline(base64.urlsafe_b64encode(data).decode().rstrip("="))) == data
    assert capture_bytes(inline("")) == b""
    assert capture_bytes(inline("aGk")) == b"hi"


@pytest.mark.parametrize("bad", ["abc$def", "QQ==QQ=", "A", "@@@@", "é"])
def test_invalid_base64(bad):
    with pytest.raises(PayloadError, match="invalid base64"):
        capture_bytes(inline(bad))


def test_capture_bytes_other_states(tmp_path):
    assert capture_bytes(inline('{"a": 1}', encoding="text")) == b'{"a": 1}'
    plain = Capture("request", "payload", "json", "plain", plain={"query": "σ", "n": 2})
    assert json.loads(capture_bytes(plain)) == {"query": "σ", "n": 2}
    assert capture_bytes(Capture("response", "payload", "text", "plain", plain="ok")) == b"ok"
    for state, note in (("unavailable", "capture bug: raw is [unavailable]"), ("not_captured", "captured: false"),
                        ("invalid", "raw has wrong type list")):
        with pytest.raises(PayloadError, match=note.replace("[", r"\[").replace("]", r"\]")):
            capture_bytes(Capture("request", "raw", "", state, note=note))
    ref = write_payload(tmp_path, "payloads/x/turn-0001/llm-0001-response.sse.gz", ANTHROPIC_SSE.encode())
    c = Capture("response", "raw", "sse", "ref", ref=ref)
    view = decode_capture(c, tmp_path)
    assert view.kind == "sse" and view.reassembled.text == "Let me search for that — ok."
    with pytest.raises(PayloadError, match="no sessions directory"):
        decode_capture(c, None)


def test_decode_capture_from_find_captures():
    op = {"kind": "llm", "request": {"payload": {
        "messages": 1, "raw": {"format": "http", "encoding": "base64",
                               "value": base64.b64encode(anthropic_request()).decode()}}}}
    raw, plain = find_captures(op)
    view = decode_capture(raw)
    assert view.kind == "http" and view.body_kind == "json"
    pv = decode_capture(plain)
    assert pv.kind == "json" and pv.pretty == '{\n  "messages": 1\n}'
    tool = decode_capture(Capture("response", "payload", "text", "plain", plain='{"ok":true}'))
    assert tool.kind == "json"


# --- decode_bytes: HTTP / JSON ------------------------------------------------------------------------


def test_http_request_with_headers_and_json_body():
    data = anthropic_request()
    v = decode_bytes(data, "http")
    assert v.kind == "http" and v.body_kind == "json"
    assert v.start_line == "POST /v1/messages HTTP/1.1"
    assert v.headers[:2] == [("host", "api.anthropic.com"), ("content-type", "application/json")]
    assert ("x-api-key", "[REDACTED]") in v.headers and ("anthropic-version", "2023-06-01") in v.headers
    assert json.loads(v.pretty) == ANTHROPIC_BODY
    assert '\n  "model": "claude-sonnet-4-5-20250929",' in v.pretty
    assert "Ελληνικά" in v.pretty  # non-ASCII kept, not \u-escaped
    assert v.size == len(data) and v.data == data and v.notes == []
    # no hint needed when there is a request line; LF-only captures work too
    assert decode_bytes(anthropic_request(crlf="\n")).body_kind == "json"


def test_http_status_line_with_sse_body_chunked_and_gzip():
    body = gzip.compress(ANTHROPIC_SSE.encode())
    head = ("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncontent-encoding: gzip\r\n"
            "transfer-encoding: chunked\r\nrequest-id: req_011\r\n\r\n").encode()
    v = decode_bytes(head + chunked(body, [10, 100, 7]), "http")
    assert v.kind == "http" and v.start_line == "HTTP/1.1 200 OK"
    assert v.body_kind == "sse"
    assert "chunked transfer-encoding decoded" in v.notes and "gzip content-encoding decoded" in v.notes
    assert v.pretty == ANTHROPIC_SSE
    assert v.reassembled is not None and calls(v.reassembled) == [("web_search", '{"query": "netdata release"}')]


def test_http_declared_encodings_but_body_already_decoded():
    head = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\n"
            b"transfer-encoding: chunked\r\n\r\n")
    v = decode_bytes(head + b'{"id":"msg_1","type":"message"}')
    assert v.body_kind == "json"
    assert any("not chunked" in n for n in v.notes) and any("not gzip" in n for n in v.notes)


def test_http_broken_chunking_keeps_what_it_has():
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
    v = decode_bytes(head + b"5\r\nhello\r\n6\r\n world\r\nzz\r\ntail")
    assert v.body_kind == "text" and v.pretty.startswith("hello world")
    assert any("broken chunked" in n for n in v.notes)
    v = decode_bytes(head + b"5\r\nhello\r\n20\r\n trunc")
    assert v.pretty == "hello trunc" and any("truncated" in n for n in v.notes)


def test_http_headers_only_without_start_line_and_body_only():
    data = b"content-type: application/json\r\nx-request-id: 42\r\n\r\n{\"error\": {\"type\": \"overloaded\"}}"
    v = decode_bytes(data, "http")
    assert v.kind == "http" and v.start_line == "" and v.body_kind == "json"
    assert v.headers == [("content-type", "application/json"), ("x-request-id", "42")]
    body_only = json.dumps(ANTHROPIC_BODY).encode()
    v = decode_bytes(body_only, "http")
    assert v.kind == "json" and v.headers == [] and json.loads(v.pretty) == ANTHROPIC_BODY
    # an SSE body with an http hint is SSE, not "event"/"data" headers
    assert decode_bytes(ANTHROPIC_SSE.encode(), "http").kind == "sse"


def test_http_status_line_only():
    v = decode_bytes(b"HTTP/1.1 529 Overloaded\r\ncontent-length: 0\r\n")
    assert v.kind == "http" and v.body_kind == "empty" and v.headers == [("content-length", "0")]
    assert any("no blank line" in n for n in v.notes)


def test_json_variants():
    v = decode_bytes(b'\xef\xbb\xbf  {"b": [1, 2], "a": "\xce\xb1"}\n', "json")
    assert v.kind == "json" and v.pretty == '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "α"\n}'
    big = decode_bytes(b'{"n": 123456789012345678901234567890}')
    assert big.kind == "json" and "123456789012345678901234567890" in big.pretty
    bad = decode_bytes(b'{"a": 1,', "json")
    assert bad.kind == "text" and bad.pretty == '{"a": 1,' and bad.notes[0].startswith("body is not valid JSON")
    deep = decode_bytes(b"[" * 5000 + b"]" * 5000)
    assert deep.kind in ("json", "text")
    assert decode_bytes(b"").kind == "empty"


# --- SSE ----------------------------------------------------------------------------------------------


def test_parse_sse_spec_rules():
    text = (": keep-alive comment\r\nevent: a\r\ndata: line1\r\ndata:line2\r\nid: 7\r\nretry: 100\r\n\r\n"
            "data: [DONE]\n\nevent: tail\ndata: x")
    evs = parse_sse(text)
    assert [(e.event, e.data, e.id) for e in evs] == [("a", "line1\nline2", "7"), ("", "[DONE]", "7"),
                                                      ("tail", "x", "7")]


def test_anthropic_reassembly():
    v = decode_bytes(ANTHROPIC_SSE.encode(), "sse")
    assert v.kind == "sse" and v.pretty == ANTHROPIC_SSE
    assert v.events[0].event == "message_start" and len(v.events) == 18
    r = v.reassembled
    assert r.text == "Let me search for that — ok."
    assert r.thinking == "The user wants the latest release."
    assert calls(r) == [("web_search", '{"query": "netdata release"}')]
    assert r.stop_reason == "tool_use" and r.model == "claude-sonnet-4-5-20250929"
    assert r.usage == {"input_tokens": 1520, "output_tokens": 87, "cache_read_input_tokens": 1200}
    assert r.errors == []


def test_anthropic_error_and_redacted_thinking():
    text = sse(_a("content_block_start", index=0, content_block={"type": "redacted_thinking", "data": "xx"}),
               _a("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    r = decode_bytes(text.encode()).reassembled
    assert r.errors == ["overloaded_error: Overloaded"] and "redacted" in r.thinking


def test_openai_chat_reassembly():
    v = decode_bytes(OPENAI_CHAT_SSE.encode())  # detected without a hint
    assert v.kind == "sse" and v.events[-1].data == "[DONE]"
    r = v.reassembled
    assert r.text == "Hello, world" and r.thinking == "think harder"
    assert calls(r) == [("get_weather", '{"location": "Athens"}'), ("get_time", '{"tz": "UTC"}')]
    assert r.stop_reason == "tool_calls" and r.model == "gpt-4o-mini"
    assert r.usage == {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}
    err = reassemble(parse_sse(sse((None, {"error": {"message": "rate limited", "type": "rate_limit"}}))))
    assert err.errors == ["rate_limit: rate limited"]


def test_openai_responses_reassembly():
    r = decode_bytes(OPENAI_RESPONSES_SSE.encode(), "sse").reassembled
    assert r.text == "Hi there" and r.thinking == "Plan: answer."
    assert calls(r) == [("lookup", '{"id": 7}')]
    assert r.usage == {"input_tokens": 11, "output_tokens": 22, "total_tokens": 33}
    assert r.stop_reason == "completed" and r.model == "gpt-5"
    err = reassemble(parse_sse(sse(("error", {"type": "error", "code": "server_error", "message": "boom"}))))
    assert err.errors == ["server_error: boom"]


def test_sse_generic_and_non_json_events():
    v = decode_bytes(b"data: {\"text\": \"a\"}\n\ndata: {\"delta\": \"b\"}\n\ndata: not json\n\n", "sse")
    assert v.kind == "sse" and len(v.events) == 3 and v.reassembled.text == "ab"
    v = decode_bytes(b"[REDACTED_PAYLOAD_BODY]\n", "sse")
    assert v.kind == "text" and v.events == [] and "no SSE events" in v.notes[0]
    v = decode_bytes(b"event: hello\ndata: plain words\n\n")
    assert v.kind == "sse" and v.reassembled.dialect == "unknown" and v.events[0].data == "plain words"


# --- text / binary / hex / fuzz -----------------------------------------------------------------------


def test_text_and_binary():
    assert decode_bytes("Καλημέρα\tworld\r\n".encode()).kind == "text"
    v = decode_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert v.kind == "binary" and v.pretty == ""
    assert decode_bytes(b"\xff\xfe\xfd").kind == "binary"
    assert decode_bytes(b"a" * 50 + b"\x00").kind == "binary"  # 2% control chars
    assert decode_bytes(b"a" * 200 + b"\x00").kind == "text"  # < 1%


def test_hex_lines_exact_format():
    data = b"Hello, world!\n\x00\x01\xff" + bytes(range(0x41, 0x41 + 20))
    v = decode_bytes(data)
    assert v.kind == "binary" and v.line_count_hex() == 3
    assert v.hex_lines() == [
        "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 01  |Hello, world!...|",
        "00000010  ff 41 42 43 44 45 46 47  48 49 4a 4b 4c 4d 4e 4f  |.ABCDEFGHIJKLMNO|",
        "00000020  50 51 52 53 54                                    |PQRST|",
    ]
    assert v.hex_lines(1, 1) == [v.hex_lines()[1]]
    assert v.hex_lines(5, 10) == [] and decode_bytes(b"").hex_lines() == []
    assert decode_bytes(b"\x00" * 16).line_count_hex() == 1


def test_fuzz_random_bytes_never_raise():
    rnd = random.Random(1234)
    seeds = [anthropic_request(), ANTHROPIC_SSE.encode(), OPENAI_CHAT_SSE.encode(),
             b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n"]
    for i in range(600):
        if i % 3 == 0:
            data = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 400)))
        else:
            base = bytearray(rnd.choice(seeds))
            for _ in range(rnd.randint(1, 8)):
                pos = rnd.randrange(len(base))
                base[pos : pos + rnd.randint(0, 4)] = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 4)))
            data = bytes(base[: rnd.randint(0, len(base))])
        for hint in ("", "http", "sse", "json"):
            v = decode_bytes(data, hint)
            assert v.kind in ("json", "sse", "ndjson", "http", "text", "binary", "empty")
            assert not any(n.startswith("internal decoder error") for n in v.notes), (data, hint, v.notes)
            v.hex_lines(0, 3)
