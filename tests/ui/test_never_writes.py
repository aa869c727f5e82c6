"""The monitor never writes into the sessions directory: browsing, opening, payloads, saving and copying leave
its listing and mtimes as they were, and a read-only directory works the same."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from helpers.corpusfix import other_user
from helpers.apphelpers import Notices
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


async def use_everything(pilot, app: MonitorApp) -> None:
    """Open every session of the browser; in each, open payloads, save one (w), copy (y), search, filter."""
    browser = app.screen
    assert isinstance(browser, BrowserScreen)
    await settle(pilot, browser, timeout=60)
    await pilot.press("r")  # rescan
    await settle(pilot, browser, timeout=60)
    table = browser.table
    for index in range(table.row_count):
        table.move_cursor(row=index)
        await pilot.press("enter")
        await pilot.pause(0.1)
        screen = app.screen
        if not isinstance(screen, SessionScreen):
            continue
        llm = next((op for op in walk_ops(screen.session) if op.kind == "llm"), None)
        if llm is not None:
            screen.tree.reveal(llm)
            await pilot.press("p")
            await settled(pilot)
            await pilot.press("w", "y", "x", "escape")
        await pilot.press("y", "e", "slash", "a", "enter", "f", "q")  # q closes the view (escape clears the search first)
        await pilot.pause(0.1)
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
                await use_everything(pilot, app)
                problems = told.messages("error", shown=True)
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
