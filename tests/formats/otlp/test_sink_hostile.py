"""No span, log record or request stops the OTLP pipeline (issue 28, item 1): values that pass str.isdigit() and
fail int() ("²", 5,000 digits) in span attributes and in a log record's `turn`, sent over a real OTLP/HTTP receiver
by the SDK's exporter, are ignored, and later sessions still appear; whatever kills the assembling thread, it is
started again and the header says so."""

from __future__ import annotations

import asyncio
import contextlib
import http.client

from helpers.otlpfixtures import ROOT_TXN, Recorder, ai_agent_spans, hex_ids, log_body
from helpers.otlphelpers import TIMEOUT, receiving
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.otlp import sink as sink_module
from tui.formats.otlp.sink import OtlpSink
from helpers.waiting import until

BAD_TXN = "bad-values-txn"


def _bad_spans() -> list:
    """An ai-agent session whose llm span says its tokens are "²" and 5,000 nines."""
    r = Recorder()
    with r.span("agent.session", 0, {"ai.agent.id": "bad", "ai.session.txn_id": BAD_TXN}) as root:
        with r.span("agent.llm.turn", 10, {"ai.llm.provider": "x", "ai.llm.model": "m"}) as llm:
            llm.set_attributes({"ai.llm.prompt_tokens": "²", "ai.llm.completion_tokens": "9" * 5000,
                                "ai.llm.latency_ms": "²"})
            llm.end(end_time=None)
        root.end()
    return r.finished()


def _send(bound: str, spans: list | None = None, logs: bytes | None = None) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    if spans is not None:
        exporter = OTLPSpanExporter(endpoint=f"http://{bound}/v1/traces", timeout=TIMEOUT)
        assert exporter.export(spans).name == "SUCCESS"
        exporter.shutdown()
    if logs is not None:
        host, port = bound.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
        conn.request("POST", "/v1/logs", body=logs, headers={"Content-Type": "application/x-protobuf"})
        assert conn.getresponse().status == 200
        conn.close()


async def _shown(hub: LiveHub, sink: OtlpSink, session_id: str) -> None:
    def drained() -> bool:
        sink.drain()
        return session_id in hub.sessions
    await until(drained, timeout=TIMEOUT)


@contextlib.asynccontextmanager
async def _sink_receiving():
    """(hub, its started OTLP sink, the address of an OTLP/HTTP receiver feeding it, its rejections)."""
    hub = LiveHub()
    sink = OtlpSink(hub)
    sink.start()
    try:
        async with receiving("otlp+http://127.0.0.1:0", sink.accept) as (bound, _, rejected):
            yield hub, sink, bound, rejected
    finally:
        sink.stop()


async def test_values_that_are_not_numbers_are_ignored_and_later_sessions_still_appear():
    async with _sink_receiving() as (hub, sink, bound, rejected):
        bad = _bad_spans()
        trace_id, llm_span = hex_ids(bad[0])
        logs = log_body([{"message": "untraced", "time_ms": 5, "txn_id": "loose-txn", "turn": "²"},
                         {"message": "traced", "time_ms": 20, "trace_id": trace_id, "span_id": llm_span,
                          "txn_id": BAD_TXN, "turn": "9" * 5000}])
        await asyncio.to_thread(_send, bound, bad, logs)
        await _shown(hub, sink, BAD_TXN)
        await _shown(hub, sink, "loose-txn")
        await asyncio.to_thread(_send, bound, ai_agent_spans(suffix="-later"))
        await _shown(hub, sink, ROOT_TXN + "-later")
        session = hub.build(BAD_TXN)
        assert session is not None and session.totals.tokensIn == 0 and session.totals.tokensOut == 0
        assert rejected.seen == [] and sink.failed == 0 and sink.restarts == 0


async def test_whatever_kills_the_assembling_thread_it_is_restarted_and_the_header_says_so(monkeypatch):
    real = sink_module.assemble

    def fragile(trace_id, spans, logs, txn_logs=None):  # a bug nobody foresaw, in one trace
        if any(span.name == "boom" for span in spans):
            raise RuntimeError("boom")
        return real(trace_id, spans, logs, txn_logs)

    monkeypatch.setattr(sink_module, "assemble", fragile)
    async with _sink_receiving() as (hub, sink, bound, _):
        r = Recorder()
        with r.span("boom", 0) as span:
            span.end()
        await asyncio.to_thread(_send, bound, r.finished())
        await until(lambda: getattr(sink, "restarts", 0) == 1, timeout=10)
        await asyncio.to_thread(_send, bound, ai_agent_spans(suffix="-after"))
        await _shown(hub, sink, ROOT_TXN + "-after")
        assert "1 assembler restarts" in sink.summary() and "RuntimeError: boom" in sink.summary()
