"""The messages view's builder (tui/payloads/messages.py): request bodies of every dialect, written by hand from the
providers' documented shapes, awkward cases included, and the answer appended as the last assistant message."""

from __future__ import annotations

import json

from tui.payloads.decode import decode_bytes
from tui.payloads.messages import (
    Part, build_conversation, conversation_lines, conversation_of, is_llm_view,
)
from tui.payloads.result import Builder

from helpers.payloadfixtures import SSE


def roles(conv) -> list[tuple[str, str]]:
    return [(m.role, m.label) for m in conv.messages]


def parts(conv, i: int) -> list[tuple[str, str, str, str]]:
    return [(p.kind, p.text, p.name, p.call_id) for p in conv.messages[i].parts]


# --- Anthropic Messages ---------------------------------------------------------------------------------------

ANTHROPIC = {
    "model": "claude-sonnet-4-5", "max_tokens": 1024,
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}},
               {"type": "text", "text": "Never guess."}],
    "tools": [{"name": "get_weather", "description": "…", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "Weather in Athens?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Need the tool.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xx"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Athens"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
             "content": [{"type": "text", "text": "rate limited"},
                         {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                      "data": "QUJD" * 5000}}]},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "plain string result"},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "AAAA"},
             "title": "spec"},
            {"type": "mystery_block", "x": 1},
        ]},
    ],
}


def test_anthropic_system_list_tool_use_and_results():
    conv = build_conversation(ANTHROPIC, None)
    assert conv.dialect == "anthropic" and conv.model == "claude-sonnet-4-5" and conv.tools == ["get_weather"]
    assert roles(conv) == [("system", ""), ("user", ""), ("assistant", ""), ("user", "")]
    assert parts(conv, 0) == [("text", "You are terse.", "", ""), ("text", "Never guess.", "", "")]
    assert parts(conv, 2) == [
        ("thinking", "Need the tool.", "", ""), ("thinking", "[redacted thinking]", "", ""),
        ("text", "Checking.", "", ""), ("tool_call", '{"city":"Athens"}', "get_weather", "toolu_1"),
    ]
    results = conv.messages[3].parts
    assert (results[0].kind, results[0].call_id, results[0].error) == ("tool_result", "toolu_1", True)
    assert results[0].text == "rate limited\n[image image/png, 15 KiB]"  # the size, never the base64
    assert (results[1].text, results[1].error) == ("plain string result", False)
    assert results[2].text == "[image https://example.com/a.png]"
    assert results[3].text == "[document application/pdf, spec, 3 bytes]"
    assert results[4].kind == "other" and '"mystery_block"' in results[4].text
    assert not conv.has_response


def test_anthropic_lines_fold_the_system_prompt_and_name_tool_results():
    conv = build_conversation(ANTHROPIC, None)
    folded = conversation_lines(conv)
    assert folded.lines[0] == \
        "Anthropic Messages request · model claude-sonnet-4-5 · 3 messages · tools: get_weather"
    system = folded.lines[2]
    assert system.startswith("▸ system · 27 chars · Enter expands · You are terse. Never guess.")
    assert folded.heads[2] == "system" and "Never guess." not in folded.lines[3:]
    i = folded.lines.index("→ tool call get_weather  [toolu_1]")
    assert folded.lines[i + 1:i + 4] == ["  {", '    "city": "Athens"', "  }"]
    assert "← tool result get_weather [toolu_1] (error)" in folded.lines  # the call's name found by its id
    assert "← tool result [toolu_2]" in folded.lines
    assert folded.lines[-1] == "(no response captured for this call)"
    expanded = conversation_lines(conv, expand_system=True)
    assert expanded.lines[2] == "▾ system · Enter collapses"
    assert expanded.lines[3:5] == ["You are terse.", "Never guess."]
    assert {expanded.heads[i] for i in expanded.heads} == {"meta", "system", "user", "assistant"}


