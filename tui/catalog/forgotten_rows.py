"""The browser's bound on live rows whose source is gone: what keeps its memory bounded under endless OTLP traffic.

The OTLP sink caps what it holds and evicts whole traces oldest first; the hub then forgets their sessions, and the
live controller says so (tui.ui.messages.LiveRootsForgotten). The browser keeps the rows of such sessions, with
what was last known of them, but at most `MAX_GONE_LIVE_ROWS` of them: the newest by their last update. Past
that, the oldest are dropped (`excess`) when the browser next re-sorts (it re-sorts at most once a second while
live rows arrive, and a row is never dropped between two re-sorts, so the sorted view never names a dropped row).

Only rows the hub forgot are counted: sessions of event streams (ws/unix), which the hub never forgets, and rows
of files are never dropped; a forgotten session that comes back (`returned`) is taken off the list.

A live row costs about 1.7 KB of RSS in the browser (1.3 KB traced by tracemalloc: the row, its key, its Path
and the path's parts, the browser's dict, set and view entries), measured by upserting 20,000 and 40,000 rows made
by live_session_row from hub builds of the OTLP benchmark's sessions into a headless browser: the rows of forgotten
sessions take some 35 MB at most, against ~160 MB for the sink's own cap (100,000 spans).
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Iterable, Mapping

from tui.catalog.session_row import RowKind, SessionRow

MAX_GONE_LIVE_ROWS = 20_000  # rows kept of live sessions the hub forgot (~1.7 KB of RSS each: ~35 MB)


class ForgottenLiveRows:
    """The keys of the browser's live rows whose session the hub forgot, with their last update (the row's mtime,
    the wall time of its last event): which to drop once there are more than `cap`."""

    def __init__(self, cap: int = MAX_GONE_LIVE_ROWS) -> None:
        self.cap = max(0, cap)
        self.dropped = 0  # rows dropped so far (the header says so)
        self._updated: dict[str, float] = {}  # row key -> last update
        self._merged: set[str] = set()  # row keys of roots now shown under another root: dropped whatever the cap

    def __len__(self) -> int:
        return len(self._updated)

    def __contains__(self, key: object) -> bool:
        return key in self._updated

    def forgotten(self, keys: Iterable[str], rows: Mapping[str, SessionRow]) -> bool:
        """The sessions of these row keys are gone from the hub; keys without a live row are ignored. Whether
        there are now more than the cap."""
        for key in keys:
            row = rows.get(key)
            if row is not None and row.kind == RowKind.LIVE:
                mtime = row.mtime
                self._updated[key] = mtime if isinstance(mtime, (int, float)) else 0.0
        return len(self._updated) > self.cap

    def merged(self, keys: Iterable[str], rows: Mapping[str, SessionRow]) -> None:
        """These live rows' roots are now part of another root (the hub's `merged`): drop them at the next
        re-sort, not counted as dropped (nothing of them is lost: their sessions show under the other row)."""
        for key in keys:
            row = rows.get(key)
            if row is not None and row.kind == RowKind.LIVE:
                self._merged.add(key)
                self._updated.pop(key, None)

    def returned(self, key: str) -> None:
        """The session of `key` is live again (or its row went): no longer a candidate for dropping."""
        self._updated.pop(key, None)
        self._merged.discard(key)

    def excess(self) -> list[str]:
        """The keys to drop now: rows of merged roots, and the oldest by last update beyond the cap (taken off
        the list)."""
        merged, self._merged = list(self._merged), set()
        over = len(self._updated) - self.cap
        if over <= 0:
            return merged
        oldest = [key for key, _ in heapq.nsmallest(over, self._updated.items(), key=operator.itemgetter(1))]
        for key in oldest:
            del self._updated[key]
        self.dropped += len(oldest)
        return merged + oldest
