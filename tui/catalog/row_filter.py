"""The browser's filter box: words that must all appear in a row, and `field:value` terms for one column.

    web flight            rows whose id, agent, title, status, kind or models contain both words
    model:sonnet          rows that used a model whose name contains "sonnet" (any of its models, not only the
                          main one in the Model column)
    status:stale agent:research   one column each: status (as shown: running, stale, ok, failed, broken),
                          agent, id, title, kind
    project:calendar      rows whose project (where an agent's session worked: its folder, or an id) contains
                          "calendar" (the Stats screen's by-project table; ai-agent's files have none)
    day:2026-11-20        rows that started that local calendar day (the Stats screen's days)
    since:7d until:2026-11-20     rows that started in a time range: a span back from the filter's time (90m,
                          36h, 7d, 2w) or a local date (YYYY-MM-DD); `until` is exclusive

Matching is a pure function of the row and the filter, including the time the filter was made (`now_s`): a row
counted in the summary when it entered the filter is taken out the same way when it changes
(tui.catalog.rows_summary), even if it went stale in between.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

from tui.catalog.index.stats import day_bounds_ms, parse_when
from tui.catalog.liveness import RUNNING, shown_status
from tui.catalog.session_row import SessionRow, matches

FIELDS = ("model", "status", "agent", "id", "title", "kind", "project")
TIME_FIELDS = ("day", "since", "until")
PLACEHOLDER = "/ filter: text model: status: agent: kind: since:7d until: day: · Esc clears"  # (<= 76 cells)


@dataclass(frozen=True, slots=True)
class RowFilter:
    words: tuple[str, ...] = ()
    terms: tuple[tuple[str, str], ...] = ()  # (field, value), both lower-cased
    now_s: float = field(default_factory=time.time)
    stale_after_s: float | None = None  # None: the process-wide --stale-after
    also_live: frozenset[str] = frozenset()  # keys of file rows a live stream was folded into: `kind:live` too

    @classmethod
    def parse(cls, text: str, now_s: float | None = None, stale_after_s: float | None = None) -> "RowFilter":
        words: list[str] = []
        terms: list[tuple[str, str]] = []
        for part in text.lower().split():
            name, colon, value = part.partition(":")
            if colon and name in FIELDS and value:
                terms.append((name, value))
            elif colon and name in TIME_FIELDS and value and _bounds(name, value, 0.0) is not None:
                terms.append((name, value))
            elif part:
                words.append(part)  # "model:" alone, or "http://x": a plain word
        return cls(tuple(words), tuple(terms), time.time() if now_s is None else now_s, stale_after_s)

    def __bool__(self) -> bool:
        return bool(self.words or self.terms)

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(value for name, value in self.terms if name == "model")

    def status_of(self, row: SessionRow) -> str:
        if row.broken:
            return "broken"
        if row.status != RUNNING:  # (only a running row can show another status: 100k rows are filtered)
            return row.status
        return shown_status(row.status, row.mtime, self.now_s, self.stale_after_s)

    def matches(self, row: SessionRow) -> bool:
        if not (self.words or self.terms):
            return True
        status = self.status_of(row)
        for word in self.words:
            if not matches(row, word, status):
                return False
        for name, value in self.terms:
            if name == "model":
                ok = any(value in model.lower() for model in row.models)
            elif name == "status":
                ok = value in status.lower()
            elif name == "id":
                ok = value in row.session_id.lower()
            elif name == "kind":
                ok = value in str(row.kind).lower() or (value in "live" and row.key in self.also_live)
            elif name in TIME_FIELDS:
                lo, hi = _bounds(name, value, self.now_s) or (0, 0)
                ok = lo <= row.started_or_mtime_ms < hi
            else:
                ok = value in str(getattr(row, name)).lower()
            if not ok:
                return False
        return True


@lru_cache(maxsize=64)
def _bounds(name: str, value: str, now_s: float) -> tuple[float, float] | None:
    """[lo, hi) in ms of a time term (None when `value` is not a time): one parse per filter, not per row."""
    try:
        if name == "day":
            return day_bounds_ms(value)
        when = parse_when(value, now_s)
    except (ValueError, OverflowError):
        return None
    return (when, float("inf")) if name == "since" else (float("-inf"), when)
