"""The browser on the sessions index (tui.catalog.index.browser_index): a warm start fills every row from the index
without reading a file, sorted by cost at once; a cold fill shows its progress in the header while rows fill."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Static

import tui.catalog.index.browser_index as browser_index
from helpers.browserhelpers import SIZE, ids, settle
from helpers.scanfixtures import GOOD_A, GOOD_B, RUNNING, T0, make_sessions_dir, session_node, write_snapshot
from tui.catalog.index.store import index_path
from tui.catalog.index.sync import update_index
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from helpers.waiting import wait_for


def header(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-header", Static).render())


@pytest.fixture
def sessions(tmp_path) -> Path:
    return make_sessions_dir(tmp_path / "sessions")


async def test_a_warm_start_fills_every_row_from_the_index_without_reading(sessions, monkeypatch):
    index, notice, done = update_index(sessions, pool=False)
    assert index is not None and notice == "" and done.read > 3
    reads: list[str] = []
    monkeypatch.setattr(browser_index, "index_file", lambda path, kind: reads.append(path))
    monkeypatch.setattr(browser_index, "fill_row", lambda row, *a: reads.append(row.key))
    monkeypatch.setattr(browser_index, "IndexPool", None)  # a pool would fail: nothing may be read
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        screen.set_sort("cost", desc=True)
        await pilot.pause()
        assert reads == []
        files = [row for row in screen.model.rows.values() if row.size]
        assert files and all(row.loaded for row in files)
        assert ids(screen)[:3] == [RUNNING, GOOD_A, GOOD_B]  # $2, $0.5, $0.001
        assert "loading" not in header(screen) and "indexing" not in header(screen)
        screen.action_rescan()  # a rescan keeps what the index knows (it forgets only files that are gone)
        await settle(pilot, screen)
        assert reads == []
    again, _, done = update_index(sessions, pool=False)
    assert done.read == 0 and done.removed == 0


async def test_a_cold_fill_shows_its_progress_in_the_header(sessions, monkeypatch):
    monkeypatch.setattr(browser_index, "POOL_MIN", 20)  # the pool for 60 files (the real floor is 200)
    # The real pool, paced: its first chunk waits until the header was seen (up to 20 s), so that a fill quicker
    # than the header's refresh cannot go unseen (on a busy machine one did: ~1 run in 10).
    header_seen = threading.Event()

    class PacedPool(browser_index.IndexPool):
        def submit(self, chunk):
            header_seen.wait(20)
            return super().submit(chunk)

    monkeypatch.setattr(browser_index, "IndexPool", PacedPool)
    source = sessions / f"{GOOD_A}.json.gz"
    for i in range(60):
        trace = f"{i:08x}-1111-4000-8000-{i:012x}"
        write_snapshot(sessions, trace, session_node(trace, "many", f"copy {i}", started=T0 - i * 1000,
                                                     duration=500, cost=0.01 * i), T0 / 1000 - 1000 - i)
    seen: list[str] = []
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)

        def progress_shown() -> bool:
            text = header(screen)
            if "indexing ▕" in text:
                seen.append(text)
                header_seen.set()
            return bool(seen)

        assert await wait_for(pilot, progress_shown, timeout=30, step=0.02)
        assert " / " in seen[0] and "sessions" in seen[0]
        await settle(pilot, screen, timeout=60)
        assert all(row.loaded for row in screen.model.rows.values())
        assert "indexing" not in header(screen)
        screen.set_sort("cost", desc=True)
        await pilot.pause()
        assert ids(screen)[0] == RUNNING and ids(screen)[1] == "0000003b-1111-4000-8000-00000000003b"
    assert source.exists() and index_path(sessions).exists()
    index, _, done = update_index(sessions, pool=False)
    assert done.read == 0 and done.filled >= 63  # everything the pool read went to the index


async def test_the_index_newest_rows_show_while_the_directory_is_listed(sessions, monkeypatch):
    """First rows: the index's newest sessions (each checked with one stat: a deleted file is not shown) are on
    screen before the listing ends, the header saying they come from the index; then the listing takes over."""

    update_index(sessions, pool=False)
    (sessions / f"{GOOD_B}.json.gz").unlink()  # indexed, then deleted
    release = threading.Event()
    real = browser_index.warm_scan

    def slow_listing(*args, **kwargs):
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(browser_index, "warm_scan", slow_listing)
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        assert await wait_for(pilot, lambda: "indexed · listing…" in header(screen), timeout=30)
        assert ids(screen)[:2] == [GOOD_A, RUNNING]  # newest first, GOOD_B gone (its file is)
        assert all(row.loaded for row in screen.model.rows.values())
        release.set()
        await settle(pilot, screen)
        assert "listing" not in header(screen) and "indexed" not in header(screen)
        assert GOOD_B not in ids(screen) and GOOD_A in ids(screen)


def test_the_first_page_counts_sessions_not_sub_agent_ledgers(sessions):
    """The header's "N sessions indexed" counts what the browser lists: sub-agent ledgers (kind 'child') are rows
    of the index (their sessions' search text) but not of the browser (counted through schema.COUNT_SESSIONS)."""
    index, _, done = update_index(sessions, pool=False)
    listed = index.count()
    child = dict(next(iter(dict(r) for r in index.records())), path=str(sessions / "session" / "sub.jsonl"),
                 kind="child")
    index.write([child])
    assert index.count() == listed + 1
    rows, total = browser_index.BrowserIndex(sessions).first_page(500)
    assert total == listed and all(row.kind != "child" for row in rows)


async def test_the_browser_keeps_the_warm_image_current(sessions, monkeypatch):
    """Once the fill has read every file, the index's warm image is written (the next start loads it instead of
    every stored row); a rescan that drops a deleted file's row (nothing left to read) writes it again (here at
    once: the real floor between two rewrites of one process is REWRITE_EVERY_S)."""
    from tui.catalog.index import image
    from tui.catalog.index.store import image_path, open_index

    monkeypatch.setattr(image, "REWRITE_EVERY_S", 0.0)

    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        index, _ = open_index(sessions)
        assert index is not None
        assert await wait_for(pilot, lambda: image.is_current(index), timeout=30)
        written = image_path(index.path).stat().st_mtime_ns
        (sessions / f"{RUNNING}.json.gz").unlink()
        screen.action_rescan()
        await settle(pilot, screen)
        assert await wait_for(pilot, lambda: image.is_current(index), timeout=30)
        assert image_path(index.path).stat().st_mtime_ns != written
        assert RUNNING not in ids(screen)
