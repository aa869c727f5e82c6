"""PayloadScreen and TextLines driven through App.run_test() + Pilot."""

from __future__ import annotations

import gzip
import json
import re
import sys
import time

import pytest
from textual.app import App

from tui.ui.screens.payload import PayloadScreen
from tui.ui.widgets.text_lines import MAX_CELLS, TextLines, inert_line

from helpers.payloadfixtures import HTTP_REQ, SSE, b64, llm_op
from helpers.payloadhelpers import PayloadApp, header, op_of, settled, status, visible


def full_op() -> dict:
    return llm_op(
        {"messages": 1, "bytes": 100, "raw": {"format": "http", "encoding": "base64", "value": b64(HTTP_REQ)},
         "sdk": {"format": "json", "encoding": "base64", "value": b64('{"sdkRequest": {"n": 1}}')}},
        {"raw": {"format": "sse", "encoding": "base64", "value": b64(SSE)},
         "sdk": {"format": "json", "encoding": "base64", "value": b64('{"sdkResponse": true}')}},
    )


async def test_sse_response_opens_on_messages_then_text_then_request_and_sdk():
    app = PayloadApp(op_of(full_op()))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        c = screen.capture
        assert (c.side, c.source, screen.view_name) == ("response", "raw", "messages")
        shown = visible(screen)
        # no system, no thinking, no max_tokens: the body alone is unclear, its request line `POST /v1/messages` is not
        assert shown[0] == "Anthropic Messages request + response · model claude-x · 1 message"
        assert shown[2:4] == ["── user", "hi"]
        i = shown.index("── assistant · response")
        assert shown[i + 1] == "Anthropic Messages stream · model claude-x · stop tool_use"
        assert "Hello world" in shown and "→ tool call search" in shown
        await pilot.press("v")
        assert screen.view_name == "text"
        shown = visible(screen)
        assert "Hello world" in shown and "line two" in shown and "pondering" in shown
        assert "search:" in shown
        assert "response" in header(screen) and "sse" in header(screen) and " text " in header(screen)
        title = str(screen.query_one("#payload-title").render())
        assert "1-1" in title and "llm" in title and "anthropic:claude-x" in title

        await pilot.press("v")
        assert screen.view_name == "events"
        assert visible(screen)[0].startswith("message_start")

        await pilot.press("r")
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source) == ("request", "raw")
        assert screen.view_name == "messages"  # the request has no events view: back to the first one
        await pilot.press("v")
        shown = visible(screen)
        assert shown[0] == "POST /v1/messages HTTP/1.1"
        assert "Content-Type: application/json" in shown
        assert '  "model": "claude-x",' in shown
        assert "http" in header(screen)

        await pilot.press("v")
        assert screen.view_name == "headers"
        assert visible(screen)[1] == "Host: api.anthropic.com"

        await pilot.press("s")
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source) == ("request", "sdk")
        assert '  "sdkRequest": {' in visible(screen)

        await pilot.press("s")  # the plain payload summary {messages, bytes}
        screen = await settled(pilot)
        assert screen.capture.source == "payload"
        assert '  "messages": 1,' in visible(screen)

        await pilot.press("s", "r")  # back to raw, then the response side keeps the source
        screen = await settled(pilot)
        assert (screen.capture.side, screen.capture.source) == ("response", "raw")

        await pilot.press("x")
        assert screen.view_name == "hex"
        assert visible(screen)[0].startswith("00000000  65 76 65 6e 74")  # "event"

        await pilot.press("escape")
        assert not isinstance(app.screen, PayloadScreen)


async def test_unavailable_raw_shows_capture_failure():
    op = op_of(llm_op(None, {"raw": "[unavailable]"}))
    app = PayloadApp(op)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        shown = visible(screen)
        assert shown[0] == "capture failure (capture bug in the producer: raw is [unavailable])"
        assert "[unavailable]" in status(screen)
        await pilot.press("v", "x", "y", "w", "r", "s")  # nothing to do: notifications, no crash
        assert isinstance(app.screen, PayloadScreen)


async def test_unavailable_raw_falls_back_to_sdk_with_note():
    op = op_of(llm_op(None, {"raw": {"format": "sse", "encoding": "base64", "value": "[unavailable]"},
                             "sdk": {"format": "json", "encoding": "base64", "value": b64('{"a": 1}')}}))
    app = PayloadApp(op)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        assert screen.capture.source == "sdk"
        assert visible(screen)[:3] == ["{", '  "a": 1', "}"]
        assert "raw: capture bug" in status(screen)
        await pilot.press("s")
        screen = await settled(pilot)
        assert "capture bug in the producer: raw is [unavailable]" in visible(screen)[0]


