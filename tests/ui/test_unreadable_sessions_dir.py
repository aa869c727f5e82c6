"""An unreadable sessions directory is said to be unreadable (issue 12, point 15, first sentence).

Before, `--sessions-dir` naming a mode-000 directory (or a file) started the built-in demo as if there were no
sessions, and a `session/` that cannot be listed dropped every ledger row without a word. Root reads mode-000
directories anyway: `other_user()` drops the capabilities that allow it, as for the other mode-000 tests.
"""

from __future__ import annotations

import pytest

from helpers.corpus import ledger, ledger_op, op, put, session, snapshot_bytes, turn
from helpers.corpusfix import other_user, run_cli
from tui.catalog.scan import scan
from tui.cli.main import app_parser
from tui.cli.run import build_app


@pytest.fixture
def sessions(tmp_path):
    d = tmp_path / "sessions"
    (d / "session").mkdir(parents=True)
    put(d / "snap.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="snap")), gz=True)
    put(d / "session" / "led.jsonl", ledger("led", [ledger_op(1)]))
    yield d
    d.chmod(0o755)
    (d / "session").chmod(0o755)


def test_an_unreadable_sessions_dir_stops_with_permission_denied(sessions, capsys):
    sessions.chmod(0)
    with other_user():
        rc = build_app(app_parser().parse_args(["--sessions-dir", str(sessions)]), watch=False)
    assert rc == 2, "started (the demo?) instead of saying the directory cannot be read"
    err = capsys.readouterr().err
    assert "permission denied" in err and str(sessions) in err


def test_a_file_as_sessions_dir_stops_with_not_a_directory(sessions, capsys):
    rc = build_app(app_parser().parse_args(["--sessions-dir", str(sessions / "snap.json.gz")]), watch=False)
    assert rc == 2 and "not a directory" in capsys.readouterr().err


def test_a_missing_sessions_dir_is_no_problem(tmp_path):
    from tui.cli.run import sessions_dir_problem

    assert sessions_dir_problem(tmp_path / "nowhere") == ""  # the demo starts, as before (not started here)
    assert sessions_dir_problem(tmp_path) == ""


def test_cli_says_permission_denied(sessions):
    sessions.chmod(0)
    result = run_cli("--sessions-dir", str(sessions), as_other_user=True, timeout=120)
    assert result.returncode == 2 and b"permission denied" in result.stderr, result


def test_an_unlistable_session_subdir_is_one_broken_row(sessions):
    (sessions / "session").chmod(0)
    with other_user():
        rows = {row.session_id: row for row in scan(sessions)}
    assert set(rows) == {"snap", "session/"}
    assert rows["session/"].broken == ("cannot list the directory session/: permission denied "
                                       "(its ledgers are not listed)")


def test_an_unlistable_sessions_dir_is_one_broken_row(sessions):
    """What the browser lists when the app starts anyway (with --listen / --connect)."""
    sessions.chmod(0)
    with other_user():
        rows = scan(sessions)
    assert [row.session_id for row in rows] == ["sessions/"]
    assert rows[0].broken.startswith("cannot list the directory sessions/: permission denied")


async def test_browser_shows_the_unlistable_session_subdir(sessions):
    from helpers.browserhelpers import SIZE, cells, settle
    from tui.ui.app import MonitorApp

    (sessions / "session").chmod(0)
    with other_user():
        app = MonitorApp(sessions_dir=sessions, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app.screen)
            row = cells(app.screen, "session/")
            assert row[3] == "BROKEN" and "permission denied" in row[2]
            assert cells(app.screen, "snap")[3] == "ok"