def test_answer_is_the_last_assistant_message_with_stop_and_usage():
    response = decode_bytes(SSE.encode(), "sse")
    request = decode_bytes(json.dumps(ANTHROPIC).encode(), "json")
    assert is_llm_view(request) and is_llm_view(response)
    conv = conversation_of(request, response)
    assert conv.has_request and conv.has_response
    last = conv.messages[-1]
    assert last.role == "assistant" and last.response is response.reassembled
    assert [(p.kind, p.text) for p in last.parts] == [
        ("thinking", "pondering"), ("text", "Hello world\nline two"), ("tool_call", '{"q": "cats"}')]
    lines = conversation_lines(conv).lines
    i = lines.index("── assistant · response")
    assert lines[i + 1] == "Anthropic Messages stream · model claude-x · stop tool_use"
    assert lines[i + 2] == "usage input_tokens=5"
    assert lines[i + 3:i + 5] == ["· thinking", "  pondering"]


def test_several_choices_are_several_answers_and_errors_are_said():
    b = Builder("openai-chat", streamed=False)
    b.append("text", "one", choice=0)
    b.append("text", "two", choice=1)
    b.stop("stop", 0)
    b.stop("length", 1)
    b.error({"error": {"type": "server_error", "message": "boom"}})
    conv = build_conversation({"model": "m", "messages": [{"role": "user", "content": "q"}]}, b.result())
    answers = [m for m in conv.messages if m.response is not None]
    assert [(m.choice, m.parts[0].text) for m in answers] == [(0, "one"), (1, "two")]
    lines = conversation_lines(conv).lines
    assert "── assistant · response (choice 1)" in lines and "error: server_error: boom" in lines


# --- OpenAI Chat Completions -----------------------------------------------------------------------------------

OPENAI_CHAT = {
    "model": "gpt-4o",
    "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {}}}],
    "messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "system", "content": [{"type": "text", "text": "Second system, as parts."}]},
        {"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + "A" * 40_000, "detail": "low"}},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            {"type": "file", "file": {"filename": "a.pdf", "file_data": "AAAA"}},
        ]},
        {"role": "assistant", "content": None, "reasoning_content": "thinking out loud",
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "lookup", "arguments": "{\"q\": \"cat\"}"}},
                        {"id": "call_2", "type": "function", "function": {"name": "lookup", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "a cat"}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "nothing"},
        {"role": "assistant", "content": "", "refusal": "I can't."},
        {"role": "function", "name": "legacy", "content": "old style"},
        {"content": "who said this?"},
        "not a message",
    ],
}


def test_openai_chat_roles_parts_tool_calls_and_results():
    conv = build_conversation(OPENAI_CHAT, None)
    assert conv.dialect == "openai-chat" and conv.tools == ["lookup"]
    assert roles(conv) == [("system", "developer"), ("system", ""), ("user", ""), ("assistant", ""),
                           ("tool", ""), ("tool", ""), ("assistant", ""), ("tool", "function"),
                           ("user", "no role"), ("user", "no role")]
    user = conv.messages[2].parts
    assert [p.text for p in user] == ["What is this?", "[image data: URL, 29 KiB]", "[audio wav, 3 bytes]",
                                      "[file a.pdf, 3 bytes]"]
    assert parts(conv, 3) == [("thinking", "thinking out loud", "", ""),
                              ("tool_call", '{"q": "cat"}', "lookup", "call_1"),
                              ("tool_call", "not json", "lookup", "call_2")]
    assert parts(conv, 4) == [("tool_result", "a cat", "", "call_1")]
    assert parts(conv, 6) == [("text", "", "", ""), ("refusal", "I can't.", "", "")]
    assert parts(conv, 7) == [("tool_result", "old style", "legacy", "")]
    lines = conversation_lines(conv).lines
    assert sum(1 for ln in lines if ln.startswith("▸ system")) == 2  # every system message folds
    assert "▸ system (developer) · 9 chars · Enter expands · Be brief." in lines
    assert "← tool result lookup [call_1]" in lines and "  not json" in lines
    assert "── user (no role)" in lines


# --- OpenAI Responses --------------------------------------------------------------------------------------------

