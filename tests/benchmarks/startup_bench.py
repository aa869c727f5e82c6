"""Start-up as a user sees it: from process start to the first session screen drawn in a terminal, against what
any Python tool on Textual has to pay (the gunzip+orjson floor plus an empty Textual app's start-up), all three
measured back to back in each round of one run.

The app and the empty app run in a pseudo-terminal (pty_screen.time_to_text) until their screen is drawn; the floor
runs as a plain child. A round's ratio is first / (floor + empty); the row reports the median of the rounds' ratios
(less noisy on a shared machine than the ratio of medians). Every program runs once before the rounds, unmeasured:
it compiles this checkout's bytecode (see common.child_env) and fills the page cache, as a user's second start has.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from common import PY, Row, fmt_s, fmt_spread, run_timed, summary
from open_bench import FLOOR_CODE
from pty_screen import time_to_text
from screen_bench import EMPTY_APP, MARKERS

TARGET = 1.2  # first screen ≤ 1.2 × (floor + empty textual app)


def measure(path: Path, runs: int) -> dict:
    programs = {
        "floor": lambda: run_timed([[PY, "-c", FLOOR_CODE, str(path)]]),
        "empty": lambda: time_to_text([PY, "-c", EMPTY_APP], MARKERS),
        "first": lambda: time_to_text([PY, "-m", "tui", str(path)], MARKERS),
    }
    for run in programs.values():
        run()  # warm-up, not measured
    samples: dict[str, list[float]] = {name: [] for name in programs}
    for _ in range(runs):
        for name, run in programs.items():
            samples[name].append(run().seconds)
    ratios = [f / (a + b) for f, a, b in zip(samples["first"], samples["floor"], samples["empty"])]
    out: dict = {name: {"seconds": summary(values), "per_round": values} for name, values in samples.items()}
    out["ratio"] = {"median": statistics.median(ratios), "per_round": ratios}
    return out


def rows(result: dict, ops: int) -> list[Row]:
    size = f"{ops:,} ops"
    floor, empty, first = (result[name]["seconds"] for name in ("floor", "empty", "first"))
    budget = [a + b for a, b in zip(result["floor"]["per_round"], result["empty"]["per_round"])]
    ratio = result["ratio"]["median"]
    per_round = ", ".join(f"{r:.2f}×" for r in result["ratio"]["per_round"])
    return [
        Row("Open", "floor: gunzip+orjson", size, fmt_spread(floor)),
        Row("Open", "empty textual app start-up (terminal)", "", fmt_spread(empty)),
        Row("Open", f"first screen {ops // 1000}k ops (terminal)", size, fmt_spread(first),
            f"floor + empty textual app {fmt_spread(summary(budget))}", ratio, f"≤ {TARGET}× (floor + empty)",
            ratio <= TARGET, note=f"per round: {per_round}"),
    ]


def describe(result: dict) -> str:
    """One line for the progress log: the medians and the ratio."""
    med = {name: result[name]["seconds"]["median"] for name in ("floor", "empty", "first")}
    return (f"first {fmt_s(med['first'])}, floor {fmt_s(med['floor'])}, empty app {fmt_s(med['empty'])}: "
            f"{result['ratio']['median']:.2f}× (target ≤ {TARGET}×)")
