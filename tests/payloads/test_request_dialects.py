"""Requests are named by their whole shape (tui/payloads/requests.py), from real-shaped bodies of each provider's API
reference; weak or contradictory evidence gives "unknown request dialect", never a wrong name."""

from __future__ import annotations

import json

from tui.payloads.decode import decode_bytes
from tui.payloads.messages import conversation_lines, conversation_of
from tui.payloads.op_captures import payload_views
from tui.payloads.requests import request_info

USER = {"role": "user", "content": "Hello, world"}

# The four that were named wrongly before, as each provider's reference shows them.
ANTHROPIC_PLAIN = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [USER]}  # no system, no thinking
ZAI_THINKING = {"model": "glm-4.6", "messages": [{"role": "system", "content": "You are a helpful assistant."}, USER],
                "thinking": {"type": "enabled"}, "stream": True, "max_tokens": 4096, "temperature": 1.0}
BEDROCK_CONVERSE = {
    "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
    "system": [{"text": "You are an app that creates playlists for a radio station."}],
    "messages": [{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
    "inferenceConfig": {"maxTokens": 512, "temperature": 0.5, "topP": 0.9},
    "toolConfig": {"tools": [{"toolSpec": {"name": "top_song", "description": "Get the most popular song.",
                                           "inputSchema": {"json": {"type": "object", "properties": {
                                               "sign": {"type": "string"}}, "required": ["sign"]}}}}]},
}
COHERE_RAG = {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Where do the tallest penguins live?"}],
              "documents": [{"id": "1", "data": {"title": "Tall penguins", "snippet": "Emperor penguins are the tallest."}},
                            {"id": "2", "data": {"title": "Penguin habitats", "snippet": "Emperors live in Antarctica."}}],
              "citation_options": {"mode": "FAST"}, "safety_mode": "CONTEXTUAL"}

MATRIX: list[tuple[str, dict, str]] = [
    ("Anthropic without system or thinking", ANTHROPIC_PLAIN, "anthropic"),
    ("Anthropic tool round trip", {
        "model": "claude-opus-4-1", "max_tokens": 1024,
        "tools": [{"name": "get_weather", "description": "weather", "input_schema": {"type": "object"}}],
        "messages": [USER, {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"l": "SF"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                                          "content": "15 degrees"}]}]}, "anthropic"),
    ("Anthropic image block", {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
        {"type": "text", "text": "Describe this image."}]}]}, "anthropic"),
    ("Anthropic on Vertex", {"anthropic_version": "vertex-2023-10-16", "max_tokens": 256, "messages": [USER]},
     "anthropic"),
    ("Anthropic thinking with a cached system", {
        "model": "claude-sonnet-4-5", "max_tokens": 16000, "thinking": {"type": "enabled", "budget_tokens": 10000},
        "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
        "messages": [USER]}, "anthropic"),
    ("OpenAI Chat with a developer message", {"model": "gpt-4.1", "messages": [
        {"role": "developer", "content": "You are a helpful assistant."}, {"role": "user", "content": "Hello!"}]},
     "openai-chat"),
    ("OpenAI Chat tool round trip", {
        "model": "gpt-4o", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
        "tool_choice": "auto", "messages": [USER, {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_abc123", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_abc123", "content": "15 degrees"}]}, "openai-chat"),
    ("OpenAI Chat image part, max_completion_tokens", {"model": "gpt-4o-mini", "max_completion_tokens": 300,
     "messages": [{"role": "user", "content": [{"type": "text", "text": "What is in this image?"},
                                              {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]},
     "openai-chat"),
    ("Z.ai GLM with thinking enabled", ZAI_THINKING, "openai-chat"),
    ("Z.ai GLM with thinking, no system message", {"model": "glm-4.6", "messages": [USER],
                                                   "thinking": {"type": "enabled"}, "max_tokens": 4096}, "openai-chat"),
    ("DeepSeek", {"model": "deepseek-chat", "messages": [{"role": "system", "content": "Be brief."}, USER],
                  "stream": True}, "openai-chat"),
    ("OpenRouter with reasoning", {"model": "anthropic/claude-3.7-sonnet", "messages": [USER],
                                   "reasoning": {"max_tokens": 2000}}, "openai-chat"),
    ("Bedrock Converse", BEDROCK_CONVERSE, "bedrock-converse"),
    ("Bedrock Converse tool result, no inferenceConfig", {"messages": [
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "top_song",
                                                       "input": {"sign": "WZPZ"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": [
            {"json": {"song": "Elemental Hotel"}}]}}]}]}, "bedrock-converse"),
    ("Cohere RAG", COHERE_RAG, "cohere"),
    ("Cohere tool round trip", {
        "model": "command-a-03-2025", "tools": [{"type": "function", "function": {"name": "get_weather",
                                                                              "parameters": {}}}],
        "messages": [USER, {"role": "assistant", "tool_plan": "I will look up the weather.", "tool_calls": [
            {"id": "get_weather_1byjy32y4hvq", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"location\":\"Toronto\"}"}}]},
            {"role": "tool", "tool_call_id": "get_weather_1byjy32y4hvq", "content": [
                {"type": "document", "document": {"data": "{\"temperature\": \"20C\"}"}}]}]}, "cohere"),
    ("Cohere's OpenAI compatibility API", {"model": "command-a-03-2025", "messages": [
        {"role": "system", "content": "Be brief."}, USER]}, "openai-chat"),
    ("Cohere sampling keys", {"model": "command-r-plus-08-2024", "messages": [USER], "k": 40, "p": 0.75},
     "cohere"),
    ("Gemini", {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "generationConfig": {"maxOutputTokens": 100}, "tools": [{"functionDeclarations": [{"name": "f"}]}]},
     "gemini"),
    ("OpenAI Responses", {"model": "gpt-5", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "hi"}]}], "instructions": "Be brief.",
        "tools": [{"type": "function", "name": "get_weather", "parameters": {}}]}, "openai-responses"),
    ("Ollama chat with images", {"model": "llava", "messages": [{"role": "user", "content": "what is this?",
                                                                 "images": ["iVBORw0KGgo"]}]}, "ollama-chat"),
    ("Ollama chat with options", {"model": "qwen3", "messages": [{"role": "system", "content": "s"}, USER],
                                  "options": {"num_ctx": 8192}, "keep_alive": "5m", "stream": False}, "ollama-chat"),
    ("Ollama generate", {"model": "llama3.2", "prompt": "Why is the sky blue?"}, "ollama-generate"),
    # weak or contradictory evidence
    ("no evidence but a user message", {"model": "m", "messages": [USER]}, "unknown"),
    ("OpenAI's shape, but only the model name says whose", {"model": "gpt-4o", "messages": [USER]}, "unknown"),
    ("Anthropic tools and OpenAI roles", {"model": "x", "max_tokens": 5, "tools": [
        {"name": "f", "input_schema": {}}], "messages": [{"role": "system", "content": "s"},
                                                         {"role": "tool", "tool_call_id": "1", "content": "r"}]},
     "unknown"),
    ("messages and contents", {"messages": [{"role": "system", "content": "s"}], "contents": [{"parts": []}]},
     "unknown"),
    ("legacy OpenAI completions", {"model": "gpt-3.5-turbo-instruct", "prompt": "Say this is a test",
                                   "max_tokens": 7, "temperature": 0}, "unknown"),
    ("Ollama and Cohere evidence at once", {"model": "m", "messages": [USER], "options": {}, "documents": ["d"]},
     "unknown"),
]


