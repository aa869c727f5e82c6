"""The app with `--listen otlp://` and `--listen otlp+http://`: both receivers start as workers, the OpenTelemetry
SDK's exporters reach the one sink the live controller made (decoded in the receivers' threads, assembled in the
sink's own, handed to the hub on the live tick), an ai-agent trace becomes a live row of the browser, refused
requests are counted in the header, and quitting stops the servers and every thread they and the sink started."""

from __future__ import annotations

import asyncio
import socket
import threading

import grpc

from helpers.apphelpers import SIZE, wait_for
from tui.catalog.session_row import RowKind
from tui.ui.app import MonitorApp
from tui.ui.live_worker import LiveWorker
from tui.ui.screens.browser import BrowserScreen

TXN = "6f1c2a8e-0b7d-4e1a-9c55-2d3e4f5a6b7c"


def _export(grpc_endpoint: str, http_endpoint: str) -> None:
    """One ai-agent-shaped trace over gRPC (agent.session > agent.llm.turn > agent.tool, attributes as the producer
    sets them), and 20 plain spans over both exporters."""
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(GrpcExporter(endpoint=grpc_endpoint, insecure=True)))
    tracer = provider.get_tracer("ai-agent")
    with tracer.start_as_current_span("agent.session", attributes={
            "ai.agent.id": "otlp-probe", "ai.agent.call_path": "otlp-probe", "ai.session.txn_id": TXN,
            "ai.session.origin_txn_id": TXN, "ai.session.headend_id": "cli"}) as session:
        with tracer.start_as_current_span("agent.llm.turn", attributes={
                "ai.llm.provider": "anthropic", "ai.llm.model": "claude-sonnet-4-5", "ai.llm.is_final_turn": False}):
            with tracer.start_as_current_span("agent.tool", attributes={
                    "ai.tool.requested_name": "web__fetch", "ai.tool.name": "web__fetch", "ai.tool.status": "success"}):
                pass
            trace_api = __import__("opentelemetry.trace", fromlist=["get_current_span"])
            trace_api.get_current_span().set_attributes({"ai.llm.prompt_tokens": 1200, "ai.llm.completion_tokens": 300})
        session.set_attributes({"ai.agent.success": True, "ai.agent.turn_count": 1})
    provider.add_span_processor(SimpleSpanProcessor(HttpExporter(endpoint=f"{http_endpoint}/v1/traces")))
    plain = provider.get_tracer("app-test")
    for i in range(20):
        with plain.start_as_current_span(f"op{i}"):
            pass
    provider.shutdown()


def _junk(bound: str) -> None:
    with grpc.insecure_channel(bound) as channel:
        try:
            channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")(b"\xff\xff", timeout=10)
        except grpc.RpcError:
            pass


def _bound(app: MonitorApp, url: str) -> str | None:
    text = app.stream_status.get(url, "")
    return text.split("://", 1)[1].split(" ", 1)[0] if text.startswith("listening on ") else None


async def test_both_receivers_feed_the_sink_count_rejections_and_stop_with_the_app(tmp_path):
    urls = ["otlp://127.0.0.1:0", "otlp+http://127.0.0.1:0"]
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=urls, watch=False)
    before = set(threading.enumerate())
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, urls[0]) and _bound(app, urls[1]))
        grpc_at, http_at = _bound(app, urls[0]), _bound(app, urls[1])
        await asyncio.to_thread(_export, f"http://{grpc_at}", f"http://{http_at}")
        sink = app.live.worker.otlp_sink  # one sink for every receiver
        assert sink is not None and sink.spans_received == 3 + 40
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: any(r.kind == RowKind.LIVE and r.session_id == TXN
                                                 and r.agent == "otlp-probe" for r in browser.model.rows.values()))
        row = next(r for r in browser.model.rows.values() if r.session_id == TXN)
        assert row.tokens == 1500 and row.status == "ok" and row.turns == 1
        await asyncio.to_thread(_junk, grpc_at)
        assert await wait_for(pilot, lambda: "malformed otlp ×1" in app.live.tally.rejections)
        assert await wait_for(pilot, lambda: "malformed otlp ×1" in str(
            browser.query_one("#browser-header").render()))
        assert "otlp: 43 spans" in str(browser.query_one("#browser-header").render())
    # quitting stopped both servers: nothing answers on their ports, and their threads are gone
    for bound in (grpc_at, http_at):
        host, port = bound.rsplit(":", 1)
        with socket.socket() as probe:
            assert probe.connect_ex((host, int(port))) != 0
    assert await wait_for(None, lambda: not [t for t in threading.enumerate() if t not in before and t.is_alive()
                                             and t.name.startswith(("otlp-grpc", "otlp-http", "otlp-assemble"))])


async def test_traces_evicted_by_the_caps_let_their_builds_go_and_keep_their_rows(tmp_path):
    """Past the sink's caps whole traces are evicted; the hub forgets their sessions and the controller its last
    build of them (before: every root ever received stayed built, 1.4 GB after a million spans), while the browser
    keeps their rows (a few hundred bytes each) with what was last known."""
    from helpers.otlpfixtures import ROOT_TXN, ai_agent_spans, encode

    url = "otlp://127.0.0.1:0"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[url], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, url))
        sink = app.live.worker.otlp_sink
        sink.max_spans = 14  # two traces of seven spans
        bodies = [encode(ai_agent_spans(suffix=f"-{n}")) for n in range(8)]
        channel = grpc.insecure_channel(_bound(app, url))
        export = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        browser = app.screen
        for n, body in enumerate(bodies):  # one at a time, each shown before the next comes
            await asyncio.to_thread(export, body, timeout=10)
            assert await wait_for(pilot, lambda: not sink.pending and f"live:{ROOT_TXN}-{n}" in browser.model.rows)
        channel.close()
        assert sink.evicted == 6 and sink.spans_held == 14
        assert await wait_for(pilot, lambda: set(app.live.roots()) == {f"{ROOT_TXN}-6", f"{ROOT_TXN}-7"})
        rows = {r.session_id for r in app.screen.model.rows.values() if r.kind == RowKind.LIVE}
        assert rows == {f"{ROOT_TXN}-{n}" for n in range(8)}


def test_assembled_traces_reach_the_hub_at_every_tick_while_the_next_batch_is_not_due():
    """A slow batch puts the next one off (4 times its time); the sink's trees are handed to the hub meanwhile all
    the same (before: they waited, the sink's ready queue filled and its assembling thread stopped)."""
    from helpers.otlpfixtures import ROOT_TXN, ai_agent_spans, encode

    from tui.formats.otlp.sink import OtlpSink

    worker = LiveWorker(lambda message: None, set())  # (its batches run here: no thread, no app)
    worker.tick()  # a batch: the next is not due for LIVE_APPLY_SECONDS
    sink = worker.otlp_sink = OtlpSink(worker.hub)  # not started: drain assembles in the tick itself
    sink.accept("traces", encode(ai_agent_spans()), "proto")
    assert sink.pending == 1
    worker.tick()
    assert sink.pending == 0 and ROOT_TXN in worker.hub.sessions
