"""The OTLP/gRPC receiver against hostile clients (issue 28): calls held open without a half-close, millions of
empty spans, and a token guesser on the same host as the real exporter. Real grpc clients (each hostile one on a
connection of its own) and the OpenTelemetry SDK's gRPC exporter."""

from __future__ import annotations

import asyncio
import threading
import time

import grpc

from helpers.otlpfixtures import ai_agent_spans
from helpers.otlphelpers import TIMEOUT, Counting, empty_spans_body, receiving
from tui.inputs.stream import otlp_grpc
from tui.inputs.stream.limits import MemoryBudget
from helpers.waiting import until

TRACES = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]  # (channels of one process share one otherwise)


def _exports(bound: str, count: int, headers: dict | None = None) -> list[str]:
    """The SDK's gRPC span exporter exporting `count` times; the result of each (SUCCESS or FAILURE)."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    exporter = OTLPSpanExporter(endpoint=f"http://{bound}", insecure=True, headers=headers, timeout=5)
    try:
        return [exporter.export(ai_agent_spans(suffix=str(i))).name for i in range(count)]
    finally:
        exporter.shutdown()


class _HeldCalls:
    """Calls that send their request's message and never half-close, each on a connection of its own."""

    def __init__(self, bound: str, count: int, *, shared: bool = False) -> None:
        self.release = threading.Event()
        options = [] if shared else OWN_CONNECTION
        self.channels = [grpc.insecure_channel(bound, options=options) for _ in range(1 if shared else count)]
        body = empty_spans_body(1)

        def forever():
            yield body
            self.release.wait(TIMEOUT)

        self.calls = [self.channels[i % len(self.channels)].stream_unary(TRACES).future(forever())
                      for i in range(count)]

    def codes(self) -> list:
        return [call.exception().code() if call.done() and call.exception() else None for call in self.calls]

    def close(self) -> None:
        self.release.set()
        for channel in self.channels:
            channel.close()


async def test_calls_that_never_half_close_do_not_take_the_handlers_and_are_cancelled(monkeypatch):
    monkeypatch.setattr(otlp_grpc, "REQUEST_SECONDS", 2.0, raising=False)
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, _, rejected):
        held = _HeldCalls(bound, 8)  # twice the handlers there were
        try:
            await asyncio.sleep(0.3)
            assert await asyncio.to_thread(_exports, bound, 3) == ["SUCCESS"] * 3
            await until(lambda: all(held.codes()), timeout=TIMEOUT)
            assert set(held.codes()) == {grpc.StatusCode.CANCELLED}
            await until(lambda: rejected.reasons().count("truncated") == 8)
        finally:
            held.close()


async def test_one_connection_may_not_hold_more_than_a_few_calls_waiting():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting) as (bound, _, rejected):
        held = _HeldCalls(bound, getattr(otlp_grpc, "PEER_CALLS", 4) + 2, shared=True)
        try:
            await until(lambda: held.codes().count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 2)
            # (the refusal is counted on the handler's thread, which may still be at it when the client has its code)
            await until(lambda: rejected.reasons() == ["too many clients"] * 2, timeout=10)
            assert rejected.reasons() == ["too many clients"] * 2
            assert await asyncio.to_thread(_exports, bound, 1) == ["SUCCESS"]
        finally:
            held.close()


def _call(bound: str, body: bytes, metadata=None) -> grpc.RpcError | bytes:
    with grpc.insecure_channel(bound, options=OWN_CONNECTION) as channel:
        try:
            return channel.unary_unary(TRACES)(body, timeout=TIMEOUT, metadata=metadata)
        except grpc.RpcError as exc:
            return exc


async def test_millions_of_empty_spans_are_refused_and_each_span_is_charged_before_decoding():
    counting = Counting()
    budget = MemoryBudget(limit=100_000)
    async with receiving("otlp://127.0.0.1:0", counting, budget=budget) as (bound, _, rejected):
        many = await asyncio.to_thread(_call, bound, empty_spans_body(100_001))
        assert isinstance(many, grpc.RpcError) and many.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        small = empty_spans_body(1000)  # 2 KB of body, 1,000 spans to build: over a 100 KB budget
        over = await asyncio.to_thread(_call, bound, small)
        assert isinstance(over, grpc.RpcError) and over.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await asyncio.to_thread(_call, bound, empty_spans_body(50)) == b""
        await until(lambda: rejected.reasons() == ["oversized", "over memory budget"])
        assert counting.requests == 1 and counting.spans == 50
        assert budget.total == 0


async def test_a_token_guesser_on_the_same_host_does_not_lock_the_exporter_out():
    counting = Counting()
    async with receiving("otlp://127.0.0.1:0", counting, token="s3cret") as (bound, _, rejected):
        stop = threading.Event()
        guesses = [0]

        def guess() -> None:
            with grpc.insecure_channel(bound, options=OWN_CONNECTION) as channel:
                export = channel.unary_unary(TRACES)
                while not stop.is_set():
                    try:
                        export(empty_spans_body(1), timeout=TIMEOUT, metadata=[("authorization", "Bearer guess")])
                    except grpc.RpcError:
                        pass
                    guesses[0] += 1
                    time.sleep(0.01)

        guesser = threading.Thread(target=guess)
        guesser.start()
        try:
            await until(lambda: guesses[0] >= 3)
            results = await asyncio.to_thread(_exports, bound, 10, {"authorization": "Bearer s3cret"})
        finally:
            stop.set()
            await asyncio.to_thread(guesser.join)
        assert results == ["SUCCESS"] * 10
        assert counting.requests == 10
        assert set(rejected.reasons()) == {"auth refused"}
