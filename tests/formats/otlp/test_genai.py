"""Any framework following the OpenTelemetry GenAI semantic conventions: its traces become sessions with totals,
nested agents become sub-agents, and the messages it records show in the payload viewer's messages view."""

from __future__ import annotations

import json

from helpers.otlpfixtures import encode, genai_spans

from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.otlp.sink import OtlpSink
from tui.payloads.messages import conversation_lines, conversation_of
from tui.payloads.op_captures import decode_with_notes, op_captures

TRACE = "0af7651916cd43dd8448eb211c80319c"


def _messages_view(op) -> list[str]:
    """What the messages view shows for an op: its captures decoded and laid out as the payload screen does."""
    captures = op_captures(op)
    request = next(c for c in captures if c.side == "request")
    response = next(c for c in captures if c.side == "response")
    conv = conversation_of(decode_with_notes(request, None)[0], decode_with_notes(response, None)[0])
    return conversation_lines(conv, expand_system=True).lines


def _sink() -> tuple[LiveHub, OtlpSink]:
    hub = LiveHub()
    return hub, OtlpSink(hub)


def test_a_genai_trace_is_a_session_with_llm_and_tool_ops_and_totals():
    hub, sink = _sink()
    sink.accept("traces", encode(genai_spans()), "proto")
    sink.drain()
    [root] = hub.roots()
    session = hub.build(root)
    assert session.agent_id == "travel" and session.success is True
    assert [(t.index, [(o.kind, o.name or o.model, o.status) for o in t.ops]) for t in session.turns] == [
        (1, [("llm", "gpt-4o-2024", "ok"), ("tool", "get_weather", "ok")]), (2, [("llm", "gpt-4o", "ok")])]
    totals = session.totals
    # input_tokens counts the cached ones in the GenAI conventions: the tree counts them apart
    assert (totals.tokensIn, totals.tokensOut, totals.tokensCacheRead, totals.toolsRun) == (300, 45, 20, 1)
    tool = session.turns[0].ops[1]
    assert [c.side for c in op_captures(tool)] == ["request", "response"]


def test_genai_messages_show_in_the_messages_view():
    hub, sink = _sink()
    sink.accept("traces", encode(genai_spans()), "proto")
    sink.drain()
    lines = _messages_view(hub.build(hub.roots()[0]).turns[0].ops[0])
    assert lines[0] == "OpenTelemetry GenAI messages request + response · model gpt-4o-2024 · 1 message"
    text = "\n".join(lines)
    for expected in ("▾ system", "You are a travel assistant.", "── user", "Weather in Paris?",
                     "── assistant · response", "stop tool_call", "· thinking", "  I should call the weather tool",
                     "→ tool call get_weather  [call_1]", '    "city": "Paris"'):
        assert expected in text, expected


def _attr(key: str, value: dict) -> dict:
    return {"key": key, "value": value}


def _s(text: str) -> dict:
    return {"stringValue": text}


def _kv(**items) -> dict:
    return {"kvlistValue": {"values": [_attr(k, v) for k, v in items.items()]}}


def _span(span_id: str, parent: str, name: str, start: int, end: int, *attrs: dict) -> dict:
    return {"traceId": TRACE, "spanId": span_id, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": str(1_700_000_000_000_000_000 + start * 1_000_000),
            "endTimeUnixNano": str(1_700_000_000_000_000_000 + end * 1_000_000), "attributes": list(attrs)}


