"""OTLP request bodies, protobuf and OTLP/JSON, decoded into spans and log records; anything malformed is an
OtlpDecodeError and never another exception."""

from __future__ import annotations

import json

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from helpers.otlpfixtures import ROOT_TXN, ai_agent_spans, encode, log_body

from tui.formats.otlp import decode
from tui.formats.otlp.decode import decode_logs, decode_traces
from tui.formats.otlp.records import STATUS_ERROR, OtlpDecodeError

TRACE = "5b8efff798038103d269b633813fc60c"
SPAN = "eee19b7ec3c1b174"


def _json_span(**extra) -> dict:
    span = {"traceId": TRACE, "spanId": SPAN, "parentSpanId": "", "name": "chat gpt-4o", "kind": 3,
            "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": 1700000000500000000,
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "120"}},
                {"key": "temperature", "value": {"doubleValue": 0.5}},
                {"key": "stream", "value": {"boolValue": False}},
                {"key": "gen_ai.response.finish_reasons",
                 "value": {"arrayValue": {"values": [{"stringValue": "stop"}]}}},
                {"key": "extra", "value": {"kvlistValue": {"values": [{"key": "a", "value": {"intValue": 1}}]}}},
                {"key": "blob", "value": {"bytesValue": "AAEC"}}],
            "status": {"code": 2, "message": "boom"},
            "events": [{"name": "exception", "timeUnixNano": "1700000000400000000",
                        "attributes": [{"key": "exception.message", "value": {"stringValue": "boom"}}]}]}
    span.update(extra)
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name",
                                                            "value": {"stringValue": "bot"}}]},
                               "scopeSpans": [{"scope": {"name": "openai"}, "spans": [span]}]}]}


def test_protobuf_spans_of_the_sdk_decode_with_hex_ids_and_attributes():
    spans = decode_traces(encode(ai_agent_spans()), "proto")
    assert len(spans) == 7
    root = next(s for s in spans if not s.parent_id)
    assert root.name == "agent.session" and root.attrs["ai.session.txn_id"] == ROOT_TXN
    assert len(root.trace_id) == 32 and len(root.span_id) == 16 and int(root.trace_id, 16)
    assert root.resource["service.name"] == "ai-agent" and root.scope == "ai-agent"
    assert all(s.trace_id == root.trace_id for s in spans)
    assert root.end_ns > root.start_ns > 0


def test_failed_child_tool_keeps_its_status_and_error_event():
    spans = decode_traces(encode(ai_agent_spans(fail_child_tool=True)), "proto")
    tool = next(s for s in spans if s.attrs.get("ai.tool.name") == "web__fetch")
    assert tool.status == STATUS_ERROR and tool.status_message == "timeout"
    assert tool.events[0].name == "tool.manage.error" and tool.events[0].attrs["ai.tool.error"] == "timeout"


def test_otlp_json_spans_read_camel_case_hex_ids_string_int64_and_any_value_wrappers():
    [span] = decode_traces(json.dumps(_json_span()).encode(), "json")
    assert (span.trace_id, span.span_id, span.parent_id) == (TRACE, SPAN, "")
    assert span.start_ns == 1_700_000_000_000_000_000 and span.end_ns == 1_700_000_000_500_000_000
    assert span.attrs == {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 120, "temperature": 0.5,
                          "stream": False, "gen_ai.response.finish_reasons": ["stop"], "extra": {"a": 1},
                          "blob": b"\x00\x01\x02"}
    assert (span.status, span.status_message, span.kind) == (STATUS_ERROR, "boom", 3)
    assert span.events[0].attrs == {"exception.message": "boom"} and span.resource == {"service.name": "bot"}


