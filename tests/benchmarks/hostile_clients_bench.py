"""Hostile local clients against a listening monitor (issue 12): tests/benchmarks/README.md, "Hostile input".

    python tests/benchmarks/hostile_clients_bench.py [--clients 40] [--guess-seconds 10]

1. Unfinished frames: CLIENTS WebSocket clients each send 61 MB of a 64 MiB frame and stop. The listener runs in a
   child process; its peak RSS (VmHWM) is what the clients made it hold (before the budget: 2.45 GB for 40).
2. Token guessing: wrong tokens sent as fast as answers come, from 8 connections at once, for GUESS_SECONDS
   (before the slow-down: ~4,650 guesses/s).
Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

LISTENER = r"""
import asyncio, sys
from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.event_stream import listen

async def main():
    hub = LiveHub()
    told = []
    def status(text):
        if text.startswith("listening on ") and not told:
            told.append(text)
            print(text.removeprefix("listening on ").split(" ")[0], flush=True)
    task = asyncio.create_task(listen("ws://127.0.0.1:0", hub.feed, status, on_rejected=hub.reject,
                                      token=sys.argv[1] or None))
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    print(dict(hub.rejected), flush=True)
    with open("/proc/self/status") as f:
        print(next(line for line in f if line.startswith("VmHWM")).split()[1], flush=True)
    task.cancel()

asyncio.run(main())
"""


def start(token: str = "") -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", LISTENER, token], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    return proc, proc.stdout.readline().strip()


def finish(proc: subprocess.Popen) -> tuple[str, int]:
    proc.stdin.write("\n")
    proc.stdin.flush()
    rejected = proc.stdout.readline().strip()
    hwm_kb = int(proc.stdout.readline())
    proc.wait(30)
    return rejected, hwm_kb


async def unfinished_frames(url: str, clients: int) -> None:
    from helpers.rawclients import raw_ws, ws_header

    writers = []
    for _ in range(clients):
        _, writer = await raw_ws(url)
        writer.write(ws_header(64 << 20))
        writers.append(writer)
    chunk = b"x" * (1 << 20)
    for _ in range(61):
        for writer in writers:
            if not writer.is_closing():
                writer.write(chunk)
                try:
                    await asyncio.wait_for(writer.drain(), 5)
                except (ConnectionError, asyncio.TimeoutError):
                    writer.close()
    await asyncio.sleep(2)
    for writer in writers:
        writer.close()


async def guesses(url: str, seconds: float, connections: int = 8) -> int:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidMessage, InvalidStatus

    count = 0
    deadline = time.monotonic() + seconds

    async def guesser():
        nonlocal count
        while time.monotonic() < deadline:
            try:
                async with connect(url + "?token=guess", open_timeout=30):
                    pass
            except InvalidStatus:
                count += 1  # answered: 401
            except (InvalidMessage, OSError):
                pass  # waited past the handshake timeout (10 s): dropped without an answer

    await asyncio.gather(*(guesser() for _ in range(connections)))
    return count


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--clients", type=int, default=40)
    p.add_argument("--guess-seconds", type=float, default=10.0)
    args = p.parse_args()

    proc, url = start()
    started = time.monotonic()
    asyncio.run(unfinished_frames(url, args.clients))
    rejected, hwm = finish(proc)
    print(f"{args.clients} clients x 61 MB of a 64 MiB frame: listener peak RSS {hwm / 1024:,.0f} MB, "
          f"rejected {rejected} ({time.monotonic() - started:.1f} s)")

    proc, url = start("s3cret")
    n = asyncio.run(guesses(url, args.guess_seconds))
    rejected, _ = finish(proc)
    print(f"wrong tokens: {n:,} answered in {args.guess_seconds:g} s ({n / args.guess_seconds:,.1f}/s), "
          f"rejected {rejected}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
