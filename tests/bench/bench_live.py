"""Throughput check (not a test): events/s through each live transport into a LiveHub.

    /work/venv/bin/python tests/bench/bench_live.py [N_SMALL]   (default 50,000)

Two workloads, both from a replayed generated session (speed 0): "small" is N_SMALL log/progress/accounting
events (the bulk of a live stream), "replay" is a whole session's replay including its op_tree events (the
expensive ones: the whole tree each time). The sender runs in a child process (the same `send_events` the replay
command uses), so the numbers are what the monitor's own event loop sustains: time from the first frame received
to the last one fed to the hub. "direct" is hub.feed without any transport, for comparison.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tui.gen.tree import make_tree  # noqa: E402
from tui.model.document import from_object  # noqa: E402
from tui.model.live import LiveHub  # noqa: E402
from tui.sources.event_stream import listen  # noqa: E402
from tui.sources.replay import replay_events, send_events  # noqa: E402

SMALL_KINDS = {"log", "progress", "accounting", "turn_started"}


def workloads(n_small: int) -> dict[str, list[bytes]]:
    tree = make_tree(42, ops=2000, depth=2, payload_bytes=600)
    events = [e for _, e in replay_events(from_object({"version": 2, "opTree": tree}, "bench"))]
    small_src = [e for e in events if e["type"] in SMALL_KINDS]
    small = []
    for i in range(n_small):
        e = dict(small_src[i % len(small_src)])
        e["meta"] = {**e["meta"], "sessionId": "bench-small", "sequence": i + 1}
        small.append(orjson.dumps(e))
    return {"small": small, "replay": [orjson.dumps(e) for e in events]}


async def receive(url: str, frames_file: Path, expected: int) -> tuple[float, LiveHub]:
    hub = LiveHub()
    first: list[float] = []
    done = asyncio.Event()

    def on_frame(data) -> None:
        if not first:
            first.append(time.perf_counter())
        hub.feed(data)
        if hub.events + hub.malformed >= expected:
            done.set()

    ready = asyncio.Event()
    bound: list[str] = []

    def on_status(text: str) -> None:
        if text.startswith("listening on "):
            bound.append(text.removeprefix("listening on "))
            ready.set()

    task = asyncio.create_task(listen(url, on_frame, on_status))
    try:
        await asyncio.wait_for(ready.wait(), 10)
        sender = await asyncio.create_subprocess_exec(sys.executable, __file__, "--send", bound[0], str(frames_file))
        await asyncio.wait_for(done.wait(), 120)
        elapsed = time.perf_counter() - first[0]
        await asyncio.wait_for(sender.wait(), 30)
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    return elapsed, hub


def send_main(url: str, frames_file: str) -> None:
    frames = Path(frames_file).read_bytes().splitlines()
    events = [(0, orjson.loads(f)) for f in frames]
    asyncio.run(send_events(events, url, speed=0))


def main() -> None:
    n_small = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    t0 = time.perf_counter()
    loads = workloads(n_small)
    print(f"prepared workloads in {time.perf_counter() - t0:.1f}s")
    print(f"{'workload':<8} {'transport':<10} {'events':>8} {'MB':>8} {'seconds':>8} {'events/s':>10} {'MB/s':>8}")
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        for name, frames in loads.items():
            size = sum(len(f) for f in frames)
            path = Path(tmp) / f"{name}.ndjson"
            path.write_bytes(b"\n".join(frames) + b"\n")
            hub = LiveHub()
            start = time.perf_counter()
            for f in frames:
                hub.feed(f)
            rows = [("direct", time.perf_counter() - start)]
            for transport, url in (("ws", "ws://127.0.0.1:0"), ("unix", f"unix:{os.path.join(tmp, 'b.sock')}")):
                elapsed, hub = asyncio.run(receive(url, path, len(frames)))
                assert hub.events == len(frames) and hub.malformed == 0, (hub.events, hub.malformed)
                rows.append((transport, elapsed))
            for transport, elapsed in rows:
                print(f"{name:<8} {transport:<10} {len(frames):>8,} {size / 1e6:>8.1f} {elapsed:>8.2f} "
                      f"{len(frames) / elapsed:>10,.0f} {size / 1e6 / elapsed:>8.1f}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--send":
        send_main(sys.argv[2], sys.argv[3])
    else:
        main()
