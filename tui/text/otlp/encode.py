"""Spans as OTLP export requests: OTLP/JSON (what `-o FILE` and stdout carry) and protobuf (what `--to` sends).

OTLP/JSON as the specification demands it: lowerCamelCase field names, trace and span ids as lowercase hex (not
base64 as protobuf's generic JSON mapping would have them), 64-bit integers as decimal strings, enums as integers.
A file holds one ExportTraceServiceRequest per line: the OpenTelemetry Collector's `otlpjsonfile` receiver reads
that and its `file` exporter writes it. Requests are split so that each stays under REQUEST_BYTES of JSON; the
protobuf of a request is smaller than its JSON (binary ids, no field names), so it stays under gRPC's default
4 MiB message limit too. The protobuf is made from the same dicts, so the two encodings cannot drift apart (the
tests read both back with opentelemetry-proto and compare); opentelemetry-proto is imported only then.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from tui.formats.otlp.records import Span

REQUEST_BYTES = 3 * 1024 * 1024  # JSON bytes of one request: below gRPC's 4 MiB once encoded as protobuf
SCOPE_NAME = "aiagent-monitor.export"


def any_value(value: object) -> dict:
    """An attribute value as OTLP/JSON's AnyValue (int64 as a string)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": value if isinstance(value, str) else str(value)}


def key_values(attrs: dict[str, object]) -> list[dict]:
    return [{"key": key, "value": any_value(value)} for key, value in attrs.items()]


def span_json(span: Span) -> dict:
    out: dict = {"traceId": span.trace_id, "spanId": span.span_id, "name": span.name, "kind": span.kind,
                 "startTimeUnixNano": str(span.start_ns), "endTimeUnixNano": str(span.end_ns),
                 "attributes": key_values(span.attrs)}
    if span.parent_id:
        out["parentSpanId"] = span.parent_id
    if span.events:
        out["events"] = [{"timeUnixNano": str(e.time_ns), "name": e.name, "attributes": key_values(e.attrs)}
                         for e in span.events]
    status: dict = {"code": span.status} if span.status else {}
    if span.status_message:
        status["message"] = span.status_message
    out["status"] = status
    return out


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def requests(spans: list[Span], resource: dict[str, object], scope_version: str,
             limit: int = REQUEST_BYTES) -> Iterator[dict]:
    """ExportTraceServiceRequest dicts holding `spans` in order, each under `limit` bytes of JSON (a span larger
    than `limit` on its own travels alone)."""
    batch: list[dict] = []
    size = 0
    for span in spans:
        item = span_json(span)
        item_size = len(_dumps(item).encode("utf-8", "surrogatepass")) + 1
        if batch and size + item_size > limit:
            yield _request(batch, resource, scope_version)
            batch, size = [], 0
        batch.append(item)
        size += item_size
    if batch:
        yield _request(batch, resource, scope_version)


def _request(spans: list[dict], resource: dict[str, object], scope_version: str) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": key_values(resource)},
                               "scopeSpans": [{"scope": {"name": SCOPE_NAME, "version": scope_version},
                                               "spans": spans}]}]}


def json_line(request: dict) -> bytes:
    """One line of an OTLP/JSON file (lone surrogates, which JSON text cannot carry as UTF-8, replaced)."""
    return _dumps(request).encode("utf-8", "replace") + b"\n"


def to_protobuf(request: dict) -> bytes:
    """The ExportTraceServiceRequest protobuf bytes of an OTLP/JSON request dict (as `requests` makes them: the one
    source of both encodings). Walked field by field: protobuf's generic json_format costs three times as much."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    message = ExportTraceServiceRequest()
    for rs_json in request.get("resourceSpans", []):
        rs = message.resource_spans.add()
        _set_attributes(rs.resource.attributes, rs_json.get("resource", {}).get("attributes", []))
        for ss_json in rs_json.get("scopeSpans", []):
            ss = rs.scope_spans.add()
            ss.scope.name = ss_json.get("scope", {}).get("name", "")
            ss.scope.version = ss_json.get("scope", {}).get("version", "")
            for sj in ss_json.get("spans", []):
                span = ss.spans.add()
                span.trace_id = bytes.fromhex(sj["traceId"])
                span.span_id = bytes.fromhex(sj["spanId"])
                if sj.get("parentSpanId"):
                    span.parent_span_id = bytes.fromhex(sj["parentSpanId"])
                span.name = _valid(sj.get("name", ""))
                span.kind = sj.get("kind", 0)
                span.start_time_unix_nano = int(sj.get("startTimeUnixNano", 0))
                span.end_time_unix_nano = int(sj.get("endTimeUnixNano", 0))
                _set_attributes(span.attributes, sj.get("attributes", []))
                for ej in sj.get("events", []):
                    event = span.events.add()
                    event.time_unix_nano = int(ej.get("timeUnixNano", 0))
                    event.name = _valid(ej.get("name", ""))
                    _set_attributes(event.attributes, ej.get("attributes", []))
                status = sj.get("status", {})
                if status.get("code"):
                    span.status.code = status["code"]
                if status.get("message"):
                    span.status.message = _valid(status["message"])
    return message.SerializeToString()


def _valid(text: str) -> str:
    """Protobuf strings must be valid UTF-8: a lone surrogate becomes U+FFFD-like "?" as in the JSON lines."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _set_attributes(target, items: list[dict]) -> None:
    for item in items:
        kv = target.add()
        kv.key = _valid(item["key"])
        _set_value(kv.value, item["value"])


def _set_value(target, value: dict) -> None:
    if "stringValue" in value:
        target.string_value = _valid(value["stringValue"])
    elif "boolValue" in value:
        target.bool_value = value["boolValue"]
    elif "intValue" in value:
        target.int_value = int(value["intValue"])
    elif "doubleValue" in value:
        target.double_value = value["doubleValue"]
    elif "arrayValue" in value:
        array = target.array_value
        for v in value["arrayValue"].get("values", []):
            _set_value(array.values.add(), v)
