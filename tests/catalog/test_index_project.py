"""The sessions index's `project` column (schema 7): filled from each agent's file as it is read, given back to the
browser's rows from SQLite and from the warm image alike, searched by stats (tui.catalog.index.stats, `by project`),
kept safe when a file names a hostile project, and an index of before the column is rebuilt with it."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import astuple
from pathlib import Path


from helpers.projectfixtures import PROJECTS, agents_home, claude_session_with_cwd
from tui.catalog.index import schema, stats as st
from tui.catalog.index.indexer import index_file, row_from_record
from tui.catalog.index.store import image_path, open_index
from tui.catalog.index.sync import refresh, warm_scan
from tui.catalog.scan import scan
from tui.inputs.agent_roots import discovered_roots
from tui.model.agent_nodes import PROJECT_MAX


def indexed(tmp_path: Path, monkeypatch):
    env = agents_home(tmp_path)
    for name in ("HOME", "XDG_DATA_HOME", "AIAGENT_MONITOR_DISCOVER"):
        monkeypatch.setenv(name, env[name])
    sessions, roots = Path(env["AI_AGENT_SESSIONS_DIR"]), tuple(discovered_roots())
    index, notice = open_index(sessions)
    assert index is not None, notice
    assert refresh(index, scan(sessions, roots=roots), pool=False).error == ""
    return sessions, roots, index


def projects_of(rows) -> dict[str, str]:
    return {row.key: row.project for row in rows if row.loaded and row.kind != "child"}


def test_the_project_column_round_trips_through_sqlite_and_the_warm_image(tmp_path, monkeypatch):
    sessions, roots, index = indexed(tmp_path, monkeypatch)
    stored = dict(index.connection().execute("SELECT path, project FROM sessions WHERE kind != 'child'").fetchall())
    assert set(stored.values()) == PROJECTS
    rows, result = warm_scan(sessions, index, prune=False, roots=roots)
    assert result.from_image and projects_of(rows) == stored
    os.replace(image_path(index.path), tmp_path / "aside")  # the same rows from SQLite
    rows, result = warm_scan(sessions, index, prune=False, roots=roots)
    assert not result.from_image and projects_of(rows) == stored
    groups = st.collect(index.connection(), st.TimeRange(), by=("project",)).by["project"]
    assert {g.key for g in groups} == PROJECTS


def test_an_index_of_before_the_project_column_is_rebuilt_with_it(tmp_path, monkeypatch):
    sessions, roots, index = indexed(tmp_path, monkeypatch)
    path = index.path
    index.close()
    with sqlite3.connect(path) as conn:  # the schema-6 table: no project column
        conn.execute("DROP INDEX IF EXISTS sessions_by_project")
        conn.execute("ALTER TABLE sessions DROP COLUMN project")
        conn.execute("PRAGMA user_version = 6")
    reopened, notice = open_index(sessions)
    assert reopened is not None and "another version" in notice and reopened.count() == 0
    assert schema.SCHEMA_VERSION == 7
    assert refresh(reopened, scan(sessions, roots=roots), pool=False).error == ""
    found = {p for (p,) in reopened.connection().execute("SELECT project FROM sessions WHERE kind != 'child'")}
    assert found == PROJECTS


def test_a_hostile_project_is_stored_escaped_and_cut(tmp_path):
    hostile = "\x1b[2J\x1b]52;c;ZXZpbA==\x07/srv/\u202e" + "p" * 10_000 + "/end\r\n"
    path = claude_session_with_cwd(tmp_path, hostile)
    record = index_file(str(path), "claude-code")
    assert not record["broken"]
    project = record["project"]
    assert len(project) <= PROJECT_MAX and project.endswith("/end")
    assert not any(ord(c) < 32 or c in "\x7f\u202e" for c in project), project
    assert row_from_record(record).project == project
    assert astuple(row_from_record(record))[-1] == project  # (SessionRow's last field: the image's value order)
