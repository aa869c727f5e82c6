"""The browser filter's time terms (tui.catalog.row_filter): day:, since:, until: (what the Stats screen opens)."""

from __future__ import annotations

import time
from pathlib import Path

from tui.catalog.row_filter import RowFilter
from tui.catalog.session_row import SessionRow

NOW = 1_800_000_000.0
HOUR_MS = 3_600_000


def row(started_ms: int | None, mtime: float = NOW) -> SessionRow:
    return SessionRow("k", Path("k"), "snapshot", "k", mtime, 10, loaded=True, started_at=started_ms, status="ok")


def _local(day: str, hh: int) -> int:
    return int(time.mktime(time.strptime(f"{day} {hh:02d}:00", "%Y-%m-%d %H:%M")) * 1000)


def test_day_is_one_local_calendar_day():
    f = RowFilter.parse("day:2026-11-20", now_s=NOW)
    assert f.terms == (("day", "2026-11-20"),)
    assert f.matches(row(_local("2026-11-20", 0))) and f.matches(row(_local("2026-11-20", 23)))
    assert not f.matches(row(_local("2026-11-21", 0))) and not f.matches(row(_local("2026-11-19", 23)))


def test_since_and_until():
    now_ms = int(NOW * 1000)
    f = RowFilter.parse("since:2h", now_s=NOW)
    assert f.matches(row(now_ms - HOUR_MS)) and not f.matches(row(now_ms - 3 * HOUR_MS))
    g = RowFilter.parse("since:2026-11-19 until:2026-11-20", now_s=NOW)
    assert g.matches(row(_local("2026-11-19", 12))) and not g.matches(row(_local("2026-11-20", 0)))
    assert RowFilter.parse("since:2h", now_s=NOW).matches(row(None, mtime=NOW - 60))  # unloaded: its mtime


def test_a_term_that_is_not_a_time_is_a_word():
    f = RowFilter.parse("day:monday since:soon until:9e999d", now_s=NOW)
    assert not f.terms and f.words == ("day:monday", "since:soon", "until:9e999d")