RESPONSES = {
    "model": "gpt-5", "instructions": "You are a shell helper.",
    "tools": [{"type": "function", "name": "run"}, {"type": "web_search"}],
    "input": [
        {"role": "user", "content": "list files"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "and this image"},
            {"type": "input_image", "image_url": "https://x/y.png"},
            {"type": "input_file", "filename": "notes.txt", "file_id": "file-1"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Use ls."}]},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAA"},
        {"type": "function_call", "call_id": "fc_1", "name": "run", "arguments": "{\"cmd\":\"ls\"}"},
        {"type": "function_call_output", "call_id": "fc_1", "output": "a.txt\nb.txt"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files."}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "ls"}},
        {"type": "custom_tool_call", "call_id": "ct_1", "name": "patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "ct_1",
         "output": [{"type": "input_text", "text": "applied"}]},
        {"type": "item_reference", "id": "msg_9"},
        {"type": "brand_new_item", "x": 1},
    ],
}


def test_openai_responses_items_merge_into_messages():
    conv = build_conversation(RESPONSES, None)
    assert conv.dialect == "openai-responses" and conv.tools == ["run", "web_search"]
    assert roles(conv) == [("system", ""), ("user", ""), ("user", ""), ("assistant", ""), ("tool", ""),
                           ("assistant", ""), ("tool", ""), ("user", "reference"), ("user", "brand_new_item")]
    assert [p.text for p in conv.messages[2].parts] == ["and this image", "[image https://x/y.png]",
                                                        "[file notes.txt, file-1]"]
    assert parts(conv, 3) == [("thinking", "Use ls.", "", ""), ("thinking", "[encrypted reasoning]", "", ""),
                              ("tool_call", '{"cmd":"ls"}', "run", "fc_1")]
    assert parts(conv, 4) == [("tool_result", "a.txt\nb.txt", "", "fc_1")]
    after = conv.messages[5].parts  # the answer text, then the calls made with it
    assert [(p.kind, p.name) for p in after] == [("text", ""), ("tool_call", "web_search_call"),
                                                 ("tool_call", "patch")]
    assert '"query":"ls"' in after[1].text
    assert parts(conv, 6) == [("tool_result", "applied", "", "ct_1")]
    assert conv.messages[7].parts[0].text == "[item reference msg_9]"


def test_openai_responses_input_as_a_string():
    conv = build_conversation({"model": "gpt-5", "input": "hello"}, None)
    assert roles(conv) == [("user", "")] and conv.messages[0].parts[0].text == "hello"


# --- Gemini ------------------------------------------------------------------------------------------------------

GEMINI = {
    "systemInstruction": {"parts": [{"text": "Answer in Greek."}]},
    "tools": [{"functionDeclarations": [{"name": "get_weather"}, {"name": "get_time"}]}],
    "contents": [
        {"role": "user", "parts": [{"text": "Weather?"},
                                   {"inlineData": {"mimeType": "image/png", "data": "QUJD"}},
                                   {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/x.pdf"}}]},
        {"role": "model", "parts": [{"text": "plan", "thought": True},
                                    {"functionCall": {"name": "get_weather", "args": {"city": "Αθήνα"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp": 21}}}]},
        {"parts": [{"text": "no role given"}]},
        {"role": "model", "parts": [{"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}}]},
    ],
}


def test_gemini_contents_system_instruction_and_function_parts():
    conv = build_conversation(GEMINI, None)
    assert conv.dialect == "gemini" and conv.tools == ["get_weather", "get_time"]
    assert roles(conv) == [("system", ""), ("user", ""), ("assistant", "model"), ("tool", "user"),
                           ("user", "no role"), ("assistant", "model")]
    assert [p.text for p in conv.messages[1].parts] == ["Weather?", "[image image/png, 3 bytes]",
                                                        "[file application/pdf, gs://b/x.pdf]"]
    assert parts(conv, 2) == [("thinking", "plan", "", ""),
                              ("tool_call", '{"city":"Αθήνα"}', "get_weather", "")]
    assert parts(conv, 3)[0][:3] == ("tool_result", '{\n  "temp": 21\n}', "get_weather")
    assert [(p.kind, p.name) for p in conv.messages[5].parts] == [("tool_call", "code (PYTHON)"),
                                                                 ("tool_result", "code OUTCOME_OK")]


def test_gemini_snake_case_and_string_system():
    body = {"system_instruction": "be nice", "contents": [
        {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"ok": True}}}]},
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}, {"inline_data": {
            "mime_type": "audio/wav", "data": "AAAA"}}]}]}
    conv = build_conversation(body, None)
    assert roles(conv) == [("system", ""), ("tool", "user"), ("assistant", "model")]
    assert conv.messages[0].parts[0].text == "be nice"
    assert [p.kind for p in conv.messages[2].parts] == ["tool_call", "media"]
    assert conv.messages[2].parts[1].text == "[file audio/wav, 3 bytes]"


# --- Ollama ----------------------------------------------------------------------------------------------------------

OLLAMA_CHAT = {
    "model": "qwen3:8b", "stream": True, "think": True, "options": {"temperature": 0},
    "messages": [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Weather in Paris?", "images": ["iVBORw0KGgo="]},
        {"role": "assistant", "content": "", "thinking": "call it",
         "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "tool_name": "get_weather", "content": "12 degrees"},
    ],
}


def test_ollama_chat_images_thinking_tool_calls_with_object_arguments():
    conv = build_conversation(OLLAMA_CHAT, None)
    assert conv.dialect == "ollama-chat"
    assert roles(conv) == [("system", ""), ("user", ""), ("assistant", ""), ("tool", "")]
    assert parts(conv, 1) == [("text", "Weather in Paris?", "", ""), ("media", "[image 8 bytes]", "", "")]
    assert parts(conv, 2) == [("thinking", "call it", "", ""), ("text", "", "", ""),
                              ("tool_call", '{"city":"Paris"}', "get_weather", "")]
    assert parts(conv, 3) == [("tool_result", "12 degrees", "get_weather", "")]


def test_ollama_generate_prompt_and_system():
    conv = build_conversation({"model": "llama3", "prompt": "Why is the sky blue?", "system": "Be short.",
                               "images": ["AAAA"]}, None)
    assert conv.dialect == "ollama-generate"
    assert roles(conv) == [("system", ""), ("user", "")]
    assert [p.text for p in conv.messages[1].parts] == ["Why is the sky blue?", "[image 3 bytes]"]


# --- hostile and odd input ---------------------------------------------------------------------------------------


def test_not_an_llm_body_gives_no_conversation_and_odd_values_never_raise():
    assert build_conversation({"a": 1}, None) is None
    assert build_conversation([1, 2], None) is None
    assert build_conversation(None, None) is None
    odd = {"model": "m", "system": 5, "messages": [None, 3, {"role": 7, "content": {"nested": [1]}},
                                                   {"role": "user", "content": [None, 5, {"type": None}]},
                                                   {"role": "tool", "content": {"k": "v"}}]}
    conv = build_conversation(odd, None)
    lines = conversation_lines(conv).lines
    assert lines and all(isinstance(ln, str) for ln in lines)


def test_markup_and_escapes_stay_plain_text_and_a_huge_system_prompt_is_one_line():
    huge = ("[bold]Rules[/bold] \x1b[31mred\x1b[0m\n" * 50_000)
    body = {"model": "claude", "system": huge, "messages": [
        {"role": "user", "content": "[link=http://x]click[/link] \x07\x9b"}]}
    conv = build_conversation(body, None)
    laid = conversation_lines(conv)
    assert laid.lines[2].startswith(f"▸ system · {len(huge):,} chars · Enter expands · [bold]Rules[/bold] ")
    assert len(laid.lines) < 10  # folded: not 50,000 lines
    assert "[link=http://x]click[/link] \x07\x9b" in laid.lines  # as sent: the widget makes it inert
    assert len(conversation_lines(conv, expand_system=True).lines) > 50_000


def test_a_long_unknown_part_is_cut():
    conv = build_conversation({"model": "m", "messages": [
        {"role": "user", "content": [{"type": "blob", "data": "z" * 100_000}]}]}, None)
    part: Part = conv.messages[0].parts[0]
    assert part.kind == "other" and len(part.text) < 2_100 and part.text.endswith("chars)")
