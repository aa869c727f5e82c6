"""The browser's bound on the rows of live sessions the hub forgot (tui.catalog.forgotten_rows), through the
real OTLP receiver and sink: past the sink's caps whole traces are evicted, the hub forgets their sessions, the live
controller says so (LiveRootsForgotten) and the browser keeps the newest of those rows up to its bound, dropping the
oldest at its next re-sort. Before, it kept a row for every session ever received (memory grew with them)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from textual.widgets import Static

from helpers.apphelpers import SIZE, wait_for
from helpers.scanfixtures import T0, session_node, write_snapshot
from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen

EXPORT = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _bound(app: MonitorApp, url: str) -> str | None:
    text = app.stream_status.get(url, "")
    return text.split("://", 1)[1].split(" ", 1)[0] if text.startswith("listening on ") else None


def _live(browser: BrowserScreen) -> set[str]:
    return {r.session_id for r in browser.model.rows.values() if r.kind == RowKind.LIVE}


def _text(browser: BrowserScreen, widget: str) -> str:
    return str(browser.query_one(widget, Static).render())


async def test_rows_of_forgotten_sessions_are_kept_newest_first_up_to_the_bound(tmp_path):
    from helpers.otlpfixtures import ROOT_TXN, ai_agent_spans, encode

    def sid(n: int) -> str:
        return f"{ROOT_TXN}-{n}"

    # the session of trace 0 is also a file: its file row stays when its live row goes
    snapshot = write_snapshot(tmp_path, sid(0), session_node(sid(0), "web-research", "on file", started=T0,
                                                              duration=1000), T0 / 1000)
    url = "otlp://127.0.0.1:0"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[url], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, url))
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        browser.model.forgotten.cap = 3  # rows of forgotten sessions kept
        sink = app.live.worker.otlp_sink
        sink.max_spans = 14  # two traces of seven spans: the others are evicted, oldest first
        channel = grpc.insecure_channel(_bound(app, url))
        export = channel.unary_unary(EXPORT)

        async def send(n: int) -> None:  # one at a time, each in the hub and its row built before the next
            await asyncio.to_thread(export, encode(ai_agent_spans(suffix=f"-{n}")), timeout=10)
            assert await wait_for(pilot, lambda: not sink.pending and LIVE_PREFIX + sid(n) in browser.model.rows
                                  and LIVE_PREFIX + sid(n) not in browser.model.forgotten)
            await pilot.pause()  # (the row built shows its batch was taken: no wait for one more)

        for n in range(8):
            await send(n)
        assert sink.evicted == 6
        assert await wait_for(pilot, lambda: set(app.live.roots()) == {sid(6), sid(7)})
        # six forgotten (0-5): the three updated last are kept, the rest dropped at the next re-sort
        assert await wait_for(pilot, lambda: _live(browser) == {sid(n) for n in range(3, 8)})
        assert str(snapshot) in browser.model.rows  # the file row of session 0 stays
        assert not [k for k in browser.model.live_keys | set(browser.model.pending) if k not in browser.model.rows]
        assert await wait_for(pilot, lambda: browser.model.view_stale is False)
        assert set(browser.model.view) == set(browser.model.rows)
        assert _text(browser, "#browser-summary").startswith("6 sessions ")  # 5 live + the file, recounted
        assert "6 sessions" in _text(browser, "#browser-header")
        assert "3 evicted live rows dropped" in _text(browser, "#browser-header")

        # a forgotten session that comes back is live again, and off the list: trace 3's return evicts trace 6
        await send(3)
        assert LIVE_PREFIX + sid(3) not in browser.model.forgotten
        assert _live(browser) == {sid(n) for n in range(3, 8)}
        # a dropped one comes back too (its row reappears); trace 7 is evicted: four forgotten (4-7), 4 dropped
        await send(0)
        assert await wait_for(pilot, lambda: _live(browser) == {sid(0), sid(3), sid(5), sid(6), sid(7)})
        assert str(snapshot) in browser.model.rows
        # one row per session (row_merge): session 0's file and live rows are one
        assert await wait_for(pilot, lambda: _text(browser, "#browser-summary").startswith("5 sessions"))
        assert "4 evicted live rows dropped" in _text(browser, "#browser-header")
        # (forgotten and back within one batch: LiveHub.take_changes names it as changed only, tests/formats)
        channel.close()


async def test_removing_a_rows_path_forgets_it_as_a_live_row(tmp_path):
    """remove_paths (the watcher's deleted files; all keys that are not on disk when the directory comes back)
    drops a live row's key from the live keys too (before: it stayed, and the twin rule kept looking for it)."""
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        key = f"{LIVE_PREFIX}s1"
        browser.upsert_rows([SessionRow(key=key, path=Path(key), kind=RowKind.LIVE, session_id="s1", mtime=T0 / 1000,
                                        size=0, loaded=True, status="running", events=1, gaps=0)])
        assert key in browser.model.live_keys
        browser.remove_paths([key])
        await pilot.pause()
        assert key not in browser.model.rows and key not in browser.model.live_keys


def test_the_keeper_drops_the_oldest_by_last_update_and_never_a_returned_or_file_row():
    """ForgottenLiveRows on its own: rows that are not live (files) or not there are not taken; the oldest by last
    update go first, whatever order they were forgotten in; a returned one is no candidate; a bad mtime sorts
    oldest instead of failing."""
    from tui.catalog.forgotten_rows import ForgottenLiveRows

    def row(key: str, mtime, kind: str = RowKind.LIVE) -> SessionRow:
        return SessionRow(key=key, path=Path(key), kind=kind, session_id=key, mtime=mtime, size=0, loaded=True)

    rows = {r.key: r for r in (row("live:a", 30.0), row("live:b", 10.0), row("live:c", 20.0), row("live:d", 40.0),
                               row("live:e", "junk"), row("/f.json.gz", 1.0, RowKind.SNAPSHOT))}
    keeper = ForgottenLiveRows(cap=2)
    assert not keeper.forgotten(["live:a", "/f.json.gz", "live:missing"], rows) and len(keeper) == 1
    assert keeper.excess() == []
    assert keeper.forgotten(["live:d", "live:c", "live:b", "live:e"], rows)
    keeper.returned("live:c")
    assert sorted(keeper.excess()) == ["live:b", "live:e"] and keeper.dropped == 2
    assert len(keeper) == 2 and "live:a" in keeper and "live:d" in keeper and keeper.excess() == []


async def test_when_the_directory_comes_back_live_rows_stay_and_missing_files_go(tmp_path):
    """The watched directory came back (DirChanges.complete): rows of files no longer on disk go, live rows (no
    file: their key is LIVE_PREFIX + the session id) stay (before: every live row vanished until its next update)."""
    from tui.catalog.watched_rows import WatchedRows
    from tui.ui.messages import SessionFilesChanged

    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        live = f"{LIVE_PREFIX}s1"
        gone = str(tmp_path / "gone.json.gz")
        Path(gone).write_bytes(b"{}")  # there when listed, deleted while the directory was away
        await pilot.pause()
        browser.upsert_rows([
            SessionRow(key=live, path=Path(live), kind=RowKind.LIVE, session_id="s1", mtime=T0 / 1000, size=0,
                       loaded=True, status="running", events=1, gaps=0),
            SessionRow(key=gone, path=Path(gone), kind=RowKind.SNAPSHOT, session_id="gone", mtime=T0 / 1000,
                       size=10, loaded=True)])
        await pilot.pause()
        assert live in browser.model.rows and gone in browser.model.rows
        Path(gone).unlink()
        browser.post_message(SessionFilesChanged(WatchedRows(complete=True)))  # as the watcher's batch says it
        await pilot.pause()
        assert live in browser.model.rows and live in browser.model.live_keys
        assert gone not in browser.model.rows
