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
        assert await wait_for(pilot, lambda: len(browser.rows) == 1)
        await asyncio.sleep(0.3)  # the watcher is up
        (sessions / "abc.json.gz.tmp-1-2").write_bytes(b"partial")
        finished = make_tree(32, ops=20, depth=1)
        from tui.formats.aiagent.timeline import event_times, tree_at

        second = write_snapshot(sessions, tree_at(finished, event_times(finished)[5]), version=2)
        assert await wait_for(pilot, lambda: str(second) in browser.rows and browser.rows[str(second)].loaded)
        assert len(browser.rows) == 2 and browser.rows[str(second)].status == "running"
        write_snapshot(sessions, finished, version=2)  # the same session rewritten (temp file + rename), finished
        assert await wait_for(pilot, lambda: browser.rows[str(second)].status == "ok")
        first.unlink()
        assert await wait_for(pilot, lambda: str(first) not in browser.rows)
        assert len(browser.rows) == 1
