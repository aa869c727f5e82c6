"""scan() and fill_row() over a sessions directory with good, broken and irrelevant files."""

from __future__ import annotations

import gzip
import os
from datetime import datetime, timezone
from pathlib import Path

import orjson

from tui.model.session_row import CHILD, LEDGER, SNAPSHOT, fill_row, ledger_parent, matches, row_from_entry
from tui.sources.directory_scan import scan

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms

GOOD_A = "aaaaaaaa-0000-4000-8000-000000000001"
GOOD_B = "bbbbbbbb-0000-4000-8000-000000000002"
RUNNING = "cccccccc-0000-4000-8000-000000000003"
ROOT_LEDGER = "dddddddd-0000-4000-8000-000000000004"
CHILD_LEDGER = "dddddddd-0000-4000-8000-000000000005"
EMPTY = "eeeeeeee-0000-4000-8000-000000000006"
TRUNCATED = "ffffffff-0000-4000-8000-000000000007"
NOT_JSON = "99999999-0000-4000-8000-000000000008"


def session_node(trace_id: str, agent: str, title: str, *, started: int, duration: int | None, success=True,
                 tokens=(100, 50), cost=0.0123, stored_cost: float | None = None) -> dict:
    llm_op = {
        "opId": "op-1", "kind": "llm", "startedAt": started + 10, "endedAt": started + 20, "status": "ok",
        "attributes": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
        "accounting": [{"type": "llm", "tokens": {"inputTokens": tokens[0], "outputTokens": tokens[1]},
                        "costUsd": cost}],
    }
    node = {
        "id": f"uid-{trace_id[:8]}", "traceId": trace_id, "agentId": agent, "callPath": f"cli:{agent}",
        "sessionTitle": title, "startedAt": started,
        "turns": [
            {"id": "t0", "index": 0, "startedAt": started, "endedAt": started + 1,
             "attributes": {"system": True, "label": "init"}, "ops": []},
            {"id": "t1", "index": 1, "startedAt": started + 5, "endedAt": started + 30, "ops": [llm_op]},
        ],
    }
    if duration is not None:
        node["endedAt"] = started + duration
        node["success"] = success
    if stored_cost is not None:
        node["totals"] = {"tokensIn": tokens[0], "tokensOut": tokens[1], "tokensCacheRead": 0, "tokensCacheWrite": 0,
                          "costUsd": stored_cost, "toolsRun": 0, "agentsRun": 1}
    return node


