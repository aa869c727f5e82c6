"""Browser: the app on a directory of many snapshot files: first rows, filled rows, keys while rows fill."""

from __future__ import annotations

import time
from pathlib import Path

from common import HERE, PY, Row, fmt_mb, fmt_s, fmt_spread, run_json, summary
from pty_screen import time_to_text


def measure(folder: Path, files: int, runs: int, first_runs: int, max_seconds: float) -> dict:
    # First rows: the real app in a terminal, until its header counts the listed files (drawn with the rows).
    first = [time_to_text([PY, "-m", "tui", "--sessions-dir", str(folder)], [f"{files:,} sessions".encode()])
             for _ in range(first_runs)]
    got = []
    for _ in range(runs):
        got.append(run_json([PY, str(HERE / "browser_run.py"), str(folder), repr(time.time()), str(max_seconds)],
                            timeout=max_seconds + 120))
    return {
        "runs": got,
        "first_rows_s": summary([s.seconds for s in first]),
        "first_rows_rss_kb": max(s.rss_kb for s in first),
        "first_rows_headless_s": summary([g["first_rows_s"] for g in got]),
        "screenful_filled_s": summary([g["screenful_filled_s"] for g in got]),
        "all_filled_s": [g["all_filled_s"] for g in got],
        "rows": got[0]["rows"],
        "filled": [g["filled"] for g in got],
        "keys": got[-1]["keys"],
        "stall_s": max(max(g["stall_while_filling_s"], g["stall_after_filled_s"]) for g in got),
        "rss_kb": max(g["rss_kb"] for g in got),
    }


def rows(r: dict, files: int, judged: bool) -> list[Row]:
    size = f"{files:,} files"
    out = [Row("Browser", "start → first rows on screen (terminal)", size, fmt_spread(r["first_rows_s"]),
               target="< 1 s" if judged else "", holds=r["first_rows_s"]["median"] < 1.0 if judged else None),
           Row("Browser", "start → first screenful filled in", size, fmt_spread(r["screenful_filled_s"]))]
    done = [t for t in r["all_filled_s"] if t is not None]
    if done:
        rate = r["rows"] / summary(done)["median"]
        out.append(Row("Browser", "start → every row filled in", size, fmt_spread(summary(done)),
                       f"{rate:,.0f} files/s"))
    else:
        out.append(Row("Browser", "start → every row filled in", size,
                       f"not within the time limit ({max(r['filled']):,} of {r['rows']:,} filled)"))
    keys = r["keys"]
    out.append(Row("Browser", f"key → cursor moved while rows fill ({keys['n']} keys)", size,
                   f"p50 {fmt_s(keys['p50'])}, p95 {fmt_s(keys['p95'])}, max {fmt_s(keys['max'])}",
                   f"longest UI stall {fmt_s(r['stall_s'])}",
                   target="answered (< 100 ms)" if judged else "", holds=keys["max"] < 0.1 if judged else None))
    out.append(Row("Browser", "peak memory", size, fmt_mb(r["rss_kb"])))
    return out