def test_request_matrix_names_each_provider_by_shape():
    wrong = []
    for what, body, want in MATRIX:
        info = request_info(body)
        got = info.dialect if info is not None else None
        if got != want:
            wrong.append(f"{what}: {got} (want {want})")
    assert wrong == []


def test_the_four_wrong_names_of_before_in_the_text_view():
    for body, line in ((ANTHROPIC_PLAIN, "── Anthropic Messages request · model claude-sonnet-4-5 · 1 message"),
                       (ZAI_THINKING, "── OpenAI Chat Completions request · model glm-4.6 · 2 messages · streamed"),
                       (BEDROCK_CONVERSE, "── Amazon Bedrock Converse request · model "
                                          "anthropic.claude-3-5-sonnet-20240620-v1:0 · 1 message · 1 tool"),
                       (COHERE_RAG, "── Cohere v2 Chat request · model command-a-03-2025 · 1 message")):
        view = decode_bytes(json.dumps(body).encode(), "http")
        assert dict(payload_views(None, view))["text"][0] == line


def test_unclear_requests_say_so_and_still_show_their_messages():
    view = decode_bytes(json.dumps({"model": "m", "messages": [USER]}).encode(), "http")
    assert dict(payload_views(None, view))["text"][0] == "── unknown request dialect · model m · 1 message"
    lines = conversation_lines(conversation_of(view, None)).lines
    assert lines[0] == "unknown request dialect · model m · 1 message"
    assert "Hello, world" in lines
    embeddings = {"input": "The food was delicious", "model": "text-embedding-3-small", "encoding_format": "float"}
    assert request_info(embeddings) is None  # not a chat request: shown as JSON, as before it was wrongly not


