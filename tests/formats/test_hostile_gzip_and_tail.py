"""Hostile gzip files and a ledger line that never ends (issue 12, point 14). The numbers (RSS, CPU seconds,
bytes read) are measured by tests/benchmarks/hostile_files_bench.py; these tests check what holds without timing.

- A valid gzip with `FF FF FF FF` appended states a 4 GiB size in its "trailer": the buffer used to be sized from
  it (1 GiB of RSS under the default cap). Measured here with tracemalloc, on a real file.
- A million gzip members, empty or tiny, used to cost 6 s of CPU per load: members are capped by --max-bytes.
- A ledger line that never ends used to be read again on every change (400 MB appended in steps read 8.6 GB) and
  ignored --max-bytes. Measured here with the process's own read counter (/proc/self/io), on a real file.
"""

from __future__ import annotations

import gzip
import os
import tracemalloc
from pathlib import Path

import pytest

from helpers.builders import ledger_line
from helpers.corpus import op, session, snapshot_bytes, turn
from tui.formats.aiagent.ledger_tail import LedgerTail
from tui.formats.load import load
from tui.inputs import files as source_bytes
from tui.inputs.files import LoadError, gunzip, max_gzip_members, read_source
from tui.payloads.refs import PayloadError, read_ref

MiB = 1024 * 1024
EMPTY_MEMBER = gzip.compress(b"", mtime=0)  # 20 bytes: what `gzip < /dev/null` writes
TINY_MEMBER = gzip.compress(b" ", mtime=0)


@pytest.fixture
def cap():
    """Set --max-bytes for one test."""
    before = source_bytes.document_limit()
    yield source_bytes.set_document_limit
    source_bytes.set_document_limit(before)


def snapshot_gz() -> bytes:
    return gzip.compress(snapshot_bytes(session(turn(1, op("tool", "ls")), agent="small")), mtime=0)


def test_a_lying_gzip_trailer_does_not_size_the_buffer(tmp_path):
    path = tmp_path / "liar.json.gz"
    path.write_bytes(snapshot_gz() + b"\xff\xff\xff\xff")  # trailing garbage, ignored as gzip(1) does
    tracemalloc.start()
    try:
        data = read_source(str(path), 256 * MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data.startswith(b'{"version":2')
    assert peak < 4 * MiB, f"{peak:,} bytes allocated for a {path.stat().st_size}-byte file"  # was the 256 MiB cap
    assert load(str(path)).root.agent_id == "small"


def test_many_tiny_gzip_members_are_refused_by_the_cap(tmp_path, cap):
    cap(16 * MiB)
    assert max_gzip_members(16 * MiB) == 1024
    for name, member in (("tiny", TINY_MEMBER), ("empty", EMPTY_MEMBER)):
        path = tmp_path / f"{name}.json.gz"
        path.write_bytes(snapshot_gz() + member * 5000)
        with pytest.raises(LoadError, match="more than 1,024 gzip members"):
            read_source(str(path))
        path.write_bytes(snapshot_gz() + member * 500)  # a few hundred members: fine
        assert load(str(path)).root.agent_id == "small"


def test_many_members_in_a_payload_are_refused(tmp_path, cap):
    cap(16 * MiB)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "many.gz").write_bytes(gzip.compress(b'{"a":1}') + TINY_MEMBER * 5000)
    with pytest.raises(PayloadError, match="more than 1,024 gzip members"):
        read_ref({"path": "p/many.gz", "compression": "gzip"}, tmp_path)
    (tmp_path / "p" / "few.gz").write_bytes(gzip.compress(b'{"a":1}') + EMPTY_MEMBER * 900 + gzip.compress(b"2"))
    assert read_ref({"path": "p/few.gz", "compression": "gzip"}, tmp_path) == b'{"a":1}2'


def test_empty_members_between_real_ones_are_skipped():
    data = gzip.compress(b"[1,") + EMPTY_MEMBER * 1000 + gzip.compress(b"2]") + EMPTY_MEMBER * 3
    assert gunzip(data, "x") == b"[1,2]"


def _bytes_read() -> int:
    with open("/proc/self/io", "rb") as f:
        return int(next(line for line in f if line.startswith(b"rchar:")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs Linux's per-process read counter")
def test_a_line_that_never_ends_is_not_read_again_on_every_change(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(ledger_line("session_start", 1, "s") + b'{"recordType":"turn_start","text":"')
    tail = LedgerTail(path)
    tail.read_new()
    before = _bytes_read()
    step = b"x" * (64 * 1024)
    for _ in range(100):  # 6.4 MB appended in 100 steps, never a newline
        with path.open("ab") as f:
            f.write(step)
        assert not tail.read_new()
    read = _bytes_read() - before
    grown = 100 * len(step)
    assert read < 3 * grown, f"{read:,} bytes read for {grown:,} appended"  # was ~50 times as much
    assert len(tail.records) == 1 and any("held back" in p for p in tail.document().problems)
    with path.open("ab") as f:
        f.write(b'"}\n' + ledger_line("turn_start", 3, "s", turn=1))
    assert tail.read_new() and [r["recordType"] for r in tail.records] == ["session_start", "turn_start",
                                                                           "turn_start"]
    assert not any("held back" in p for p in tail.document().problems)


def test_a_pending_line_longer_than_max_bytes_is_skipped(tmp_path, cap):
    cap(1 * MiB)
    path = tmp_path / "s.jsonl"
    path.write_bytes(ledger_line("session_start", 1, "s"))
    tail = LedgerTail(path)
    assert tail.read_new()
    with path.open("ab") as f:
        f.write(b'{"recordType":"turn_start","text":"')
    for _ in range(3):
        with path.open("ab") as f:
            f.write(b"y" * (512 * 1024))
        tail.read_new()
    problems = tail.document().problems
    assert any("longer than 1,048,576 bytes (--max-bytes): skipped" in p for p in problems), problems
    with path.open("ab") as f:
        f.write(b"y" * MiB + b'"}\n' + ledger_line("turn_start", 2, "s", turn=1))
    assert tail.read_new()
    assert [r["recordType"] for r in tail.records] == ["session_start", "turn_start"]
    assert tail.records[1]["seq"] == 2  # the record after the skipped line, not the skipped line itself
    assert any("skipped" in p for p in tail.document().problems)  # still said: that line is lost


def test_a_replaced_ledger_is_read_from_the_start_after_a_pending_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(ledger_line("session_start", 1, "s") + b"x" * 70_000)  # a long unfinished line
    tail = LedgerTail(path)
    tail.read_new()
    path.write_bytes(ledger_line("session_start", 1, "s", agentId="new"))  # shorter: truncated or replaced
    tail.read_new()
    assert tail.document().root.agent_id == "new"


def test_cli_opened_gzip_with_lying_trailer_exits_fine(tmp_path):
    from helpers.corpusfix import run_cli

    path = Path(tmp_path / "liar.json.gz")
    path.write_bytes(snapshot_gz() + b"\xff\xff\xff\xff")
    result = run_cli("dump", "--json", str(path))
    assert result.returncode == 0, result.stderr
