"""What a listening monitor lets its clients hold, so that hostile or broken producers cannot take the app down:
a memory budget shared by every client for the unfinished frames and lines it buffers, a reserve of file
descriptors no client may take (the app still opens files and imports modules when every producer is connected),
and a growing delay after wrong tokens from the same address. No textual here.

The budget is total, not per client: 40 clients each holding 61 MB of an unfinished 64 MiB frame held 2.45 GB
before. A client that would take the total over the budget is disconnected (its unfinished frame dropped) and
counted; every other client keeps going.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time

MAX_FRAME_BYTES = 64 * 1024 * 1024  # one event (a line or a WebSocket message); bigger ones are refused
MEMORY_BUDGET = 256 * 1024 * 1024  # unfinished frames/lines of all clients together (at least 2 x the frame limit)
FD_RESERVE = 64  # descriptors kept free for the app itself: files, imports, the terminal
FAILED_AUTH_DELAY = 0.05  # the first wrong token is answered after 50 ms, then twice as long each time...
FAILED_AUTH_MAX_DELAY = 2.0  # ... up to 2 s per attempt, attempts from one address answered one at a time
FAILED_AUTH_FORGET = 60.0  # an address that has not failed for this long starts afresh
FRAGMENT_OVERHEAD = 64  # what one held fragment costs beyond its bytes (a Python object and a list slot)


class MemoryBudget:
    """Bytes held by each client, and their total. A client's share is a Charge (`charge()`): it says whether the
    client may hold `size` bytes now, and gives them back when its `with` ends (or `release`), once, whatever
    raised. Thread-safe: the OTLP/gRPC receiver's handlers run in threads (an uncontended lock costs well under a
    microsecond)."""

    def __init__(self, limit: int = MEMORY_BUDGET) -> None:
        self.limit = limit
        self.total = 0
        self._held: dict[object, int] = {}
        self._lock = threading.Lock()

    def charge(self, size: int = 0) -> Charge:
        """A new client's share, holding `size` bytes if the budget allows (its `ok` says)."""
        charge = Charge(self)
        charge.set(size)
        return charge

    def _hold(self, client: object, size: int) -> bool:
        """Record that `client` now holds `size` bytes (replacing what it held); False, recording nothing new,
        when that would take the total over the limit."""
        with self._lock:
            before = self._held.get(client, 0)
            if size > before and self.total - before + size > self.limit:
                return False
            self.total += size - before
            if size:
                self._held[client] = size
            else:
                self._held.pop(client, None)
            return True

    def _release(self, client: object) -> None:
        with self._lock:
            self.total -= self._held.pop(client, 0)


class Charge:
    """What one client (a connection, a request) holds of a MemoryBudget: `set(size)` replaces it (False, holding
    nothing new, when that would take the total over the limit). A context manager: its bytes go back to the budget
    when the `with` ends; `release` does it where a callback ends the client (a protocol's connection_lost)."""

    __slots__ = ("budget", "ok")

    def __init__(self, budget: MemoryBudget) -> None:
        self.budget = budget
        self.ok = True  # whether the last `set` was allowed

    def set(self, size: int) -> bool:
        self.ok = self.budget._hold(self, size)
        return self.ok

    def release(self) -> None:
        self.budget._release(self)

    def __enter__(self) -> Charge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def open_descriptors() -> int | None:
    """How many file descriptors this process has open (None where /proc/self/fd and /dev/fd cannot tell)."""
    for where in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(where)) - 1  # the listing's own descriptor
        except OSError:
            continue
    return None


def descriptor_limit() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


class DescriptorReserve:
    """Whether one more client may be kept: refuse while fewer than `reserve` descriptors would stay free.

    Counting open descriptors lists /proc/self/fd (10,000 entries cost ~2 ms), so it is done only when the clients
    connected since the last count could have come near the limit."""

    def __init__(self, reserve: int = FD_RESERVE) -> None:
        self.reserve = reserve
        self.clients = 0
        self._checked_at = 0  # clients kept when descriptors were last counted ...
        self._room: int | None = None  # ... and how many more could then be kept (None: count at the next one)

    def admit(self) -> bool:
        """Called with a new client's descriptor already open: True (and counted) to keep it, False to refuse."""
        if self._room is None or self.clients - self._checked_at >= self._room:
            limit, used = descriptor_limit(), open_descriptors()
            room = 1 << 30 if limit is None or used is None else limit - used - self.reserve
            if room < 0:
                self._room = None  # count again next time: descriptors may have been closed meanwhile
                return False
            self._checked_at, self._room = self.clients + 1, room
        self.clients += 1
        return True

    def leave(self) -> None:
        self.clients -= 1


class AuthThrottle:
    """Wrong tokens cost time: attempts from an address that failed before wait FAILED_AUTH_DELAY doubled per
    failure (up to FAILED_AUTH_MAX_DELAY), one at a time, so opening many connections at once does not help."""

    MAX_ADDRESSES = 4096

    def __init__(self, start: float = FAILED_AUTH_DELAY, cap: float = FAILED_AUTH_MAX_DELAY) -> None:
        self.start, self.cap = start, cap
        self._failures: dict[str, tuple[int, float]] = {}  # address -> (failures, when the last one was)
        self._locks: dict[str, asyncio.Lock] = {}

    def delay(self, address: str) -> float:
        failures, last = self._failures.get(address, (0, 0.0))
        if not failures or time.monotonic() - last > FAILED_AUTH_FORGET:
            return 0.0
        return min(self.cap, self.start * 2 ** min(failures - 1, 30))

    @contextlib.asynccontextmanager
    async def turn(self, address: str):
        """Wait for this address's turn and its penalty, then let the caller check the token."""
        lock = self._locks.get(address)
        if lock is None:
            if len(self._locks) >= self.MAX_ADDRESSES:
                self._locks = {a: held for a, held in self._locks.items() if held.locked()}
            lock = self._locks[address] = asyncio.Lock()
        async with lock:
            wait = self.delay(address)
            if wait:
                await asyncio.sleep(wait)
            yield

    def penalised(self, address: str) -> bool:
        """For receivers that cannot wait their turn (the gRPC handlers are a few threads): True while the penalty
        of the last failure from `address` runs, when its attempts are refused unchecked."""
        last = self._failures.get(address, (0, 0.0))[1]
        return time.monotonic() - last < self.delay(address)

    def failed(self, address: str) -> None:
        if len(self._failures) >= self.MAX_ADDRESSES and address not in self._failures:
            self._failures.clear()
        failures = self._failures.get(address, (0, 0.0))[0]
        self._failures[address] = (failures + 1, time.monotonic())

    def succeeded(self, address: str) -> None:
        self._failures.pop(address, None)
