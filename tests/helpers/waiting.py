"""The one way tests wait: poll a condition until it holds or the time is up (never a fixed sleep that hopes).

With a Pilot the app runs between polls (`pilot.pause`); without one the event loop does (`asyncio.sleep`), for the
transports, watchers and hubs that run without an app.
"""

from __future__ import annotations

import asyncio


async def wait_for(pilot, predicate, timeout: float = 10.0, step: float = 0.05) -> bool:
    """Let the app (or, with pilot None, the event loop) run until `predicate()` holds; its value once `timeout`
    seconds have passed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():
            return True
        if pilot is not None:
            await pilot.pause(step)
        else:
            await asyncio.sleep(step)
    return predicate()


async def until(predicate, timeout: float = 30.0) -> None:
    """wait_for without an app that fails the test (AssertionError) when `predicate()` never holds."""
    assert await wait_for(None, predicate, timeout, step=0.01), f"timed out after {timeout} s"
