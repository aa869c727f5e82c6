"""Index: the sessions index on a big directory (tui.catalog.index): warm start against the listing, cold
indexing on the process pool against the browser's fill before the index, first rows against a 1-file directory,
and the index file's size per 100,000 sessions. Every measure runs in a fresh child (index_run.py)."""

from __future__ import annotations

import os
import shutil
import statistics
from pathlib import Path

from common import HERE, PY, Row, fmt_mb, fmt_s, fmt_spread, ratio_row, run_json, summary
from pty_screen import time_to_text


def _run(mode: str, folder: Path) -> dict:
    return run_json([PY, str(HERE / "index_run.py"), mode, str(folder)], timeout=3600)


def measure(folder: Path, one_file: Path, files: int, runs: int, cache: Path) -> dict:
    """`cache` becomes $XDG_CACHE_HOME of every child (emptied before the cold run)."""
    saved = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache)
    try:
        shutil.rmtree(cache, ignore_errors=True)
        today = _run("today", folder)
        cold = _run("cold", folder)
        lists, warms, ratios = [], [], []
        for _ in range(runs):
            listed, warm = _run("list", folder), _run("warm", folder)
            lists.append(listed["seconds"])
            warms.append(warm["seconds"])
            ratios.append(warm["seconds"] / listed["seconds"])
            assert warm["unfilled"] == 0, warm
        _run("cold", one_file)  # its index too: both first-rows runs start warm
        big, small, bare, first_ratios, bare_ratios = [], [], [], [], []
        marker = [f"{files:,} sessions".encode()]
        for _ in range(runs):
            b = time_to_text([PY, "-m", "tui", "--sessions-dir", str(folder)], marker)
            n = time_to_text([PY, "-m", "tui", "--no-index", "--sessions-dir", str(folder)], marker)
            s = time_to_text([PY, "-m", "tui", "--sessions-dir", str(one_file)], [b"1 session"])
            big.append(b.seconds)
            bare.append(n.seconds)
            small.append(s.seconds)
            first_ratios.append(b.seconds / s.seconds)
            bare_ratios.append(n.seconds / s.seconds)
    finally:
        if saved is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = saved
    return {"files": files, "today": today, "cold": cold, "list_s": summary(lists), "warm_s": summary(warms),
            "warm_ratios": ratios, "first_big_s": summary(big), "first_one_s": summary(small),
            "first_ratios": first_ratios, "first_no_index_s": summary(bare), "first_no_index_ratios": bare_ratios}


def rows(r: dict) -> list[Row]:
    size = f"{r['files']:,} files"
    today_rate = r["today"]["read"] / r["today"]["seconds"]
    cold_rate = r["cold"]["read"] / r["cold"]["seconds"]
    per_100k = r["cold"]["index_bytes"] / max(1, r["cold"]["rows"]) * 100_000
    return [
        ratio_row("Index", "warm start: every row filled from the index and sorted by cost", size, r["warm_s"],
                  "directory listing", r["list_s"], 1.5, target_text="≤ 1.5× the listing", ratios=r["warm_ratios"]),
        Row("Index", f"cold indexing on {r['cold']['workers']} cores (scan + read + write)", size,
            f"{fmt_s(r['cold']['seconds'])}, {cold_rate:,.0f} files/s",
            f"today's fill (one thread, {r['today']['read']:,} files): {today_rate:,.0f} files/s",
            cold_rate / today_rate, "≥ 2.5× today's rate", cold_rate / today_rate >= 2.5),
        ratio_row("Index", "start → first rows on screen (terminal, warm index)", size, r["first_big_s"],
                  "1-file directory", r["first_one_s"], 1.5, target_text="≤ 1.5× a 1-file directory",
                  ratios=r["first_ratios"]),
        ratio_row("Index", "start → first rows on screen (terminal, --no-index)", size, r["first_no_index_s"],
                  "1-file directory", r["first_one_s"], None, ratios=r["first_no_index_ratios"]),
        Row("Index", "index file size", size, fmt_mb(r["cold"]["index_bytes"] / 1024),
            f"{fmt_mb(per_100k / 1024)} per 100,000 sessions"),
    ]
