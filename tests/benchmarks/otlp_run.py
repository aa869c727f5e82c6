"""Child process of the "OTLP" section: the app (headless, browser first) with `--listen otlp://127.0.0.1:PORT`
while otlp_sender.py pushes ai-agent-shaped spans over OTLP/gRPC.

    python tests/benchmarks/otlp_run.py throughput PORT SPANS    # as fast as the sender goes
    python tests/benchmarks/otlp_run.py keys PORT RATE SECONDS   # RATE spans/s, keys pressed in the browser
    python tests/benchmarks/otlp_run.py memory PORT SPANS        # a million spans: what the process holds after

"Applied" means received, decoded, assembled into session trees and put in the hub (the sink's last drain done),
timed from the sender's first request; "rows" adds the time until every session's browser row was built (the
live tick builds rows within its budget, so keys stay answered meanwhile). Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from keylag import LoopLag, key_latency, quantile

HERE = Path(__file__).resolve().parent


def rss_kb() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


async def listening(app) -> None:
    """Until the app's OTLP receiver listens (the measured run exits if it does not within 30 s)."""
    deadline = time.perf_counter() + 30
    while not any(t.startswith("listening on") for t in app.live.stream_status.values()):
        if time.perf_counter() > deadline:
            raise SystemExit(f"not listening: {app.live.stream_status}")
        await asyncio.sleep(0.01)


async def main(mode: str, port: int, args: list[str]) -> dict:
    from tui.ui.app import MonitorApp

    empty = Path(tempfile.mkdtemp(prefix="bench-otlp-"))
    url = f"otlp://127.0.0.1:{port}"
    app = MonitorApp(sessions_dir=empty, listen_urls=[url], watch=False)
    out: dict = {"mode": mode}
    async with app.run_test(size=(160, 48)) as pilot:
        await listening(app)
        spans = int(args[0]) if mode != "keys" else int(float(args[0]) * float(args[1]))
        rate = float(args[0]) if mode == "keys" else 0.0
        cmd = [sys.executable, str(HERE / "otlp_sender.py"), url, str(spans), str(rate)]
        lag = LoopLag().start()
        started = time.perf_counter()
        sender = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE,
                                                      stderr=asyncio.subprocess.PIPE)
        keys: list[float] = []
        while sender.returncode is None:
            try:
                await asyncio.wait_for(sender.wait(), 0.2)
            except asyncio.TimeoutError:
                pass
            if mode == "keys" and hasattr(app.screen, "table") and app.screen.table.row_count > 2:
                table = app.screen.table
                row = table.cursor_row
                key = "down" if (len(keys) // 6) % 2 == 0 else "up"
                keys.append(await key_latency(app, key, lambda: table.cursor_row != row))
        stdout, stderr = await sender.communicate()
        sender_done = time.perf_counter()
        if sender.returncode != 0:
            raise SystemExit(f"sender failed: {stderr.decode()[-2000:]}")
        sent, sender_seconds, sessions = stdout.decode().split()
        sent = int(sent)
        sink = app.live.worker.otlp_sink
        first = sender_done - float(sender_seconds)  # (the sender's clock starts at its first request)
        deadline = time.perf_counter() + 300
        applied = shown = None
        while time.perf_counter() < deadline:  # every span received and in the hub; then every row built
            if applied is None and sink is not None and sink.spans_received >= sent and not sink.pending:
                applied = time.perf_counter()
            if applied is not None and app.live.tally.roots == sessions_expected(app, sessions):
                shown = time.perf_counter()
                break
            await asyncio.sleep(0.01)
        await pilot.pause(0.3)
        lag.stop()
        elapsed = (applied or time.perf_counter()) - first
        out.update({
            "sent": sent, "sender_seconds": float(sender_seconds), "sessions": int(sessions),
            "received": sink.spans_received if sink else 0, "held": sink.spans_held if sink else 0,
            "dropped": sink.spans_dropped if sink else 0, "evicted": sink.evicted if sink else 0,
            "malformed": sink.rejected if sink else 0, "rejected": app.live.tally.rejections,
            "roots": app.live.tally.roots, "hub_sessions": app.live.tally.sessions,
            "seconds": elapsed, "spans_per_s": sent / elapsed if elapsed > 0 else None,
            "rows_seconds": (shown - first) if shown else None,
            "stall_s": lag.worst(), "rss_kb": rss_kb(),
            "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        })
        if mode == "keys":
            out["rate"] = rate
            out["keys"] = {"n": len(keys), "p50": quantile(keys, 0.5), "p95": quantile(keys, 0.95),
                           "max": max(keys, default=float("nan"))}
    return out


def sessions_expected(app, sessions: str) -> int:
    """The roots the rows are built for once everything is applied: the sender's sessions, or what the sink's
    caps left of them (the live worker's tally of the last batch the app took)."""
    sink = app.live.worker.otlp_sink
    return min(int(sessions), app.live.tally.roots if sink is not None and sink.evicted else int(sessions))


if __name__ == "__main__":
    result = asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)
