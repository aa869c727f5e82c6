"""How often the browser may re-sort: a re-sort of 100k rows costs ~0.1-0.5 s of the UI thread, so it never takes
more than a tenth of the time, and live rows that keep arriving re-sort at most once every LIVE_RESORT_S."""

from __future__ import annotations

import time

LIVE_RESORT_S = 1.0  # live rows that keep arriving re-sort the list at most this often (live_due)
VIEW_REFRESH_S = 1.0  # at most this often, re-sort/re-filter because loaded rows changed what matches


class ResortPace:
    """The cost of the last re-sort (`cost`, seconds) and when it ended (`refreshed_at`, perf_counter)."""

    def __init__(self) -> None:
        self.cost = 0.0
        self.refreshed_at = 0.0

    def done(self, started: float) -> None:
        """A re-sort that began at `started` (perf_counter) just ended."""
        self.refreshed_at = time.perf_counter()
        self.cost = self.refreshed_at - started

    def live_due(self) -> bool:
        """Whether live rows that changed the order may re-sort the list now: a tenth of the time at most, and
        not more often than LIVE_RESORT_S. A re-sort clears the table, and the redraw that follows (every visible
        cell rendered again) costs two or three times the sort, unmeasured here: paced on the sort alone, 8,000
        OTLP sessions arriving re-sorted 2-3 times a second and the re-sorts and redraws took half the UI thread's
        time, which the receiving threads then waited for."""
        return time.perf_counter() - self.refreshed_at >= max(LIVE_RESORT_S, 10 * self.cost)

    def rows_due(self) -> bool:
        """Whether rows from a watcher that changed the order may re-sort now (a tenth of the time at most)."""
        return time.perf_counter() - self.refreshed_at >= 10 * self.cost

    def fill_due(self, since_refresh: float, loading: bool) -> bool:
        """Whether rows the fill read may re-sort now: once everything is loaded, or every VIEW_REFRESH_S at most
        (and a tenth of the time at most) while the fill goes on."""
        return since_refresh >= max(VIEW_REFRESH_S, 10 * self.cost) or not loading
