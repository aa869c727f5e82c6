"""The OTLP/gRPC receiver (--listen otlp://) with real clients: the OpenTelemetry SDK's exporters (spans and logs,
in this process and from several processes at once), raw grpc calls for what exporters never send (a body that is
not protobuf, a wrong token, too big, a gzip bomb), and the rules every listener follows (loopback only, a port in
use, stopping with nothing left running)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from helpers.otlphelpers import TIMEOUT, Counting, receiving
from tui.inputs.stream.event_stream import check_listen, parse_url
from tui.inputs.stream.limits import AuthThrottle, MemoryBudget
from tui.inputs.stream.otlp_grpc import GrpcReceiver
from tui.inputs.stream.otlp_listen import listen_otlp
from helpers.waiting import until

TRACES = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
LOGS = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"


def _export_spans(endpoint: str, count: int, prefix: str = "s", headers: dict | None = None) -> None:
    """The real OTLP/gRPC span exporter, batching as an application's SDK does."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, insecure=True,
                                                                    headers=headers), max_queue_size=max(count, 512)))
    tracer = provider.get_tracer("test")
    for i in range(count):
        with tracer.start_as_current_span(f"{prefix}{i}"):
            pass
    provider.shutdown()


def _export_logs(endpoint: str, count: int) -> None:
    from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    provider = LoggerProvider()
    provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=endpoint, insecure=True)))
    logger = provider.get_logger("test")
    from opentelemetry._logs import LogRecord

    for i in range(count):
        logger.emit(LogRecord(body=f"line {i}", attributes={"agent": "a", "turn": i}))
    provider.shutdown()


def _call(bound: str, method: str, body: bytes, *, metadata=None, compression=None) -> grpc.RpcError | bytes:
    with grpc.insecure_channel(bound, options=[("grpc.max_send_message_length", 256 << 20)]) as channel:
        try:
            return channel.unary_unary(method)(body, timeout=TIMEOUT, metadata=metadata, compression=compression)
        except grpc.RpcError as exc:
            return exc


def _stream(bound: str, messages: list[bytes]) -> grpc.RpcError | bytes:
    with grpc.insecure_channel(bound) as channel:
        try:
            return channel.stream_unary(TRACES)(iter(messages), timeout=TIMEOUT)
        except grpc.RpcError as exc:
            return exc


def _spans_request(count: int) -> bytes:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    for i in range(count):
        span = spans.add(name=f"raw{i}", trace_id=b"\x01" * 16, span_id=i.to_bytes(8, "big") or b"\0" * 8)
        span.start_time_unix_nano = span.end_time_unix_nano = 1
    return request.SerializeToString()


async def test_sdk_span_and_log_exporters_arrive_decoded_off_the_loop_thread():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, statuses, rejected):
        assert statuses[0] == f"listening on otlp://{bound} (OTLP/gRPC)"
        await asyncio.to_thread(_export_spans, f"http://{bound}", 1200)
        await asyncio.to_thread(_export_logs, f"http://{bound}", 300)
        assert counting.spans == 1200 and counting.logs == 300
        assert sorted(counting.names) == sorted(f"s{i}" for i in range(1200))
        assert counting.encodings == {"proto"}
        assert all(name.startswith("otlp-grpc") for name in counting.threads)  # never the loop's thread
        assert rejected.seen == []


async def test_malformed_protobuf_is_invalid_argument_and_counted_and_the_next_request_is_served():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, _, rejected):
        for junk in (b"\xff\xff\xff\xff", b"\x0a\x80", b"\x0a\x05abc"):
            answer = await asyncio.to_thread(_call, bound, TRACES, junk)
            assert isinstance(answer, grpc.RpcError) and answer.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert await asyncio.to_thread(_call, bound, TRACES, _spans_request(5)) == b""  # an empty response
        assert await asyncio.to_thread(_call, bound, LOGS, b"") == b""  # an empty request is valid protobuf
        for messages in ([], [_spans_request(1), _spans_request(1)]):  # a unary method gets exactly one
            answer = await asyncio.to_thread(_stream, bound, messages)
            assert isinstance(answer, grpc.RpcError) and answer.code() == grpc.StatusCode.INVALID_ARGUMENT
        await until(lambda: len(rejected.seen) == 5)
        assert rejected.reasons() == ["malformed otlp"] * 5
        assert counting.spans == 5


async def test_token_is_required_in_the_metadata_and_wrong_ones_are_counted():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting, token="s3cret") as (bound, statuses, rejected):
        none = await asyncio.to_thread(_call, bound, TRACES, _spans_request(1))
        assert isinstance(none, grpc.RpcError) and none.code() == grpc.StatusCode.UNAUTHENTICATED
        await asyncio.sleep(0.2)  # (past the first penalty: a wrong token is then checked, and refused)
        wrong = await asyncio.to_thread(_call, bound, TRACES, _spans_request(1),
                                        metadata=[("authorization", "Bearer guess")])
        assert isinstance(wrong, grpc.RpcError) and wrong.code() == grpc.StatusCode.UNAUTHENTICATED
        await asyncio.sleep(0.5)  # the penalty (0.1 s after two failures) over
        await asyncio.to_thread(_export_spans, f"http://{bound}", 10, "ok",
                                {"authorization": "Bearer s3cret"})
        assert counting.spans == 10
        await until(lambda: rejected.reasons() == ["auth refused", "auth refused"])
        assert "s3cret" not in " ".join(statuses) + repr(rejected.seen)


