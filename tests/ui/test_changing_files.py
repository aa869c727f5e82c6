"""Files deleted or replaced while being read: a load either gets a whole document or a clear reason, never a
crash; the browser drops deleted rows and marks replaced-by-garbage ones; an open screen keeps the last good tree."""

from __future__ import annotations

import asyncio
import gzip
import os
import threading
import time

from helpers.corpus import session, snapshot_bytes, turn, op
from helpers.apphelpers import Notices, wait_for
from helpers.browserhelpers import settle
from tui.catalog.session_row import RowKind, fill_row, row_from_entry
from tui.formats.load import load
from tui.inputs.files import LoadError
from tui.ui.app import MonitorApp
from tui.ui.screens.session import SessionScreen

SIZE = (160, 48)
EXPECTED = ("empty file", "truncated gzip", "ends early", "no such file", "not gzip", "not JSON", "corrupt gzip")


def good_bytes(n_ops: int = 300) -> bytes:
    return gzip.compress(snapshot_bytes(session(turn(1, *(op("tool", f"t{i}") for i in range(n_ops))))))


def test_loads_racing_a_writer_get_a_document_or_a_reason(tmp_path):
    """A writer rewrites the file in place (truncate, then write in pieces), deletes it, replaces it by rename and
    by garbage, all the while loads run: each load returns a whole document or raises LoadError with a reason."""
    path = tmp_path / "s.json.gz"
    data = good_bytes()
    path.write_bytes(data)
    stop = threading.Event()

    def writer() -> None:
        spare = tmp_path / "spare.json.gz"
        while not stop.is_set():
            with open(path, "wb") as f:  # in place: readers see it empty, then growing
                for i in range(0, len(data), 997):
                    f.write(data[i:i + 997])
                    f.flush()
            os.unlink(path)
            spare.write_bytes(data)
            os.replace(spare, path)
            path.write_bytes(b"\x1f\x8b garbage")
            path.write_bytes(data)

    thread = threading.Thread(target=writer)
    thread.start()
    outcomes: dict[str, int] = {}
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                doc = load(str(path))
                assert doc.root.counts.ops == 300  # never half a tree
                outcomes["loaded"] = outcomes.get("loaded", 0) + 1
            except LoadError as exc:
                reason = next((r for r in EXPECTED if r in exc.reason), None)
                assert reason, exc.reason
                outcomes[reason] = outcomes.get(reason, 0) + 1
            row = fill_row(row_from_entry(path, 0.0, 1, RowKind.SNAPSHOT))
            assert row.status == "ok" or any(r in row.broken for r in EXPECTED), row.broken
    finally:
        stop.set()
        thread.join()
    assert outcomes.get("loaded") and len(outcomes) > 1, outcomes  # both happened: the race was real


async def test_browser_follows_deleted_and_replaced_files(tmp_path):
    keep, doomed, spoiled = (tmp_path / f"{name}.json.gz" for name in ("keep", "doomed", "spoiled"))
    for path in (keep, doomed, spoiled):
        path.write_bytes(good_bytes(5))
    app = MonitorApp(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert {row.session_id for row in screen.model.rows.values()} == {"keep", "doomed", "spoiled"}
        await asyncio.sleep(0.3)  # the watcher is up
        doomed.unlink()
        spoiled.write_bytes(b"\x1f\x8b\x08\x00 half a gzip header")
        assert await wait_for(pilot, lambda: "doomed" not in {r.session_id for r in screen.model.rows.values()})
        assert await wait_for(pilot, lambda: "truncated gzip" in _row(screen, "spoiled").broken
                              or "corrupt gzip" in _row(screen, "spoiled").broken)
        assert not _row(screen, "keep").broken
        spoiled.write_bytes(good_bytes(7))  # fixed again: the row recovers
        assert await wait_for(pilot, lambda: _row(screen, "spoiled").status == "ok"
                              and not _row(screen, "spoiled").broken)


def _row(screen, session_id: str):
    return next(row for row in screen.model.rows.values() if row.session_id == session_id)


async def test_open_session_keeps_its_tree_when_the_file_turns_to_garbage(tmp_path):
    path = tmp_path / "s.json.gz"
    path.write_bytes(good_bytes(5))
    app = MonitorApp(sessions_dir=tmp_path, document=load(str(path)))
    notes = Notices()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        before = screen.session
        await asyncio.sleep(0.3)
        path.write_bytes(b"not gzip, not JSON: the producer crashed mid-write?")
        assert await wait_for(pilot, lambda: any("changed but cannot be read now" in n for n in notes.messages()))
        assert app.screen is screen and screen.session is before and screen.session.counts.ops == 5
        path.write_bytes(good_bytes(9))  # the next good version replaces the tree
        assert await wait_for(pilot, lambda: screen.session.counts.ops == 9)
