"""Spans as OTLP export requests: OTLP/JSON (what `-o FILE` and stdout carry) and protobuf (what `--to` sends).

OTLP/JSON as the specification demands it: lowerCamelCase field names, trace and span ids as lowercase hex (not
base64 as protobuf's generic JSON mapping would have them), 64-bit integers as decimal strings, enums as integers.
A file holds one ExportTraceServiceRequest per line: the OpenTelemetry Collector's `otlpjsonfile` receiver reads
that and its `file` exporter writes it. Requests are split so that each stays under REQUEST_BYTES of JSON; the
protobuf of a request is smaller than its JSON (binary ids, no field names), so it stays under gRPC's default
4 MiB message limit too. The protobuf is made from the same dict (hex ids turned to base64, then
`json_format.ParseDict`), so the two encodings cannot drift apart; opentelemetry-proto is imported only then.
"""

from __future__ import annotations

import base64
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


def _b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode("ascii")


def protobuf_ids(request: dict) -> dict:
    """A copy of an OTLP/JSON request with its hex ids as base64: what protobuf's generic JSON mapping expects."""
    out = json.loads(json_line(request))  # (lone surrogates replaced: protobuf strings must be valid UTF-8)
    for rs in out.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = _b64(span[key])
    return out


def to_protobuf(request: dict) -> bytes:
    """The ExportTraceServiceRequest protobuf bytes of an OTLP/JSON request dict."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    message = ExportTraceServiceRequest()
    json_format.ParseDict(protobuf_ids(request), message)
    return message.SerializeToString()
