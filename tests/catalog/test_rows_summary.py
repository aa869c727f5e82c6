"""The summary line of the rows shown (tui.catalog.rows_summary): kept by additions and removals, it always
equals a recount; running rows split into running and stale when shown."""

from __future__ import annotations

import random
from pathlib import Path

from tui.catalog.rows_summary import RowsSummary
from tui.catalog.session_row import SessionRow

NOW = 1_800_000_000.0


def row(key: str, status: str, cost=None, tokens=None, mtime=NOW, broken="") -> SessionRow:
    return SessionRow(key, Path(key), "snapshot", key, mtime, 1, loaded=bool(status or broken), broken=broken,
                      status=status, cost=cost, tokens=tokens)


def test_line_counts_and_sums():
    rows = [row("a", "ok", 0.5, 1000), row("b", "failed", 0.25, 500), row("c", "running", 1.0, 20_000),
            row("d", "running", None, None, mtime=NOW - 3600), row("e", "", None, None),
            row("f", "", broken="empty file")]
    summary = RowsSummary.of(rows)
    assert summary.running_and_stale(NOW, 600) == (1, 1)
    assert summary.line(NOW, 600) == "6 sessions · 1 running · 1 stale · 1 failed · 1 broken · $1.7500 · 21.5k tokens"
    assert RowsSummary().line(NOW) == "0 sessions · $0.0000 · 0 tokens"
    assert RowsSummary.of(rows[:1]).line(NOW) == "1 session · $0.5000 · 1000 tokens"


def test_incremental_equals_recount():
    rnd = random.Random(7)
    current: dict[str, SessionRow] = {}
    summary = RowsSummary()
    for step in range(2000):
        key = f"k{rnd.randrange(50)}"
        new = row(key, rnd.choice(["ok", "failed", "running", ""]), rnd.choice([None, 0.1234, 2.5]),
                  rnd.choice([None, 10, 12345]), mtime=NOW - rnd.choice([0, 5000]))
        old = current.get(key)
        if old is not None:
            summary.remove(old)
        if rnd.random() < 0.2:
            current.pop(key, None)
        else:
            current[key] = new
            summary.add(new)
    fresh = RowsSummary.of(current.values())
    assert summary.line(NOW, 600) == fresh.line(NOW, 600)
    assert (summary.sessions, summary.failed, summary.tokens, summary.running) == \
        (fresh.sessions, fresh.failed, fresh.tokens, fresh.running)
    assert abs(summary.cost - fresh.cost) < 1e-9
