"""OpenCode sessions in the browser: a storage root lists beside the sessions directory, one row a session (a
sub-agent's session is shown inside its parent's tree, not as a row), Kind OpenCode, the cost OpenCode recorded
(no `~`), `kind:opencode` filters them, and Enter opens the tree."""

from __future__ import annotations

from textual.widgets import DataTable

from helpers.browserhelpers import SIZE, cells_by_column, ids, settle
from helpers.opencodefixtures import MAIN, OLD, RUNNING, storage_tree
from tui.inputs.agent_roots import OPENCODE
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


async def filter_and_open_the_failing_test_session(pilot, app: MonitorApp, screen: BrowserScreen) -> None:
    """`kind:opencode failing` leaves the main session alone, and Enter opens its tree."""
    screen.set_filter("kind:opencode failing")
    await pilot.pause(0.3)
    assert [i.removeprefix("opencode ") for i in ids(screen)] == [MAIN]
    table = screen.query_one(DataTable)
    table.focus()
    table.move_cursor(row=0)
    await pilot.press("enter")
    await pilot.pause(0.5)
    assert app.screen is not screen and getattr(app.screen, "session").title == "Fix the failing date test"


async def test_opencode_rows_kind_cost_filter_and_open(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    root = storage_tree(tmp_path)
    app = MonitorApp(sessions_dir=sessions, agent_roots=((OPENCODE, root),), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert sorted(i.removeprefix("opencode ") for i in ids(screen)) == sorted([MAIN, RUNNING, OLD])
        row = cells_by_column(screen, MAIN)
        assert row["kind"] == "OpenCode" and row["agent"] == "opencode/calendar"
        assert row["cost"].strip() == "$0.0391" and row["title"].startswith("Fix the failing date test")
        assert cells_by_column(screen, RUNNING)["status"].endswith("running")
        await filter_and_open_the_failing_test_session(pilot, app, screen)


async def test_a_running_session_updates_in_place_as_opencode_writes_its_parts(tmp_path):
    import json

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    root = storage_tree(tmp_path)
    app = MonitorApp(sessions_dir=sessions, agent_roots=((OPENCODE, root),))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert cells_by_column(screen, RUNNING)["status"].endswith("running")
        await pilot.pause(0.5)  # the watcher is armed
        mid = "msg_a0900000003aRuNaSsIsT0001"
        finish = {"id": "prt_a0900000007aRuNfInIsH0001", "sessionID": RUNNING, "messageID": mid,
                  "type": "step-finish", "reason": "stop", "cost": 0.25,
                  "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
        (root / "part" / mid / f"{finish['id']}.json").write_text(json.dumps(finish, indent=2))
        message_file = root / "message" / RUNNING / f"{mid}.json"
        message = json.loads(message_file.read_text())
        message["time"]["completed"] = message["time"]["created"] + 9000
        message_file.write_text(json.dumps(message, indent=2))

        for _ in range(100):
            await pilot.pause(0.1)
            if cells_by_column(screen, RUNNING)["status"] == "ok":
                break
        cells = cells_by_column(screen, RUNNING)
        assert cells["status"] == "ok" and cells["cost"].strip() == "$0.2500"


def test_the_index_sees_a_session_change_in_its_message_files(tmp_path, monkeypatch):
    """OpenCode rewrites a session's message files, not its Info file (the listed one): the sessions index keys the
    row by the newest of them, so a session that ended since it was indexed is read again, and one that did not
    is not."""
    import json
    import os

    from tui.catalog.index.sync import update_index

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    root = storage_tree(tmp_path)
    roots = ((OPENCODE, root),)

    def statuses() -> dict:
        index, _notice, done = update_index(sessions, pool=False, roots=roots)
        assert index is not None
        rows = index.connection().execute("SELECT session_id, status FROM sessions WHERE kind = 'opencode'")
        return {r["session_id"]: r["status"] for r in rows.fetchall()} | {"read": done.read}

    first = statuses()
    assert first[RUNNING] == "running" and first["read"] == 4
    assert statuses()["read"] == 0  # nothing changed: nothing read again
    message_file = root / "message" / RUNNING / "msg_a0900000003aRuNaSsIsT0001.json"
    message = json.loads(message_file.read_text())
    message["time"]["completed"] = message["time"]["created"] + 9000
    message_file.write_text(json.dumps(message, indent=2))
    later = os.stat(message_file).st_mtime_ns + 5_000_000_000  # (a coarse clock must not hide the change)
    os.utime(message_file, ns=(later, later))
    again = statuses()
    assert again["read"] == 1 and again[RUNNING] == "ok"


async def test_an_opened_opencode_session_follows_its_message_files(tmp_path):
    """Opened by its Info file (`aiagent-monitor <storage>/session/<project>/<session>.json`), a running OpenCode
    session updates as OpenCode writes its parts and messages elsewhere in the storage."""
    import json

    from helpers.apphelpers import session_app, top, wait_for
    from helpers.opencodefixtures import session_file

    root = storage_tree(tmp_path)
    app = session_app(session_file(root, RUNNING))
    async with app.run_test(size=SIZE) as pilot:
        assert top(app).session.status == "running"
        await pilot.pause(0.5)  # the watchers are armed
        mid = "msg_a0900000003aRuNaSsIsT0001"
        finish = {"id": "prt_a0900000007aRuNfInIsH0001", "sessionID": RUNNING, "messageID": mid,
                  "type": "step-finish", "reason": "stop", "cost": 0.25,
                  "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
        (root / "part" / mid / f"{finish['id']}.json").write_text(json.dumps(finish, indent=2))
        message_file = root / "message" / RUNNING / f"{mid}.json"
        message = json.loads(message_file.read_text())
        message["time"]["completed"] = message["time"]["created"] + 9000
        message_file.write_text(json.dumps(message, indent=2))
        assert await wait_for(pilot, lambda: top(app).session.status == "ok")
        assert top(app).session.totals.tokensOut == 5


async def test_the_sessions_of_opencode_db_list_and_open(tmp_path):
    """Today's OpenCode keeps its sessions in `opencode.db` (no JSON storage): one row a session, opened by Enter."""
    from helpers.opencodefixtures import database_copy

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    db = database_copy(tmp_path)
    app = MonitorApp(sessions_dir=sessions, agent_roots=((OPENCODE, db.parent / "storage"),), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert sorted(i.removeprefix("opencode ") for i in ids(screen)) == sorted([MAIN, RUNNING, OLD])
        row = cells_by_column(screen, MAIN)
        assert row["kind"] == "OpenCode" and row["cost"].strip() == "$0.0391"
        await filter_and_open_the_failing_test_session(pilot, app, screen)
