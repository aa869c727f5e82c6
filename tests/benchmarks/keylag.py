"""Key latency inside a running app: time from a key arriving (as the terminal driver delivers it) until the
state it changes has changed. Pilot's own press() waits for the app to go idle, which never happens under a
flood of updates, so it measures the wrong thing there."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable



def quantile(values: list[float], q: float) -> float:
    """The q-quantile of `values` (nearest rank), NaN when there are none."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else float("nan")


async def key_latency(app, key: str, changed: Callable[[], bool], timeout: float = 10.0) -> float:
    from textual import events  # here, so that importing this module does not import textual

    event = events.Key(key, None)
    event.set_sender(app)
    start = time.perf_counter()
    app._driver.send_message(event)
    while not changed():
        if time.perf_counter() - start > timeout:
            return timeout
        await asyncio.sleep(0.001)
    return time.perf_counter() - start


class LoopLag:
    """How late the event loop wakes a task that sleeps `period`: its stalls, as a key arriving then would see."""

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.samples: list[tuple[float, float]] = []  # (when, lag) in perf_counter seconds
        self._task: asyncio.Task | None = None

    def start(self) -> LoopLag:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def _run(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(self.period)
            now = time.perf_counter()
            self.samples.append((now, now - t - self.period))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def worst(self, since: float = 0.0) -> float:
        return max((lag for when, lag in self.samples if when >= since), default=0.0)
