"""OTLP export requests (traces, logs) decoded into tui.formats.otlp.records, from protobuf or OTLP/JSON.

Called by the receiver's threads with a whole request body. Anything that is not a valid request raises
OtlpDecodeError and nothing else (the receiver counts and refuses it): broken protobuf, JSON of the wrong shape or
types, invalid UTF-8, values nested deeper than MAX_DEPTH, bodies over MAX_BODY_BYTES.

OTLP/JSON as the specification writes it: field names lowerCamelCase (snake_case accepted too), trace and span ids
as hex strings (not base64), 64-bit integers as strings or numbers, enums as integers, AnyValue as its one-key
wrapper (`stringValue`, `boolValue`, `intValue`, `doubleValue`, `arrayValue.values`, `kvlistValue.values`,
`bytesValue` in base64). A lone surrogate escape in JSON text reads as U+FFFD, as everywhere in the monitor
(tui.inputs.json_load). All-zero ids mean "none": they become "".

The protobuf classes (opentelemetry-proto) are imported on first use: nothing imported at start-up imports this
module's dependencies unless an OTLP listener is asked for.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from tui.formats.otlp.records import LogRecord, OtlpDecodeError, Span, SpanEvent
from tui.inputs import json_load

__all__ = ["MAX_BODY_BYTES", "MAX_DEPTH", "decode_logs", "decode_traces"]

MAX_BODY_BYTES = 64 * 1024 * 1024  # one request; the receiver may refuse smaller ones before they get here
MAX_DEPTH = 32  # nesting of AnyValue arrays / kvlists
ENCODINGS = ("proto", "json")


def decode_traces(body: bytes, encoding: str) -> list[Span]:
    """The spans of an ExportTraceServiceRequest body (`encoding`: "proto" or "json")."""
    return _decode(body, encoding, _proto_traces, _json_traces)


def decode_logs(body: bytes, encoding: str) -> list[LogRecord]:
    """The log records of an ExportLogsServiceRequest body (`encoding`: "proto" or "json")."""
    return _decode(body, encoding, _proto_logs, _json_logs)


def _decode(body: bytes, encoding: str, proto: Callable, json: Callable) -> list:
    if not isinstance(body, (bytes, bytearray, memoryview)):
        raise OtlpDecodeError(f"body is {type(body).__name__}, expected bytes")
    if len(body) > MAX_BODY_BYTES:
        raise OtlpDecodeError(f"body of {len(body):,} bytes (limit {MAX_BODY_BYTES:,})")
    if encoding not in ENCODINGS:
        raise OtlpDecodeError(f"unknown encoding {encoding!r}")
    try:
        if encoding == "proto":
            return proto(bytes(body))
        try:
            value = json_load.loads(body)
        except (json_load.JSONDecodeError, ValueError) as exc:
            raise OtlpDecodeError(f"malformed JSON: {exc}") from None
        if not isinstance(value, dict):
            raise OtlpDecodeError(f"request is {type(value).__name__}, expected an object")
        return json(value)
    except OtlpDecodeError:
        raise
    except RecursionError:
        raise OtlpDecodeError("nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError, a wrong type deep inside: all mean "malformed"
        raise OtlpDecodeError(f"malformed {encoding} body: {type(exc).__name__}: {exc}"[:300]) from None


# --- protobuf ------------------------------------------------------------------------------------------


def _proto_traces(body: bytes) -> list[Span]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans: list[Span] = []
    append = spans.append
    ids: dict[bytes, str] = {}  # raw id -> hex: a request carries the spans of few traces, each id seen many times
    for rs in request.resource_spans:
        resource = _proto_attrs(rs.resource.attributes)
        for ss in rs.scope_spans:
            scope = ss.scope.name
            for s in ss.spans:
                trace_raw, parent_raw = s.trace_id, s.parent_span_id
                trace_id = ids.get(trace_raw)
                if trace_id is None:
                    trace_id = ids[trace_raw] = _hex(trace_raw)
                parent_id = ids.get(parent_raw)
                if parent_id is None:
                    parent_id = ids[parent_raw] = _hex(parent_raw)
                status = s.status
                events = s.events
                append(Span(
                    trace_id, _hex(s.span_id), parent_id, s.name, s.start_time_unix_nano, s.end_time_unix_nano,
                    _proto_attrs(s.attributes), status.code, status.message, s.kind,
                    [SpanEvent(e.name, e.time_unix_nano, _proto_attrs(e.attributes)) for e in events] if events
                    else [], resource, scope))
    return spans


def _proto_logs(body: bytes) -> list[LogRecord]:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    request = ExportLogsServiceRequest()
    request.ParseFromString(body)
    records: list[LogRecord] = []
    for rl in request.resource_logs:
        resource = _proto_attrs(rl.resource.attributes)
        for sl in rl.scope_logs:
            scope = sl.scope.name
            for r in sl.log_records:
                records.append(LogRecord(
                    time_ns=r.time_unix_nano or r.observed_time_unix_nano, severity_text=r.severity_text,
                    severity_number=int(r.severity_number),
                    body=_proto_value(r.body, 0) if r.HasField("body") else None,
                    attrs=_proto_attrs(r.attributes), trace_id=_hex(r.trace_id), span_id=_hex(r.span_id),
                    resource=resource, scope=scope))
    return records


def _hex(raw: bytes) -> str:
    return "" if not raw.strip(b"\0") else raw.hex()


_SCALARS = frozenset({"string_value", "bool_value", "int_value", "double_value", "bytes_value"})


def _proto_attrs(kvs, depth: int = 0) -> dict[str, object]:
    """A KeyValue list as a dict. The scalar values (nearly all) are read here rather than through _proto_value:
    this loop runs for every attribute of every span, and a call per value was a fifth of decoding."""
    if depth >= MAX_DEPTH and len(kvs):
        raise OtlpDecodeError(f"attribute values nested deeper than {MAX_DEPTH}")
    out: dict[str, object] = {}
    for kv in kvs:
        v = kv.value
        which = v.WhichOneof("value")
        out[kv.key] = getattr(v, which) if which in _SCALARS else _proto_value(v, depth + 1)
    return out


def _proto_value(v, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise OtlpDecodeError(f"attribute values nested deeper than {MAX_DEPTH}")
    which = v.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_proto_value(x, depth + 1) for x in v.array_value.values]
    if which == "kvlist_value":
        return _proto_attrs(v.kvlist_value.values, depth)
    return getattr(v, which)


# --- OTLP/JSON -----------------------------------------------------------------------------------------


def _get(obj: dict, camel: str, snake: str | None = None) -> object:
    value = obj.get(camel)
    if value is None and snake is not None:
        value = obj.get(snake)
    return value


def _list(obj: dict, camel: str, snake: str | None = None) -> list:
    value = _get(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise OtlpDecodeError(f"{camel} is {type(value).__name__}, expected a list")
    return value


def _obj(value: object, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise OtlpDecodeError(f"{what} is {type(value).__name__}, expected an object")
    return value


def _str(value: object, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise OtlpDecodeError(f"{what} is {type(value).__name__}, expected a string")
    return value


def _int(value: object, what: str) -> int:
    """int64 / uint64 / enum: a JSON number or a decimal string."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise OtlpDecodeError(f"{what} is a boolean, expected an integer")
    if isinstance(value, int) and -(2**63) <= value < 2**64:
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**64:
        return int(value)
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.lstrip("-").isdigit() and len(text) <= 21:  # (not "²": isdigit, but int() fails)
        return int(text)
    raise OtlpDecodeError(f"{what} is {value!r:.40}, expected a 64-bit integer")


