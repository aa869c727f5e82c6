"""The payload screen and `dump --payloads` on Bedrock Converse (binary eventstream) and Cohere v2 captures, and on a
request named by its shape (Pilot, and the real command line)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

from helpers import eventstream_encoder as es
from helpers.builders import op, session, turn, write
from helpers.payloadhelpers import PayloadApp, op_of, settled, status, visible
from helpers.stream_fixtures import fixture

ROOT = Path(__file__).resolve().parents[2]
CONVERSE_REQUEST = {"messages": [{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
                    "inferenceConfig": {"maxTokens": 512},
                    "toolConfig": {"tools": [{"toolSpec": {"name": "top_song", "inputSchema": {"json": {}}}}]}}


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def llm(op_id: str, req: object, resp: bytes, fmt: str) -> dict:
    return {**op("llm", op_id=op_id, provider="bedrock", model="m"),
            "request": {"kind": "llm", "payload": {"messages": 1, "raw": {
                "format": "http", "encoding": "base64", "value": b64(json.dumps(req))}}, "size": 10},
            "response": {"payload": {"raw": {"format": fmt, "encoding": "base64", "value": b64(resp)}}, "size": 100}}


async def test_converse_eventstream_in_the_messages_text_and_events_views():
    app = PayloadApp(op_of(llm("op-1", CONVERSE_REQUEST, es.converse_stream(), "http")))
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await settled(pilot)
        assert screen.view_name == "messages"
        shown = visible(screen)
        assert shown[0] == "Amazon Bedrock Converse request + response · 1 message · tools: top_song"
        i = shown.index("── assistant · response")
        assert shown[i + 1] == "Amazon Bedrock Converse stream · stop tool_use"
        assert "  The user wants the most popular song." in shown and "I'll look up the top song on WZPZ." in shown
        await pilot.press("v")
        assert screen.view_name == "text"
        shown = visible(screen)
        assert shown[0] == "── Amazon Bedrock Converse stream · stop tool_use"
        assert "top_song [tooluse_kZJMlvQmRJ6eAyJE5GIl7Q]:" in shown
        await pilot.press("v")
        assert screen.view_name == "events"
        assert [ln.split()[0] for ln in visible(screen)[:3]] == ["messageStart", "contentBlockDelta",
                                                                 "contentBlockDelta"]


async def test_a_cut_eventstream_shows_its_whole_frames_and_says_where_it_was_cut():
    app = PayloadApp(op_of(llm("op-2", CONVERSE_REQUEST, es.converse_stream()[:-7], "http")))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await settled(pilot)
        await pilot.press("v")
        assert screen.view_name == "text"
        assert visible(screen)[0] == "── Amazon Bedrock Converse stream · stop tool_use"  # all but the metadata frame
        assert f"eventstream cut off: frame {len(es.CONVERSE_EVENTS)} at byte " in status(screen)


def test_dump_names_the_new_dialects_and_flags_a_cut_eventstream(tmp_path):
    cohere_req = {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Weather?"}],
                  "documents": ["Madrid is in Spain."]}
    ops = [llm("a", CONVERSE_REQUEST, es.converse_stream(), "http"),
           llm("b", CONVERSE_REQUEST, es.converse_stream()[:-7], "http"),
           llm("c", cohere_req, fixture("cohere-v2-tools-stream.sse"), "sse"),
           llm("d", {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]},
               fixture("bedrock-converse.json"), "http")]
    path = write(tmp_path / "s.json.gz", {"version": 1, "reason": "final", "opTree": session(turn(1, *ops))})
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--payloads", str(path)], capture_output=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "· payload request/raw: http (json) · Amazon Bedrock Converse request · 1 message · 1 tool" in out
    assert "· payload response/raw: http (eventstream) · Amazon Bedrock Converse stream" in out
    assert ("! payload response/raw: http (eventstream) · Amazon Bedrock Converse stream · eventstream cut off: "
            f"frame {len(es.CONVERSE_EVENTS)} at byte ") in out
    assert "· payload request/raw: http (json) · Cohere v2 Chat request · model command-a-03-2025 · 1 message" in out
    assert "· payload response/raw: sse · Cohere v2 Chat stream" in out
    assert "· payload request/raw: http (json) · Anthropic Messages request · model claude-sonnet-4-5" in out
    assert "· payload response/raw: http (json) · Amazon Bedrock Converse response" in out
