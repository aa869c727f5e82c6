"""`export --format otlp` carries Cohere v2 and Bedrock Converse calls (requests, JSON answers, SSE and binary
eventstream answers) as GenAI messages: the same reading the payload viewer uses."""

from __future__ import annotations

import json

from helpers import eventstream_encoder as es
from helpers.payloadfixtures import b64, llm_op, tree
from helpers.stream_fixtures import fixture
from tui.formats.aiagent.snapshot import build_session
from tui.text.otlp.messages import op_messages


def _op(request: dict, response: bytes, fmt: str):
    return build_session(tree(llm_op(
        {"raw": {"format": "http", "encoding": "base64", "value": b64(json.dumps(request))}},
        {"raw": {"format": fmt, "encoding": "base64", "value": b64(response)}}))).turns[1].ops[0]


def test_bedrock_converse_binary_stream_exports_reasoning_text_and_the_call():
    request = {"system": [{"text": "You pick songs."}],
               "messages": [{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
               "inferenceConfig": {"maxTokens": 512},
               "toolConfig": {"tools": [{"toolSpec": {"name": "top_song", "inputSchema": {"json": {}}}}]}}
    m = op_messages(_op(request, es.converse_stream(), "http"))
    assert json.loads(m.input) == [
        {"role": "system", "parts": [{"type": "text", "content": "You pick songs."}]},
        {"role": "user", "parts": [{"type": "text", "content": "What is the most popular song on WZPZ?"}]}]
    assert json.loads(m.output) == [{"role": "assistant", "finish_reason": "tool_use", "parts": [
        {"type": "reasoning", "content": "The user wants the most popular song."},
        {"type": "text", "content": "I'll look up the top song on WZPZ."},
        {"type": "tool_call", "id": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "top_song",
         "arguments": {"sign": "WZPZ"}}]}]
    assert m.calls == [("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "top_song")]


def test_cohere_stream_and_json_answer_export():
    request = {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Weather in Madrid?"}],
               "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
               "documents": ["Madrid is in Spain."]}
    streamed = op_messages(_op(request, fixture("cohere-v2-tools-stream.sse"), "sse"))
    parts = json.loads(streamed.output)[0]["parts"]
    assert parts[0] == {"type": "reasoning",
                        "content": "I will search for the weather in Madrid and Brasilia, then compare them."}
    assert [(p["name"], p["arguments"]) for p in parts[1:]] == [("get_weather", {"location": "Madrid"}),
                                                                ("get_weather", {"location": "Brasilia"})]
    assert streamed.finish_reason == "TOOL_CALL"
    assert json.loads(streamed.input)[-1] == {"role": "user", "parts": [{"type": "text",
                                                                         "content": "Weather in Madrid?"}]}
    answered = op_messages(_op(request, fixture("cohere-v2-chat.json"), "http"))
    assert [p["type"] for p in json.loads(answered.output)[0]["parts"]] == [
        "reasoning", "reasoning", "tool_call", "tool_call"]