def test_while_a_connection_is_penalised_even_the_right_token_on_it_is_told_to_retry_unchecked():
    """No handler thread sleeps on a guesser: the next calls on its connection are refused UNAVAILABLE (exporters
    retry that) until the penalty is over. (Channels of one process share their connection.)"""
    rejected: list[tuple[str, str]] = []
    counting = Counting()
    receiver = GrpcReceiver(["127.0.0.1"], 0, counting, status=None, rejected=lambda *a: rejected.append(a),
                            token="s3cret", budget=MemoryBudget(), max_body=1 << 20,
                            throttle=AuthThrottle(start=0.6, cap=0.6))
    receiver.start()
    try:
        bound = receiver.where.removeprefix("otlp://")
        right = [("authorization", "Bearer s3cret")]
        with grpc.insecure_channel(bound) as channel:  # one connection
            export = channel.unary_unary(TRACES)
            with pytest.raises(grpc.RpcError) as wrong:
                export(_spans_request(1), timeout=TIMEOUT, metadata=[("authorization", "Bearer guess")])
            assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as held:
                export(_spans_request(1), timeout=TIMEOUT, metadata=right)
            assert held.value.code() == grpc.StatusCode.UNAVAILABLE
            time.sleep(0.7)
            assert export(_spans_request(1), timeout=TIMEOUT, metadata=right) == b""
        assert counting.spans == 1
        assert [reason for reason, _ in rejected] == ["auth refused", "auth refused"]
        assert "not checked" in rejected[1][1]
    finally:
        receiver.stop()


async def test_oversized_and_gzip_bombs_are_refused_and_counted():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting, max_body=1 << 20) as (bound, _, rejected):
        big = await asyncio.to_thread(_call, bound, TRACES, b"\0" * (2 << 20))
        assert isinstance(big, grpc.RpcError) and big.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        bomb = await asyncio.to_thread(_call, bound, TRACES, b"\0" * (64 << 20), compression=grpc.Compression.Gzip)
        assert isinstance(bomb, grpc.RpcError) and bomb.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        small = await asyncio.to_thread(_call, bound, TRACES, _spans_request(50), compression=grpc.Compression.Gzip)
        assert small == b""
        await until(lambda: rejected.reasons() == ["oversized", "oversized"])
        assert counting.spans == 50 and counting.requests == 1


async def test_requests_over_the_shared_memory_budget_are_refused():
    counting = Counting()
    budget = MemoryBudget(limit=4000)
    async with receiving("otlp://127.0.0.1:0", counting, budget=budget) as (bound, _, rejected):
        refused = await asyncio.to_thread(_call, bound, TRACES, _spans_request(100))
        assert isinstance(refused, grpc.RpcError) and refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await asyncio.to_thread(_call, bound, TRACES, _spans_request(2)) == b""
        await until(lambda: rejected.reasons() == ["over memory budget"])
        assert budget.total == 0  # given back


_EXPORTER = """
import sys
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=sys.argv[1], insecure=True),
                                               max_queue_size=100000))
tracer = provider.get_tracer("p")
for i in range(int(sys.argv[2])):
    with tracer.start_as_current_span(f"{sys.argv[3]}-{i}"):
        pass
provider.shutdown()
"""


async def test_several_exporting_processes_at_once_lose_nothing():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, _, rejected):
        procs = [await asyncio.create_subprocess_exec(sys.executable, "-c", _EXPORTER, f"http://{bound}", "3000",
                                                      f"p{n}", stderr=subprocess.PIPE) for n in range(4)]
        for proc in procs:
            _, err = await asyncio.wait_for(proc.communicate(), 120)
            assert proc.returncode == 0, err.decode()[-2000:]
        assert counting.spans == 12000
        assert set(counting.names) == {f"p{n}-{i}" for n in range(4) for i in range(3000)}
        assert rejected.seen == []


async def test_refuses_non_loopback_without_allow_remote_and_a_port_in_use():
    with pytest.raises(ValueError, match="would accept events from other machines.*otlp://127.0.0.1:PORT"):
        check_listen("otlp://0.0.0.0:0")
    with pytest.raises(ValueError, match="other machines"):
        await listen_otlp("otlp://0.0.0.0:0", Counting())
    async with receiving("otlp://127.0.0.1:0", Counting()) as (bound, _, _r):
        with pytest.raises(OSError):
            check_listen(f"otlp://{bound}")
        with pytest.raises(OSError):  # grpc's SO_REUSEPORT is off: a second monitor does not share the port
            await listen_otlp(f"otlp://{bound}", Counting())


def test_urls():
    assert parse_url("otlp://127.0.0.1:4317") == ("otlp", "127.0.0.1", 4317, "grpc")
    assert parse_url("otlp://localhost") == ("otlp", "localhost", 4317, "grpc")
    assert parse_url("otlp+http://[::1]") == ("otlp", "::1", 4318, "http")
    assert parse_url("otlp+http://127.0.0.1:9/") == ("otlp", "127.0.0.1", 9, "http")
    for bad in ("otlp://127.0.0.1:4317/v1/traces", "otlp://:4317", "otlp://h:99999"):
        with pytest.raises(ValueError):
            parse_url(bad)


async def test_stopping_cancels_requests_in_flight_and_leaves_no_thread():
    entered, release = threading.Event(), threading.Event()
    counting = Counting()

    def slow(signal: str, body: bytes, encoding: str) -> int:
        entered.set()
        release.wait(1.0)  # a decode still running when the app quits
        return counting(signal, body, encoding)

    before = {t.name for t in threading.enumerate()}
    async with receiving("otlp://127.0.0.1:0", slow) as (bound, _, _r):
        call = asyncio.create_task(asyncio.to_thread(_call, bound, TRACES, _spans_request(3)))
        await asyncio.to_thread(entered.wait, TIMEOUT)
    started = time.monotonic()
    await call
    assert time.monotonic() - started < 5
    await until(lambda: not [t for t in threading.enumerate() if t.name.startswith("otlp-grpc")
                                and t.name not in before and t.is_alive()])
