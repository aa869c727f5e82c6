"""First screen: the real app in a pseudo-terminal, from start to a drawn session screen with its totals, against
the parse floor and an empty textual app; then (headless) how keys, scrolling and drill-down respond."""

from __future__ import annotations

from pathlib import Path

from common import HERE, PY, Row, fmt_mb, fmt_s, ratio_row, run_json, run_timed, summary
from open_bench import FLOOR_CODE
from pty_screen import time_to_text

# What the session screen draws once its totals panel and tree are on screen.
MARKERS = [b"cache write", b"opTree"]
# Textual's own start-up: an app that draws the same two words and nothing else.
EMPTY_APP = ("from textual.app import App\nfrom textual.widgets import Static\n"
             "class Empty(App):\n    def compose(self):\n        yield Static('cache write opTree')\nEmpty().run()\n")


def measure(path: Path, runs: int) -> dict:
    samples: dict[str, list] = {"app": [], "floor": [], "textual": []}
    for _ in range(runs):
        samples["app"].append(time_to_text([PY, "-m", "tui", str(path)], MARKERS))
        samples["floor"].append(run_timed([[PY, "-c", FLOOR_CODE, str(path)]]))
        samples["textual"].append(time_to_text([PY, "-c", EMPTY_APP], MARKERS))
    out = {}
    for name, got in samples.items():
        out[name] = {"seconds": summary([s.seconds for s in got]), "rss_kb": summary([s.rss_kb for s in got]),
                     "per_round": [s.seconds for s in got]}
    return out


def navigate(path: Path) -> dict:
    return run_json([PY, str(HERE / "screen_nav.py"), str(path)], timeout=600)


def rows(results: dict[int, dict], nav: dict[int, dict], target_ops: int, nav_ops: int) -> list[Row]:
    out: list[Row] = []
    for ops, r in sorted(results.items()):
        size = f"{ops:,} ops"
        judged = ops == target_ops
        ratios = [a / b for a, b in zip(r["app"]["per_round"], r["floor"]["per_round"])]
        limit = 2.0 if judged else 1.0 if ops == nav_ops else None  # 100,000 ops: up before a plain parse is done
        out.append(ratio_row("First screen", "start → session screen with totals", size, r["app"]["seconds"],
                             "floor", r["floor"]["seconds"], limit,
                             target_text=f"≤ {limit:g}× floor" if limit else "", ratios=ratios))
        ratios = [a / b for a, b in zip(r["app"]["per_round"], r["textual"]["per_round"])]
        out.append(ratio_row("First screen", "start → session screen with totals", size, r["app"]["seconds"],
                             "empty textual app", r["textual"]["seconds"], None, ratios=ratios))
        out.append(ratio_row("First screen", "peak memory", size, r["app"]["rss_kb"], "floor", r["floor"]["rss_kb"],
                             0.6 if ops == nav_ops else None, fmt=fmt_mb,
                             target_text="≤ 0.6× floor" if ops == nav_ops else ""))
    for ops, n in sorted(nav.items()):
        size = f"{ops:,} ops"
        judged = ops == nav_ops
        keys = n["keys"]
        out.append(Row("First screen", f"key → cursor moved, scrolling/expanding ({keys['n']} keys)", size,
                       f"p50 {fmt_s(keys['p50'])}, p95 {fmt_s(keys['p95'])}, max {fmt_s(keys['max'])}",
                       target="instant (< 100 ms)" if judged else "", holds=keys["max"] < 0.1 if judged else None,
                       data=n))
        drill = max(n["drill"]["max"], n["back"]["max"])
        subs = " and ".join(f"{c:,}" for c in n["drill_ops"])
        out.append(Row("First screen", f"drill into sub-agents of {subs} ops and back", size,
                       f"max {fmt_s(drill)} per key", target="instant (< 100 ms)" if judged else "",
                       holds=drill < 0.1 if judged else None))
        stall = max(n["stall_scrolling_s"], n["stall_drilling_s"])
        out.append(Row("First screen", "longest UI stall while navigating (details, logs)", size, fmt_s(stall),
                       f"after the first paint: {fmt_s(n['stall_after_open_s'])}",
                       target="< 100 ms" if judged else "", holds=stall < 0.1 if judged else None))
    return out
