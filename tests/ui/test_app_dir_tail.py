"""The browser follows the sessions directory: new files appear, temp files are ignored, deleted ones go."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import wait_for
from tui.demo import make_tree, write_snapshot
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


async def test_new_rewritten_and_deleted_files(tmp_path):
    sessions = tmp_path / "sessions"
    first = write_snapshot(sessions, make_tree(31, ops=20, depth=1), version=1)
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=(160, 48)) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: len(browser.model.rows) == 1)
        await asyncio.sleep(0.3)  # the watcher is up
        (sessions / "abc.json.gz.tmp-1-2").write_bytes(b"partial")
        finished = make_tree(32, ops=20, depth=1)
        from tui.formats.aiagent.timeline import event_times, tree_at

        second = write_snapshot(sessions, tree_at(finished, event_times(finished)[5]), version=2)
        assert await wait_for(pilot, lambda: str(second) in browser.model.rows and browser.model.rows[str(second)].loaded)
        assert len(browser.model.rows) == 2 and browser.model.rows[str(second)].status == "running"
        write_snapshot(sessions, finished, version=2)  # the same session rewritten (temp file + rename), finished
        assert await wait_for(pilot, lambda: browser.model.rows[str(second)].status == "ok")
        first.unlink()
        assert await wait_for(pilot, lambda: str(first) not in browser.model.rows)
        assert len(browser.model.rows) == 1


async def test_the_watcher_rows_reach_the_browser_as_a_message_made_off_the_ui_thread(tmp_path):
    """The app makes a watcher batch's rows in another thread (tui.catalog.watched_rows) and routes them to the
    browser as SessionFilesChanged: a new file's row and a deleted file's path each arrive in one."""
    from tui.ui.messages import SessionFilesChanged

    sessions = tmp_path / "sessions"
    first = write_snapshot(sessions, make_tree(41, ops=5, depth=1), version=1)
    seen: list[SessionFilesChanged] = []

    def hook(message) -> None:
        if isinstance(message, SessionFilesChanged):
            seen.append(message)

    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        browser = app.screen
        assert await wait_for(pilot, lambda: len(browser.model.rows) == 1)
        await asyncio.sleep(0.3)  # the watcher is up
        second = write_snapshot(sessions, make_tree(42, ops=5, depth=1), version=1)
        assert await wait_for(pilot, lambda: any(str(second) in {r.key for r in m.rows} for m in seen))
        assert await wait_for(pilot, lambda: str(second) in browser.model.rows)
        first.unlink()
        assert await wait_for(pilot, lambda: any(first in m.removed for m in seen))
        assert await wait_for(pilot, lambda: str(first) not in browser.model.rows)
    assert all(m.rows or m.removed or m.complete for m in seen)  # (an empty batch is not posted)
