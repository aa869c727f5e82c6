"""A sessions directory of many plain sessions (costs 0.01 .. N/100 $, the most expensive the oldest), for the tests
of where the browser's cursor and sort go (issue 30: a new sort shows its top; --sort, --filter; kept places)."""

from __future__ import annotations

from pathlib import Path

from helpers.scanfixtures import T0, session_node, write_snapshot


def many_sessions(base: Path, count: int = 60) -> Path:
    """`count` sessions s000.., s000 the newest and cheapest; agent `even` or `odd` by number."""
    base.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        trace = f"s{n:03d}-0000-0000-0000-000000000000"
        node = session_node(trace, "even" if n % 2 == 0 else "odd", f"task {n}", started=T0 - n * 60_000,
                            duration=1000, cost=(n + 1) / 100)
        write_snapshot(base, trace, node, T0 / 1000 - n * 60)
    return base
