"""The sessions index (tui.catalog.index): real SQLite files in a tmp XDG_CACHE_HOME (tests/catalog/conftest.py).

A changed file is read again and nothing else; a deleted file's row goes; a corrupt index is rebuilt, a foreign
SQLite file left alone, a read-only cache directory bypassed, each with one notice; two monitors write one index
at once; the sessions directory is never written."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.corpusfix import other_user
from helpers.scanfixtures import GOOD_A, GOOD_B, RUNNING, T0, make_sessions_dir, session_node, write_snapshot
from tui.catalog.index import indexer, schema, store
from tui.catalog.index.store import index_path, open_index
from tui.catalog.index.sync import fill_from_index, refresh, update_index
from tui.catalog.scan import scan


def listing(directory: Path) -> dict[str, tuple]:
    out = {}
    for folder, dirs, files in os.walk(directory):
        for name in [".", *dirs, *files]:
            st = (Path(folder) / name).lstat()
            out[os.path.join(folder, name)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def counted(monkeypatch):
    """Count the files the indexer reads (in this process: refresh(..., pool=False))."""
    reads: list[str] = []
    real = indexer.index_file

    def counting(path: str, kind: str) -> dict:
        reads.append(Path(path).name)
        return real(path, kind)

    monkeypatch.setattr(indexer, "index_file", counting)
    return reads


def stored(index) -> dict[str, sqlite3.Row]:
    return {Path(r["path"]).name: r for r in index.records()}


def test_first_run_reads_every_file_then_none(tmp_path, counted):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, notice = open_index(sessions)
    assert index is not None and notice == ""
    assert index.path.parent == Path(os.environ["XDG_CACHE_HOME"]) / "aiagent-monitor"
    first = refresh(index, scan(sessions), pool=False)
    assert first.read == len(counted) > 3
    rows = stored(index)
    good = rows[f"{GOOD_A}.json.gz"]
    assert (good["agent"], good["status"], good["tokens_in"], good["tokens_out"]) == ("web-research", "ok", 1200, 300)
    assert good["models"] == "claude-sonnet-4-5" and good["title"] == "Cheapest flight to Athens"
    assert rows[f"{GOOD_B}.json.gz"]["status"] == "failed"
    counted.clear()
    again = refresh(index, scan(sessions), pool=False)
    assert counted == [] and again.read == 0 and again.filled == first.read


def test_a_changed_file_is_read_again_and_nothing_else(tmp_path, counted):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, _ = open_index(sessions)
    refresh(index, scan(sessions), pool=False)
    counted.clear()
    write_snapshot(sessions, GOOD_B, session_node(GOOD_B, "bigquery", "Rewritten", started=T0, duration=5,
                                                 tokens=(7, 3), cost=4.5), T0 / 1000 + 50)
    rows = scan(sessions)
    done = refresh(index, rows, pool=False)
    assert counted == [f"{GOOD_B}.json.gz"] and done.read == 1
    assert stored(index)[f"{GOOD_B}.json.gz"]["cost_usd"] == pytest.approx(4.5)
    assert index.connection().execute(  # the search table follows the update (triggers)
        "SELECT count(*) FROM sessions_fts WHERE sessions_fts MATCH 'Rewritten'").fetchone()[0] == 1
    warm = scan(sessions)
    fill_from_index(index, warm)
    by_id = {row.session_id: row for row in warm}
    assert by_id[GOOD_B].loaded and by_id[GOOD_B].cost == pytest.approx(4.5) and by_id[GOOD_B].title == "Rewritten"


def test_a_deleted_file_loses_its_row(tmp_path, counted):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, _ = open_index(sessions)
    refresh(index, scan(sessions), pool=False)
    (sessions / f"{RUNNING}.json.gz").unlink()
    counted.clear()
    done = refresh(index, scan(sessions), pool=False)
    assert done.removed == 1 and counted == []
    assert f"{RUNNING}.json.gz" not in stored(index)
    assert index.connection().execute("SELECT count(*) FROM sessions_fts").fetchone()[0] == index.count()


def test_a_corrupt_index_is_rebuilt_with_one_notice(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    path = index_path(sessions)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database at all " * 200)
    index, notice = open_index(sessions)
    assert index is not None and "rebuilt" in notice and str(path) in notice
    refresh(index, scan(sessions), pool=False)
    assert index.count() > 3
    again, second = open_index(sessions)
    assert again is not None and second == ""


def test_an_index_of_another_version_is_rebuilt(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, _ = open_index(sessions)
    refresh(index, scan(sessions), pool=False)
    index.close()
    with sqlite3.connect(index.path) as conn:
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    reopened, notice = open_index(sessions)
    assert reopened is not None and "another version" in notice and reopened.count() == 0


def test_a_foreign_sqlite_file_is_left_alone(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    path = index_path(sessions)
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA application_id = 1234")
        conn.execute("CREATE TABLE precious (x)")
        conn.execute("INSERT INTO precious VALUES (42)")
    conn.close()
    before = path.read_bytes()
    index, notice = open_index(sessions)
    assert index is None and "not an aiagent-monitor index" in notice and "works without it" in notice
    assert path.read_bytes() == before


def test_a_read_only_cache_directory_is_bypassed_with_one_notice(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "aiagent-monitor"
    cache.mkdir(parents=True)
    cache.chmod(0o500)
    try:
        with other_user():  # as root, 0500 only holds without the override capabilities
            index, notice = open_index(sessions)
        assert index is None and notice.count("sessions index not used") == 1
        assert list(cache.iterdir()) == []
    finally:
        cache.chmod(0o700)


def test_a_read_only_cache_directory_as_root_is_bypassed(tmp_path, monkeypatch):
    """Root ignores 0500: a cache 'directory' that is a file stands for an unwritable one."""
    sessions = make_sessions_dir(tmp_path / "sessions")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    index, notice = open_index(sessions)
    assert index is None and "sessions index not used" in notice


def test_a_symlink_where_the_index_goes_is_never_followed(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    path = index_path(sessions)
    path.parent.mkdir(parents=True)
    target = tmp_path / "elsewhere.sqlite"
    path.symlink_to(target)
    index, notice = open_index(sessions)
    assert index is None and "not a regular file" in notice and not target.exists()


def test_no_index_gives_nothing_and_says_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "_enabled", False)
    assert open_index(make_sessions_dir(tmp_path / "sessions")) == (None, "")


def test_the_sessions_directory_is_never_written(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    before = listing(sessions)
    index, _, done = update_index(sessions, pool=True)  # the process pool too
    assert index is not None and done.read > 3
    assert listing(sessions) == before
    assert not index.path.is_relative_to(sessions)


def test_a_cache_inside_the_sessions_directory_is_refused(tmp_path, monkeypatch):
    sessions = make_sessions_dir(tmp_path / "sessions")
    monkeypatch.setenv("XDG_CACHE_HOME", str(sessions))
    before = listing(sessions)
    index, notice = open_index(sessions)
    assert index is None and "inside the sessions directory" in notice
    assert listing(sessions) == before


WRITER = """
import sys, time
from tui.catalog.index.store import open_index
from tui.catalog.index.indexer import index_file
index, notice = open_index(sys.argv[1])
assert index is not None, notice
paths = sys.argv[2:]
records = [index_file(p, "snapshot") for p in paths]
deadline = time.time() + 3
rounds = 0
while time.time() < deadline:
    index.write(records)
    rounds += 1
