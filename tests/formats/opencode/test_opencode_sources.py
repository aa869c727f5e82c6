"""Where the monitor finds OpenCode's sessions and how often it lists each: a session in both the JSON storage and
`opencode.db` (OpenCode's migration copies the one into the other and keeps the files) is one row, the database's,
in every view; channel databases (`opencode-<channel>.db`) and `$OPENCODE_DB` are found; `--sessions-dir` may name
the data directory, the storage folder or a database."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import orjson
import pytest

from helpers.opencodefixtures import MAIN, OLD, RUNNING, database_copy, migrated_storage
from tui.catalog.scan import scan
from tui.catalog.session_row import fill_row
from tui.inputs.agent_roots import discovered_roots


def _home(tmp_path, monkeypatch):
    """`<tmp>/data/opencode` holding both the storage and the database made from it."""
    migrated_storage(tmp_path)
    db = database_copy(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("AIAGENT_MONITOR_DISCOVER", raising=False)
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    return db


def test_a_session_in_storage_and_database_is_listed_once_the_databases(tmp_path, monkeypatch):
    db = _home(tmp_path, monkeypatch)
    rows = scan(tmp_path / "none", roots=tuple(discovered_roots(tmp_path / "nohome")))
    assert sorted(row.session_id for row in rows) == sorted([MAIN, RUNNING, OLD])
    assert all(row.key.startswith(f"{db}#") for row in rows)


def test_stats_count_a_migrated_session_and_its_cost_once(tmp_path, monkeypatch):
    db = _home(tmp_path, monkeypatch)
    (tmp_path / "none").mkdir()
    env = {**os.environ, "HOME": str(tmp_path / "nohome"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "AI_AGENT_SESSIONS_DIR": str(tmp_path / "none"),
           "AIAGENT_MONITOR_DISCOVER": "1"}
    env.pop("OPENCODE_DB", None)
    run = subprocess.run([sys.executable, "-m", "tui", "stats", "--json", "--by", "project"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    out = orjson.loads(run.stdout)
    assert out["totals"]["sessions"] == 3
    one = fill_row(scan(tmp_path / "none", roots=tuple(discovered_roots(tmp_path / "nohome")))[0])
    assert one.key.startswith(str(db))
    costs = [fill_row(r).cost or 0.0 for r in scan(tmp_path / "none", roots=tuple(discovered_roots(tmp_path)))]
    assert out["totals"]["cost_usd"] == pytest.approx(sum(costs))
    assert sum(g["sessions"] for g in out["by"]["project"]) == 3


def test_channel_databases_and_opencode_db_are_found(tmp_path, monkeypatch):
    db = _home(tmp_path, monkeypatch)
    shutil.rmtree(db.parent / "storage")
    db.rename(db.parent / "opencode-dev.db")  # a `dev` channel build's database (db.ts: opencode-<channel>.db)
    elsewhere = tmp_path / "elsewhere" / "mine.db"
    elsewhere.parent.mkdir()
    shutil.copy(db.parent / "opencode-dev.db", elsewhere)
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    roots = tuple(discovered_roots(tmp_path / "nohome"))
    keys = {row.key.rpartition("#")[0] for row in scan(tmp_path / "none", roots=roots)}
    assert keys == {str(db.parent / "opencode-dev.db"), str(elsewhere)}
    monkeypatch.setenv("OPENCODE_DB", "mine.db")  # relative: below the data directory, as OpenCode resolves it
    shutil.move(elsewhere, db.parent / "mine.db")
    roots = tuple(discovered_roots(tmp_path / "nohome"))
    keys = {row.key.rpartition("#")[0] for row in scan(tmp_path / "none", roots=roots)}
    assert keys == {str(db.parent / "opencode-dev.db"), str(db.parent / "mine.db")}


@pytest.mark.parametrize("given", ["data", "storage", "db"])
def test_sessions_dir_may_be_the_data_dir_the_storage_or_a_database(tmp_path, monkeypatch, given):
    db = _home(tmp_path, monkeypatch)
    path = {"data": db.parent, "storage": db.parent / "storage", "db": db}[given]
    env = {**os.environ, "HOME": str(tmp_path / "nohome"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "AIAGENT_MONITOR_DISCOVER": "0"}
    run = subprocess.run([sys.executable, "-m", "tui", "stats", "--json", "--sessions-dir", str(path)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert orjson.loads(run.stdout)["totals"]["sessions"] == 3
    rows = [fill_row(row) for row in scan(path)]
    assert sorted(row.session_id for row in rows) == sorted([MAIN, RUNNING, OLD])
    assert {row.title for row in rows if row.session_id == MAIN} == {"Fix the failing date test"}


def test_a_change_to_a_migrated_storage_file_does_not_list_it_again(tmp_path, monkeypatch):
    from helpers.opencodefixtures import session_file
    from tui.catalog.watched_rows import watched_rows
    from tui.inputs.watch import DirChanges

    db = _home(tmp_path, monkeypatch)
    changed = session_file(db.parent / "storage", MAIN)
    rows = watched_rows(DirChanges(updated={changed}, kinds={changed: "opencode"})).rows
    assert rows == []
    changed.rename(changed.with_name("ses_onlyinstorage01.json"))
    moved = changed.with_name("ses_onlyinstorage01.json")
    assert [r.session_id for r in watched_rows(DirChanges(updated={moved}, kinds={moved: "opencode"})).rows] == [
        "ses_onlyinstorage01"]
