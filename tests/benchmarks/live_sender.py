"""A steady live stream for the key-latency measure: `rate` events per second for `seconds`, then a final tree.

    python tests/benchmarks/live_sender.py URL RATE SECONDS

One growing session (400 ops): logs, progress and accounting events, with its op_tree cut at the current
instant every 200 events, as a running agent sends them. Prints "SENT SECONDS" when done.
"""

from __future__ import annotations

import asyncio
import sys
import time

import orjson

from tui.demo import make_tree
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.inputs.stream.event_stream import parse_url


async def main(url: str, rate: int, seconds: float) -> None:
    tree = make_tree(5, ops=400, depth=2, payload_bytes=400, capture_rate=0.1)
    times = event_times(tree)
    sid = tree["traceId"]

    def meta(seq: int) -> dict:
        return {"sessionId": sid, "originId": sid, "agentId": tree.get("agentId"), "sequence": seq}

    target = parse_url(url)
    if target[0] == "unix":
        _, writer = await asyncio.open_unix_connection(target[1])

        async def send(frames: list[bytes]) -> None:
            writer.write(b"\n".join(frames) + b"\n")
            await writer.drain()
    else:
        from websockets.asyncio.client import connect

        ws = await connect(url, max_size=None, compression=None)

        async def send(frames: list[bytes]) -> None:
            for frame in frames:
                await ws.send(frame, text=True)

    total = int(rate * seconds)
    batch = max(1, rate // 200)
    seq = 0
    start = time.perf_counter()
    while seq < total:
        frames = []
        for _ in range(batch):
            seq += 1
            if seq % 200 == 1:
                t = times[min(len(times) - 1, seq * len(times) // total)]
                event = {"type": "op_tree", "tree": tree_at(tree, t)}
            elif seq % 3 == 0:
                event = {"type": "progress", "event": {"type": "tool_started", "agentId": "bench",
                                                        "tool": {"name": "web__fetch"}}}
            else:
                event = {"type": "log", "entry": {"timestamp": int(time.time() * 1000),
                                                  "severity": "VRB" if seq % 50 else "WRN",
                                                  "message": f"event {seq}", "path": "1-1"}}
            event["meta"] = meta(seq)
            frames.append(orjson.dumps(event))
        await send(frames)
        ahead = seq / rate - (time.perf_counter() - start)
        if ahead > 0:
            await asyncio.sleep(ahead)
    seq += 1
    await send([orjson.dumps({"type": "op_tree", "tree": tree, "meta": meta(seq)})])
    elapsed = time.perf_counter() - start
    if target[0] == "unix":
        writer.close()
    else:
        await ws.close()
    print(seq, f"{elapsed:.3f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
