"""The warm image of the sessions index (tui.catalog.index.image): used only while it is current, ignored when
stale, damaged or foreign, never followed through a symbolic link, and giving exactly the rows SQLite gives."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import astuple
from pathlib import Path

from helpers.scanfixtures import GOOD_A, GOOD_B, RUNNING, T0, make_sessions_dir, session_node, write_snapshot
from tui.catalog.index import image, schema
from tui.catalog.index.store import image_path, open_index
from tui.catalog.index.sync import refresh, warm_scan
from tui.catalog.scan import scan


def facts(rows) -> dict[str, tuple]:
    return {row.key: astuple(row) for row in rows}


def indexed(tmp_path: Path):
    """A sessions directory, its index brought up to date (which writes the image), the index."""
    sessions = make_sessions_dir(tmp_path / "sessions")
    index, notice = open_index(sessions)
    assert index is not None, notice
    assert refresh(index, scan(sessions), pool=False).error == ""
    return sessions, index


def from_sqlite(sessions: Path, index) -> dict[str, tuple]:
    """The rows warm_scan gives without an image (it is moved away and back)."""
    path = image_path(index.path)
    aside = path.with_name("aside")
    os.replace(path, aside)
    try:
        rows, result = warm_scan(sessions, index, prune=False)
        assert not result.from_image
    finally:
        os.replace(aside, path)
    return facts(rows)


def test_refresh_writes_the_image_and_warm_scan_gives_the_rows_sqlite_gives(tmp_path):
    sessions, index = indexed(tmp_path)
    assert image_path(index.path).is_file() and image.is_current(index)
    expected = from_sqlite(sessions, index)
    rows, result = warm_scan(sessions, index)
    assert result.from_image and result.filled == sum(1 for row in rows if row.loaded and row.size) > 3
    assert facts(rows) == expected
    by_id = {row.session_id: row for row in rows}
    assert by_id[GOOD_A].title == "Cheapest flight to Athens" and by_id[GOOD_A].cost == 0.5


def test_an_image_row_has_the_mtime_os_stat_gives_even_before_1970(tmp_path):
    """The image holds mtime as the float os.stat gives; SQLite's / and % truncate toward zero, so a file dated
    before 1970 (negative mtime_ns, not a whole second) must get its seconds rounded down, as the kernel does."""
    sessions = make_sessions_dir(tmp_path / "sessions")
    # -123 ns: os.stat gives -1.229999999630138e-07 (-1 s + 0.999999877 s), truncating would give -1.23e-07
    dates = {GOOD_A: -123, GOOD_B: 1_700_000_000_123_456_789, RUNNING: -5_000_000_000}
    for name, ns in dates.items():
        os.utime(sessions / f"{name}.json.gz", ns=(ns, ns))
    index, _ = open_index(sessions)
    refresh(index, scan(sessions), pool=False)
    rows, result = warm_scan(sessions, index)
    assert result.from_image
    by_id = {row.session_id: row for row in rows}
    for name in dates:
        assert by_id[name].loaded and by_id[name].mtime == os.stat(sessions / f"{name}.json.gz").st_mtime
    assert facts(rows) == from_sqlite(sessions, index)


WRITER = """
import sys
from tui.catalog.index.indexer import index_file
from tui.catalog.index.store import open_index
index, notice = open_index(sys.argv[1])
assert index is not None, notice
record = index_file(sys.argv[2], "snapshot")
record["title"] = "Written by the other monitor"
index.write([record])
"""


def test_a_row_written_by_another_monitor_makes_the_image_stale(tmp_path):
    """Another process writes one row (the file unchanged, so only the index tells): the image is not used."""
    sessions, index = indexed(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", WRITER, str(sessions), str(sessions / f"{GOOD_A}.json.gz")],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not image.is_current(index)
    rows, result = warm_scan(sessions, index)
    assert not result.from_image
    assert {row.session_id: row for row in rows}[GOOD_A].title == "Written by the other monitor"
    assert image.save(index) == "" and image.is_current(index)
    rows, result = warm_scan(sessions, index)
    assert result.from_image and {row.session_id: row for row in rows}[GOOD_A].title == "Written by the other monitor"


def test_two_monitors_each_write_the_image_and_each_sees_the_others_rows(tmp_path):
    """Two monitors on one directory (two Index objects, as two processes have): whichever writes the image
    last, a warm start sees every row either wrote."""
    sessions, first = indexed(tmp_path)
    second, _ = open_index(sessions)
    new = "dddddddd-0000-4000-8000-000000000009"
    write_snapshot(sessions, new, session_node(new, "fresh", "New one", started=T0, duration=5), T0 / 1000 + 60)
    assert refresh(second, scan(sessions), pool=False).read == 1  # the second reads the new file
    assert not image.is_current(first)  # (one file read: refresh leaves an existing image stale)
    assert image.keep(second, read=1, last_written=None)  # as the second's browser does after its fill
    assert image.is_current(first) and image.is_current(second)
    rows, result = warm_scan(sessions, first)
    assert result.from_image and {row.session_id: row for row in rows}[new].title == "New one"
    assert facts(rows) == from_sqlite(sessions, first)


def test_a_changed_new_or_deleted_file_is_seen_with_a_current_image(tmp_path):
    sessions, index = indexed(tmp_path)
    write_snapshot(sessions, GOOD_B, session_node(GOOD_B, "bigquery", "Rewritten", started=T0, duration=5,
                                                 tokens=(7, 3), cost=4.5), T0 / 1000 + 50)
    new = "dddddddd-0000-4000-8000-000000000009"
    write_snapshot(sessions, new, session_node(new, "fresh", "New one", started=T0, duration=5), T0 / 1000 + 60)
    (sessions / f"{RUNNING}.json.gz").unlink()
    assert image.is_current(index)  # the index does not know yet: only the listing does
    rows, result = warm_scan(sessions, index)
    assert result.from_image and result.removed == 1
    by_id = {row.session_id: row for row in rows}
    assert not by_id[GOOD_B].loaded and not by_id[new].loaded and RUNNING not in by_id and by_id[GOOD_A].loaded
    assert not image.is_current(index)  # the pruned row changed the index
    done = refresh(index, scan(sessions), pool=False)
    assert done.read == 2 and image.keep(index, read=done.read, last_written=None) and image.is_current(index)
    rows, result = warm_scan(sessions, index)
    by_id = {row.session_id: row for row in rows}
    assert result.from_image and by_id[GOOD_B].title == "Rewritten" and by_id[new].loaded


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flipped":
        data[-10] ^= 0xFF
    elif how == "truncated":
        del data[len(data) // 2:]
    elif how == "garbage":
        data = bytearray(os.urandom(len(data)))
    elif how == "empty":
        data = bytearray()
    path.write_bytes(bytes(data))


def test_a_damaged_image_is_ignored(tmp_path):
    sessions, index = indexed(tmp_path)
    expected = from_sqlite(sessions, index)
    path = image_path(index.path)
    good = path.read_bytes()
    for how in ("flipped", "truncated", "garbage", "empty"):
        path.write_bytes(good)
        damage(path, how)
        assert image.load(index) is None, how
        rows, result = warm_scan(sessions, index, prune=False)
        assert not result.from_image and facts(rows) == expected, how


def forged(index, body: object, format_: str = image.FORMAT) -> bytes:
    """An image with a valid head and digest (keyed with the index's own key) around `body`: a foreign or buggy
    writer that read the index."""
    import hashlib

    import msgspec

    raw = msgspec.msgpack.encode(body)
    created, generation = index.state()
    head = msgspec.msgpack.encode((format_, created, generation, len(raw)))
    digest = hashlib.blake2b(head + raw, key=index.image_key(), digest_size=image.DIGEST_SIZE).digest()
    return image.MAGIC + image._LENGTHS.pack(len(head), digest) + head + raw


def test_a_foreign_image_or_one_holding_wrong_values_is_ignored(tmp_path):
    sessions, index = indexed(tmp_path)
    expected = from_sqlite(sessions, index)
    key = str(sessions.resolve() / f"{GOOD_A}.json.gz")
    path = image_path(index.path)
    good = image.load(index)
    assert good is not None
    for body, format_ in ((good, "aiagent-monitor warm image 0"), ([1, 2], image.FORMAT),
                          ({key: (1, 2)}, image.FORMAT), ({key: 7}, image.FORMAT),
                          ({**good, key: good[key] + ("one too many",)}, image.FORMAT)):
        path.write_bytes(forged(index, body, format_))
        rows, result = warm_scan(sessions, index, prune=False)
        assert not result.from_image and facts(rows) == expected, body


def test_the_image_is_never_read_or_written_through_a_symbolic_link(tmp_path):
    sessions, index = indexed(tmp_path)
    path = image_path(index.path)
    target = tmp_path / "elsewhere"
    os.replace(path, target)
    kept = target.read_bytes()
    path.symlink_to(target)
    assert image.load(index) is None and not image.is_current(index)
    rows, result = warm_scan(sessions, index, prune=False)
    assert not result.from_image
    assert image.save(index) == ""
    assert not path.is_symlink() and path.is_file() and target.read_bytes() == kept  # replaced, not followed
    assert image.is_current(index) and not [p for p in path.parent.iterdir() if ".tmp-" in p.name]
    path.unlink()
    os.mkfifo(path)  # never opened for reading (it would block): ignored, then replaced
    assert image.load(index) is None and not image.is_current(index)
    assert image.save(index) == "" and path.is_file() and image.is_current(index)


def test_the_image_goes_with_a_rebuilt_index(tmp_path):
    sessions, index = indexed(tmp_path)
    path = image_path(index.path)
    assert path.is_file()
    index.close()
    index.path.write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{index.path}{suffix}").unlink(missing_ok=True)
    again, notice = open_index(sessions)
    assert again is not None and "rebuilt" in notice and not path.exists()


def test_an_index_made_before_the_generation_counter_is_migrated(tmp_path):
    """An index of the previous version (no generation table, no triggers) keeps its rows and gets the counter
    on open; a writer bumps it from then on."""
    sessions, index = indexed(tmp_path)
    count = index.count()
    index.close()
    image_path(index.path).unlink()
    conn = sqlite3.connect(index.path)
    with conn:
        for statement in schema.GENERATION_TRIGGERS:
            conn.execute(f"DROP TRIGGER {statement.split()[5]}")
        conn.execute("DROP TABLE generation")
    conn.close()
    again, notice = open_index(sessions)
    assert again is not None and notice == "" and again.count() == count
    rows, result = warm_scan(sessions, again)
    assert not result.from_image and result.filled > 3 and result.error == ""
    assert image.save(again) == "" and image.is_current(again)
    before = again.state()
    again.remove([str(sessions.resolve() / f"{GOOD_A}.json.gz")])
    assert again.state()[1] == before[1] + 1 and not image.is_current(again)


def test_the_image_is_rewritten_once_per_process_then_after_many_reads_or_minutes(tmp_path, monkeypatch):
    """A watcher's trickle of changed files (one read each) does not rewrite the whole image each time."""
    import time

    sessions, index = indexed(tmp_path)
    write_snapshot(sessions, GOOD_B, session_node(GOOD_B, "bigquery", "Rewritten", started=T0, duration=5),
                   T0 / 1000 + 50)
    assert refresh(index, scan(sessions), pool=False).read == 1
    assert not image.is_current(index)  # refresh: one file read, an image there: left stale
    now = time.monotonic()
    assert not image.keep(index, read=1, last_written=now) and not image.is_current(index)
    assert image.keep(index, read=image.MANY_READ, last_written=now) and image.is_current(index)
    index.remove([str(sessions.resolve() / f"{GOOD_B}.json.gz")])
    assert not image.keep(index, read=0, last_written=now)
    assert image.keep(index, read=0, last_written=now - image.REWRITE_EVERY_S) and image.is_current(index)
    assert not image.keep(index, read=0, last_written=None)  # current: nothing to write