def test_the_url_path_of_a_captured_request_is_evidence():
    body = '{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}'
    assert request_info(json.loads(body)).dialect == "unknown"
    for line, want in (("POST /v1/messages HTTP/1.1", "Anthropic Messages"),
                       ("POST /v1/chat/completions HTTP/1.1", "OpenAI Chat Completions"),
                       ("POST /v2/chat HTTP/1.1", "Cohere v2 Chat"),
                       ("POST /model/anthropic.claude-3-haiku-20240307-v1:0/converse HTTP/1.1",
                        "Amazon Bedrock Converse")):
        view = decode_bytes(f"{line}\r\nContent-Type: application/json\r\n\r\n{body}".encode(), "http")
        assert view.request is not None and view.request.line.startswith(f"{want} request"), line


def test_converse_and_cohere_requests_read_as_messages():
    view = decode_bytes(json.dumps(BEDROCK_CONVERSE).encode(), "http")
    lines = conversation_lines(conversation_of(view, None), expand_system=True).lines
    assert lines[0].startswith("Amazon Bedrock Converse request · ") and lines[0].endswith("tools: top_song")
    assert "You are an app that creates playlists for a radio station." in lines
    assert "What is the most popular song on WZPZ?" in lines
    tool_turn = {"messages": [
        {"role": "assistant", "content": [{"text": "Let me check."}, {"toolUse": {
            "toolUseId": "tooluse_1", "name": "top_song", "input": {"sign": "WZPZ"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "status": "error",
                                                     "content": [{"text": "station unknown"}]}}]}],
        "inferenceConfig": {"maxTokens": 10}}
    lines = conversation_lines(conversation_of(decode_bytes(json.dumps(tool_turn).encode(), "http"), None)).lines
    assert "→ tool call top_song  [tooluse_1]" in lines and '    "sign": "WZPZ"' in lines
    assert "← tool result top_song [tooluse_1] (error)" in lines and "  station unknown" in lines
    cohere = {"model": "command-a-03-2025", "documents": ["Emperor penguins are the tallest."], "messages": [
        USER, {"role": "assistant", "tool_plan": "I will look it up.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": [{"type": "document", "document": {"data": "42"}}]}]}
    lines = conversation_lines(conversation_of(decode_bytes(json.dumps(cohere).encode(), "http"), None),
                               expand_system=True).lines
    assert lines[0] == "Cohere v2 Chat request · model command-a-03-2025 · 3 messages"
    assert "Emperor penguins are the tallest." in lines
    assert "· thinking" in lines and "  I will look it up." in lines and "→ tool call search  [c1]" in lines
    assert "← tool result search [c1]" in lines and "  42" in lines
