"""A growing v3 ledger is read from where the last read stopped; a half-written line waits for its newline."""

from helpers.builders import ledger_line
from tui.formats.aiagent.ledger_tail import LedgerTail


def test_incremental_reads_hold_back_a_partial_line(tmp_path):
    (tmp_path / "session").mkdir()
    path = tmp_path / "session" / "s.jsonl"
    start = ledger_line("session_start", 1, "s", agentId="grow")
    turn = ledger_line("turn_start", 2, "s", turn=1)
    end = ledger_line("turn_end", 3, "s", turn=1, status="ok", ops=[{"opId": "a", "opIndex": 1, "kind": "tool"}])
    path.write_bytes(start + turn + end[:25])
    tail = LedgerTail(path)
    assert tail.read_new()
    assert tail.offset == len(start + turn) and len(tail.records) == 2
    doc = tail.document()
    assert doc.root.status == "running" and doc.root.turns[0].running
    assert any("held back" in p for p in doc.problems)
    with path.open("ab") as f:
        f.write(end[25:])
    assert tail.read_new()
    assert tail.offset == path.stat().st_size and len(tail.records) == 3
    assert tail.document().root.counts.tool == 1
    assert not tail.read_new()  # nothing new: nothing re-read


def test_a_truncated_ledger_is_read_again_from_the_start(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(ledger_line("session_start", 1, "t") + ledger_line("turn_start", 2, "t", turn=1))
    tail = LedgerTail(path)
    tail.read_new()
    path.write_bytes(ledger_line("session_start", 1, "t", agentId="again"))
    tail.read_new()
    assert len(tail.records) == 1 and tail.document().root.agent_id == "again"
