"""The payload screen on real-shaped provider streams (Pilot): what the text view shows for Anthropic, Gemini (JSON
array stored as http), Ollama NDJSON and a base64 `[unavailable]`; and `dump --payloads` naming each capture."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from helpers.builders import op, session, turn, write
from helpers.stream_fixtures import ANTHROPIC_ERROR_MID_STREAM, ANTHROPIC_INTERLEAVED, OPENAI_REFUSAL, fixture
from helpers.payloadhelpers import PayloadApp, header, op_of, settled, status, visible


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def llm(resp_raw: dict | str, provider: str = "anthropic", req: dict | None = None) -> dict:
    node = {"opId": "op-1", "kind": "llm", "status": "ok", "attributes": {"provider": provider, "model": "m"},
            "response": {"payload": {"raw": resp_raw}, "size": 100}}
    if req is not None:
        node["request"] = {"kind": "llm", "payload": {"messages": 1, "raw": req}, "size": 10}
    return node


async def test_anthropic_stream_thinking_blocks_text_and_tool():
    app = PayloadApp(op_of(llm({"format": "sse", "encoding": "base64", "value": b64(ANTHROPIC_INTERLEAVED)})))
    async with app.run_test(size=(140, 60)) as pilot:
        screen = await settled(pilot)
        shown = visible(screen)
        assert shown[0].startswith("── Anthropic Messages stream · model claude-sonnet-4-5-20250929 · "
                                   "stop tool_use")
        assert shown[1].startswith("── usage input_tokens=")  # usage on a heading of its own
        shown = shown[:1] + shown[2:]
        assert shown[1:3] == ["── thinking (1 of 3)", "First, find the file. Then read it."]
        assert shown[3:5] == ["── thinking (2 of 3)", "[redacted thinking]"]
        i = shown.index("I'll look for the config.")
        assert shown[i + 1:i + 3] == ["", "Netdata listens on port 19999."]
        assert "read_file [toolu_01T1x1fJ34qAmk2tNTrN7Up6]:" in shown
        assert '    "path": "/etc/netdata/netdata.conf"' in shown
        await pilot.press("v")
        assert screen.view_name == "events" and visible(screen)[1].startswith("ping")


async def test_gemini_json_array_stored_as_http():
    body = fixture("gemini-stream-array.json")
    app = PayloadApp(op_of(llm({"format": "http", "encoding": "base64", "value": b64(body)}, "google")))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await settled(pilot)
        shown = visible(screen)
        assert shown[0] == "── Google Gemini stream · model gemini-2.5-flash · stop STOP"
        assert shown[1].startswith("── usage ")
        shown = shown[:1] + shown[2:]
        assert shown[1:4] == ["── thinking", "**Weighing the sources**", ""]
        assert "The capital of Greece is Athens (Αθήνα)." in shown
        i = shown.index("get_weather:")
        assert shown[i + 1:i + 3] == ["  {", '    "city": "Athens",']
        assert "not valid JSON" not in status(screen)
        assert " json " in header(screen) and " events " in header(screen)
        await pilot.press("v")
        assert screen.view_name == "json" and visible(screen)[0] == "["


async def test_ollama_ndjson_stored_as_http():
    body = fixture("ollama-chat.ndjson")
    app = PayloadApp(op_of(llm({"format": "http", "encoding": "base64", "value": b64(body)}, "ollama")))
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await settled(pilot)
        shown = list(screen.current_lines[:12])  # lines, not rows: the usage line wraps at 140 columns
        assert shown[0] == "── Ollama /api/chat stream · model qwen3:8b · stop stop"
        assert shown[1].startswith("── usage prompt_eval_count=26")
        shown = shown[:1] + shown[2:]
        assert shown[1:3] == ["── thinking", "The user asks for weather; call the tool."]
        assert shown[3:5] == ["── text", "Checking the weather…"]
        assert shown[5:8] == ["── tool calls (1)", "get_weather:", "  {"]
        assert status(screen) == ""  # no false "body is not valid JSON"
        await pilot.press("v")
        assert screen.view_name == "events" and visible(screen)[0].startswith("line ")


async def test_openai_refusal_and_anthropic_error_mid_stream():
    app = PayloadApp(op_of(llm({"format": "sse", "encoding": "base64", "value": b64(OPENAI_REFUSAL)}, "openai")))
    async with app.run_test(size=(120, 30)) as pilot:
        shown = visible(await settled(pilot))
        assert shown[1:3] == ["── refusal", "I'm sorry, I can't help with that."] and "(no text)" not in shown
    app = PayloadApp(op_of(llm({"format": "sse", "encoding": "base64", "value": b64(ANTHROPIC_ERROR_MID_STREAM)})))
    async with app.run_test(size=(120, 30)) as pilot:
        shown = visible(await settled(pilot))
        assert shown[1:4] == ["── usage input_tokens=472, output_tokens=2", "── errors (1)", "overloaded_error: Overloaded"]


async def test_base64_unavailable_shows_the_capture_bug():
    app = PayloadApp(op_of(llm({"format": "sse", "encoding": "base64", "value": "W3VuYXZhaWxhYmxlXQ=="})))
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await settled(pilot)
        shown = visible(screen)
        assert "capture bug in the producer: raw is [unavailable]" in shown[0]
        assert "no SSE events" not in " ".join(shown) + status(screen)


def test_dump_payloads_names_each_capture(tmp_path):
    req = json.dumps({"model": "claude-x", "max_tokens": 9, "system": "s", "messages": [{"role": "user",
                                                                                        "content": "hi"}]})
    ops = [
        {**op("llm", op_id="a", provider="anthropic", model="claude-x"),
         "request": {"payload": {"messages": 1, "raw": {"format": "http", "encoding": "base64", "value": b64(req)}}},
         "response": {"payload": {"raw": {"format": "sse", "encoding": "base64",
                                          "value": b64(ANTHROPIC_ERROR_MID_STREAM)}}}},
        {**op("llm", op_id="b", provider="ollama", model="qwen3"),
         "response": {"payload": {"raw": {"format": "http", "encoding": "base64",
                                          "value": b64(fixture("ollama-chat.ndjson"))}}}},
        {**op("llm", op_id="c", provider="openai", model="gpt"),
         "response": {"payload": {"raw": {"format": "sse", "encoding": "base64", "value": "W3VuYXZhaWxhYmxlXQ=="},
                                  "sdk": {"format": "sdk", "encoding": "base64", "value": b64('{"ok": true}')}}}},
        {**op("llm", op_id="d", provider="x", model="y"),
         "response": {"payload": {"raw": {"format": "sse", "encoding": "base64",
                                          "value": b64('event: status\ndata: {"state": 1}\n\n')}}}},
    ]
    path = write(tmp_path / "s.json.gz", {"version": 1, "reason": "final", "opTree": session(turn(1, *ops))})
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--payloads", str(path)], capture_output=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()

    def under(op_label: str) -> list[str]:
        at = next(i for i, ln in enumerate(lines) if f"─ {op_label}  LLM" in ln)
        out = []
        for ln in lines[at + 1:]:
            if "payload " not in ln:
                break
            head, rest = ln.split("payload ", 1)
            out.append(head[-2:] + rest)
        return out

    assert under("1-1") == [
        "· request/raw: http (json) · Anthropic Messages request · model claude-x · 1 message",
        "! response/raw: sse · Anthropic Messages stream · 1 error mid-stream: overloaded_error: Overloaded"]
    assert under("1-2") == ["· response/raw: http (ndjson) · Ollama /api/chat stream"]
    assert under("1-3") == ["! response/raw: capture bug: raw.value is [unavailable]", "· response/sdk: sdk (json)"]
    assert under("1-4") == ["! response/raw: sse · stream dialect unknown"]
    assert "not a known format" not in result.stdout.decode()