def _json_id(value: object, what: str, size: int) -> str:
    text = _str(value, what).strip().lower()
    if not text:
        return ""
    if len(text) != size * 2 or any(c not in "0123456789abcdef" for c in text):
        raise OtlpDecodeError(f"{what} {text[:40]!r} is not {size} bytes of hex")
    return "" if not text.strip("0") else text


def _json_attrs(items: object, depth: int = 0) -> dict[str, object]:
    if items is None:
        return {}
    if not isinstance(items, list):
        raise OtlpDecodeError(f"attributes are {type(items).__name__}, expected a list")
    out: dict[str, object] = {}
    for kv in items:
        kv = _obj(kv, "attribute")
        out[_str(kv.get("key"), "attribute key")] = _json_value(kv.get("value"), depth + 1)
    return out


def _json_value(v: object, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise OtlpDecodeError(f"attribute values nested deeper than {MAX_DEPTH}")
    if v is None:
        return None
    v = _obj(v, "AnyValue")
    if not v:
        return None
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value"), ("intValue", "int_value"),
                         ("doubleValue", "double_value"), ("arrayValue", "array_value"),
                         ("kvlistValue", "kvlist_value"), ("bytesValue", "bytes_value")):
        value = _get(v, camel, snake)
        if value is None and camel not in v and snake not in v:
            continue
        if camel == "stringValue":
            return _str(value, camel)
        if camel == "boolValue":
            if not isinstance(value, bool):
                raise OtlpDecodeError(f"boolValue is {type(value).__name__}")
            return value
        if camel == "intValue":
            return _int(value, camel)
        if camel == "doubleValue":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
                return float(value.replace("Infinity", "inf"))
            raise OtlpDecodeError(f"doubleValue is {value!r:.40}")
        if camel == "arrayValue":
            return [_json_value(x, depth + 1) for x in _list(_obj(value, camel), "values")]
        if camel == "kvlistValue":
            return _json_attrs(_obj(value, camel).get("values"), depth)
        try:
            return base64.b64decode(_str(value, camel), validate=True)
        except (binascii.Error, ValueError):
            raise OtlpDecodeError("bytesValue is not base64") from None
    raise OtlpDecodeError(f"AnyValue with unknown keys {sorted(v)[:3]}")


