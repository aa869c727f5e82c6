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
        todays, colds, cold_ratios = [], [], []
        for _ in range(runs):  # today's fill and cold indexing back to back, both with the files in the page cache
            page_cache(folder)
            today = _run("today", folder)
            shutil.rmtree(cache, ignore_errors=True)
            cold = _run("cold", folder)
            todays.append(today)
            colds.append(cold)
            cold_ratios.append(_rate(cold, "rows_seconds") / _rate(today, "seconds"))
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
    return {"files": files, "todays": todays, "colds": colds, "cold_ratios": cold_ratios, "list_s": summary(lists), "warm_s": summary(warms),
            "warm_ratios": ratios, "first_big_s": summary(big), "first_one_s": summary(small),
            "first_ratios": first_ratios, "first_no_index_s": summary(bare), "first_no_index_ratios": bare_ratios}


def page_cache(folder: Path) -> None:
    """Read every file of `folder` once: both fills are then measured on files in the page cache (their CPU, not
    the disk's speed, which varies between runs as the kernel reclaims cached pages)."""
    with os.scandir(folder) as it:
        for entry in it:
            if entry.is_file(follow_symlinks=False):
                with open(entry.path, "rb") as fh:
                    while fh.read(1 << 20):
                        pass


def _rate(run: dict, key: str) -> float:
    return run["read"] / run[key]


def rows(r: dict) -> list[Row]:
    size = f"{r['files']:,} files"
    today_rates = summary([_rate(t, "seconds") for t in r["todays"]])
    rows_s = summary([c["rows_seconds"] for c in r["colds"]])
    all_s = summary([c["seconds"] for c in r["colds"]])
    cold_rate = r["colds"][0]["read"] / rows_s["median"]
    ratio = statistics.median(r["cold_ratios"])
    last = r["colds"][-1]
    per_100k = last["index_bytes"] / max(1, last["rows"]) * 100_000
    return [
        ratio_row("Index", "warm start: every row filled from the index and sorted by cost", size, r["warm_s"],
                  "directory listing", r["list_s"], 1.5, target_text="≤ 1.5× the listing", ratios=r["warm_ratios"]),
        Row("Index", f"cold indexing on {last['workers']} cores (scan + read + write), every row in the index",
            size, f"{fmt_spread(rows_s, fmt_s)}, {cold_rate:,.0f} files/s; the warm image written after it: "
                  f"{fmt_spread(all_s, fmt_s)} in all",
            f"today's fill (one thread, {r['todays'][0]['read']:,} files): "
            f"{today_rates['median']:,.0f} files/s ({today_rates['min']:,.0f}–{today_rates['max']:,.0f})",
            ratio, "≥ 2.5× today's rate", ratio >= 2.5),
        ratio_row("Index", "start → first rows on screen (terminal, warm index)", size, r["first_big_s"],
                  "1-file directory", r["first_one_s"], 1.5, target_text="≤ 1.5× a 1-file directory",
                  ratios=r["first_ratios"]),
        ratio_row("Index", "start → first rows on screen (terminal, --no-index)", size, r["first_no_index_s"],
                  "1-file directory", r["first_one_s"], None, ratios=r["first_no_index_ratios"]),
        Row("Index", "index file size", size, fmt_mb(last["index_bytes"] / 1024),
            f"{fmt_mb(per_100k / 1024)} per 100,000 sessions"),
    ]