def test_otlp_json_snake_case_and_all_zero_ids():
    body = _json_span(parentSpanId="0000000000000000")
    span = body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["start_time_unix_nano"] = span.pop("startTimeUnixNano")
    body = {"resource_spans": [{"scope_spans": body["resourceSpans"][0]["scopeSpans"]}]}
    [decoded] = decode_traces(json.dumps(body).encode(), "json")
    assert decoded.parent_id == "" and decoded.start_ns == 1_700_000_000_000_000_000


def test_log_records_protobuf_and_json():
    [record] = decode_logs(log_body([{"message": "hello", "time_ms": 5, "trace_id": TRACE, "span_id": SPAN,
                                      "turn": 2, "txn_id": ROOT_TXN, "severity": "WRN"}]), "proto")
    assert (record.body, record.trace_id, record.span_id) == ("hello", TRACE, SPAN)
    assert record.attrs["turn"] == 2 and record.attrs["txn_id"] == ROOT_TXN and record.severity_text == "WRN"
    body = {"resourceLogs": [{"scopeLogs": [{"logRecords": [
        {"observedTimeUnixNano": "7", "severityNumber": 17, "body": {"stringValue": "x"},
         "attributes": [{"key": "txn_id", "value": {"stringValue": "t"}}]}]}]}]}
    [record] = decode_logs(json.dumps(body).encode(), "json")
    assert (record.time_ns, record.severity_number, record.body, record.trace_id) == (7, 17, "x", "")


def test_a_lone_surrogate_escape_in_json_reads_as_the_replacement_character():
    text = json.dumps(_json_span(name="cut \\ud83d"))
    [span] = decode_traces(text.replace("\\\\ud83d", "\\ud83d").encode(), "json")
    assert span.name == "cut \ufffd"


def _nested(depth: int) -> dict:
    value: dict = {"stringValue": "leaf"}
    for _ in range(depth):
        value = {"arrayValue": {"values": [value]}}
    return value


def _proto_with_bad_utf8() -> bytes:
    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.trace_id, span.span_id, span.name = bytes(range(1, 17)), bytes(range(1, 9)), "ok"
    return request.SerializeToString().replace(b"ok", b"\xed\xa0")  # a lone surrogate in UTF-8


@pytest.mark.parametrize("body, encoding", [
    (b"\xff\xff\xff\xff", "proto"),
    (b"\x0a\x05\x12\x03", "proto"),  # a truncated message
    (_proto_with_bad_utf8(), "proto"),
    (b"{not json", "json"),
    (b"[1, 2]", "json"),
    (b'{"resourceSpans": "x"}', "json"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "W47/95gDgQPSabYzgT/GDA==", "spanId": "aa"}]}]}]}',
     "json"),  # base64 ids: OTLP/JSON writes hex
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": 5}]}]}]}', "json"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"startTimeUnixNano": "soon"}]}]}]}', "json"),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "k", "value": {"boolValue": 1}}]}]}]}]}',
     "json"),
    (json.dumps(_json_span(attributes=[{"key": "deep", "value": _nested(200)}])).encode(), "json"),
    (b"{}", "xml"),
    ("text, not bytes", "json"),
])
def test_malformed_bodies_raise_otlp_decode_error_only(body, encoding):
    with pytest.raises(OtlpDecodeError):
        decode_traces(body, encoding)


def test_deeply_nested_protobuf_values_are_refused():
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue

    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    kv = span.attributes.add()
    kv.key = "deep"
    value: AnyValue = kv.value
    for _ in range(60):
        value = value.array_value.values.add()
    value.string_value = "leaf"
    with pytest.raises(OtlpDecodeError):
        decode_traces(request.SerializeToString(), "proto")


def test_a_body_over_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(decode, "MAX_BODY_BYTES", 100)
    with pytest.raises(OtlpDecodeError, match="limit"):
        decode_logs(b" " * 101, "json")


def test_importing_the_sink_imports_no_protobuf_until_a_body_is_decoded():
    import subprocess
    import sys

    code = ("import sys, tui.formats.otlp.sink; "
            "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'google.protobuf'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
