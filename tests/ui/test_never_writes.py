"""The monitor never writes into the sessions directory: browsing, opening, payloads, saving and copying leave
its listing and mtimes as they were, and a read-only directory works the same."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from helpers.corpusfix import other_user
from helpers.apphelpers import Notices, wait_for
from helpers.browserhelpers import settle
from helpers.payloadhelpers import settled
from tui.demo import populate
from tui.model.search import walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.session import SessionScreen

SIZE = (160, 48)


def listing(directory: Path) -> dict[str, tuple]:
    """Every entry below `directory` (the directory itself included) with its type, mode, size and mtime."""
    out = {}
    for folder, dirs, files in os.walk(directory):
        for name in [".", *dirs, *files]:
            path = Path(folder) / name
            st = path.lstat()
            out[str(path.relative_to(directory))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def make_read_only(directory: Path) -> None:
    for folder, dirs, files in os.walk(directory):
        for name in files:
            (Path(folder) / name).chmod(0o444)
        Path(folder).chmod(0o555)


def make_writable(directory: Path) -> None:
    for folder, dirs, files in os.walk(directory):
        Path(folder).chmod(0o755)


async def use_everything(pilot, app: MonitorApp, told: Notices, everything: bool = True) -> None:
    """Open every session of the browser; in each, open payloads, save one (w), copy (y); with `everything`, also
    the hex view (x), the errors filter (e), a search and follow mode (f)."""
    browser = app.screen
    assert isinstance(browser, BrowserScreen)
    await settle(pilot, browser, timeout=60)
    await pilot.press("r")  # rescan
    await settle(pilot, browser, timeout=60)
    table = browser.table
    opened = 0
    for index in range(table.row_count):
        table.move_cursor(row=index)
        said = len(told.posted)
        await pilot.press("enter")  # its session opens, or the browser says why it cannot (populate's empty file)
        assert await wait_for(pilot, lambda: app.screen is not browser and app.screen.is_mounted
                              or len(told.posted) > said, timeout=30)
        await pilot.pause()
        screen = app.screen
        if not isinstance(screen, SessionScreen):
            continue
        opened += 1
        llm = next((op for op in walk_ops(screen.session) if op.kind == "llm"), None)
        if llm is not None:
            screen.tree.reveal(llm)
            await pilot.press("p")
            await settled(pilot)
            await pilot.press("w", "y", *(("x",) if everything else ()), "escape")
        if everything:  # q closes the view (escape clears the search first)
            await pilot.press("y", "e", "slash", "a", "enter", "f", "q")
        else:
            await pilot.press("y", "q")
        assert await wait_for(pilot, lambda: app.screen is browser, timeout=30)
    assert opened == sum(not row.broken for row in browser.rows.values()), "a session of the browser did not open"
    await pilot.pause(0.5)  # the watcher would report anything written meanwhile


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
async def test_the_app_never_writes_into_the_sessions_directory(tmp_path, monkeypatch, read_only):
    sessions = tmp_path / "sessions"
    populate(sessions, count=4, seed=3)
    if read_only:
        make_read_only(sessions)
    before = listing(sessions)
    monkeypatch.chdir(sessions)  # `w` saves into the current directory: never when that is the sessions directory
    saved_before = set(Path(tempfile.gettempdir()).glob("*-response-*"))
    try:
        with other_user():  # as root, a read-only directory is only read-only without the override capabilities
            app = MonitorApp(sessions_dir=sessions)
            told = Notices()
            async with app.run_test(size=SIZE, message_hook=told) as pilot:
                # Read-only, the keys that read or save files (scan, rescan, open, payloads, w, y); those that only
                # work on what is already read (x, e, search, f) are used in the writable case, whose listing shows
                # that they write nothing (they cost ~0.6 s of CPU a session, each session ~1.3 s in all).
                await use_everything(pilot, app, told, everything=not read_only)
                # every error told, not only those still on screen at the end; the empty file's is expected
                problems = [m for m in told.messages("error") if not m.endswith(": empty file (0 bytes)")]
        after = listing(sessions)
    finally:
        if read_only:
            make_writable(sessions)
    assert after == before
    assert not problems, problems
    saved = set(Path(tempfile.gettempdir()).glob("*-response-*")) - saved_before
    assert saved, "w saved the payloads outside the sessions directory"
    for path in saved:
        path.unlink()