def _resource_scope(block: dict, scope_key: tuple[str, str]) -> tuple[dict, list]:
    resource = _json_attrs(_obj(block.get("resource"), "resource").get("attributes"))
    return resource, _list(block, *scope_key)


def _json_traces(request: dict) -> list[Span]:
    spans: list[Span] = []
    for rs in _list(request, "resourceSpans", "resource_spans"):
        resource, scopes = _resource_scope(_obj(rs, "resourceSpans[]"), ("scopeSpans", "scope_spans"))
        for ss in scopes:
            ss = _obj(ss, "scopeSpans[]")
            scope = _str(_obj(ss.get("scope"), "scope").get("name"), "scope.name")
            for s in _list(ss, "spans"):
                s = _obj(s, "span")
                status = _obj(s.get("status"), "status")
                spans.append(Span(
                    trace_id=_json_id(_get(s, "traceId", "trace_id"), "traceId", 16),
                    span_id=_json_id(_get(s, "spanId", "span_id"), "spanId", 8),
                    parent_id=_json_id(_get(s, "parentSpanId", "parent_span_id"), "parentSpanId", 8),
                    name=_str(s.get("name"), "name"),
                    start_ns=_int(_get(s, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano"),
                    end_ns=_int(_get(s, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano"),
                    attrs=_json_attrs(s.get("attributes")), status=_int(status.get("code"), "status.code"),
                    status_message=_str(status.get("message"), "status.message"), kind=_int(s.get("kind"), "kind"),
                    resource=resource, scope=scope,
                    events=[_json_event(_obj(e, "event")) for e in _list(s, "events")]))
    return spans


def _json_event(e: dict) -> SpanEvent:
    return SpanEvent(_str(e.get("name"), "event name"), _int(_get(e, "timeUnixNano", "time_unix_nano"), "event time"),
                     _json_attrs(e.get("attributes")))


def _json_logs(request: dict) -> list[LogRecord]:
    records: list[LogRecord] = []
    for rl in _list(request, "resourceLogs", "resource_logs"):
        resource, scopes = _resource_scope(_obj(rl, "resourceLogs[]"), ("scopeLogs", "scope_logs"))
        for sl in scopes:
            sl = _obj(sl, "scopeLogs[]")
            scope = _str(_obj(sl.get("scope"), "scope").get("name"), "scope.name")
            for r in _list(sl, "logRecords", "log_records"):
                r = _obj(r, "logRecord")
                time_ns = _int(_get(r, "timeUnixNano", "time_unix_nano"), "timeUnixNano")
                observed = _int(_get(r, "observedTimeUnixNano", "observed_time_unix_nano"), "observedTimeUnixNano")
                records.append(LogRecord(
                    time_ns=time_ns or observed,
                    severity_text=_str(_get(r, "severityText", "severity_text"), "severityText"),
                    severity_number=_int(_get(r, "severityNumber", "severity_number"), "severityNumber"),
                    body=_json_value(r.get("body"), 0), attrs=_json_attrs(r.get("attributes")),
                    trace_id=_json_id(_get(r, "traceId", "trace_id"), "traceId", 16),
                    span_id=_json_id(_get(r, "spanId", "span_id"), "spanId", 8), resource=resource, scope=scope))
    return records