def write_snapshot(folder: Path, trace_id: str, node: dict, mtime_s: float) -> Path:
    path = folder / f"{trace_id}.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps({"version": 1, "reason": "final", "opTree": node})))
    os.utime(path, (mtime_s, mtime_s))
    return path


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ledger_records(session_id: str, agent: str, parent: str | None, status: str = "ok", started: int = T0) -> bytes:
    start = {"version": 3, "recordType": "session_start", "seq": 1, "ts": iso(started),
             "originId": parent or session_id, "sessionId": session_id, "agentId": agent, "callPath": f"cli:{agent}",
             "headendId": "cli", "attributes": {"ledgerPath": f"session/{session_id}.jsonl"}}
    if parent:
        start["parentSessionId"] = parent
    records = [
        start,
        {"version": 3, "recordType": "turn_start", "seq": 2, "ts": iso(started + 1000),
         "originId": start["originId"], "sessionId": session_id, "turn": 1},
        {"version": 3, "recordType": "turn_end", "seq": 3, "ts": iso(started + 4000),
         "originId": start["originId"], "sessionId": session_id, "turn": 1, "status": "ok",
         "ops": [{"opId": "o1", "opIndex": 1, "kind": "llm", "status": "ok", "startedAt": iso(started + 1000),
                  "endedAt": iso(started + 4000), "accounting": {"tokensIn": 7, "tokensOut": 3,
                                                                        "costUsd": 0.001}}]},
        {"version": 3, "recordType": "session_summary", "seq": 4, "ts": iso(started + 5000),
         "originId": start["originId"], "sessionId": session_id, "status": status},
    ]
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def make_sessions_dir(base: Path) -> Path:
    """A sessions directory with every kind of entry the browser must handle.

    Newest first both by file mtime and by start time: GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER, then the broken ones.
    """
    base.mkdir(parents=True, exist_ok=True)
    (base / "session").mkdir(exist_ok=True)
    now = T0 / 1000
    write_snapshot(base, GOOD_A, session_node(GOOD_A, "web-research", "Cheapest flight to Athens",
                                              started=T0 - 100_000, duration=95_000, tokens=(1200, 300),
                                              cost=0.5, stored_cost=0.75), now)
    write_snapshot(base, GOOD_B, session_node(GOOD_B, "bigquery", "Monthly revenue \x1b[31mreport",
                                              started=T0 - 200_000, duration=2_000, success=False, tokens=(10, 5),
                                              cost=0.001), now - 100)
    write_snapshot(base, RUNNING, session_node(RUNNING, "chat", "", started=T0 - 300_000, duration=None,
                                               tokens=(40_000, 2_000), cost=2.0), now - 200)
    root = base / "session" / f"{ROOT_LEDGER}.jsonl"
    root.write_bytes(ledger_records(ROOT_LEDGER, "ledger-root", None, started=T0 - 350_000))
    child = base / "session" / f"{CHILD_LEDGER}.jsonl"
    child.write_bytes(ledger_records(CHILD_LEDGER, "ledger-child", ROOT_LEDGER, started=T0 - 349_000))
    for path, offset in ((root, 300), (child, 290)):
        os.utime(path, (now - offset, now - offset))
    (base / f"{EMPTY}.json.gz").write_bytes(b"")
    full = gzip.compress(orjson.dumps({"version": 1, "opTree": session_node(TRUNCATED, "x", "y", started=T0,
                                                                              duration=1)}))
    (base / f"{TRUNCATED}.json.gz").write_bytes(full[: len(full) // 2])
    (base / f"{NOT_JSON}.json").write_bytes(b"hello, this is not json\n")
    (base / f"{GOOD_A}.json.gz.tmp-1-2").write_bytes(b"\x1f\x8b partial")
    (base / "notes.txt").write_text("ignored")
    for name, offset in ((EMPTY, 400), (TRUNCATED, 500)):
        os.utime(base / f"{name}.json.gz", (now - offset, now - offset))
    os.utime(base / f"{NOT_JSON}.json", (now - 600, now - 600))
    return base


def test_scan_lists_sessions_newest_first_and_skips_tmp_and_children(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = scan(d)
    ids = [row.session_id for row in rows]
    assert ids == [GOOD_A, GOOD_B, RUNNING, ROOT_LEDGER, EMPTY, TRUNCATED, NOT_JSON]
    assert all(".tmp-" not in row.key for row in rows)
    by_id = {row.session_id: row for row in rows}
    assert by_id[GOOD_A].kind == SNAPSHOT and by_id[ROOT_LEDGER].kind == LEDGER
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
    assert child.kind == LEDGER
    assert fill_row(child).kind == CHILD and child.loaded and not child.broken
    root = next(row for row in rows if row.session_id == ROOT_LEDGER)
    assert fill_row(root).kind == LEDGER


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
    assert r.status == "running" and r.duration_ms is None and r.tokens == 42_000
    led = rows[ROOT_LEDGER]
    assert led.kind == LEDGER and led.agent == "ledger-root" and led.status == "ok"
    assert led.tokens == 10 and led.cost == 0.001 and led.duration_ms == 5000


def test_fill_row_broken_files_never_raise(tmp_path):
    d = make_sessions_dir(tmp_path / "sessions")
    rows = {row.session_id: fill_row(row) for row in scan(d)}
    assert rows[EMPTY].broken == "empty file (0 bytes)"
    assert "truncated gzip" in rows[TRUNCATED].broken
    assert rows[NOT_JSON].broken.startswith("not JSON")
    gone = row_from_entry(d / "gone.json.gz", 0.0, 10, SNAPSHOT)
    assert fill_row(gone).broken.startswith("no such file")
    (d / "list.json").write_bytes(b"[1, 2]")
    assert "expected a snapshot object" in fill_row(row_from_entry(d / "list.json", 0.0, 6, SNAPSHOT)).broken


def test_ledger_parent_reads_only_the_first_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_bytes(ledger_records("s2", "a", "s1"))
    assert ledger_parent(p) == "s1"
    p.write_bytes(ledger_records("s1", "a", None))
    assert ledger_parent(p) == ""
    p.write_bytes(b'{"recordType":"session_start","sessionId":"s')  # half-written first line
    assert ledger_parent(p) is None
    assert ledger_parent(tmp_path / "missing.jsonl") is None


def orphaned_child_dir(base: Path) -> Path:
    """A root ledger and a sub-agent ledger written without parentSessionId (older producers: ~3% of them); the
    root's op lists the child in childSessions, the child's session_start says headendId sub-agent."""
    (base / "session").mkdir(parents=True)
    root_id, kid = "rrrr-0001", "kkkk-0002"
    (base / "session" / f"{root_id}.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [
        {"version": 3, "recordType": "session_start", "seq": 1, "ts": iso(T0), "originId": root_id,
         "sessionId": root_id, "agentId": "boss", "callPath": "cli:boss", "headendId": "cli"},
        {"version": 3, "recordType": "turn_end", "seq": 2, "ts": iso(T0 + 3000), "originId": root_id,
         "sessionId": root_id, "turn": 1, "status": "ok",
         "ops": [{"opId": "s1", "opIndex": 1, "kind": "session", "status": "ok",
                  "childSessions": [{"sessionId": kid, "originId": root_id, "parentSessionId": root_id,
                                     "parentOpId": "s1", "ledgerPath": f"session/{kid}.jsonl", "status": "ok"}]}]},
        {"version": 3, "recordType": "session_summary", "seq": 3, "ts": iso(T0 + 4000), "originId": root_id,
         "sessionId": root_id, "status": "ok"},
    ]))
    child = ledger_records(kid, "kid", None, started=T0 + 1000).replace(b'"originId":"kkkk-0002"',
                                                                        b'"originId":"rrrr-0001"')
    (base / "session" / f"{kid}.jsonl").write_bytes(child.replace(b'"headendId":"cli"', b'"headendId":"sub-agent"'))
    return base


def test_a_child_ledger_without_parent_session_id_is_no_root_row(tmp_path):
    d = orphaned_child_dir(tmp_path / "sessions")
    rows = scan(d)
    assert [row.session_id for row in rows] == ["rrrr-0001"]
    row = fill_row(rows[0])
    assert row.kind == LEDGER and row.agent == "boss" and row.tokens == 10  # the child's 7 + 3 tokens count
    many = {row.session_id: row for row in scan(d, peek_ledgers_max=0)}  # too many to peek: fill_row decides
    assert fill_row(many["kkkk-0002"]).kind == CHILD and fill_row(many["rrrr-0001"]).kind == LEDGER


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
    row = row_from_entry(tmp_path / "abc.json.gz", 12.5, 3, SNAPSHOT)
    assert row.session_id == "abc" and row.started_or_mtime_ms == 12_500 and not row.loaded
    assert row_from_entry(tmp_path / "x.jsonl", 0, 1, LEDGER).session_id == "x"
    row.agent, row.title, row.status = "web-research", "Flights", "ok"
    assert matches(row, "web") and matches(row, "flig") and matches(row, "abc") and matches(row, "ok")
    assert not matches(row, "failed")


def test_scan_keys_are_resolved_like_the_watcher_paths(tmp_path):
    d = make_sessions_dir(tmp_path / "real")
    (tmp_path / "link").symlink_to(d)
    rows = scan(tmp_path / "link")
    assert rows and all(row.key.startswith(str(d.resolve()) + os.sep) for row in rows)
