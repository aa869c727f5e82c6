"""OpenCode's `opencode.db` followed live: a write to the database (with sqlite3, in WAL mode as OpenCode keeps it)
while the app runs adds a new session's row, updates a changed session's row, and updates a session of it shown on
its screen in place (running while its last assistant message is being written, ok once completed)."""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing

from helpers.apphelpers import session_app, top, wait_for
from helpers.browserhelpers import SIZE, cells_by_column, ids, settle
from helpers.opencodefixtures import MAIN, OLD, RUNNING, database_copy
from tui.inputs.agent_roots import OPENCODE
from tui.ui.app import MonitorApp

NEW = "ses_5f2000000001NeWsEsSiOnAbCd"
RUN_MSG = "msg_a0900000003aRuNaSsIsT0001"


def _now() -> int:
    return int(time.time() * 1000)


def _writer(db) -> sqlite3.Connection:
    """A connection writing as OpenCode does (journal_mode WAL: the `-wal` and `-shm` files beside the database)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def _finish_running(conn: sqlite3.Connection) -> None:
    """OpenCode ending the running session's step: a step-finish part, the message completed."""
    now = _now()
    finish = {"type": "step-finish", "reason": "stop", "cost": 0.25,
              "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
    conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES "
                 "(?, ?, ?, ?, ?, ?)", ("prt_a0900000007aRuNfInIsH0001", RUN_MSG, RUNNING, now, now, json.dumps(finish)))
    data = json.loads(conn.execute("SELECT data FROM message WHERE id = ?", (RUN_MSG,)).fetchone()[0])
    data["time"]["completed"] = data["time"]["created"] + 9000
    conn.execute("UPDATE message SET data = ?, time_updated = ? WHERE id = ?", (json.dumps(data), now, RUN_MSG))


async def test_a_write_to_opencode_db_adds_and_updates_its_rows(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    db = database_copy(tmp_path)
    with closing(_writer(db)) as conn:
        app = MonitorApp(sessions_dir=sessions, agent_roots=((OPENCODE, db.parent / "storage"),))
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            await settle(pilot, screen)
            assert sorted(i.removeprefix("opencode ") for i in ids(screen)) == sorted([MAIN, RUNNING, OLD])
            assert cells_by_column(screen, RUNNING)["status"].endswith("running")
            await pilot.pause(0.5)  # the watcher is armed
            now = _now()
            conn.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, "
                         "time_updated) VALUES (?, 'global', 'new', '/tmp', 'A brand new session', '1.0', ?, ?)",
                         (NEW, now, now))
            _finish_running(conn)

            def done() -> bool:
                shown = {i.removeprefix("opencode ") for i in ids(screen)}
                return NEW in shown and cells_by_column(screen, RUNNING)["status"] == "ok"

            assert await wait_for(pilot, done)
            assert cells_by_column(screen, RUNNING)["cost"].strip() == "$0.2500"
            assert cells_by_column(screen, NEW)["title"].startswith("A brand new session")


async def test_an_opened_database_session_updates_in_place_running_then_ok(tmp_path):
    db = database_copy(tmp_path)
    with closing(_writer(db)) as conn:
        app = session_app(db.parent / f"opencode.db#{MAIN}")
        async with app.run_test(size=SIZE) as pilot:
            assert top(app).session.status != "running"
            turns = len(top(app).session.turns)
            await pilot.pause(0.5)  # the watchers are armed
            now = _now()
            user = {"role": "user", "time": {"created": now}, "agent": "build",
                    "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5-20250929"}}
            reply = {"role": "assistant", "time": {"created": now + 1}, "parentID": "msg_a2000000001aNeWuSeR000001",
                     "modelID": "claude-sonnet-4-5-20250929", "providerID": "anthropic", "mode": "build",
                     "agent": "build", "path": {"cwd": "/home/dev/calendar", "root": "/home/dev/calendar"},
                     "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}}
            text = {"type": "text", "text": "And now the leap years"}
            conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
                         ("msg_a2000000001aNeWuSeR000001", MAIN, now, now, json.dumps(user)))
            conn.execute("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES "
                         "(?, ?, ?, ?, ?, ?)", ("prt_a2000000002aNeWtExT00001", "msg_a2000000001aNeWuSeR000001", MAIN,
                                                now, now, json.dumps(text)))
            conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
                         ("msg_a2000000003aNeWaSsIsT001", MAIN, now, now, json.dumps(reply)))
            assert await wait_for(pilot, lambda: top(app).session.status == "running")
            assert len(top(app).session.turns) == turns + 1
            reply["time"]["completed"] = now + 5000
            conn.execute("UPDATE message SET data = ?, time_updated = ? WHERE id = ?",
                         (json.dumps(reply), _now(), "msg_a2000000003aNeWaSsIsT001"))
            assert await wait_for(pilot, lambda: top(app).session.status != "running")


async def test_sessions_dir_naming_the_data_dir_or_a_database_lists_its_sessions(tmp_path, monkeypatch):
    """`aiagent-monitor --sessions-dir ~/.local/share/opencode` (or its `opencode.db`): the browser lists OpenCode's
    sessions, each once (the storage copy of a migrated session hidden), and follows the database."""
    from helpers.opencodefixtures import migrated_storage
    from tui.cli.main import app_parser
    from tui.cli.run import build_app

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("AIAGENT_MONITOR_DISCOVER", "0")
    migrated_storage(tmp_path)
    db = database_copy(tmp_path)
    (db.parent / "auth.json").write_text('{"anthropic": {"type": "api", "key": "not a session"}}')  # (OpenCode's)
    for given in (db.parent, db):
        app = build_app(app_parser().parse_args(["--sessions-dir", str(given)]))
        assert isinstance(app, MonitorApp), f"{given}: did not start"
        with closing(_writer(db)) as conn:
            async with app.run_test(size=SIZE) as pilot:
                screen = app.screen
                await settle(pilot, screen)
                assert sorted(i.removeprefix("opencode ") for i in ids(screen)) == sorted([MAIN, RUNNING, OLD])
                await pilot.pause(0.5)
                now = _now()
                conn.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, "
                             "time_updated) VALUES (?, 'global', 'new', '/tmp', 'Another one', '1.0', ?, ?)",
                             (NEW, now, now))
                (db.parent / "auth.json").write_text('{"openai": {}}')  # (a change to it lists nothing)
                assert await wait_for(pilot, lambda: NEW in {i.removeprefix("opencode ") for i in ids(screen)})
                assert sorted(i.removeprefix("opencode ") for i in ids(screen)) == sorted([MAIN, RUNNING, OLD, NEW])
                conn.execute("DELETE FROM session WHERE id = ?", (NEW,))  # (OpenCode deleting a session)
                assert await wait_for(pilot, lambda: NEW not in {i.removeprefix("opencode ") for i in ids(screen)})
