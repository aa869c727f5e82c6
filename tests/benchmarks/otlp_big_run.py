"""Child process of the "OTLP" section's big-trace row (issue 28, item 13): the app (headless) with `--listen
otlp://127.0.0.1:PORT`, one ai-agent trace sent over OTLP/gRPC batch after batch up to SPANS spans (the sink's cap
is 50,000 a trace), the session screen of that trace open from its first batch on, keys pressed all along, RSS
sampled every 50 ms.

    python tests/benchmarks/otlp_big_run.py PORT SPANS RATE   # RATE spans/s (batches of 512)

Prints one JSON object: keys p50/p95/max during the growth, the longest UI stall (event-loop lag), the RSS peak,
the seconds from the last batch sent until the screen showed every turn.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

from keylag import LoopLag, key_latency, quantile
from otlp_run import listening, rss_kb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def send(url: str, bodies: list[bytes], rate: float, batch: int, done: dict) -> None:
    """The exporter: one request at a time, paced at `rate` spans/s (as one agent's BatchSpanProcessor)."""
    import grpc

    with grpc.insecure_channel(url.split("://", 1)[1]) as channel:
        export = channel.unary_unary(EXPORT, request_serializer=None, response_deserializer=None)
        grpc.channel_ready_future(channel).result(timeout=30)
        start = time.perf_counter()
        for i, body in enumerate(bodies):
            export(body, timeout=120)
            ahead = (i + 1) * batch / rate - (time.perf_counter() - start)
            if ahead > 0:
                time.sleep(ahead)
        done["seconds"] = time.perf_counter() - start
        done["at"] = time.perf_counter()


def sample_rss(peak: list[int], stop: threading.Event) -> None:
    """In its own thread: on the UI's event loop, each read of /proc waited for the interpreter behind the
    app's threads, and the keys measured waited behind it (10-40 ms a read)."""
    while not stop.wait(0.05):
        peak[0] = max(peak[0], rss_kb())


async def main(port: int, spans: int, rate: float) -> dict:
    from helpers.otlphelpers import big_trace_bodies
    from tui.ui.app import MonitorApp

    batch = 512
    txn, bodies = big_trace_bodies(spans, batch)
    turns = (spans - 1 + 2) // 3
    url = f"otlp://127.0.0.1:{port}"
    app = MonitorApp(sessions_dir=Path(tempfile.mkdtemp(prefix="bench-otlp-big-")), listen_urls=[url], watch=False)
    peak = [rss_kb()]
    start_rss = peak[0]
    async with app.run_test(size=(160, 48)) as pilot:
        await listening(app)
        stop_sampling = threading.Event()
        threading.Thread(target=sample_rss, args=(peak, stop_sampling), daemon=True).start()
        done: dict = {}
        sender = threading.Thread(target=send, args=(url, bodies, rate, batch, done), daemon=True)
        del bodies
        started = time.perf_counter()
        sender.start()
        while app.live.build(txn) is None:
            await asyncio.sleep(0.01)
        app.open_path(f"live:{txn}")
        while getattr(app.screen, "live_root", None) != txn or not app.screen.is_mounted:
            await asyncio.sleep(0.01)
        screen = app.screen
        # The first key waits for the screen's opening (its mount, first layout and paint: 0.3-0.65 s here, while
        # the sink assembles): reported on its own, the keys row is what the trace's growth costs.
        before = screen.tree.cursor_line
        first_key = await key_latency(app, "down", lambda: screen.tree.cursor_line != before)
        lag = LoopLag().start()
        keys: list[float] = []
        changes = 0
        shown = screen.session
        settled = None
        limit = time.perf_counter() + 600
        while time.perf_counter() < limit:
            if screen.session is not shown:
                changes, shown = changes + 1, screen.session
            if "at" in done and len(screen.session.turns) >= turns:
                settled = time.perf_counter()
                break
            before = screen.tree.cursor_line
            keys.append(await key_latency(app, "down" if (len(keys) // 6) % 2 == 0 else "up",
                                          lambda: screen.tree.cursor_line != before))
            await asyncio.sleep(0.02)
        lag.stop()
        stop_sampling.set()
        peak[0] = max(peak[0], rss_kb())
        sink = app.live.worker.otlp_sink
        out = {
            "spans": spans, "rate": rate, "turns_shown": len(screen.session.turns), "turns": turns,
            "changes_seen": changes, "received": sink.spans_received if sink else 0,
            "send_seconds": done.get("seconds"), "growth_seconds": (settled or time.perf_counter()) - started,
            "settle_after_send_s": (settled - done["at"]) if settled and "at" in done else None,
            "first_key_s": first_key,
            "keys": {"n": len(keys), "p50": quantile(keys, 0.5), "p95": quantile(keys, 0.95),
                     "max": max(keys, default=float("nan"))},
            "stall_s": lag.worst(), "rss_start_kb": start_rss, "rss_peak_kb": peak[0], "rss_end_kb": rss_kb(),
            "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            "load": os.getloadavg(),
        }
        out["rss_after_collect_trim_kb"] = rss_after_collect_and_trim()
        await pilot.pause(0.1)
    return out


def rss_after_collect_and_trim() -> int:
    """What stays resident once garbage is collected and glibc gives its free pages back: the rest of the peak
    was memory freed but kept by the allocator (versions of the trace built one after another)."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return rss_kb()


if __name__ == "__main__":
    result = asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)
