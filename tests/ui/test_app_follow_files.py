"""The app keeps following files (issue 12, point 13): a sessions directory deleted and made again, and a ledger
opened from the command line (which was never followed; opened from the browser it was)."""

from __future__ import annotations

import asyncio
import shutil

from helpers.apphelpers import Notices, top, wait_for
from helpers.corpus import ledger_op, op, put, record, session, snapshot_bytes, turn
from tui.cli.main import app_parser
from tui.cli.run import build_app
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


def ledger_head(sid: str) -> bytes:
    return (record("session_start", 1, sid, agentId="cli-ledger", callPath=sid)
            + record("turn_start", 2, sid, turn=1)
            + record("turn_end", 3, sid, turn=1, status="ok", ops=[ledger_op(1)], warnings=[], errors=[]))


async def test_a_ledger_opened_from_the_command_line_is_followed(tmp_path):
    sessions = tmp_path / "sessions"
    (sessions / "session").mkdir(parents=True)
    path = put(sessions / "session" / "run.jsonl", ledger_head("run"))
    app = build_app(app_parser().parse_args([str(path)]))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = top(app)
        assert len(screen.session.turns) == 1 and screen.session.status == "running"
        await asyncio.sleep(0.5)  # the watcher is up
        with path.open("ab") as f:
            f.write(record("turn_start", 4, "run", turn=2)
                    + record("turn_end", 5, "run", turn=2, status="ok", ops=[ledger_op(1), ledger_op(2)],
                             warnings=[], errors=[]))
        assert await wait_for(pilot, lambda: len(top(app).session.turns) == 2, timeout=15), "not followed"
        with path.open("ab") as f:
            f.write(record("session_summary", 6, "run", status="ok"))
        assert await wait_for(pilot, lambda: top(app).session.status == "ok", timeout=15)


async def test_the_browser_follows_a_sessions_dir_deleted_and_made_again(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    first = put(sessions / "first.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="a")), gz=True)
    app = MonitorApp(sessions_dir=sessions)
    notices = Notices()
    async with app.run_test(size=(160, 48), message_hook=notices) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: len(browser.model.rows) == 1)
        await asyncio.sleep(0.5)  # the watcher is up
        shutil.rmtree(sessions)
        assert await wait_for(pilot, lambda: str(first) not in browser.model.rows, timeout=15)
        sessions.mkdir()
        await asyncio.sleep(0.8)  # past the re-arm
        second = put(sessions / "second.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="b")),
                     gz=True)
        assert await wait_for(pilot, lambda: str(second) in browser.model.rows and browser.model.rows[str(second)].loaded,
                              timeout=15), "the new file never showed: tailing stopped with the old directory"
        notes = notices.messages()
        assert any("was removed" in n for n in notes) and any("is back" in n for n in notes), notes


async def test_the_browser_follows_a_sessions_dir_renamed_away_and_made_again(tmp_path):
    """A rename reports no file as deleted: the rows of the old directory go when the new one is listed."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    first = put(sessions / "first.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="a")), gz=True)
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=(160, 48)) as pilot:
        browser = app.screen
        assert await wait_for(pilot, lambda: len(browser.model.rows) == 1)
        await asyncio.sleep(0.5)  # the watcher is up
        sessions.rename(tmp_path / "sessions.old")
        sessions.mkdir()
        second = put(sessions / "second.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="b")),
                     gz=True)
        assert await wait_for(pilot, lambda: str(second) in browser.model.rows and str(first) not in browser.model.rows,
                              timeout=15), sorted(browser.model.rows)
        third = put(sessions / "third.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="c")),
                    gz=True)
        assert await wait_for(pilot, lambda: str(third) in browser.model.rows, timeout=15)
