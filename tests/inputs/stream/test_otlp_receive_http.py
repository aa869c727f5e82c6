"""The OTLP/HTTP receiver (--listen otlp+http://) with real clients: the OpenTelemetry SDK's HTTP exporters
(spans and logs, gzip on), and http.client over real sockets for everything else: JSON bodies, keep-alive, every
refusal (400, 401, 403, 404, 405, 411, 413, 415, 503) counted, a gzip bomb, chunked bodies, stopping."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import threading

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from helpers.otlphelpers import TIMEOUT, Counting, receiving
from tui.inputs.stream.limits import MemoryBudget
from tui.inputs.stream.otlp_listen import listen_otlp
from helpers.waiting import until

PROTO = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}


def _spans_request(count: int) -> bytes:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    for i in range(count):
        spans.add(name=f"raw{i}", trace_id=b"\x01" * 16, span_id=(i + 1).to_bytes(8, "big"))
    return request.SerializeToString()


def _json_request(count: int) -> bytes:
    spans = [{"traceId": "01" * 16, "spanId": f"{i + 1:016x}", "name": f"json{i}", "startTimeUnixNano": "1",
              "endTimeUnixNano": "2"} for i in range(count)]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def _requests(bound: str, *calls: tuple) -> list[tuple[int, dict, bytes]]:
    """(method, path, body, headers) requests on ONE kept-alive connection: (status, headers, body) each."""
    host, port = bound.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    answers = []
    try:
        for method, path, body, headers in calls:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            answers.append((response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()))
    finally:
        conn.close()
    return answers


def _export(endpoint: str, spans: int, logs: int) -> None:
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracing = TracerProvider()
    tracing.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces",
                                                                   compression=Compression.Gzip)))
    tracer = tracing.get_tracer("test")
    for i in range(spans):
        with tracer.start_as_current_span(f"h{i}"):
            pass
    tracing.shutdown()
    logging = LoggerProvider()
    logging.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{endpoint}/v1/logs")))
    logger = logging.get_logger("test")
    for i in range(logs):
        logger.emit(LogRecord(body=f"line {i}"))
    logging.shutdown()


async def test_sdk_http_exporters_gzip_and_plain_arrive_decoded_off_the_loop_thread():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, statuses, rejected):
        assert statuses[0] == f"listening on otlp+http://{bound} (OTLP/HTTP)"
        await asyncio.to_thread(_export, f"http://{bound}", 1500, 200)
        assert counting.spans == 1500 and counting.logs == 200
        assert sorted(counting.names) == sorted(f"h{i}" for i in range(1500))
        assert all(name.startswith("otlp-http") for name in counting.threads)
        assert rejected.seen == []


async def test_json_and_protobuf_answered_in_their_own_type_on_one_kept_alive_connection():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, rejected):
        answers = await asyncio.to_thread(
            _requests, bound, ("POST", "/v1/traces", _json_request(3), JSON),
            ("POST", "/v1/traces", _spans_request(4), PROTO),
            ("POST", "/v1/traces", gzip.compress(_json_request(2)), {**JSON, "Content-Encoding": "gzip"}),
            ("POST", "/v1/logs", b"{}", {"Content-Type": "application/json; charset=utf-8"}))
        assert [a[0] for a in answers] == [200, 200, 200, 200]
        assert answers[0][1]["content-type"] == "application/json" and answers[0][2] == b"{}"
        assert answers[1][1]["content-type"] == "application/x-protobuf" and answers[1][2] == b""
        assert counting.spans == 9 and counting.encodings == {"json", "proto"}
        assert rejected.seen == []


async def test_every_refusal_has_its_code_and_malformed_ones_are_counted():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting, max_body=1 << 20) as (bound, _, rejected):
        kept = await asyncio.to_thread(
            _requests, bound, ("POST", "/v1/traces", b"\xff\xff\xff", PROTO),  # not protobuf: 400, kept alive
            ("POST", "/v1/traces", b"{not json", JSON),
            ("GET", "/v1/traces", None, {}),
            ("POST", "/v1/metrics", None, {}),
            ("POST", "/v1/traces", _spans_request(1), PROTO))
        assert [a[0] for a in kept] == [400, 400, 405, 404, 200]
        assert kept[2][1]["allow"] == "POST"
        assert json.loads(kept[1][2])["code"] == 3  # a google.rpc.Status, INVALID_ARGUMENT
        one = [("POST", "/v1/traces", b"x", {"Content-Type": "text/plain"}),
               ("POST", "/v1/traces", b"x", {**PROTO, "Content-Encoding": "br"}),
               ("POST", "/v1/traces", b"\0" * (2 << 20), PROTO),
               ("POST", "/v1/traces", gzip.compress(b"\0" * (64 << 20)), {**PROTO, "Content-Encoding": "gzip"}),
               ("POST", "/v1/traces", b"\x1f\x8b\x08\x00junk", {**PROTO, "Content-Encoding": "gzip"}),
               ("POST", "/v1/traces", b"{}", {**JSON, "Origin": "https://evil.example"})]
        codes = [(await asyncio.to_thread(_requests, bound, call))[0][0] for call in one]
        assert codes == [415, 415, 413, 413, 400, 403]
        await until(lambda: len(rejected.seen) == 10)
        assert rejected.reasons() == ["malformed otlp"] * 6 + ["oversized", "oversized", "malformed otlp",
                                                                "origin refused"]
        assert counting.spans == 1


async def test_origin_allowed_token_required_and_chunked_bodies():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting, token="s3cret",
                         allow_origins=["http://localhost:8080"]) as (bound, statuses, rejected):
        [none] = await asyncio.to_thread(_requests, bound, ("POST", "/v1/traces", _spans_request(1), PROTO))
        [wrong] = await asyncio.to_thread(_requests, bound, ("POST", "/v1/traces", _spans_request(1),
                                                            {**PROTO, "Authorization": "Bearer guess"}))
        assert none[0] == wrong[0] == 401
        good = {**PROTO, "Authorization": "Bearer s3cret", "Origin": "http://localhost:8080"}
        answers = await asyncio.to_thread(_requests, bound, ("POST", "/v1/traces", _spans_request(2), good),
                                          ("POST", "/v1/traces", iter([_spans_request(3)]), good))  # chunked
        assert [a[0] for a in answers] == [200, 200]
        assert counting.spans == 5
        assert rejected.reasons() == ["auth refused", "auth refused"]
        assert "s3cret" not in " ".join(statuses) + repr(rejected.seen)


async def test_bodies_over_the_shared_memory_budget_get_503():
    counting = Counting()
    budget = MemoryBudget(limit=4000)
    async with receiving("otlp+http://127.0.0.1:0", counting, budget=budget) as (bound, _, rejected):
        [refused] = await asyncio.to_thread(_requests, bound, ("POST", "/v1/traces", _spans_request(100), PROTO))
        assert refused[0] == 503 and refused[1]["retry-after"] == "1"
        [ok] = await asyncio.to_thread(_requests, bound, ("POST", "/v1/traces", _spans_request(2), PROTO))
        assert ok[0] == 200
        assert rejected.reasons() == ["over memory budget"]
        await until(lambda: budget.total == 0)


async def test_refuses_non_loopback_without_allow_remote():
    with pytest.raises(ValueError, match="would accept events from other machines.*otlp\\+http://127.0.0.1:PORT"):
        await listen_otlp("otlp+http://0.0.0.0:0", Counting())


async def test_stopping_closes_kept_alive_connections_and_its_threads_go():
    counting = Counting()
    before = set(threading.enumerate())
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, _r):
        host, port = bound.rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        body = _spans_request(1)
        writer.write(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
    assert await asyncio.wait_for(reader.read(), TIMEOUT) == b""  # closed by the receiver
    writer.close()
    await until(lambda: not [t for t in threading.enumerate() if t not in before and t.name.startswith("otlp-http")
                             and t.is_alive()])


async def _raw(bound: str, data: bytes, *, close_after: bool = False) -> bytes:
    host, port = bound.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(data)
    await writer.drain()
    if close_after:
        writer.close()
        return b""
    try:
        return await asyncio.wait_for(reader.read(), TIMEOUT)
    finally:
        writer.close()


async def test_broken_requests_are_answered_or_dropped_and_counted_and_nothing_is_held():
    counting = Counting()
    budget = MemoryBudget()
    async with receiving("otlp+http://127.0.0.1:0", counting, budget=budget) as (bound, _, rejected):
        assert (await _raw(bound, b"HELLO\r\n\r\n")).startswith(b"HTTP/1.1 400")
        huge = b"POST /v1/traces HTTP/1.1\r\nX: " + b"a" * (200 * 1024) + b"\r\n\r\n"
        assert (await _raw(bound, huge)).startswith(b"HTTP/1.1 413")
        await _raw(bound, b"POST /v1/traces HTTP/1.1\r\nContent-Type: application/x-protobuf\r\n"
                          b"Content-Length: 100000\r\n\r\n" + b"\0" * 5000, close_after=True)  # gone mid-body
        chunked = (b"POST /v1/traces HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                   b"\r\nzz\r\n")
        assert (await _raw(bound, chunked)).startswith(b"HTTP/1.1 400")
        await until(lambda: len(rejected.seen) == 4)
        assert rejected.reasons() == ["malformed otlp", "oversized", "truncated", "malformed otlp"]
        await until(lambda: budget.total == 0)
        assert counting.requests == 0
