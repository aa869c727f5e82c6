"""The OpenTelemetry GenAI message shape in the messages view: every part type, and shapes nobody planned for."""

from __future__ import annotations

from tui.payloads.detect import reassemble_json
from tui.payloads.messages import build_conversation, conversation_lines
from tui.payloads.requests import request_info


def test_every_part_type_of_the_conventions_is_laid_out():
    request = {"gen_ai.request.model": "m", "gen_ai.system_instructions": "Be brief.", "gen_ai.input.messages": [
        {"role": "user", "parts": [{"type": "text", "content": "hi"},
                                   {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "AAAA"},
                                   {"type": "uri", "modality": "video", "uri": "https://x/v.mp4"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "1", "name": "f", "arguments": {"a": 1}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "1", "response": {"ok": True}}]},
        {"role": "user", "parts": [{"type": "new_kind", "x": 1}]}]}
    assert request_info(request).dialect == "genai"
    answer = reassemble_json({"gen_ai.output.messages": [
        {"role": "assistant", "parts": [{"type": "text", "content": "done"}], "finish_reason": "stop"}]})
    lines = conversation_lines(build_conversation(request, answer), expand_system=True).lines
    text = "\n".join(lines)
    for expected in ("Be brief.", "── user", "hi", "[image image/png]", "[video https://x/v.mp4]",
                     "→ tool call f  [1]", '    "a": 1', "← tool result f [1]", '  {"ok":true}',
                     '[new_kind] {"type":"new_kind","x":1}', "done", "stop stop"):
        assert expected in text, expected


def test_hostile_shapes_never_raise():
    for messages in (None, "text", [None, 5, "plain", {"role": 3, "parts": "p"}, {"parts": [None, 7, {"type": 1}]},
                                    {"role": "user", "content": "older shape"}]):
        request = {"gen_ai.input.messages": messages, "gen_ai.system_instructions": {"type": "text"}}
        answer = reassemble_json({"gen_ai.output.messages": messages, "gen_ai.response.finish_reasons": "x"})
        conv = build_conversation(request, answer)
        assert conversation_lines(conv).lines