async def test_not_captured_ref_and_missing_file(tmp_path):
    op = op_of(llm_op(
        {"raw": {"format": "http", "ref": {"path": "gone.gz", "compression": "gzip", "captured": True}}},
        {"ref": {"path": "x.gz", "format": "sse", "captured": False}},
    ))
    app = PayloadApp(op, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        assert visible(screen)[0].startswith("not captured")
        await pilot.press("r")
        screen = await settled(pilot)
        assert "payload file not found: gone.gz" in status(screen)
        assert visible(screen)[0].startswith("cannot read this payload")


async def test_no_captures_message():
    app = PayloadApp(op_of({"opId": "o", "kind": "system", "attributes": {"label": "init"}}))
    async with app.run_test(size=(100, 20)) as pilot:
        screen = await settled(pilot)
        assert visible(screen)[0] == "this op has no captured payloads"
        await pilot.press("r", "s", "v")
        assert isinstance(app.screen, PayloadScreen)


async def test_ref_capture_read_from_gzip_file(tmp_path):
    (tmp_path / "payloads").mkdir()
    (tmp_path / "payloads" / "resp.sse.gz").write_bytes(gzip.compress(SSE.encode()))
    ref = {"path": "payloads/resp.sse.gz", "format": "sse", "compression": "gzip", "captured": True,
           "originalBytes": len(SSE.encode()), "sha256": "f" * 64, "truncated": True}
    app = PayloadApp(op_of(llm_op(None, {"ref": ref})), tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        assert "Hello world" in visible(screen)
        assert "sha256 mismatch" in status(screen) and "truncated by producer" in status(screen)
        assert "[ref]" in header(screen)


async def test_ledger_op_payload_refs(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "req.gz").write_bytes(gzip.compress(HTTP_REQ.encode()))
    op = op_of({"opId": "l1", "kind": "llm"})
    op.payload_refs = [{"kind": "llm_request", "format": "http", "path": "p/req.gz", "compression": "gzip"}]
    app = PayloadApp(op, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        assert screen.capture.side == "request"
        assert visible(screen)[0] == "POST /v1/messages HTTP/1.1"


async def test_binary_opens_in_hex_and_save(tmp_path, monkeypatch):
    data = bytes(range(256))
    app = PayloadApp(op_of(llm_op(None, {"raw": {"encoding": "base64", "value": b64(data)}})))
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "hex"
        assert visible(screen)[0].startswith("00000000  00 01 02 03 04 05 06 07  08 09")
        await pilot.press("w", "y", "w", "enter")  # each asked first (where it goes), then saved
        await pilot.pause()
        assert (tmp_path / "op-7-response-raw.bin").read_bytes() == data
        assert (tmp_path / "op-7-response-raw-1.bin").read_bytes() == data


async def test_w_says_the_full_path_before_writing(tmp_path, monkeypatch):
    """`w` writes into the current directory: the full path is asked about first, and n writes nothing."""
    data = bytes(range(256))
    app = PayloadApp(op_of(llm_op(None, {"raw": {"encoding": "base64", "value": b64(data)}})))
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        await pilot.press("w")
        await pilot.pause()
        assert app.screen is not screen and list(tmp_path.iterdir()) == []
        question = str(app.screen.query_one("#export-confirm").render())
        assert f"{tmp_path.resolve() / 'op-7-response-raw.bin'}" in question and "256 bytes" in question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and list(tmp_path.iterdir()) == []
        await pilot.press("w", "y")
        await pilot.pause()
        assert app.screen is screen and (tmp_path / "op-7-response-raw.bin").read_bytes() == data


async def test_copy_current_view():
    app = PayloadApp(op_of(full_op()))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        await pilot.press("y")
        assert len(app.copied) == 1
        assert app.copied[0] == "\n".join(screen.body.lines)
        assert "Hello world\nline two" in app.copied[0]
        await pilot.press("x", "y")
        assert app.copied[1].startswith("00000000  65 76 65 6e 74")
        assert app.copied[1].count("\n") == len(SSE.encode()) // 16 - (len(SSE.encode()) % 16 == 0)


async def test_hostile_text_is_shown_literally():
    evil = "before \x1b[31mRED\x1b[0m [bold]not bold[/bold] [link=http://x]x[/link] \x07\x9b bell\tend"
    padding = "\n".join(f"ordinary line {i}" for i in range(200))  # keeps it text, not binary
    app = PayloadApp(op_of({"opId": "t", "kind": "tool", "attributes": {"name": "fetch"},
                            "request": {"payload": {"url": "[red]u[/red]", "q": "\x1b]52;c;aGk=\x07"}},
                            "response": {"payload": evil + "\n" + padding}}))
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "text"
        line = visible(screen)[0]
        assert "\x1b" not in line and "\x07" not in line and "\x9b" not in line
        assert "\\x1b[31mRED\\x1b[0m" in line
        assert "[bold]not bold[/bold]" in line and "[link=http://x]x[/link]" in line
        assert "\\x07\\x9b bell" in line and "\t" not in line and re.search(r"bell +end", line)
        await pilot.press("r")
        screen = await settled(pilot)
        shown = visible(screen)
        assert '  "url": "[red]u[/red]",' in shown
        assert any("\\u001b]52;c;aGk=" in ln or "\\x1b]52" in ln for ln in shown)
        assert not any("\x1b" in ln for ln in shown)


async def test_large_payload_does_not_block(monkeypatch):
    # 6 MB of request (past the 5,000 messages whose shapes are scanned) and 10,000 stream events (10 MB and 50,000
    # before, so that a decode blocking the UI took longer than the 3 s the key may wait): decoding and laying out
    # the conversation are seen to run off the UI thread, however long they take, and a key is answered meanwhile
    import threading

    import tui.ui.screens.payload as payload_module

    on_ui_thread: list[bool] = []

    def watched(work):
        def run(*args, **kwargs):
            on_ui_thread.append(threading.current_thread() is threading.main_thread())
            return work(*args, **kwargs)
        return run

    for name in ("decode_with_notes", "conversation_of"):
        monkeypatch.setattr(payload_module, name, watched(getattr(payload_module, name)))
    big = json.dumps({"messages": [{"role": "user", "content": "x" * 1000, "i": i} for i in range(6_000)]})
    assert len(big) > 6_000_000
    sse_big = "".join(
        f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":0,'
        f'"delta":{{"type":"text_delta","text":"chunk {i} {"y" * 120}\\n"}}}}\n\n'
        for i in range(10_000)
    )
    op = op_of(llm_op({"raw": {"format": "json", "encoding": "base64", "value": b64(big)}},
                      {"raw": {"format": "sse", "encoding": "base64", "value": b64(sse_big)}}))
    app = PayloadApp(op)
    async with app.run_test(size=(120, 30)) as pilot:
        t0 = time.monotonic()
        await pilot.press("r")  # answered while the response may still be decoding in its thread
        assert time.monotonic() - t0 < 3.0
        screen = app.screen
        assert isinstance(screen, PayloadScreen) and screen.capture.side == "request"
        screen = await settled(pilot, timeout=60)
        assert screen.view_name == "messages"
        # role and content only: no dialect is clear from the body (the answer's is)
        assert visible(screen)[0] == "unknown request dialect + Anthropic Messages stream · 6000 messages"
        assert visible(screen)[2:4] == ["── user", "x" * 118]  # 1,000 x, wrapped at 118 columns
        await pilot.press("v")
        assert screen.body.line_count > 30_000
        assert visible(screen)[0] == "── unknown request dialect · 6000 messages"
        assert visible(screen)[1] == "{"
        await pilot.press("end")
        await pilot.pause()
        assert visible(screen)[-1].rstrip() == "}"
        await pilot.press("r")
        screen = await settled(pilot, timeout=60)
        assert visible(screen)[0].startswith("── Anthropic Messages stream")
        assert visible(screen)[2:4] == ["chunk 0", "y" * 118]  # wrapped at the word's end, then at the width
    assert on_ui_thread.count(False) >= 3 and not any(on_ui_thread), on_ui_thread  # request, response, conversation


class LinesApp(App):
    def __init__(self, lines) -> None:
        super().__init__()
        self.lines = lines
        # Home and End jump: their 1 s scroll animation drew ~60 frames (1.5 s of CPU) and ends where a jump does;
        # what is tested is the lines a scroll shows, not how the scroll moves
        self.animation_level = "none"

    def compose(self):
        yield TextLines(self.lines, id="tl")


async def test_text_lines_million_lines_and_long_lines():
    lines = [f"line {i}" for i in range(1_000_000)]
    lines[3] = "z" * 100_000
    app = LinesApp(lines)
    async with app.run_test(size=(80, 24)) as pilot:
        tl = app.query_one(TextLines)
        tl.focus()
        t0 = time.thread_time()
        tl.set_lines(lines)
        assert time.thread_time() - t0 < 0.5
        assert tl.virtual_size.height == 1_000_000
        assert tl.virtual_size.width == MAX_CELLS
        await pilot.pause()
        assert tl.render_line(0).text.startswith("line 0")
        await pilot.press("down", "down", "pagedown")
        assert tl.scroll_offset.y > 2
        await pilot.press("end")
        await pilot.pause()
        assert tl.scroll_offset.y == tl.max_scroll_y == 1_000_000 - tl.scrollable_content_region.height
        assert tl.render_line(tl.scrollable_content_region.height - 1).text.startswith("line 999999")
        await pilot.press("home", "right", "right")
        await pilot.pause()
        assert tl.scroll_offset.x > 0
        assert tl.search("line 99999") == [99999] + list(range(999990, 1_000_000))


def test_inert_line():
    text, width = inert_line("a\tb\x00\x1b[1m\u009b\x7f")
    assert text == "a       b\\x00\\x1b[1m\\x9b\\x7f" and width == len(text)
    text, width = inert_line("x" * 10_000)
    assert width == MAX_CELLS and text.endswith("…")
    text, width = inert_line("界" * 3000)
    assert width <= MAX_CELLS and text.endswith("…")
    assert inert_line("\ud83d") == ("\\ud83d", 6)
    assert inert_line(None)[0] == "None"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
