"""ai-agent's `sdk` captures are its own TurnRequest and TurnResult (tui/payloads/aiagent_turn.py): named so on
both sides, told by where they were found (never by the body's shape), decoded for the text and messages views."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json

import pytest

from tui.payloads.aiagent_turn import request_info, request_messages, result_of
from tui.payloads.captures import Capture, captures_from_payload_refs, find_captures
from tui.payloads.check import describe
from tui.payloads.decode import decode_bytes, decode_capture
from tui.payloads.messages import conversation_lines, conversation_of
from tui.payloads.op_captures import capture_name, decode_with_notes, payload_views

from helpers.sdkfixtures import master_turn, sdk_op

REQUEST = {
    "provider": "fake", "model": "fake-chat", "stream": True, "temperature": 0.2, "topP": None,
    "maxOutputTokens": 16384, "toolChoice": None,
    "tools": [{"name": "search", "description": "Search the web.\nSecond line.", "inputSchema": {"type": "object"}}],
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Find cats."},
        {"role": "assistant", "content": "", "toolCalls": [{"id": "c1", "name": "search",
                                                             "parameters": {"q": "cats"}}]},
        {"role": "tool", "content": "(tool failed: timeout)", "toolCallId": "c1"},
        {"role": "user", "content": "# System Notice", "noticeType": "xml-next"},
    ],
    "turnMetadata": {"attempt": 1},
}
FAILED = {"status": {"type": "model_error", "message": "400 bad request", "retryable": True, "httpStatus": 400},
          "stopReason": None, "response": None, "messages": [], "hasReasoning": False, "hasContent": False,
          "tokens": None, "providerMetadata": {"reasoningState": "disabled"}}


def views_of(op: dict) -> dict:
    return {c.side: decode_with_notes(c, None)[0] for c in find_captures(op) if c.source == "sdk"}


def test_real_request_and_result_are_named_for_what_they_are():
    views = views_of(sdk_op(master_turn("request"), master_turn("response")))
    assert views["request"].dialect_line == ("ai-agent turn request · provider fake · model fake-chat · 3 messages "
                                             "· 4 tools offered · not streamed")
    assert views["response"].dialect_line == "ai-agent turn result"
    assert "OpenAI" not in views["request"].dialect_line + views["response"].dialect_line


def test_real_result_decoded_status_stop_calls_results_tokens():
    r = result_of(json.loads(master_turn("response")))
    assert (r.status, r.stop_reason, r.model, r.errors) == ("success (tool calls)", "tool-calls", "fake-chat", [])
    assert [(t.name, json.loads(t.arguments)["prompt"]) for t in r.tool_calls] == [
        ("agent__researcher", "Research topic A: tide tables."),
        ("agent__researcher", "Research topic B: lunar cycles."),
        ("agent__refuser", "Say something rude.")]
    results = r.of_kind("tool_result")
    assert [(b.tool.name, b.tool.id, b.text) for b in results][2] == (
        "agent__refuser", "call_2_agent__refuser", "refuser done.")
    assert r.usage["inputTokens"] == 2641 and r.usage["outputTokens"] == 40
    assert "provider fake" in r.meta and "cost $0.0085614" in r.meta


def test_real_pair_in_the_messages_view():
    views = views_of(sdk_op(master_turn("request"), master_turn("response")))
    lines = conversation_lines(conversation_of(views["request"], views["response"])).lines
    assert lines[0] == ("ai-agent turn request + result · provider fake · model fake-chat · 2 messages · tools: "
                        "agent__task_status, agent__final_report, agent__researcher, agent__refuser")
    assert lines[2].startswith("▸ system · 6,661 chars")
    at = lines.index("── assistant · result")
    assert lines[at + 1] == ("ai-agent turn result · status success (tool calls) · model fake-chat · stop tool-calls "
                             "· provider fake · cost $0.0085614")
    assert lines[at + 2].startswith("usage inputTokens=2641, outputTokens=40")
    assert "→ tool call agent__refuser  [call_2_agent__refuser]" in lines
    tool = lines.index("← tool result agent__refuser [call_2_agent__refuser]")
    assert lines[tool - 1] == "── tool · result" and lines[tool + 1] == "  refuser done."


def test_request_text_view_shows_settings_tools_and_messages():
    c = find_captures(sdk_op(REQUEST, None))[0]
    assert (c.side, c.source) == ("request", "sdk")
    view, _ = decode_with_notes(c, None)
    views = dict(payload_views(c, view))
    assert list(views)[:2] == ["text", "json"]
    text = list(views["text"])
    assert text[:5] == [
        "── ai-agent turn request · provider fake · model fake-chat · 5 messages · 1 tool offered · streamed",
        "temperature 0.2 · maxOutputTokens 16384",
        "── tools offered (1)",
        "search: Search the web.",
        "── system"]
    assert text[text.index("── assistant") + 1] == "→ tool call search  [c1]"
    assert text[text.index("── tool") + 1] == "← tool result search [c1] (error)"
    assert "── user (xml-next)" in text


def test_request_messages_roles_text_calls_results():
    msgs = request_messages(REQUEST)
    assert [(m.role, m.label) for m in msgs] == [("system", ""), ("user", ""), ("assistant", ""), ("tool", ""),
                                                 ("user", "xml-next")]
    call = msgs[2].parts[0]
    assert (call.kind, call.name, call.call_id, json.loads(call.text)) == ("tool_call", "search", "c1", {"q": "cats"})
    res = msgs[3].parts[0]
    assert (res.kind, res.call_id, res.error) == ("tool_result", "c1", True)


def test_failed_result_says_why_and_is_flagged_by_dump():
    r = result_of(FAILED)
    assert r.status == "model_error"
    assert r.errors == ["model_error: 400 bad request (HTTP 400, retryable)"]
    line, fine = describe(json.dumps(FAILED).encode(), "sdk", "response")
    assert not fine
    assert line == ("sdk (json) · ai-agent turn result · status model_error · 1 error in the result: "
                    "model_error: 400 bad request (HTTP 400, retryable)")


def test_result_text_falls_back_to_response_and_reads_reasoning():
    r = result_of({"status": {"type": "success", "hasToolCalls": False, "finalAnswer": True}, "stopReason": "stop",
                   "response": "The answer.", "messages": [{"role": "assistant", "content": "",
                                                            "reasoning": [{"type": "reasoning", "text": "hmm"}]}],
                   "tokens": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}, "latencyMs": 1234})
    assert (r.text, r.thinking, r.status) == ("The answer.", "hmm", "success (final answer)")
    assert "latency 1,234 ms" in r.meta


def test_the_side_decides_never_the_shape():
    # a TurnResult-shaped body on the request side is not called a result, nor any provider's request
    on_request = decode_bytes(json.dumps(FAILED).encode(), "sdk", "request")
    assert on_request.reassembled is None and on_request.dialect_line == "ai-agent turn request · 0 messages"
    # an OpenAI-shaped body in an sdk capture is ai-agent's object, not "OpenAI Chat Completions"
    openai = {"model": "gpt", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]}
    assert decode_bytes(json.dumps(openai).encode(), "json", "request").dialect_line.startswith(
        "ai-agent turn request")
    assert decode_bytes(json.dumps(openai).encode(), "json").dialect_line.startswith("OpenAI Chat Completions")
    # format "sdk" with no side known: named as nothing, never as a provider's
    assert decode_bytes(json.dumps(openai).encode(), "sdk").dialect_line == ""


def test_a_body_without_the_objects_keys_stays_plain_json():
    c = Capture("response", "sdk", "sdk", "inline", value=base64.b64encode(b'{"ok": true}').decode())
    v = decode_capture(c)
    assert (v.kind, v.reassembled, v.request, v.notes) == ("json", None, None, [])
    assert capture_name(c) == "ai-agent turn result"
    assert capture_name(Capture("request", "sdk", "json", "inline")) == "ai-agent turn request"
    assert capture_name(Capture("request", "raw", "http", "inline")) == ""


@pytest.mark.parametrize("body", [
    {"messages": "x", "tools": {"a": 1}, "provider": 5},
    {"messages": [None, 3, "s", {"role": 7, "content": {"a": [1]}, "toolCalls": "x", "reasoning": [None, 5]},
                  {"role": "tool", "content": None, "toolCallId": ["x"]}, {"role": "ROBOT", "content": "hi"}],
     "tools": [None, {"name": None, "description": 5}], "temperature": {"x": 1}},
    {"status": "broken", "stopReason": 5, "response": ["x"], "tokens": [1], "providerMetadata": "x",
     "messages": [{"role": "assistant", "toolCalls": [None, {"parameters": "not json"}]}, {"role": "tool"}]},
    {"status": {"type": None, "message": {"deep": True}, "httpStatus": "500"}, "latencyMs": True},
])
def test_hostile_bodies_never_raise(body):
    data = json.dumps(body).encode()
    for side in ("request", "response"):
        c = Capture(side, "sdk", "sdk", "inline", value=base64.b64encode(data).decode())
        view, _ = decode_with_notes(c, None)
        for _name, lines in payload_views(c, view):
            list(lines[:50])
        describe(data, "sdk", side)
    info = request_info(body)
    if info is not None:
        assert info.line.startswith("ai-agent turn request")
    views = views_of(sdk_op(body, body))
    conv = conversation_of(views["request"], views["response"])
    if conv is not None:
        conversation_lines(conv, True)


def test_v3_payload_refs_kind_and_file_name(tmp_path):
    def ref(kind: str | None, name: str, data: bytes) -> dict:
        path = f"payloads/s1/turn-0001/{name}.json.gz"
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(gzip.compress(data))
        out = {"opId": "o", "turn": 1, "opIndex": 1, "format": "json", "compression": "gzip", "path": path,
               "originalBytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "captured": True}
        return {**out, "kind": kind} if kind else out

    caps = captures_from_payload_refs([ref("sdk_request", "llm-0001-sdk-request", master_turn("request")),
                                       ref(None, "llm-0001-sdk-response", master_turn("response"))])
    assert [(c.side, c.source) for c in caps] == [("request", "sdk"), ("response", "sdk")]
    assert "its file name says sdk response" in caps[1].note
    lines = [describe_line for describe_line in (decode_with_notes(c, tmp_path)[0].dialect_line for c in caps)]
    assert lines[0].startswith("ai-agent turn request · provider fake")
    assert lines[1] == "ai-agent turn result"


def test_what_ai_agent_added_itself_is_labelled():
    msgs = request_messages({"messages": [
        {"role": "tool", "content": "(tool failed: tool not found)", "toolCallId": "x",
         "metadata": {"injectedToolResult": True, "injectedReason": "tool_missing"}},
        {"role": "user", "content": "retry", "noticeType": "xml-past"}]})
    assert [(m.role, m.label) for m in msgs] == [("tool", "injected"), ("user", "xml-past")]
    assert result_of({"status": "timeout", "messages": []}).errors == ["timeout"]
