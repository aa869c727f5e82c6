"""BrowserScreen under Pilot: listing, lazy filling, broken rows, filter, sort, open, window, watcher API."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

import tui.catalog.resort_pace as resort_pace
import tui.catalog.scan as directory_scan
from tui.catalog.browser_model import BrowserModel
from tui.catalog.session_row import row_from_entry
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
import tui.ui.screens.browser as browser

from helpers.apphelpers import wait_for
from helpers.browserhelpers import SIZE, cells, ids, settle
from helpers.scanfixtures import (
    CHILD_LEDGER, EMPTY, GOOD_A, GOOD_B, NOT_JSON, ROOT_LEDGER, RUNNING, T0, TRUNCATED, make_sessions_dir,
    orphaned_child_dir, session_node, write_snapshot,
)

ALL = [GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER, EMPTY, TRUNCATED, NOT_JSON]


def header(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-header", Static).render())


def note(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-note", Static).render())


@pytest.fixture
def sessions(tmp_path) -> Path:
    return make_sessions_dir(tmp_path / "sessions")


async def test_lists_rows_and_broken_entries(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert ids(screen) == ALL  # newest first; tmp file, notes.txt and the child ledger are not rows
        assert not any(".tmp-" in key for key in screen.model.rows)
        assert "7 sessions" in header(screen) and "loading" not in header(screen)
        empty = cells(screen, EMPTY)
        assert empty[3] == "BROKEN" and empty[2] == "empty file (0 bytes)"
        assert "truncated gzip" in cells(screen, TRUNCATED)[2]
        assert cells(screen, NOT_JSON)[2].startswith("not JSON")
        good = cells(screen, GOOD_A)
        assert good[1:5] == ["web-research", "Cheapest flight to Athens", "ok", "1m35s "]  # (aligned with "+")
        assert good[5:8] == ["1", "1500", "$0.5000!"]  # Turns: user turns (turn 0 is init); stored totals disagree: "!"
        # no end, and its file has not changed since 2026-01-01: stale, not running (tui.catalog.liveness)
        assert cells(screen, RUNNING)[3] == "○ stale" and cells(screen, RUNNING)[6] == "42.0k"
        assert cells(screen, GOOD_B)[3] == "failed"
        assert "\x1b" not in cells(screen, GOOD_B)[2]
        assert cells(screen, ROOT_LEDGER)[1] == "ledger-root"


async def test_child_ledger_found_late_is_dropped(sessions, monkeypatch):
    monkeypatch.setattr(directory_scan, "PEEK_LEDGERS_MAX", 0)  # as in a directory with many ledgers
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert CHILD_LEDGER not in ids(screen) and ids(screen) == ALL
        assert "7 sessions" in header(screen)


async def test_a_child_ledger_without_parent_session_id_is_not_a_session_row(tmp_path):
    d = orphaned_child_dir(tmp_path / "sessions")
    app = MonitorApp(sessions_dir=d)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert ids(screen) == ["rrrr-0001"] and "1 session" in header(screen)
        assert cells(screen, "rrrr-0001")[6] == "10"  # the root's tokens include the child's
        child = d / "session" / "kkkk-0002.jsonl"  # rewritten, as a watcher would report it
        screen.upsert_rows([row_from_entry(child, child.stat().st_mtime, child.stat().st_size, "ledger")])
        await settle(pilot, screen)
        assert ids(screen) == ["rrrr-0001"]


async def test_filter_narrows_and_escape_clears(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        await pilot.press("slash")
        assert screen.focused is screen.query_one("#browser-filter")
        await pilot.press(*"bigq")
        await pilot.pause(0.3)
        assert ids(screen) == [GOOD_B]
        assert str(screen.query_one("#browser-summary", Static).render()).startswith("shown: 1 session ·")
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert ids(screen) == ALL and screen.focused is screen.query_one(DataTable)
        await pilot.press("ctrl+f", *"broken")
        await pilot.pause(0.3)
        assert ids(screen) == [EMPTY, TRUNCATED, NOT_JSON]
        await pilot.press("enter")  # leaves the filter on and goes back to the table
        assert screen.focused is screen.query_one(DataTable) and len(ids(screen)) == 3
        screen.query_one("#browser-filter").value = "zzz-nothing"
        await pilot.pause(0.3)
        assert ids(screen) == [] and "no session matches" in note(screen)


async def test_sort_keys_and_header_click(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        await pilot.press("s")  # agent, ascending; broken rows (no agent) last
        assert ids(screen)[:4] == [GOOD_B, RUNNING, ROOT_LEDGER, GOOD_A]
        await pilot.press("S")
        assert ids(screen)[:4] == [GOOD_A, ROOT_LEDGER, RUNNING, GOOD_B]
        await pilot.press("s", "s", "s", "s")  # status, duration, tokens, cost (descending)
        assert screen.model.sort == "cost" and ids(screen)[:4] == [RUNNING, GOOD_A, GOOD_B, ROOT_LEDGER]
        await pilot.press("s")  # back to started, newest first
        assert ids(screen) == ALL
        await pilot.click("#browser-table", offset=(23, 0))  # the Agent header
        await pilot.pause()
        assert screen.model.sort == "agent" and ids(screen)[0] == GOOD_B


async def test_enter_opens_and_broken_rows_notify(sessions, monkeypatch):
    app = MonitorApp(sessions_dir=sessions)
    opened: list[str] = []
    monkeypatch.setattr(app, "open_path", lambda path, op_path=None: opened.append(path))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        notes: list[str] = []
        monkeypatch.setattr(screen, "notify", lambda message, **kw: notes.append(message))
        await pilot.press("down", "enter")  # GOOD_B
        assert opened == [str(sessions.resolve() / f"{GOOD_B}.json.gz")]
        table = screen.query_one(DataTable)
        table.move_cursor(row=ALL.index(EMPTY))
        await pilot.press("enter")
        assert len(opened) == 1 and notes and "empty file (0 bytes)" in notes[0]


async def test_windowed_table_grows_at_the_end(sessions, monkeypatch):
    monkeypatch.setattr(browser, "PAGE", 3)
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert ids(screen) == ALL[:3] and "showing 3 of 7" in note(screen)
        await pilot.press("down", "down")
        await pilot.pause()
        assert ids(screen) == ALL[:6]
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert ids(screen) == ALL and not screen.query_one("#browser-note").display


async def test_upsert_and_remove_keep_the_cursor(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        table = screen.query_one(DataTable)
        table.move_cursor(row=2)  # RUNNING
        new_id = "12345678-0000-4000-8000-00000000000a"
        path = write_snapshot(sessions, new_id, session_node(new_id, "fresh", "New one", started=T0, duration=10),
                              T0 / 1000 + 50)
        st = path.stat()
        screen.upsert_rows([row_from_entry(path, st.st_mtime, st.st_size, "snapshot")])
        # (re-sorted at once, or at the next tick when the rows were re-sorted a moment ago: BrowserScreen.pace)
        assert await wait_for(pilot, lambda: ids(screen)[0] == new_id)
        assert ids(screen)[table.cursor_row] == RUNNING
        await settle(pilot, screen)
        assert cells(screen, new_id)[1:3] == ["fresh", "New one"] and "8 sessions" in header(screen)
        screen.remove_paths([str(sessions / f"{GOOD_A}.json.gz"), path])
        await pilot.pause()
        assert GOOD_A not in ids(screen) and ids(screen)[table.cursor_row] == RUNNING
        assert "6 sessions" in header(screen)
        child = sessions / "session" / f"{CHILD_LEDGER}.jsonl"  # as a watcher would report it
        screen.upsert_rows([row_from_entry(child, child.stat().st_mtime, child.stat().st_size, "ledger")])
        assert CHILD_LEDGER not in ids(screen) and "6 sessions" in header(screen)


async def test_rescan_picks_up_new_files(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        (sessions / f"{GOOD_B}.json.gz").unlink()
        await pilot.press("r")
        await settle(pilot, screen)
        assert GOOD_B not in ids(screen) and len(ids(screen)) == 6


async def test_missing_directory_says_so(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path / "nowhere")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert ids(screen) == [] and "0 sessions" in header(screen)
        assert "directory not found" in note(screen)


async def test_no_directory(tmp_path):
    app = MonitorApp(sessions_dir=None)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.pause()
        assert "no sessions directory" in header(screen) and "no sessions directory" in note(screen)


async def test_untrusted_text_is_never_markup(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        row = row_from_entry(sessions / "evil.json.gz", T0 / 1000 + 99, 10, "snapshot")
        row.loaded, row.status, row.agent, row.title = True, "ok", "[bold]agent[/bold]", "[link=x]t[/link]\x07"
        screen.upsert_rows([row])
        await pilot.pause()
        assert cells(screen, "evil")[1:3] == ["[bold]agent[/bold]", "[link=x]t[/link]\\x07"]


def test_visible_rows_load_first():
    screen = BrowserScreen(None)
    screen.model.fill_queue.pending = {"a", "b", "c", "d"}
    screen.model.fill_queue.queue.extend(["a", "b", "c", "d"])
    screen.model.fill_queue.priority.extend(["c", "x"])
    assert [screen.model.fill_queue.next_pending() for _ in range(5)] == ["c", "a", "b", "d", None]


async def test_a_fresh_listing_is_shown_newest_first_before_anything_loads(tmp_path, monkeypatch):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(30):
        sid = f"s{i:02d}"
        node = session_node(sid, "agent", "title", started=T0, duration=10)
        write_snapshot(folder, sid, node, T0 / 1000 + (i * 7919) % 30)  # mtimes in a shuffled order
    monkeypatch.setattr(BrowserModel, "fill", lambda self, cancelled: None)  # nothing gets loaded
    app = MonitorApp(sessions_dir=folder)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        while not screen.model.scanned:
            await pilot.pause(0.02)
        assert len(screen.model.pending) == 30
        assert screen.model.view == screen.model.compute_view()  # what a full sort gives
        mtimes = [screen.model.rows[key].mtime for key in screen.model.view]
        assert mtimes == sorted(mtimes, reverse=True)


async def test_a_cursor_never_moved_stays_on_the_top_row_when_the_filled_rows_are_sorted(tmp_path):
    """The listing shows rows by mtime; once filled they are sorted by start. A cursor nobody moved stays on the
    first row (the newest session), instead of following whichever file happened to be listed first."""
    listed_first, started_last = "12345678-0000-4000-8000-0000000000b1", "12345678-0000-4000-8000-0000000000b2"
    write_snapshot(tmp_path, listed_first, session_node(listed_first, "a", "Older start", started=T0, duration=10),
                   T0 / 1000 + 500)  # written last: listed first
    write_snapshot(tmp_path, started_last, session_node(started_last, "b", "Newer start", started=T0 + 60_000,
                                                        duration=10), T0 / 1000 + 100)
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        table = screen.query_one(DataTable)
        assert ids(screen) == [started_last, listed_first] and table.cursor_row == 0
        table.move_cursor(row=1)  # once moved, the cursor follows its row through re-sorts
        await pilot.press("S")
        await pilot.pause()
        assert ids(screen)[table.cursor_row] == listed_first


async def test_live_rows_arriving_in_a_flood_re_sort_the_list_at_most_once_a_second(tmp_path, monkeypatch):
    """Each re-sort clears the table and redraws every visible cell: live rows that keep arriving wait for the
    next re-sort (LIVE_RESORT_S), also when no file is loading, and are sorted in once it is due."""
    from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow

    def live(n: int) -> SessionRow:
        return SessionRow(key=f"{LIVE_PREFIX}s{n}", path=Path(f"{LIVE_PREFIX}s{n}"), kind=RowKind.LIVE,
                          session_id=f"s{n}", mtime=1_700_000_000 + n, size=0, loaded=True,
                          started_at=1_700_000_000_000 + n * 1000, status="running", events=1, gaps=0)

    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        sorts = []
        original = screen.model.compute_view  # what each re-sort computes
        monkeypatch.setattr(screen.model, "compute_view", lambda *a, **k: (sorts.append(1), original(*a, **k))[1])
        # ten batches within the pace (LIVE_RESORT_S, made long here: the screen's ticks run between the batches on a
        # loaded machine too), each with a new session: one re-sort
        monkeypatch.setattr(resort_pace, "LIVE_RESORT_S", 60.0)
        for n in range(10):
            screen.upsert_rows([live(n)])
            await pilot.pause(browser.FLUSH_S / 4)  # the screen's ticks run
        assert len(sorts) <= 1 and screen.model.view_stale
        screen.pace.refreshed_at -= resort_pace.LIVE_RESORT_S  # the pace later
        assert await wait_for(pilot, lambda: not screen.model.view_stale)
        assert not screen.model.view_stale and [k for k in screen.table.shown if k.startswith(LIVE_PREFIX)][:3] == \
            [f"{LIVE_PREFIX}s9", f"{LIVE_PREFIX}s8", f"{LIVE_PREFIX}s7"]
        await pilot.pause()
