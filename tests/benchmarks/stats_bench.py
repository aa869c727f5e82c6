"""The `stats` section of run.py (issue 16): stats and search queries over a sessions index of 300,000 rows.

The rows are inserted directly (tests/helpers/indexdb.py: the index's own tables, no indexer), with titles, prompts, tools
and errors for the search table. Measured warm (the file in the page cache, as after the monitor's first query),
each the median of several runs: the per-day aggregate over every row (target < 200 ms), the same by agent, the
whole Stats screen (every grouping and top list) for 7 days and for all time, and a search. The reference is
`SELECT count(*)` over the same rows: the floor of any query that visits them.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: indexdb

from helpers import indexdb  # noqa: E402
from common import Row  # noqa: E402

from tui.catalog.index import search, stats  # noqa: E402

WORDS = [f"{a}{b}" for a in ("net", "disk", "cpu", "mem", "web", "log", "api", "db", "dns", "tls")
         for b in ("check", "alert", "report", "usage", "error", "trend", "audit", "scan", "fix", "plan")]
TOOLS = [f"tool_{i}" for i in range(30)]


def _fill_search(conn: sqlite3.Connection, count: int, seed: int = 2) -> None:
    rng = random.Random(seed)
    rows = []
    for rowid in range(1, count + 1):
        title = " ".join(rng.choice(WORDS) for _ in range(5))
        prompt = title + " " + " ".join(rng.choice(WORDS) for _ in range(20))
        tools = "\n".join(rng.sample(TOOLS, 3))
        rows.append((title, prompt, tools, rowid))
    conn.executemany("UPDATE sessions SET title = ?, prompt = ?, tools = ? WHERE rowid = ?", rows)
    conn.commit()


def _timed(fn, runs: int) -> dict:
    fn()  # warm: the pages in the cache, as after the first query
    values = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        values.append(time.perf_counter() - started)
    values.sort()
    return {"median": statistics.median(values), "min": values[0], "max": values[-1], "n": runs}


def measure(directory: Path, count: int, runs: int) -> dict:
    path = directory / "stats-index.sqlite"
    path.unlink(missing_ok=True)
    conn = indexdb.create(path)
    started = time.perf_counter()
    indexdb.synthetic(conn, count)
    _fill_search(conn, count)
    stats.ensure_indexes(conn)
    conn.execute("ANALYZE")
    conn.commit()
    fill_s = time.perf_counter() - started
    everything, week = stats.TimeRange(), stats.last(7 * 86400)
    where, params = everything.where()
    out = {
        "rows": count,
        "fill_s": fill_s,
        "file_mb": path.stat().st_size / 1e6,
        "count": _timed(lambda: conn.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchall(), runs),
        "day": _timed(lambda: stats.grouped(conn, everything, "day"), runs),
        "agent": _timed(lambda: stats.grouped(conn, everything, "agent"), runs),
        "screen_week": _timed(lambda: stats.collect(conn, week), runs),
        "screen_all": _timed(lambda: stats.collect(conn, everything), runs),
        "search": _timed(lambda: search.search(conn, "diskalert netcheck"), runs),
        "search_hits": len(search.search(conn, "diskalert netcheck")),
    }
    conn.close()
    path.unlink(missing_ok=True)
    return out


def _ms(s: dict) -> str:
    return f"{s['median'] * 1000:.0f} ms ({s['min'] * 1000:.0f}–{s['max'] * 1000:.0f})"


def rows(result: dict) -> list[Row]:
    n = result["rows"]
    size = f"{n:,} sessions"
    floor = f"count(*) {_ms(result['count'])}"

    def ratio(name: str) -> float:
        return result[name]["median"] / max(result["count"]["median"], 1e-9)

    return [
        Row("Stats", "per-day stats query (cost, tokens, sessions, failures), all time", size, _ms(result["day"]),
            floor, ratio("day"), "< 200 ms", result["day"]["median"] < 0.2),
        Row("Stats", "by-agent stats query, all time", size, _ms(result["agent"]), floor, ratio("agent"),
            "< 200 ms", result["agent"]["median"] < 0.2),
        Row("Stats", "the whole Stats screen (4 groupings, 3 top lists), last 7 days", size,
            _ms(result["screen_week"]), floor, ratio("screen_week")),
        Row("Stats", "the whole Stats screen, all time", size, _ms(result["screen_all"]), floor, ratio("screen_all")),
        Row("Stats", f"search (FTS5, 2 words, {result['search_hits']} hits shown)", size, _ms(result["search"]),
            floor, ratio("search")),
    ]
