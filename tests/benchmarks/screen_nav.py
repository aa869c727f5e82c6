"""Child process of the "First screen" section: open a snapshot in the app (headless) and navigate it.

    python tests/benchmarks/screen_nav.py FILE

Prints one JSON object: key latencies while scrolling and expanding (p50/p95/max), drill-down into sub-agents
and back, and the event loop's longest stall during all of it (what a key pressed at the worst moment waits).
Keys are pressed a fifth of a second apart, as a person does, so the work they trigger (details, logs) is done
between them and counted in the stalls.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from keylag import LoopLag, key_latency, quantile

PAUSE = 0.2


def _mounted_tree(app, old):
    screen = app.screen
    if screen is old:
        return False
    try:
        return bool(screen.tree.root.children) and screen.is_mounted
    except Exception:
        return False


async def main(path: str) -> dict:
    from tui.cli.main import app_parser
    from tui.cli.run import build_app
    from tui.ui.screens.session import SessionScreen

    t0 = time.perf_counter()
    app = build_app(app_parser().parse_args([path]), watch=False)  # as the command line starts it
    result: dict = {"load_s": time.perf_counter() - t0}
    async with app.run_test(size=(160, 48)) as pilot:
        lag = LoopLag().start()
        while not isinstance(app.screen, SessionScreen):
            await asyncio.sleep(0.005)
        shown = time.perf_counter()
        await asyncio.sleep(1.5)  # the debounced details/logs of the first selection land here
        result["stall_after_open_s"] = lag.worst(since=shown)
        screen = app.screen
        tree = screen.tree
        keys: list[float] = []
        nav_start = time.perf_counter()

        async def press(key: str) -> None:
            line = tree.cursor_line
            keys.append(await key_latency(app, key, lambda: tree.cursor_line != line))
            await asyncio.sleep(PAUSE)

        # walk down, expanding what can be expanded (children are built on expand), then page down and up
        for _ in range(30):
            node = tree.cursor_node
            if node is not None and node.allow_expand and not node.is_expanded:
                keys.append(await key_latency(app, "right", lambda n=node: n.is_expanded))
                await asyncio.sleep(PAUSE)
            elif tree.cursor_line < tree.last_line:
                await press("down")
        for key in ["pagedown"] * 3 + ["pageup"] * 2:
            if (key == "pagedown" and tree.cursor_line < tree.last_line) or (key == "pageup" and tree.cursor_line):
                await press(key)
        result["keys"] = {"n": len(keys), "p50": quantile(keys, 0.5), "p95": quantile(keys, 0.95),
                          "max": max(keys)}
        result["stall_scrolling_s"] = lag.worst(since=nav_start)
        # drill down into the biggest sub-agents of the root and back
        drills, backs = [], []
        drill_start = time.perf_counter()
        subagents = sorted((op for turn in screen.session.turns for op in turn.ops if op.child is not None),
                           key=lambda op: -op.child.counts.ops)[:2]
        for op in subagents:
            tree.reveal(op)
            screen.show_node(op)
            await asyncio.sleep(0.5)
            drills.append(await key_latency(app, "enter", lambda: _mounted_tree(app, screen)))
            child_screen = app.screen
            await asyncio.sleep(1.0)  # its details and logs
            child_tree = child_screen.tree
            line = child_tree.cursor_line
            keys_in_child = await key_latency(app, "down", lambda: child_tree.cursor_line != line)
            drills.append(keys_in_child)
            await asyncio.sleep(PAUSE)
            backs.append(await key_latency(app, "escape", lambda: app.screen is screen))
            await asyncio.sleep(0.5)
        result["drill_ops"] = [op.child.counts.ops for op in subagents]
        result["drill"] = {"n": len(drills), "max": max(drills, default=0.0), "p50": quantile(drills, 0.5)}
        result["back"] = {"n": len(backs), "max": max(backs, default=0.0)}
        result["stall_drilling_s"] = lag.worst(since=drill_start)
        lag.stop()
    return result


if __name__ == "__main__":
    out = asyncio.run(main(sys.argv[1]))
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)
