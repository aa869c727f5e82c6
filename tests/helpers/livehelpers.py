"""Shared helpers of the live-stream tests: a listener run as a task and stopped, a frame, the command line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

import orjson

from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.event_stream import listen


ROOT = Path(__file__).resolve().parents[2]


TIMEOUT = 30


@contextlib.asynccontextmanager
async def listening(url: str, hub: LiveHub, **kwargs):
    """Run listen() as a task; yields the URL it really bound (port 0 resolved); always cancels it."""
    statuses: list[str] = []
    ready = asyncio.Event()

    def on_status(text: str) -> None:
        statuses.append(text)
        if text.startswith("listening on "):
            ready.set()

    task = asyncio.create_task(listen(url, hub.feed, on_status, on_oversized=hub.refuse_oversized, **kwargs))
    try:
        await asyncio.wait_for(ready.wait(), TIMEOUT)
        bound = next(s for s in statuses if s.startswith("listening on ")).removeprefix("listening on ")
        yield bound, statuses
    finally:
        await stop(task)


async def stop(task: asyncio.Task) -> None:
    """Cancel a listen/connect task and wait until it has closed what it opened."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, TIMEOUT)


def event(seq: int, sid: str = "s1") -> str:
    return orjson.dumps({"type": "status", "event": {"type": "agent_update", "message": f"step {seq}"},
                         "meta": {"sessionId": sid, "sequence": seq}}).decode()


def monitor(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The app's command line, for arguments it must refuse before the UI starts (so it never waits for keys)."""
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
