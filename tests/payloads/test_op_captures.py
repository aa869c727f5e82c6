"""op_captures / decode_with_notes / payload_views / save_name: the pure side of the payload screen."""

from __future__ import annotations

import gzip
import hashlib

import pytest

from tui.model.nodes import Op, Session, Turn
from tui.payloads.captures import Capture
from tui.payloads.decode import PayloadError, decode_bytes
from tui.payloads.op_captures import (
    HexLines, capture_message, decode_with_notes, default_capture, file_extension, op_captures, payload_views,
    save_name, split_lines,
)
from tui.formats.aiagent.snapshot import build_session
from helpers.payloadfixtures import HTTP_REQ, SSE, b64, llm_op, tree


def first_op(*ops: dict) -> Op:
    return build_session(tree(*ops)).turns[1].ops[0]


def test_op_captures_snapshot_op():
    op = first_op(llm_op(
        {"messages": 1, "raw": {"format": "http", "encoding": "base64", "value": b64(HTTP_REQ)}},
        {"raw": {"format": "sse", "encoding": "base64", "value": b64(SSE)},
         "sdk": {"format": "json", "encoding": "base64", "value": b64('{"a": 1}')}},
    ))
    caps = op_captures(op)
    assert [(c.side, c.source) for c in caps] == [
        ("request", "raw"), ("request", "payload"), ("response", "raw"), ("response", "sdk")]
    assert caps[default_capture(caps)].side == "response" and caps[default_capture(caps)].source == "raw"
    assert caps[default_capture(caps, "request")].source == "raw"


def test_op_captures_without_raw_and_for_ledger_ops():
    s = Session()
    t = Turn(s, "turn", 1)
    op = Op(t, "1-1")
    assert op_captures(op) == []
    op.payload_refs = [
        {"kind": "llm_response", "format": "sse", "path": "p/resp.gz", "captured": True},
        {"kind": "llm_request", "format": "http", "path": "p/req.gz", "captured": False},
    ]
    caps = op_captures(op)
    assert [(c.side, c.source, c.state) for c in caps] == [
        ("request", "raw", "not_captured"), ("response", "raw", "ref")]
    assert op_captures(None) == []


def test_default_capture_skips_unusable_and_plain():
    caps = [Capture("response", "raw", "sse", "unavailable"), Capture("response", "payload", "json", "plain"),
            Capture("response", "sdk", "json", "inline", value="e30=")]
    assert default_capture(caps) == 2
    assert default_capture([Capture("request", "raw", "", "unavailable")]) == 0
    assert default_capture([]) is None
    assert default_capture([Capture("request", "raw", "", "inline")], "response") is None


def test_capture_messages():
    assert "capture bug in the producer: raw is [unavailable]" in capture_message(
        Capture("response", "raw", "", "unavailable"))[0]
    assert capture_message(Capture("request", "sdk", "", "not_captured"))[0].startswith("not captured")
    assert "bad" in capture_message(Capture("request", "raw", "", "invalid", note="bad"))[0]


def test_views_sse():
    view = decode_bytes(SSE.encode(), "sse")
    views = dict(payload_views(None, view))
    assert list(views) == ["text", "events", "raw", "hex"]
    text = views["text"]
    assert "── thinking" in text and "pondering" in text
    assert text[text.index("── text") + 1:text.index("── text") + 3] == ["Hello world", "line two"]
    i = text.index("── tool calls (1)")
    assert text[i + 1] == "search:" and '    "q": "cats"' in text[i + 2:]
    assert any("stop tool_use" in ln and "model claude-x" in ln for ln in text)
    assert views["events"][0].startswith("message_start")
    assert views["events"][0].split(None, 1)[1].startswith('{"type": "message_start"')
    assert len(views["events"]) == 11
    assert views["raw"][0] == "event: message_start"


def test_views_http_request():
    view = decode_bytes(HTTP_REQ.encode(), "http")
    views = dict(payload_views(None, view))
    assert list(views) == ["text", "headers", "raw", "hex"]
    text = views["text"]
    assert text[0] == "POST /v1/messages HTTP/1.1"
    assert "Content-Type: application/json" in text
    assert '  "model": "claude-x",' in text
    assert views["headers"] == ["POST /v1/messages HTTP/1.1", "Host: api.anthropic.com",
                                "Content-Type: application/json"]
    assert views["raw"][0] == "POST /v1/messages HTTP/1.1"  # CR of CRLF dropped


def test_views_binary_and_empty():
    data = bytes(range(256)) * 4
    view = decode_bytes(data, "")
    views = payload_views(None, view)
    assert [name for name, _ in views] == ["hex"]
    hex_lines = views[0][1]
    assert isinstance(hex_lines, HexLines) and len(hex_lines) == 64
    assert hex_lines[0].startswith("00000000  00 01 02")
    assert hex_lines[-1] == hex_lines[63] and hex_lines[1:3] == view.hex_lines(1, 2)
    with pytest.raises(IndexError):
        hex_lines[64]
    assert payload_views(None, decode_bytes(b"", "")) == [("text", ["(empty payload: 0 bytes)"])]


def test_split_lines():
    assert split_lines("") == []
    assert split_lines("a\r\nb\n") == ["a", "b"]
    assert split_lines("a\x0cb\u2028c") == ["a\x0cb\u2028c"]


def test_decode_with_notes_ref_integrity(tmp_path):
    body = b'{"ok": true}'
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.gz").write_bytes(gzip.compress(body))
    ref = {"path": "p/x.gz", "format": "json", "compression": "gzip", "sha256": "0" * 64, "captured": True,
           "truncated": True}
    op = first_op(llm_op(None, {"ref": ref}))
    c = op_captures(op)[0]
    view, notes = decode_with_notes(c, tmp_path)
    assert view.kind == "json" and view.data == body
    assert any("sha256 mismatch" in n for n in notes)
    assert notes.count("truncated by producer") == 1
    ref["sha256"] = hashlib.sha256(body).hexdigest()
    _, notes = decode_with_notes(op_captures(op)[0], tmp_path)
    assert not any("sha256" in n for n in notes)
    with pytest.raises(PayloadError):
        decode_with_notes(Capture("response", "raw", "json", "ref", ref={"path": "../etc/passwd"}), tmp_path)
    with pytest.raises(PayloadError):
        decode_with_notes(Capture("response", "raw", "", "unavailable", note="capture bug"), tmp_path)


def test_save_name_and_extension():
    op = first_op(llm_op(None, {"raw": {"format": "sse", "encoding": "base64", "value": b64(SSE)}}))
    c = op_captures(op)[0]
    assert save_name(op, c, None) == "op-7-response-raw.sse"
    op.op_id = "../../evil/ id"
    assert "/" not in save_name(op, c, None) and not save_name(op, c, None).startswith(".")
    op.op_id = ""
    assert save_name(op, c, None).startswith("1-1-response-raw")
    assert file_extension(Capture("request", "payload", "", "plain"), decode_bytes(b"\x00\x01", "")) == "bin"
    assert file_extension(Capture("request", "sdk", "jsonrpc", "inline"), None) == "json"
