"""Key latency inside a running app: time from a key arriving (as the terminal driver delivers it) until the
state it changes has changed. Pilot's own press() waits for the app to go idle, which never happens under a
flood of updates, so it measures the wrong thing there."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual import events


async def key_latency(app, key: str, changed: Callable[[], bool], timeout: float = 10.0) -> float:
    event = events.Key(key, None)
    event.set_sender(app)
    start = time.perf_counter()
    app._driver.send_message(event)
    while not changed():
        if time.perf_counter() - start > timeout:
            return timeout
        await asyncio.sleep(0.001)
    return time.perf_counter() - start
