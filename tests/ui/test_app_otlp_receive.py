"""The app with `--listen otlp://` and `--listen otlp+http://`: both receivers start as workers, the OpenTelemetry
SDK's exporters reach the sink the live controller made (decoded in the receivers' threads, drained on the live
tick), refused requests are counted in the browser's header, and quitting stops the servers and their threads.

The sink here is the tests' own decoding callback (otlphelpers.Counting, opentelemetry-proto's real messages) put
in place of tui.formats.otlp.sink through the controller's one factory; the receivers and clients are real."""

from __future__ import annotations

import asyncio
import socket
import threading

import grpc

from apphelpers import SIZE, wait_for
from otlphelpers import Counting
from tui.ui import live_controller
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


class _Sink(Counting):
    """Counting with the sink's two calls: accept (receivers' threads) and drain (the UI's tick)."""

    def __init__(self, hub) -> None:
        super().__init__()
        self.hub = hub
        self.drained = 0
        self.drain_threads: set[str] = set()

    def accept(self, signal: str, body: bytes, encoding: str) -> int:
        return self(signal, body, encoding)

    def drain(self) -> None:
        self.drained += 1
        self.drain_threads.add(threading.current_thread().name)


def _export(grpc_endpoint: str, http_endpoint: str) -> None:
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(GrpcExporter(endpoint=grpc_endpoint, insecure=True)))
    provider.add_span_processor(SimpleSpanProcessor(HttpExporter(endpoint=f"{http_endpoint}/v1/traces")))
    tracer = provider.get_tracer("app-test")
    for i in range(20):
        with tracer.start_as_current_span(f"op{i}"):
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


async def test_both_receivers_feed_the_sink_count_rejections_and_stop_with_the_app(tmp_path, monkeypatch):
    sinks: list[_Sink] = []
    monkeypatch.setattr(live_controller, "make_otlp_sink", lambda hub: sinks.append(_Sink(hub)) or sinks[-1])
    urls = ["otlp://127.0.0.1:0", "otlp+http://127.0.0.1:0"]
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=urls, watch=False)
    before = set(threading.enumerate())
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, urls[0]) and _bound(app, urls[1]))
        grpc_at, http_at = _bound(app, urls[0]), _bound(app, urls[1])
        assert len(sinks) == 1  # one sink for every receiver
        await asyncio.to_thread(_export, f"http://{grpc_at}", f"http://{http_at}")
        assert sinks[0].spans == 40 and sinks[0].requests == 40
        assert "MainThread" not in sinks[0].threads
        await asyncio.to_thread(_junk, grpc_at)
        assert await wait_for(pilot, lambda: app.hub.rejected["malformed otlp"] == 1)
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: "malformed otlp ×1" in str(
            browser.query_one("#browser-header").render()))
        assert sinks[0].drained > 0 and sinks[0].drain_threads == {"MainThread"}
    # quitting stopped both servers: nothing answers on their ports, and their threads are gone
    for bound in (grpc_at, http_at):
        host, port = bound.rsplit(":", 1)
        with socket.socket() as probe:
            assert probe.connect_ex((host, int(port))) != 0
    assert await wait_for(None, lambda: not [t for t in threading.enumerate() if t not in before and t.is_alive()
                                             and t.name.startswith(("otlp-grpc", "otlp-http"))])
