"""OpenCode's SQLite store (`opencode.db`, what current OpenCode versions write): a session read from it is the same
session as from the JSON storage it was migrated from (tests/fixtures/opencode/make_db.py), and a hostile or live
database is read without a crash and without a file written beside it."""

from __future__ import annotations

import os
import sqlite3

import pytest

from helpers.opencodefixtures import CHILD, MAIN, OLD, RUNNING, database_copy, migrated_storage, session_file
from tui.formats.load import load
from tui.inputs.files import LoadError
from tui.model.session_facts import session_facts
from tui.text.summary import summarise


def _ops(session):
    return [op for turn in session.turns for op in turn.ops]


@pytest.mark.parametrize("sid", [MAIN, CHILD, RUNNING, OLD])
def test_a_database_session_dumps_as_its_json_storage_does(tmp_path, sid):
    db = database_copy(tmp_path / "db")
    storage = migrated_storage(tmp_path / "json")
    from_db, from_json = load(f"{db}#{sid}"), load(str(session_file(storage, sid)))
    assert from_db.format == from_json.format == "opencode-session"
    assert summarise(from_db) == summarise(from_json)
    assert from_db.root.agent_id == from_json.root.agent_id and from_db.problems == from_json.problems


def test_dump_json_of_a_database_session_is_the_json_storages(tmp_path):
    from helpers.cli_inproc import run_main

    db = database_copy(tmp_path / "db")
    storage = migrated_storage(tmp_path / "json")
    from_db = run_main("dump", "--json", f"{db}#{MAIN}")
    from_json = run_main("dump", "--json", str(session_file(storage, MAIN)))
    assert from_db.returncode == from_json.returncode == 0 and from_db.stdout == from_json.stdout
    assert b'"costUsd":0.0391' in from_db.stdout and b'"agentsRun":2' in from_db.stdout
    assert run_main("dump", "--json", str(db)).stdout == from_db.stdout  # no session named: the newest root one
    missing = run_main("dump", "--json", f"{db}#ses_nothere")
    assert missing.returncode == 2 and b"no session 'ses_nothere'" in missing.stderr


def test_the_newest_session_opens_with_its_tokens_cost_tools_and_sub_agent(tmp_path):
    doc = load(str(database_copy(tmp_path)))  # no session named: the newest that is not a sub-agent's
    s = doc.root
    assert s.id == MAIN and s.title == "Fix the failing date test" and s.agent_id == "opencode/calendar"
    assert s.totals.tokensIn == 3900 and s.totals.tokensOut == 460
    assert s.totals.costUsd == pytest.approx(0.0391)
    assert [op.name for op in _ops(s) if op.kind in ("tool", "session")] == ["read", "bash", "task"]
    child = _ops(s)[5].child
    assert child is not None and child.id == CHILD and [op.name for op in _ops(child) if op.kind == "tool"] == ["grep"]
    assert session_facts(s).cost == 0.0391 and not session_facts(s).cost_estimated
    assert summarise(doc)["root"]["traceId"] == MAIN
    with pytest.raises(LoadError, match="no session 'ses_nothere'"):
        load(f"{database_copy(tmp_path)}#ses_nothere")


def _change(db, *statements: str) -> None:
    conn = sqlite3.connect(db)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


