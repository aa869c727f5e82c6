"""The OTLP/HTTP receiver against hostile clients (issue 28): lengths that are not numbers, bodies of many gzip
members, of 1-byte chunks or of millions of empty spans, a token guesser next to the real exporter, and a web
page exporting through --allow-origin. Real sockets, http.client and the OpenTelemetry SDK's HTTP exporter."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import socket
import threading
import time

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from helpers.otlphelpers import TIMEOUT, Counting, chunked, empty_spans_body, raw_http, receiving
from tui.inputs.stream.limits import MemoryBudget
from helpers.waiting import until

HEAD = b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"


def _spans(count: int, name: str = "s") -> bytes:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    for i in range(count):
        spans.add(name=f"{name}{i}", trace_id=b"\x01" * 16, span_id=(i + 1).to_bytes(8, "big"))
    return request.SerializeToString()


def _post(bound: str, body: bytes, headers: dict, method: str = "POST") -> tuple[int, dict, bytes]:
    host, port = bound.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        conn.request(method, "/v1/traces", body=body, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


async def test_lengths_that_are_not_numbers_are_answered_400_and_counted():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, rejected):
        # "²" (latin-1 0xb2) passes str.isdigit() and fails int(); 5,000 digits fail int() too; int("-1", 16) is -1
        for request in (HEAD + b"Content-Length: \xb2\r\n\r\nx",
                        HEAD + b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n",
                        HEAD + b"Transfer-Encoding: chunked\r\n\r\n-1\r\nx\r\n0\r\n\r\n",
                        HEAD + b"Transfer-Encoding: chunked\r\n\r\n0x2\r\nxx\r\n0\r\n\r\n"):
            answer = await raw_http(bound, request)
            assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
        await until(lambda: len(rejected.seen) == 4)
        assert rejected.reasons() == ["malformed otlp"] * 4
        assert counting.requests == 0


async def test_a_body_of_many_gzip_members_is_refused_at_the_members_cap_quickly():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, rejected):
        bomb = gzip.compress(b"") * 50_000  # 1 MB of empty members (inflated member by member: quadratic)
        started = time.monotonic()
        status, _, _ = await asyncio.to_thread(_post, bound, bomb, {"Content-Type": "application/x-protobuf",
                                                                    "Content-Encoding": "gzip"})
        assert status == 413 and time.monotonic() - started < 5
        body = _spans(1000)  # a real body in 1,000 members (the cap: 1,024) is still read whole
        step = len(body) // 1000 + 1
        members = b"".join(gzip.compress(body[i:i + step]) for i in range(0, len(body), step))
        status, _, _ = await asyncio.to_thread(_post, bound, members, {"Content-Type": "application/x-protobuf",
                                                                       "Content-Encoding": "gzip"})
        assert status == 200 and counting.spans == 1000
        assert rejected.reasons() == ["oversized"]


async def test_a_page_let_in_by_allow_origin_can_export_preflight_and_post():
    counting = Counting()
    page = "http://localhost:8080"
    async with receiving("otlp+http://127.0.0.1:0", counting, allow_origins=[page]) as (bound, _, rejected):
        status, headers, _ = await asyncio.to_thread(
            _post, bound, b"", {"Origin": page, "Access-Control-Request-Method": "POST",
                                "Access-Control-Request-Headers": "content-type,content-encoding"}, "OPTIONS")
        assert status == 204
        assert headers["access-control-allow-origin"] == page
        assert "POST" in headers["access-control-allow-methods"]
        assert headers["access-control-allow-headers"] == "content-type,content-encoding"
        status, headers, _ = await asyncio.to_thread(_post, bound, _spans(2), {
            "Origin": page, "Content-Type": "application/x-protobuf"})
        assert status == 200 and headers["access-control-allow-origin"] == page
        assert counting.spans == 2
        # another page is still refused, preflight or not, and gets no CORS header
        status, headers, _ = await asyncio.to_thread(
            _post, bound, b"", {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
            "OPTIONS")
        assert status in (403, 405) and "access-control-allow-origin" not in headers
        assert rejected.seen and "access-control-allow-origin" not in repr(rejected.seen)


async def test_millions_of_empty_spans_are_refused_before_they_are_decoded():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, rejected):
        status, _, _ = await asyncio.to_thread(_post, bound, empty_spans_body(100_001),
                                               {"Content-Type": "application/x-protobuf"})
        assert status == 413
        status, _, _ = await asyncio.to_thread(_post, bound, b"[" + b"{}," * 1_000_001 + b"{}]",
                                               {"Content-Type": "application/json"})
        assert status == 413
        await until(lambda: rejected.reasons() == ["oversized", "oversized"])
        assert counting.requests == 0
        status, _, _ = await asyncio.to_thread(_post, bound, empty_spans_body(100_000),
                                               {"Content-Type": "application/x-protobuf"})
        assert status == 200 and counting.spans == 100_000


async def test_each_span_is_charged_to_the_memory_budget_before_decoding():
    counting = Counting()
    budget = MemoryBudget(limit=100_000)
    async with receiving("otlp+http://127.0.0.1:0", counting, budget=budget) as (bound, _, rejected):
        body = empty_spans_body(1000)  # 2 KB of body, 1,000 spans to build
        assert len(body) < budget.limit // 10
        status, headers, _ = await asyncio.to_thread(_post, bound, body, {"Content-Type": "application/x-protobuf"})
        assert status == 503 and headers["retry-after"] == "1"
        await until(lambda: rejected.reasons() == ["over memory budget"])
        status, _, _ = await asyncio.to_thread(_post, bound, empty_spans_body(50),
                                               {"Content-Type": "application/x-protobuf"})
        assert status == 200 and counting.spans == 50
        await until(lambda: budget.total == 0)


def _send_chunks(bound: str, data: bytes, done: list) -> None:
    """(A thread of the test's, not its loop.) Send a chunked request, read the answer's status line."""
    host, port = bound.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        sock.sendall(HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + data)
        done.append(sock.makefile("rb").readline())


async def test_one_byte_chunks_are_parsed_off_the_callers_loop_and_capped():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting) as (bound, _, rejected):
        body = _spans(1500)  # ~52 KB: 52,000 chunks of 1 byte, under the cap
        assert 40_000 < len(body) < 65_536
        done: list[bytes] = []
        loop_cpu = time.thread_time()  # (this loop's thread: it runs the receiver's listen_otlp)
        sender = threading.Thread(target=_send_chunks, args=(bound, chunked(body, 1), done))
        sender.start()
        while sender.is_alive():
            await asyncio.sleep(0.01)
        spent = time.thread_time() - loop_cpu
        assert done == [b"HTTP/1.1 200 OK\r\n"] and counting.spans == 1500
        assert spent < 0.1, f"the caller's loop spent {spent:.2f} s of CPU parsing chunks"
        many = chunked(_spans(2000), 1)  # ~70,000 chunks: past MAX_CHUNKS
        done.clear()
        await asyncio.to_thread(_send_chunks, bound, many, done)
        assert done == [b"HTTP/1.1 413 Content Too Large\r\n"]
        await until(lambda: rejected.reasons() == ["oversized"])
        assert counting.requests == 1


def _http_exports(bound: str, count: int, headers: dict) -> list[str]:
    """The SDK's HTTP span exporter exporting `count` times; the result of each (SUCCESS or FAILURE)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from helpers.otlpfixtures import ai_agent_spans

    exporter = OTLPSpanExporter(endpoint=f"http://{bound}/v1/traces", headers=headers, timeout=3)
    try:
        return [exporter.export(ai_agent_spans(suffix=str(i))).name for i in range(count)]
    finally:
        exporter.shutdown()


async def test_a_token_guesser_on_the_same_host_does_not_lock_the_exporter_out():
    counting = Counting()
    async with receiving("otlp+http://127.0.0.1:0", counting, token="s3cret") as (bound, _, rejected):
        stop = threading.Event()
        guesses = [0]

        def guess() -> None:  # several guesses in flight at once, each on a new connection
            while not stop.is_set():
                try:
                    _post(bound, empty_spans_body(1), {"Content-Type": "application/x-protobuf",
                                                       "Authorization": "Bearer guess"})
                except OSError:
                    pass
                guesses[0] += 1

        guessers = [threading.Thread(target=guess) for _ in range(4)]
        for thread in guessers:
            thread.start()
        try:
            await until(lambda: guesses[0] >= 6)
            results = await asyncio.to_thread(_http_exports, bound, 10, {"Authorization": "Bearer s3cret"})
        finally:
            stop.set()
            for thread in guessers:
                await asyncio.to_thread(thread.join)
        assert results == ["SUCCESS"] * 10
        assert counting.requests == 10
        assert set(rejected.reasons()) == {"auth refused"}
