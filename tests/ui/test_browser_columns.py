"""The browser's column rules (tui.ui.screens.browser_columns), without an app: which columns fit, in which
order, how wide; and the cells of stale, live and marked rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.catalog.session_row import RowKind, SessionRow
from tui.ui.screens.browser_columns import OUTSIDE, WIDE_AT, layout, row_cells

NOW = 1_800_000_000.0


def keys(columns) -> list[str]:
    return [c.key for c in columns]


def used(columns) -> int:
    return sum(c.width + 2 for c in columns) + OUTSIDE - 2


@pytest.mark.parametrize("width", [60, 80, 100, 120, 139, 140, 160, 200, 240, 320])
@pytest.mark.parametrize("live", [False, True])
def test_columns_fill_the_width_and_never_overflow(width, live):
    columns = layout(width, live=live)
    assert used(columns) == width or width < 70  # Title takes exactly what the others leave
    assert keys(columns)[-1] == "id" and "title" in keys(columns)
    assert {"status", "duration", "cost", "age"} <= set(keys(columns))


def test_narrow_keeps_status_duration_and_cost_ahead_of_title():
    columns = layout(80)
    assert keys(columns)[:5] == ["status", "duration", "cost", "age", "title"]
    title = next(c for c in columns if c.key == "title")
    identifier = columns[-1]
    assert title.width >= 16 and identifier.width == 13  # "v3 " and the first 8 characters of the id, at least
    assert keys(layout(120))[:5] == ["status", "duration", "cost", "age", "title"]
    assert "tokens" in keys(layout(100)) and "started" in keys(layout(120))


def test_wide_keeps_the_reading_order_and_shows_the_model():
    assert keys(layout(WIDE_AT))[:3] == ["started", "agent", "title"]
    assert keys(layout(160)) == ["started", "agent", "title", "status", "duration", "tokens", "cost", "model",
                                 "age", "id"]
    wide = keys(layout(240, live=True))
    assert wide == ["started", "agent", "title", "status", "duration", "turns", "tokens", "cost", "model", "age",
                    "events", "id"]
    assert "events" not in keys(layout(240))  # only when live rows exist
    assert "events" in keys(layout(160, live=True)) and "model" not in keys(layout(160, live=True))
    assert layout(320)[-1].width == 36  # the whole id once there is room


def test_the_sorted_column_carries_an_arrow_and_room_for_it():
    columns = {c.key: c for c in layout(80, sort="duration", desc=True)}
    assert columns["duration"].label == "Duration ▼" and columns["duration"].width >= len("Duration ▼")
    assert {c.key: c.label for c in layout(160, sort="cost", desc=False)}["cost"] == "Cost ▲"
    assert all("▲" not in c.label and "▼" not in c.label for c in layout(80, sort="started"))  # not shown


def plain(row, columns, **kw) -> dict[str, str]:
    return {c.key: cell.plain for c, cell in zip(columns, row_cells(row, columns, NOW, **kw))}


def test_cells_of_a_stale_row_and_its_age():
    columns = layout(160)
    row = SessionRow("k", Path("k"), RowKind.SNAPSHOT, "0123456789abcdef", NOW - 3 * 3600, 1, loaded=True,
                     status="running", started_at=1000, duration_ms=42_000, cost=0.1099, tokens=10)
    cells = plain(row, columns, stale_after_s=600)
    assert cells["status"] == "○ stale" and cells["age"] == "3h" and cells["duration"] == "42.0s+"
    assert plain(row, columns, stale_after_s=0)["status"] == "● running"
    row.status, row.duration_ms = "ok", 5000
    assert plain(row, columns)["duration"] == "5.0s "  # aligned with the "+" of unfinished ones


def test_live_row_events_column_and_marked_row():
    columns = layout(240, live=True)
    row = SessionRow("live:r", Path("live:r"), RowKind.LIVE, "r", NOW, 0, loaded=True, status="running",
                     title="Find the flaky test", events=1234, gaps=3)
    cells = plain(row, columns)
    assert cells["title"] == "Find the flaky test" and cells["events"] == "1,234 gaps:3"
    assert cells["id"] == "live r"
    marked = dict(zip(keys(columns), row_cells(row, columns, NOW, marked=True)))
    assert marked["title"].plain == "✓ Find the flaky test"
    title = marked["title"]
    assert any(span.start == 0 and "magenta" in str(span.style) for span in title.spans)  # the glyph
    assert any(span.end == len(title) and "bold" in str(span.style) for span in title.spans)  # the whole row
    assert not any("magenta" in str(span.style) for span in row_cells(row, columns, NOW)[2].spans)
