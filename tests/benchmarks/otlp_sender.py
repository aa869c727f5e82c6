"""OTLP load for the "OTLP" benchmark section: ai-agent-shaped traces sent over OTLP/gRPC, as ai-agent's
BatchSpanProcessor sends them (a span is exported when it ends: children before their parents, the session span
last, several sessions interleaved in one request).

    python tests/benchmarks/otlp_sender.py URL SPANS RATE   # RATE spans/s (0: as fast as possible)

Each session: one `agent.session` span, then per turn an `agent.llm.turn` span and two `agent.tool` spans below it
(attributes as the producer sets them: src/ai-agent.ts, src/session-turn-runner.ts, src/tools/tools.ts). Requests
carry BATCH spans. Prints "SENT SECONDS SESSIONS" when done.
"""

from __future__ import annotations

import os
import sys
import time

import grpc
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

BATCH = 512  # the JS BatchSpanProcessor's default maxExportBatchSize
TURNS = 8  # spans per session: 1 + TURNS * 3
IN_FLIGHT = 4  # concurrent export requests (as from several agent processes; each sends one at a time)
EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def kv(key: str, value: object) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=str(value)))


def session_spans(n: int, t0: int) -> list[Span]:
    """The spans of session n in the order they end."""
    trace = os.urandom(16)
    root = os.urandom(8)
    txn = f"{n:08x}-0000-4000-8000-{n:012x}"
    out = []
    t = t0
    for turn in range(1, TURNS + 1):
        llm = os.urandom(8)
        start = t
        for k in range(2):
            out.append(Span(trace_id=trace, span_id=os.urandom(8), parent_span_id=llm, name="agent.tool", kind=1,
                            start_time_unix_nano=t + 1_000_000, end_time_unix_nano=t + 5_000_000,
                            attributes=[kv("ai.tool.requested_name", f"web__fetch{k}"),
                                        kv("ai.tool.call_path", "bench"), kv("ai.tool.name", f"web__fetch{k}"),
                                        kv("ai.tool.provider", "web"), kv("ai.tool.kind", "mcp"),
                                        kv("ai.tool.status", "success"), kv("ai.tool.latency_ms", 4),
                                        kv("ai.tool.input_bytes", 120), kv("ai.tool.output_bytes", 4000)]))
            t += 6_000_000
        out.append(Span(trace_id=trace, span_id=llm, parent_span_id=root, name="agent.llm.turn", kind=1,
                        start_time_unix_nano=start, end_time_unix_nano=t,
                        attributes=[kv("ai.llm.provider", "anthropic"), kv("ai.llm.model", "claude-sonnet-4-5"),
                                    kv("ai.llm.is_final_turn", turn == TURNS), kv("ai.llm.latency_ms", 900),
                                    kv("ai.llm.prompt_tokens", 1200 + turn), kv("ai.llm.completion_tokens", 300),
                                    kv("ai.llm.cache_read_tokens", 800), kv("ai.llm.cache_write_tokens", 0),
                                    kv("ai.llm.retry_count", 0), kv("ai.llm.stop_reason", "tool_use")]))
        t += 1_000_000
    out.append(Span(trace_id=trace, span_id=root, name="agent.session", kind=1, start_time_unix_nano=t0,
                    end_time_unix_nano=t, status=Status(code=1),
                    attributes=[kv("ai.agent.id", "bench"), kv("ai.agent.call_path", "bench"),
                                kv("ai.session.txn_id", txn), kv("ai.session.origin_txn_id", txn),
                                kv("ai.session.headend_id", "cli"), kv("ai.agent.success", True),
                                kv("ai.agent.turn_count", TURNS)]))
    return out


def requests(total: int):
    """Serialized export requests holding `total` spans, sessions interleaved two at a time (made as sent: a
    million spans are ~350 MB serialized). Yields (body, spans in it, sessions begun so far)."""
    spans: list[Span] = []
    n = sent = 0
    t0 = time.time_ns() - 3_600_000_000_000
    while sent < total:
        while len(spans) < BATCH:
            a, b = session_spans(n, t0 + n * 1000), session_spans(n + 1, t0 + n * 1000)
            for pair in zip(a, b):
                spans.extend(pair)
            n += 2
        batch, spans = spans[:min(BATCH, total - sent)], spans[min(BATCH, total - sent):]
        req = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=batch)])])
        req.resource_spans[0].resource.attributes.extend([kv("service.name", "ai-agent")])
        req.resource_spans[0].scope_spans[0].scope.name = "ai-agent"
        sent += len(batch)
        yield req.SerializeToString(), len(batch), n


def main(url: str, total: int, rate: float) -> None:
    bodies = list(requests(total)) if total <= 200_000 else requests(total)  # (timed sends, not generation)
    target = url.split("://", 1)[1].rstrip("/")
    with grpc.insecure_channel(target) as channel:
        export = channel.unary_unary(EXPORT, request_serializer=None, response_deserializer=None)
        grpc.channel_ready_future(channel).result(timeout=30)
        start = time.perf_counter()
        sent = sessions = 0
        window: list = []  # requests in flight: a fleet's exporters send side by side
        for body, count, sessions in bodies:
            window.append(export.future(body, timeout=60))
            if len(window) >= IN_FLIGHT:
                window.pop(0).result()
            sent += count
            if rate:
                ahead = sent / rate - (time.perf_counter() - start)
                if ahead > 0:
                    time.sleep(ahead)
        for call in window:
            call.result()
        elapsed = time.perf_counter() - start
    print(sent, f"{elapsed:.3f}", sessions, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