def _json_body() -> bytes:
    """An agent (invoke_agent) calling a model, then a tool that runs a nested agent, written as OTLP/JSON with
    the messages as structured values (not JSON text)."""
    op = lambda name: _attr("gen_ai.operation.name", _s(name))  # noqa: E731
    messages = {"arrayValue": {"values": [_kv(role=_s("user"), parts={"arrayValue": {"values": [
        _kv(type=_s("text"), content=_s("plan a trip")),
        _kv(type=_s("tool_call_response"), id=_s("c0"), response=_s("earlier result"))]}})]}}
    output = {"arrayValue": {"values": [_kv(role=_s("assistant"), finish_reason=_s("stop"), parts={"arrayValue": {
        "values": [_kv(type=_s("text"), content=_s("Let me ask the planner."))]}})]}}
    spans = [
        _span("00000000000000a5", "00000000000000a1", "chat claude", 60, 90, op("chat"),
              _attr("gen_ai.request.model", _s("claude")), _attr("gen_ai.usage.input_tokens", {"intValue": "7"}),
              _attr("gen_ai.usage.output_tokens", {"intValue": 3})),
        _span("00000000000000a4", "00000000000000a3", "invoke_agent planner", 55, 95, op("invoke_agent"),
              _attr("gen_ai.agent.name", _s("planner"))),
        _span("00000000000000a1", "00000000000000a4", "chat claude", 56, 58, op("chat"),
              _attr("gen_ai.request.model", _s("claude")), _attr("gen_ai.usage.input_tokens", {"intValue": 5})),
        _span("00000000000000a3", "0000000000000001", "execute_tool ask_planner", 50, 99, op("execute_tool"),
              _attr("gen_ai.tool.name", _s("ask_planner"))),
        _span("00000000000000a2", "0000000000000001", "chat gpt", 10, 40, op("chat"),
              _attr("gen_ai.request.model", _s("gpt")), _attr("gen_ai.usage.input_tokens", {"intValue": "100"}),
              _attr("gen_ai.input.messages", messages), _attr("gen_ai.output.messages", output)),
        _span("0000000000000001", "", "invoke_agent trip", 0, 100, op("invoke_agent"),
              _attr("gen_ai.agent.name", _s("trip"))),
    ]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def test_a_nested_invoke_agent_is_a_sub_agent_on_the_tool_that_ran_it():
    hub, sink = _sink()
    sink.accept("traces", _json_body(), "json")
    sink.drain()
    assert hub.roots() == [TRACE]
    session = hub.build(TRACE)
    assert session.agent_id == "trip"
    [turn] = session.turns
    assert [(o.kind, o.name or o.model) for o in turn.ops] == [("llm", "gpt"), ("session", "ask_planner")]
    child = turn.ops[1].child
    assert child.agent_id == "planner"
    assert [(t.index, [o.model for o in t.ops]) for t in child.turns] == [(1, ["claude"]), (2, ["claude"])]
    assert (session.totals.tokensIn, session.totals.agentsRun, child.totals.tokensIn) == (112, 2, 12)


def test_structured_genai_messages_from_json_show_in_the_messages_view():
    hub, sink = _sink()
    sink.accept("traces", _json_body(), "json")
    sink.drain()
    text = "\n".join(_messages_view(hub.build(TRACE).turns[0].ops[0]))
    for expected in ("── user", "plan a trip", "← tool result [c0]", "  earlier result", "── assistant · response",
                     "Let me ask the planner.", "stop stop"):
        assert expected in text, expected


def test_messages_sent_as_a_log_record_in_the_llm_span_show_too():
    from helpers.otlpfixtures import hex_ids, log_body

    spans = genai_spans()
    chat = next(s for s in spans if s.attributes.get("gen_ai.usage.input_tokens") == 200)
    trace, span_id = hex_ids(chat)
    details = log_body([{"message": "", "time_ms": 700, "trace_id": trace, "span_id": span_id,
                         "event.name": "gen_ai.client.inference.operation.details",
                         "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                             {"type": "text", "content": "and tomorrow?"}]}]),
                         "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                             {"type": "text", "content": "Sunny."}]}])}])
    hub, sink = _sink()
    sink.accept("traces", encode(spans), "proto")
    sink.accept("logs", details, "proto")
    sink.drain()
    text = "\n".join(_messages_view(hub.build(hub.roots()[0]).turns[1].ops[0]))
    assert "and tomorrow?" in text and "Sunny." in text


def test_the_first_user_message_is_the_title_of_a_session_that_has_none():
    from tui.catalog.row_facts import row_title

    hub, sink = _sink()
    sink.accept("traces", encode(genai_spans()), "proto")
    sink.drain()
    [root] = hub.roots()
    assert row_title(hub.build(root)) == "Weather in Paris?"
