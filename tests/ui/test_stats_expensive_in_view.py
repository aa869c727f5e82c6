"""issue 30, point 6: the most expensive sessions are on screen as Stats opens, at 160x48 and 80x24, without
pressing Tab five times (they were the sixth table down)."""

from __future__ import annotations

import time

import pytest

from helpers.indexdb import index_for, insert
from helpers.indexdb import session as row
from tui.ui.app import MonitorApp
from tui.ui.screens.stats import StatsScreen, StatsTable
from helpers.waiting import wait_for

DAY_MS = 86_400_000


def ten_days_of_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = tmp_path / "sessions"
    directory.mkdir()
    now = int(time.time() * 1000)
    conn = index_for(directory)
    insert(conn, [row(n, path=str(directory / f"s{n}.json.gz"), session_id=f"s{n}", agent=f"agent-{n % 4}",
                      started_ms=now - (n % 6) * DAY_MS - 3_600_000, title=f"task {n}", cost_usd=n * 0.37,
                      duration_ms=1000 * n) for n in range(1, 31)])
    conn.close()
    return directory


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_the_most_expensive_sessions_are_on_screen_as_stats_opens(tmp_path, monkeypatch, size):
    directory = ten_days_of_sessions(tmp_path, monkeypatch)
    app = MonitorApp(sessions_dir=None, watch=False)
    screen = StatsScreen(directory)
    async with app.run_test(size=size) as pilot:
        app.push_screen(screen)
        assert await wait_for(pilot, lambda: screen.stats is not None)
        await pilot.pause()
        table = screen.query_one("#stats-top-expensive", StatsTable)
        title = screen.query_one("#title-stats-top-expensive")
        shown = screen.query_one("#stats-body").region
        assert table.row_count >= 3
        # its title and its first three rows (header included) are inside the visible part of the body
        assert shown.contains_region(title.region), (title.region, shown)
        assert table.region.y + 4 <= shown.bottom, (table.region, shown)
        first = table.get_row_at(0)
        assert "$11.1000" in " ".join(str(cell) for cell in first)  # the costliest (30 x 0.37) on top
        assert screen.focused is table  # and it has the keys