print(rounds)
"""


def test_two_monitors_write_one_index_at_once(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    paths = [str(p) for p in sorted(sessions.glob("*.json.gz")) if p.stat().st_size]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(sessions), *paths], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    index, _ = open_index(sessions)  # and a third connection reading meanwhile
    reads = 0
    while any(p.poll() is None for p in procs):
        index.count()
        reads += 1
        time.sleep(0.01)
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err
        assert "locked" not in err and int(out) > 0
    assert index.count() == len(paths) and reads > 0


SEARCH_WRITER = """
import sys, time
from tui.catalog.index.store import open_index
from tui.catalog.index.indexer import index_file
index, notice = open_index(sys.argv[1])
assert index is not None, notice
me, paths = sys.argv[2], sys.argv[3:]
base = [index_file(p, "snapshot") for p in paths]
for n in range(60):  # new rows (this writer's own paths), changed rows (both writers' shared paths), twice a batch
    fresh = [dict(r, path=f"{r['path']}.{me}.{n}", title=f"fresh{me}n{n} {r['title']}") for r in base]
    changed = [dict(r, title=f"round{n} {r['title']}") for r in base]
    index.write(fresh + changed + changed)
print(n)
"""


def search_count(conn, text: str) -> int:
    return conn.execute("SELECT count(*) FROM sessions_fts WHERE sessions_fts MATCH ?", (text,)).fetchone()[0]


def test_search_text_stays_in_step_with_new_changed_and_deleted_rows_of_two_monitors(tmp_path):
    """Rows reach sessions_fts by schema.SEARCH_ADD in the writer's transaction (not by a trigger): two monitors
    inserting and updating at once, a path twice in one batch, and deletes leave FTS5's integrity check clean and
    every row findable by its current text only."""
    sessions = make_sessions_dir(tmp_path / "sessions")
    paths = [str(p) for p in sorted(sessions.glob("*.json.gz")) if p.stat().st_size]
    index, _ = open_index(sessions)  # made before the writers start (both making it at once: one bypasses it)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", SEARCH_WRITER, str(sessions), me, *paths], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for me in ("a", "b")]
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err
    conn = index.connection()
    count = index.count()
    assert count == len(paths) * (1 + 2 * 60)
    conn.execute("INSERT INTO sessions_fts(sessions_fts, rank) VALUES ('integrity-check', 1)")  # raises if not
    assert search_count(conn, "round59") == len(paths)  # the shared rows hold their last text, and only it
    assert search_count(conn, "round58") == 0
    assert search_count(conn, "freshan0") == len(paths) and search_count(conn, "freshbn59") == len(paths)
    index.remove([f"{path}.a.{n}" for path in paths for n in range(60)])
    conn.execute("INSERT INTO sessions_fts(sessions_fts, rank) VALUES ('integrity-check', 1)")
    assert search_count(conn, "freshan0") == 0 and search_count(conn, "freshbn0") == len(paths)
    assert conn.execute("SELECT count(*) FROM sessions_fts").fetchone()[0] == index.count()


def test_a_locked_index_is_bypassed_with_one_notice(tmp_path, monkeypatch):
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, _ = open_index(sessions)
    assert index is not None
    index.close()
    holder = sqlite3.connect(index.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process in the middle of a long write
    monkeypatch.setattr(store, "BUSY_TIMEOUT_MS", 200)
    try:
        again, notice = open_index(sessions)
        assert again is None and "locked" in notice and notice.count("sessions index not used") == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert open_index(sessions)[0] is not None  # and used again once the lock is gone


def row_facts(rows) -> dict[str, tuple]:
    from dataclasses import astuple

    return {row.key: astuple(row) for row in rows}


def test_the_one_pass_warm_start_gives_the_rows_of_the_listing_plus_the_index(tmp_path, counted):
    """warm_scan (stored rows read first, each unchanged file's row built filled while listing) gives exactly the
    rows of a listing filled by fill_from_index: unchanged ones filled, a changed and a new one left to read, a
    deleted one's index row gone; nothing is read."""
    from tui.catalog.index.sync import warm_scan

    sessions = make_sessions_dir(tmp_path / "sessions")
    index, _ = open_index(sessions)
    refresh(index, scan(sessions), pool=False)
    write_snapshot(sessions, GOOD_B, session_node(GOOD_B, "bigquery", "Rewritten", started=T0, duration=5,
                                                 tokens=(7, 3), cost=4.5), T0 / 1000 + 50)
    new = "dddddddd-0000-4000-8000-000000000009"
    write_snapshot(sessions, new, session_node(new, "fresh", "New one", started=T0, duration=5), T0 / 1000 + 60)
    (sessions / f"{RUNNING}.json.gz").unlink()
    counted.clear()
    before = index.count()
    rows, result = warm_scan(sessions, index, prune=False)
    expected = scan(sessions)
    fill_from_index(index, expected, prune=False)
    assert row_facts(rows) == row_facts(expected) and [r.key for r in rows] == [r.key for r in expected]
    by_id = {row.session_id: row for row in rows}
    assert not by_id[GOOD_B].loaded and not by_id[new].loaded and by_id[GOOD_A].loaded
    assert by_id[GOOD_A].cost == pytest.approx(0.5) and by_id[GOOD_A].title == "Cheapest flight to Athens"
    assert result.filled == sum(1 for r in rows if r.loaded and r.size) and result.removed == 0
    assert index.count() == before and counted == []
    _, pruned = warm_scan(sessions, index)
    assert pruned.removed == 1 and f"{RUNNING}.json.gz" not in stored(index)


def test_a_fifo_is_indexed_as_not_a_regular_file_never_as_empty(tmp_path):
    """A FIFO (or a link to one) has size 0: its row says what it is, and reading it never blocks."""
    pipe = tmp_path / "pipe.json.gz"
    os.mkfifo(pipe)
    link = tmp_path / "link.json.gz"
    link.symlink_to(pipe)
    for path in (pipe, link):
        record = indexer.index_file(str(path), "snapshot")
        assert record["broken"].startswith("not a regular file"), record["broken"]
        assert record["size"] == 0 and record["status"] == ""


def test_headend_comes_from_a_snapshots_logs_and_a_ledgers_session_start(tmp_path):
    """A snapshot's session node has no headendId: the producer stamps it on every log entry (ai-agent.ts);
    a v3 ledger's session_start carries it. Both the lazy reader and the full parse give it."""
    from helpers.corpus import op, put, session, snapshot_bytes, turn
    from tui.formats.aiagent.snapshot import build_session

    logs = [{"timestamp": 1_779_000_002_500, "severity": "VRB", "message": "m", "headendId": "slack"}]
    path = tmp_path / "s.json.gz"
    put(path, snapshot_bytes(session(turn(1, op("tool", "ls"), op("llm", "x", logs=logs)), agent="a")), gz=True)
    assert indexer.index_file(str(path), "snapshot")["headend"] == "slack"
    node = session(turn(1, op("tool", "ls"), op("llm", "x", logs=logs)), agent="a")
    assert indexer.headend_of(build_session(node)) == "slack"  # the full parse (the tolerant path)
    bare = tmp_path / "bare.json.gz"
    put(bare, snapshot_bytes(session(turn(1, op("tool", "ls")), agent="b")), gz=True)
    assert indexer.index_file(str(bare), "snapshot")["headend"] == ""
    sessions = make_sessions_dir(tmp_path / "dir")
    ledgers = [row for row in scan(sessions) if row.kind == "ledger"]
    assert ledgers and {indexer.index_file(r.key, r.kind)["headend"] for r in ledgers} == {"cli"}
