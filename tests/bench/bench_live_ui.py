"""Benchmark (not a test): the app under a flood of live events.

    python tests/bench/bench_live_ui.py [--rate 5000] [--seconds 60] [--transport unix|ws]

A sender process pushes `rate` events per second (logs, progress and accounting of one growing session, with its
op_tree every 200 events) to the app listening on a unix socket or WebSocket; meanwhile the app is driven with
keys. Reports events received vs sent, sequence gaps, event-loop lag, key round-trip time against an idle
baseline, and memory at the start and the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from keylag import key_latency  # noqa: E402

SENDER = r"""
import asyncio, sys, time, orjson
sys.path.insert(0, sys.argv[4])
from tui.gen import make_tree
from tui.gen.timeline import tree_at, event_times
from tui.sources.event_stream import parse_url
url, rate, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
tree = make_tree(5, ops=400, depth=2, payload_bytes=0)
times = event_times(tree)
sid = tree["traceId"]
def meta(seq): return {"sessionId": sid, "originId": sid, "agentId": tree.get("agentId"), "sequence": seq}
async def main():
    kind = parse_url(url)
    if kind[0] == "unix":
        reader, writer = await asyncio.open_unix_connection(kind[1])
        send = lambda b: writer.write(b + b"\n")
        drain = writer.drain
    else:
        import websockets
        ws = await websockets.connect(url, max_size=None)
        queue = []
        send = queue.append
        async def drain():
            for frame in queue:
                await ws.send(frame.decode())
            queue.clear()
    seq = 0
    start = time.perf_counter()
    total = int(rate * seconds)
    batch = max(1, rate // 100)
    while seq < total:
        for _ in range(batch):
            seq += 1
            if seq % 200 == 1:
                t = times[min(len(times) - 1, seq * len(times) // total)]
                event = {"type": "op_tree", "tree": tree_at(tree, t)}
            elif seq % 3 == 0:
                event = {"type": "progress", "event": {"type": "tool_started", "agentId": "bench", "tool": {"name": "web__fetch"}}}
            else:
                event = {"type": "log", "entry": {"timestamp": int(time.time() * 1000), "severity": "VRB" if seq % 50 else "WRN", "message": f"event {seq}", "path": "1-1"}}
            event["meta"] = meta(seq)
            send(orjson.dumps(event))
        await drain()
        ahead = seq / rate - (time.perf_counter() - start)
        if ahead > 0:
            await asyncio.sleep(ahead)
    seq += 1
    send(orjson.dumps({"type": "op_tree", "tree": tree, "meta": meta(seq)}))
    await drain()
    print(seq, f"{time.perf_counter() - start:.2f}")
asyncio.run(main())
"""


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


async def run(rate: int, seconds: float, transport: str) -> None:
    from tui.app import MonitorApp

    tmp = Path(tempfile.mkdtemp(prefix="bench-live-ui-"))
    url = f"unix:{tmp / 'm.sock'}" if transport == "unix" else "ws://127.0.0.1:18765"
    (tmp / "sessions").mkdir()
    app = MonitorApp(sessions_dir=tmp / "sessions", listen_urls=[url], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.5)
        rss_start = rss_mb()
        sender = subprocess.Popen([sys.executable, "-c", SENDER, url, str(rate), str(seconds), str(ROOT)],
                                  stdout=subprocess.PIPE, text=True)
        lags: list[float] = []
        keys: list[float] = []
        opened = False
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        while sender.poll() is None:
            t = loop.time()
            await asyncio.sleep(0.05)
            lags.append(loop.time() - t - 0.05)
            if not opened and app.hub.sessions:
                root = app.hub.roots()[0]
                if app.hub.build(root) is not None:
                    app.open_path(f"live:{root}")
                    opened = True
            screen = app.screen
            if opened and len(lags) % 4 == 0 and hasattr(screen, "tree"):
                tree = screen.tree
                line = tree.cursor_line
                key = "down" if len(keys) % 8 < 4 else "up"
                keys.append(await key_latency(app, key, lambda: tree.cursor_line != line or app.screen is not screen))
        sent, send_seconds = sender.stdout.read().split()
        await pilot.pause(1.0)
        elapsed = time.perf_counter() - started
        root = app.hub.roots()[0]
        events, gaps = app.hub.counters(root)
        print(f"transport {transport}: sent {int(sent):,} events in {float(send_seconds):.1f}s "
              f"({int(sent) / float(send_seconds):,.0f}/s), received {events:,}, gaps {gaps}, "
              f"malformed {app.hub.malformed}")
        print(f"event-loop lag: median {statistics.median(lags) * 1000:.1f} ms, "
              f"p99 {sorted(lags)[int(len(lags) * 0.99)] * 1000:.1f} ms, max {max(lags) * 1000:.1f} ms")
        if keys:
            print(f"key latency under load (key in -> cursor moved): median {statistics.median(keys) * 1000:.1f} ms,"
                  f" p95 {sorted(keys)[int(len(keys) * 0.95)] * 1000:.1f} ms, max {max(keys) * 1000:.1f} ms "
                  f"over {len(keys)} keys")
        print(f"RSS: {rss_start:.0f} MB before the flood, {rss_mb():.0f} MB after {elapsed:.0f}s; "
              f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
        live = app.hub.sessions[root]
        print(f"pending logs kept {len(live.pending_logs)}, dropped from view {live.dropped_logs}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--transport", choices=["unix", "ws"], default="unix")
    args = parser.parse_args()
    asyncio.run(run(args.rate, args.seconds, args.transport))


if __name__ == "__main__":
    main()
