"""What an OTLP request carries, decoded into plain Python: spans and log records with their resource and scope.

One shape for both wire encodings (protobuf and OTLP/JSON, tui.formats.otlp.decode), so everything after decoding
(the session assembler, the GenAI mapping, tests) never sees which encoding a producer used. Ids are lowercase hex
("" when absent, as OTLP's all-zero ids mean); times are nanoseconds since the epoch (0 when absent); attribute
values are str, bool, int, float, bytes, list or dict (OTLP's AnyValue, unwrapped).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2


class OtlpDecodeError(ValueError):
    """A request body that is not a valid OTLP export request (never fatal: the receiver counts and refuses it)."""


@dataclass(slots=True)
class SpanEvent:
    name: str
    time_ns: int
    attrs: dict[str, object] = field(default_factory=dict)


@dataclass(slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_id: str  # "" for a trace's root span
    name: str
    start_ns: int
    end_ns: int  # 0: not ended (OTLP only exports ended spans, but a JSON body may say anything)
    attrs: dict[str, object] = field(default_factory=dict)
    status: int = STATUS_UNSET
    status_message: str = ""
    kind: int = 0  # OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer
    events: list[SpanEvent] = field(default_factory=list)
    resource: dict[str, object] = field(default_factory=dict)  # shared by the spans of one ResourceSpans
    scope: str = ""  # instrumentation scope name (ai-agent's tracer is "ai-agent")


@dataclass(slots=True)
class LogRecord:
    time_ns: int  # time_unix_nano, else observed_time_unix_nano
    severity_text: str
    severity_number: int
    body: object  # usually a str
    attrs: dict[str, object] = field(default_factory=dict)
    trace_id: str = ""
    span_id: str = ""
    resource: dict[str, object] = field(default_factory=dict)
    scope: str = ""