HOSTILE = {
    "text in integer columns": ("UPDATE session SET time_created = 'soon', time_updated = x'ff'",
                                "UPDATE message SET time_created = 'later'"),
    "invalid JSON": ("UPDATE part SET data = '{\"type\": \"text\", \"text\": \"cut' WHERE id LIKE '%aPaRt000000000003'",
                     "UPDATE message SET data = '[1, 2]' WHERE id LIKE '%UsErPrOmPt0002'"),
    "lone surrogates": ("UPDATE part SET data = '{\"type\": \"text\", \"text\": \"\\ud800 alone\"}' "
                        "WHERE id LIKE '%TeXtPaRt00001'",
                        "UPDATE part SET data = CAST(x'7b2274797065223a2274657874222c2274657874223a22eda080227d' AS TEXT)"
                        " WHERE id LIKE '%TeXtPaRt00002'",
                        "UPDATE session SET title = CAST(x'eda080' AS TEXT)"),
    "numbers and nulls for ids and data": ("UPDATE part SET id = 7, data = 12 WHERE id LIKE '%aPaRt000000000004'",
                                           "UPDATE message SET data = x'' WHERE id LIKE '%AsSiStAnT0001'"),
    "an absurd child id": ("UPDATE part SET data = json_set(data, '$.state.metadata.sessionId', '" + MAIN + "') "
                           "WHERE data LIKE '%\"task\"%'",),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_rows_are_problems_never_a_crash(tmp_path, case):
    db = database_copy(tmp_path)
    _change(db, *HOSTILE[case])
    doc = load(f"{db}#{MAIN}")
    assert doc.root.id == MAIN and doc.format == "opencode-session"
    summarise(doc)
    if case == "invalid JSON":
        assert any("not valid JSON" in p for p in doc.problems) and any("not an object" in p for p in doc.problems)


def test_a_value_over_the_limit_is_not_read(tmp_path, monkeypatch):
    import tui.formats.opencode.database as database

    monkeypatch.setattr(database, "FILE_MAX_BYTES", 200)
    doc = load(f"{database_copy(tmp_path)}#{MAIN}")
    assert any("over 200 bytes: not read" in p for p in doc.problems) and doc.root.id == MAIN


@pytest.mark.parametrize("how", ["no part table", "no columns", "truncated"])
def test_a_database_that_is_not_opencodes_is_a_load_error_saying_so(tmp_path, how):
    db = database_copy(tmp_path)
    if how == "no part table":
        _change(db, "DROP TABLE part")
    elif how == "no columns":
        _change(db, "ALTER TABLE message DROP COLUMN data")
    else:
        db.write_bytes(db.read_bytes()[:5000])
    with pytest.raises(LoadError, match="OpenCode database"):
        load(str(db))
    for content in (b"SQLite format 2\x00" + b"\x00" * 4000, b""):  # not SQLite: read as any file, refused
        db.write_bytes(content)
        with pytest.raises(LoadError):
            load(str(db))


def test_a_live_database_is_read_with_its_wal_and_nothing_is_written_beside_it(tmp_path):
    db = database_copy(tmp_path)
    before = sorted(os.listdir(db.parent))
    load(str(db))
    assert sorted(os.listdir(db.parent)) == before == ["opencode.db"]  # at rest: nothing created beside it
    writer = sqlite3.connect(db)  # OpenCode running: WAL, a change not checkpointed yet
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE session SET title = 'Renamed while running' WHERE id = ?", (MAIN,))
    writer.commit()
    writer.execute("BEGIN IMMEDIATE")  # and writing now: a reader is not blocked
    writer.execute("UPDATE session SET title = 'not committed' WHERE id = ?", (MAIN,))
    live = sorted(os.listdir(db.parent))
    assert live == ["opencode.db", "opencode.db-shm", "opencode.db-wal"]
    assert load(str(db)).root.title == "Renamed while running"
    assert sorted(os.listdir(db.parent)) == live
    writer.rollback()
    writer.close()


def test_a_locked_database_in_rollback_mode_never_hangs_or_crashes(tmp_path):
    db = database_copy(tmp_path)
    holder = sqlite3.connect(db)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE session SET title = 'half written'")
    try:
        doc = load(f"{db}#{RUNNING}")  # (immutable: the lock is not waited for; what is on disk is read)
        assert doc.root.id == RUNNING and [t.prompts["user"] for t in doc.root.turns] == ["Upgrade the build to bun 1.3"]
    finally:
        holder.rollback()
        holder.close()


def test_the_browser_lists_each_database_session_and_the_index_reads_it(tmp_path, monkeypatch):
    from tui.catalog.index.indexer import index_file
    from tui.catalog.scan import scan
    from tui.catalog.session_row import fill_row
    from tui.inputs.agent_roots import discovered_roots

    db = database_copy(tmp_path)  # no JSON storage beside it: today's OpenCode user
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("AIAGENT_MONITOR_DISCOVER", raising=False)
    roots = tuple(discovered_roots(tmp_path / "nohome"))
    assert [(loc.kind, path) for loc, path in roots] == [("opencode", db.parent / "storage")]
    rows = {row.session_id: fill_row(row) for row in scan(tmp_path / "none", roots=roots)}
    assert sorted(rows) == sorted([MAIN, RUNNING, OLD])  # (the sub-agent's session: read within its parent's)
    main = rows[MAIN]
    assert main.kind == "opencode" and main.key == f"{db}#{MAIN}" and not main.broken
    assert main.title == "Fix the failing date test" and main.tokens == 3900 + 460
    assert main.cost == pytest.approx(0.0391) and rows[RUNNING].status == "running"
    record = index_file(main.key, "opencode")
    assert record["title"] == main.title and record["errors"] == "Error: bun: command not found"  # (its failed op)
    assert record["mtime_ns"] == db.stat().st_mtime_ns
    assert record["size"] == db.stat().st_size and record["session_id"] == MAIN
