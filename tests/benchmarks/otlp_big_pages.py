"""Child process of the "OTLP" section's paging row: one ai-agent trace of SPANS spans handed to the OTLP sink in
two requests, the second while its session screen is open (the turns it adds are labelled only as their lines are
drawn: OpTree.attach_new), then PageDown pressed 60 times through the tree.

    python tests/benchmarks/otlp_big_pages.py SPANS

Prints one JSON object: the keys' p50/p95/max (key to the tree's view moved) and the UI thread's CPU for them.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from keylag import key_latency, quantile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package


async def main(spans: int) -> dict:
    from helpers.otlphelpers import big_trace_bodies
    from helpers.waiting import wait_for
    from tui.ui.app import MonitorApp

    txn, bodies = big_trace_bodies(spans)
    app = MonitorApp(sessions_dir=Path(tempfile.mkdtemp(prefix="bench-otlp-pages-")), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        accept = app.live.worker.otlp_receiver()
        accept("traces", b"".join(bodies[:3]), "proto")
        assert await wait_for(pilot, lambda: app.live.build(txn) is not None, timeout=120)
        app.open_path(f"live:{txn}")
        assert await wait_for(pilot, lambda: getattr(app.screen, "live_root", None) == txn and app.screen.is_mounted)
        screen = app.screen
        accept("traces", b"".join(bodies[3:]), "proto")
        turns = (spans - 1 + 2) // 3
        assert await wait_for(pilot, lambda: len(screen.session.turns) >= turns, timeout=120)
        await pilot.pause(1.0)
        tree, waits, cpu = screen.tree, [], time.thread_time()
        for _ in range(60):
            before = (tree.scroll_offset.y, tree.cursor_line)
            waits.append(await key_latency(app, "pagedown", lambda: (tree.scroll_offset.y, tree.cursor_line) != before))
            await pilot.pause(0.05)
        return {"spans": spans, "turns": len(screen.session.turns), "keys": {
            "n": len(waits), "p50": quantile(waits, 0.5), "p95": quantile(waits, 0.95), "max": max(waits)},
            "ui_cpu_s": time.thread_time() - cpu, "load": os.getloadavg()}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(int(sys.argv[1])))))
    sys.stdout.flush()
    os._exit(0)
