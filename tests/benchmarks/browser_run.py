"""Child process of the "Browser" section: the app on a big sessions directory (headless).

    python tests/benchmarks/browser_run.py DIR SPAWNED_AT [MAX_SECONDS]

SPAWNED_AT is the parent's time.time() when it started this process, so start-up counts. Prints one JSON object:
seconds to the first rows on screen, to the first screenful filled in, to every row filled in; key latency and
the event loop's longest stall while rows fill; peak memory.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time

from keylag import LoopLag, key_latency, quantile


async def main(folder: str, spawned: float, max_seconds: float) -> dict:
    from tui.cli import run as launch
    from tui.cli.main import app_parser

    def since() -> float:
        return time.time() - spawned

    app = launch.build_app(app_parser().parse_args(["--sessions-dir", folder]), watch=False)
    from tui.ui.screens.browser import BrowserScreen

    out: dict = {}
    async with app.run_test(size=(160, 48)) as pilot:
        lag = LoopLag().start()
        while not (isinstance(app.screen, BrowserScreen) and app.screen.table.row_count):
            await asyncio.sleep(0.002)
        screen = app.screen
        table = screen.table
        await pilot.pause(0)  # drawn
        out["first_rows_s"] = since()
        out["rows"] = len(screen.model.rows)
        visible = table.size.height - 1

        def screenful_filled() -> bool:
            keys = screen.table.shown[:visible]
            return bool(keys) and all(screen.model.rows[k].loaded for k in keys if k in screen.model.rows)

        def all_filled() -> bool:
            return not screen.model.pending and not screen.model.fill_queue.results and not screen._fill_busy()

        while not screenful_filled():
            await asyncio.sleep(0.005)
        out["screenful_filled_s"] = since()
        fill_start = time.perf_counter()
        keys: list[float] = []
        while not all_filled() and since() < max_seconds:
            if len(keys) < 200:
                row = table.cursor_row
                key = "down" if (len(keys) // 20) % 2 == 0 else "up"
                keys.append(await key_latency(app, key, lambda: table.cursor_row != row))
            await asyncio.sleep(0.1)
        out["all_filled_s"] = since() if all_filled() else None
        filled_at = time.perf_counter()
        out["filled"] = sum(1 for r in screen.model.rows.values() if r.loaded)
        out["keys"] = {"n": len(keys), "p50": quantile(keys, 0.5), "p95": quantile(keys, 0.95),
                       "max": max(keys, default=0.0)}
        out["stall_while_filling_s"] = max((lag_s for at, lag_s in lag.samples if fill_start <= at < filled_at),
                                           default=0.0)
        await asyncio.sleep(1.0)  # the view is sorted again once every row is filled
        out["stall_after_filled_s"] = lag.worst(since=filled_at)
        lag.stop()
    out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


if __name__ == "__main__":
    result = asyncio.run(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 600))
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)
