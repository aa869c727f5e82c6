"""The hostile shapes of a live stream (issue 12), sent as fast as the socket takes them:

    python tests/benchmarks/live_scale_sender.py URL sessions N   # N distinct sessions, one log event each
    python tests/benchmarks/live_scale_sender.py URL reverse N    # one session: its tree, then N accounting
                                                                  # events in reverse sequence order

Prints "SENT SECONDS" when done.
"""

from __future__ import annotations

import asyncio
import sys
import time

import orjson

from tui.inputs.stream.event_stream import parse_url


def events(shape: str, n: int):
    if shape == "sessions":
        for i in range(n):
            sid = f"session-{i:06d}"
            yield {"type": "log", "meta": {"sessionId": sid, "originId": sid, "agentId": "bench", "sequence": 1},
                   "entry": {"timestamp": 1_700_000_000_000 + i, "severity": "VRB", "message": f"hello {i}",
                             "path": "1-1"}}
        return
    sid = "reverse"
    ops = [{"opId": f"o{i}", "kind": "llm", "startedAt": 1_700_000_000_000 + i, "attributes": {}, "logs": [],
            "accounting": []} for i in range(20)]
    tree = {"id": sid, "traceId": sid, "agentId": "bench", "startedAt": 1_700_000_000_000,
            "turns": [{"id": "t1", "index": 1, "startedAt": 1_700_000_000_000, "ops": ops}]}
    yield {"type": "op_tree", "tree": tree, "meta": {"sessionId": sid, "originId": sid, "sequence": 1}}
    for seq in range(n + 1, 1, -1):
        yield {"type": "accounting", "meta": {"sessionId": sid, "originId": sid, "sequence": seq},
               "entry": {"type": "llm", "timestamp": 1_700_000_000_000 + seq, "tokens": {"inputTokens": 10,
                                                                                          "outputTokens": 5}}}


async def main(url: str, shape: str, n: int) -> None:
    target = parse_url(url)
    _, writer = await asyncio.open_unix_connection(target[1])
    sent = 0
    start = time.perf_counter()
    batch = []
    for event in events(shape, n):
        batch.append(orjson.dumps(event))
        if len(batch) == 1000:
            writer.write(b"\n".join(batch) + b"\n")
            await writer.drain()
            sent += len(batch)
            batch = []
    if batch:
        writer.write(b"\n".join(batch) + b"\n")
        await writer.drain()
        sent += len(batch)
    elapsed = time.perf_counter() - start
    writer.close()
    print(sent, f"{elapsed:.3f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
