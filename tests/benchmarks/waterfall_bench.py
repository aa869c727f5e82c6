"""Benchmark (not a test): the waterfall on a big session.

    python tests/benchmarks/waterfall_bench.py [--ops 20000]

Opens a generated session in the app (160x48), presses `w` and times it until the screen is idle, then times keys
(Pilot presses wait for the app to go idle, so each time includes the repaint): cursor moves, paging, zoom, pan,
folding a sub-agent. Also times building the model alone, with every node expanded.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tui.demo import make_tree, write_snapshot  # noqa: E402
from tui.formats.load import load  # noqa: E402
from tui.model.nodes import node_key  # noqa: E402
from tui.model.waterfall import Waterfall, _all_nodes, _expandable  # noqa: E402
from tui.ui.app import MonitorApp  # noqa: E402
from tui.ui.screens.waterfall import WaterfallScreen  # noqa: E402


CPU: list[float] = []


async def timed(pilot, *keys: str) -> float:
    """Wall time of a Pilot press (includes Pilot's own waits); the CPU time spent goes to CPU."""
    start, cpu = time.perf_counter(), time.process_time()
    await pilot.press(*keys)
    CPU.append((time.process_time() - cpu) / len(keys))
    return (time.perf_counter() - start) / len(keys)


async def cpu_of(pilot, key: str, times: int = 1) -> tuple[float, float]:
    """(median wall, median CPU) seconds of `times` presses."""
    CPU.clear()
    walls = [await timed(pilot, key) for _ in range(times)]
    return statistics.median(walls), statistics.median(CPU)


async def run(path: Path) -> None:
    doc = load(str(path))
    gc.freeze()
    root = doc.root
    every = {node_key(n) for n in _all_nodes(root) if _expandable(n)}
    start = time.perf_counter()
    model = Waterfall(root)
    print(f"model: {root.counts.ops:,} ops, {len(model.rows):,} rows by default, "
          f"built in {(time.perf_counter() - start) * 1000:.0f} ms")
    start = time.perf_counter()
    full = Waterfall(root, expanded=every)
    print(f"model fully expanded: {len(full.rows):,} rows in {(time.perf_counter() - start) * 1000:.0f} ms")

    app = MonitorApp(sessions_dir=path.parent, document=doc, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.5)
        wall, cpu = await cpu_of(pilot, "down", 20)
        print(f"reference: down in the session screen's tree: wall {wall * 1000:.1f} ms, CPU {cpu * 1000:.1f} ms")
        start = time.perf_counter()
        await pilot.press("w")
        while not isinstance(app.screen, WaterfallScreen):
            await pilot.pause(0.01)
        await pilot.pause()
        print(f"open (w until idle): {(time.perf_counter() - start) * 1000:.0f} ms")
        results = {"unbound key (baseline)": await cpu_of(pilot, "f12", 10)}
        results["down x40"] = await cpu_of(pilot, "down", 40)
        results["pagedown x10"] = await cpu_of(pilot, "pagedown", 10)
        results["end"] = await cpu_of(pilot, "end")
        results["home"] = await cpu_of(pilot, "home")
        results["zoom in x6"] = await cpu_of(pilot, "plus", 6)
        results["pan x6"] = await cpu_of(pilot, "l", 6)
        results["zoom out x6"] = await cpu_of(pilot, "minus", 6)
        view = app.screen.view
        agent = next(i for i, row in enumerate(view.model.rows) if row.kind == "session")
        view.move_to(agent)
        await pilot.pause()
        results["fold a sub-agent"] = await cpu_of(pilot, "space")
        results["unfold it"] = await cpu_of(pilot, "space")
        start = time.perf_counter()
        for _ in range(20):
            view._axis_cache = None
            for y in range(view.size.height):
                view.render_line(y)
        repaint = (time.perf_counter() - start) / 20
        results["repaint all lines"] = (repaint, repaint)
        results["jump to tree (o)"] = await cpu_of(pilot, "o")
        view = app.screen.view if isinstance(app.screen, WaterfallScreen) else None
        print(f"{'':>24}  wall ms   CPU ms")
        for name, (wall, cpu) in results.items():
            print(f"{name:>24}: {wall * 1000:7.1f} {cpu * 1000:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_snapshot(Path(tmp), make_tree(7, ops=args.ops, depth=3, fanout=2, payload_bytes=200), version=2)
        asyncio.run(run(path))


if __name__ == "__main__":
    main()
