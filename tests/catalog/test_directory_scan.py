"""scan() and fill_row() over a sessions directory with good, broken and irrelevant files."""

from __future__ import annotations

import os

import orjson

from tui.catalog.scan import scan
from tui.catalog.session_row import RowKind, fill_row, ledger_parent, matches, row_from_entry
from helpers.scanfixtures import CHILD_LEDGER, EMPTY, GOOD_A, GOOD_B, NOT_JSON, ROOT_LEDGER, RUNNING, T0, TRUNCATED, iso, ledger_records, make_sessions_dir, orphaned_child_dir


def test_scan_lists_sessions_newest_first_and_skips_tmp_and_children(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = scan(d)
    ids = [row.session_id for row in rows]
    assert ids == [GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER, EMPTY, TRUNCATED, NOT_JSON]
    assert all(".tmp-" not in row.key for row in rows)
    by_id = {row.session_id: row for row in rows}
    assert by_id[GOOD_A].kind == RowKind.SNAPSHOT and by_id[ROOT_LEDGER].kind == RowKind.LEDGER
    assert by_id[GOOD_A].key == str(d.resolve() / f"{GOOD_A}.json.gz") == str(by_id[GOOD_A].path)
    assert by_id[EMPTY].broken == "empty file (0 bytes)" and by_id[EMPTY].loaded
    assert not by_id[GOOD_A].loaded and by_id[GOOD_A].status == ""


def test_scan_of_missing_directory_is_empty(tmp_path):
    assert scan(tmp_path / "nope") == []
    (tmp_path / "file").write_text("x")
    assert scan(tmp_path / "file") == []


def test_scan_leaves_child_detection_to_fill_row_for_many_ledgers(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = scan(d, peek_ledgers_max=0)
    child = next(row for row in rows if row.session_id == CHILD_LEDGER)
    assert child.kind == RowKind.LEDGER
    assert fill_row(child).kind == RowKind.CHILD and child.loaded and not child.broken
    root = next(row for row in rows if row.session_id == ROOT_LEDGER)
    assert fill_row(root).kind == RowKind.LEDGER


def test_fill_row_summaries(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = {row.session_id: fill_row(row) for row in scan(d)}
    a = rows[GOOD_A]
    assert a.loaded and not a.broken
    assert (a.agent, a.title, a.status) == ("web-research", "Cheapest flight to Athens", "ok")
    assert a.started_at == T0 - 100_000 and a.duration_ms == 95_000
    assert a.turns == 1 and a.tokens == 1500  # user turns: turn 0 (init) is not one and a.cost == 0.5 and a.mismatch
    b = rows[GOOD_B]
    assert b.status == "failed" and not b.mismatch
    assert "\x1b" not in b.title and "\\x1b" in b.title  # control characters made visible
    r = rows[RUNNING]
    # no end: its duration is known up to its last activity (the newest time in its tree), never up to now
    assert r.status == "running" and r.duration_ms == 30 and r.tokens == 42_000
    led = rows[ROOT_LEDGER]
    assert led.kind == RowKind.LEDGER and led.agent == "ledger-root" and led.status == "ok"
    assert led.tokens == 10 and led.cost == 0.001 and led.duration_ms == 5000


def test_fill_row_broken_files_never_raise(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = {row.session_id: fill_row(row) for row in scan(d)}
    assert rows[EMPTY].broken == "empty file (0 bytes)"
    assert "truncated gzip" in rows[TRUNCATED].broken
    assert rows[NOT_JSON].broken.startswith("not JSON")
    gone = row_from_entry(d / "gone.json.gz", 0.0, 10, RowKind.SNAPSHOT)
    assert fill_row(gone).broken.startswith("no such file")
    (d / "list.json").write_bytes(b"[1, 2]")
    assert "expected a snapshot object" in fill_row(row_from_entry(d / "list.json", 0.0, 6, RowKind.SNAPSHOT)).broken


def test_ledger_parent_reads_only_the_first_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_bytes(ledger_records("s2", "a", "s1"))
    assert ledger_parent(p) == "s1"
    p.write_bytes(ledger_records("s1", "a", None))
    assert ledger_parent(p) == ""
    p.write_bytes(b'{"recordType":"session_start","sessionId":"s')  # half-written first line
    assert ledger_parent(p) is None
    assert ledger_parent(tmp_path / "missing.jsonl") is None


def test_a_child_ledger_without_parent_session_id_is_no_root_row(tmp_path):
    d = orphaned_child_dir(tmp_path / "sessions")
    rows = scan(d)
    assert [row.session_id for row in rows] == ["rrrr-0001"]
    row = fill_row(rows[0])
    assert row.kind == RowKind.LEDGER and row.agent == "boss" and row.tokens == 10  # the child's 7 + 3 tokens count
    many = {row.session_id: row for row in scan(d, peek_ledgers_max=0)}  # too many to peek: fill_row decides
    assert fill_row(many["kkkk-0002"]).kind == RowKind.CHILD and fill_row(many["rrrr-0001"]).kind == RowKind.LEDGER


def test_ledger_parent_without_parent_session_id(tmp_path):
    p = tmp_path / "x.jsonl"

    def start(**fields) -> str | None:
        record = {"version": 3, "recordType": "session_start", "seq": 1, "ts": iso(T0), "sessionId": "me"}
        record.update(fields)
        p.write_bytes(orjson.dumps(record) + b"\n")
        return ledger_parent(p)

    assert start(originId="me", headendId="cli") == ""
    assert start(originId="root", headendId="sub-agent") == "root"
    assert start(headendId="tool_output") == "?" and start(originId="me", headendId="history_compaction") == "?"
    assert start(originId="earlier", headendId="web") == ""  # a person's entry point is a root whatever its origin
    assert start(originId="root") == "root" and start(originId="root", headendId="new-headend") == "root"
    assert start() == "" and start(originId="me", headendId=7) == ""


def test_row_from_entry_and_matches(tmp_path):
    row = row_from_entry(tmp_path / "abc.json.gz", 12.5, 3, RowKind.SNAPSHOT)
    assert row.session_id == "abc" and row.started_or_mtime_ms == 12_500 and not row.loaded
    assert row_from_entry(tmp_path / "x.jsonl", 0, 1, RowKind.LEDGER).session_id == "x"
    row.agent, row.title, row.status = "web-research", "Flights", "ok"
    assert matches(row, "web") and matches(row, "flig") and matches(row, "abc") and matches(row, "ok")
    assert not matches(row, "failed")


def test_scan_keys_are_resolved_like_the_watcher_paths(tmp_path):
    d = make_sessions_dir(tmp_path / "real")
    (tmp_path / "link").symlink_to(d)
    rows = scan(tmp_path / "link")
    assert rows and all(row.key.startswith(str(d.resolve()) + os.sep) for row in rows)
