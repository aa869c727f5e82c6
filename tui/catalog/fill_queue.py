"""The browser's fill queue: which listed rows still have to be read, in which order, and the rows read.

The listing is instant and holds unloaded rows; a fill thread then reads them one by one (visible rows first, then
newest first) and leaves the results in a deque that the UI drains in batches. Shared between that thread and the
UI thread through plain containers whose single operations are atomic: only the fill thread pops the key deques
(a non-empty deque stays non-empty), only the UI thread drains `results`. No textual here: the browser screen runs
`fill` in its worker and tests run it in a plain thread.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Callable, Iterable

from tui.catalog.index.browser_index import BrowserIndex
from tui.catalog.session_row import SessionRow, fill_row


class FillQueue:
    """The keys waiting to be read (`pending`), their order (`priority`: rows on screen, then `queue`: newest
    first) and the rows read (`results`); `active` is cleared while another screen is on top (loading pauses)."""

    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.queue: collections.deque[str] = collections.deque()  # newest first
        self.priority: collections.deque[str] = collections.deque()  # rows on screen
        self.results: collections.deque[SessionRow] = collections.deque()
        self.active = threading.Event()
        self.active.set()

    def restart(self, keys: list[str]) -> None:
        """A new listing: these keys wait (in this order), nothing read before counts."""
        self.pending = set(keys)
        self.queue = collections.deque(keys)
        self.results.clear()

    def push(self, key: str) -> None:
        """A row to read before the queued ones (a file that changed: newest)."""
        self.pending.add(key)
        self.queue.appendleft(key)

    def prioritise(self, keys: Iterable[str]) -> None:
        """These keys (the rows on screen) are read first, those still pending."""
        self.priority = collections.deque(key for key in keys if key in self.pending)

    def next_pending(self) -> str | None:
        """Runs in the fill thread: the next key to read (visible ones first), None when none is left."""
        for source in (self.priority, self.queue):
            while source:
                key = source.popleft()  # only this thread pops: a non-empty deque stays non-empty
                if key in self.pending:
                    self.pending.discard(key)
                    return key
        return None

    def take_results(self) -> list[SessionRow]:
        """The rows read since the last call (the UI thread's batch)."""
        results = self.results
        return [results.popleft() for _ in range(len(results))]

    def fill(self, row_of: Callable[[str], SessionRow | None], cancelled: Callable[[], bool],
             index: BrowserIndex | None) -> None:
        """Runs in a thread: read the pending rows one by one and leave them in `results` (on a process pool when
        many, writing to the index: tui.catalog.index.browser_index)."""
        if index is not None:
            index.fill(self.next_pending, row_of, self.results, cancelled, self.active, len(self.pending))
            return
        while not cancelled():
            if not self.active.wait(0.5):
                continue
            key = self.next_pending()
            if key is None:
                return
            row = row_of(key)
            if row is not None and not row.loaded:
                self.results.append(fill_row(dataclasses.replace(row)))
