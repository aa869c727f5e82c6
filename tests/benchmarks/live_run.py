"""Child process of the "Live" section: the app (headless) listening on a socket while a sender pushes events.

    python tests/benchmarks/live_run.py throughput URL FILE   # `replay FILE --to URL --speed 0`
    python tests/benchmarks/live_run.py fast URL SHAPE ARGS   # live_fast_sender.py: lines encoded beforehand
                                                              # (SHAPE mixed N SESSIONS, or replay FILE)
    python tests/benchmarks/live_run.py keys URL RATE SECONDS  # live_sender.py at RATE events/s, keys pressed
    python tests/benchmarks/live_run.py scale URL SHAPE N      # live_scale_sender.py (N sessions, or N
                                                               # accounting events in reverse order), keys
                                                               # pressed in the browser meanwhile

The app runs as it does for a user: browser first, then the live session's screen once its tree has arrived; in
the throughput and keys modes keys are pressed on that screen meanwhile. Measured besides the rate: the UI thread's
time per live tick (the app's and the screens' handlers of one batch of the live worker: tui.ui.live_worker), the
worker's own time per batch, the keys, and the event loop's worst stall.
Prints one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time
from pathlib import Path

from keylag import LoopLag, key_latency, quantile

HERE = Path(__file__).resolve().parent


async def main(mode: str, url: str, args: list[str]) -> dict:
    import tempfile

    from tui.ui.app import MonitorApp

    empty = Path(tempfile.mkdtemp(prefix="bench-live-"))
    if mode == "scale":  # rows for the keys to move through, whatever the shape
        from tui.demo import make_tree, write_snapshot

        for seed in range(30):
            write_snapshot(empty, make_tree(seed, ops=5, depth=1), version=2)
    app = MonitorApp(sessions_dir=empty, listen_urls=[url], watch=False)
    counts = {"frames": 0, "bytes": 0, "first": None, "last": None}
    hub = app.live.worker.hub  # (the live worker's thread feeds it: counted there)
    feed = hub.feed
    ticks = ui_tick_timer()

    def counting_feed(frame, *rest):
        now = time.perf_counter()
        if counts["first"] is None:
            counts["first"] = now
        counts["last"] = now
        counts["frames"] += 1
        counts["bytes"] += len(frame)
        return feed(frame, *rest)

    hub.feed = counting_feed  # the app passes hub.feed to the listener when it mounts
    out: dict = {"mode": mode}
    async with app.run_test(size=(160, 48)) as pilot:
        while not any(text.startswith("listening on") for text in app.stream_status.values()):
            await asyncio.sleep(0.01)
        real_url = next(t for t in app.stream_status.values() if t.startswith("listening on")).split(" ", 2)[2]
        if mode == "throughput":
            cmd = [sys.executable, "-m", "tui", "replay", args[0], "--to", real_url, "--speed", "0"]
        elif mode == "fast":
            cmd = [sys.executable, str(HERE / "live_fast_sender.py"), real_url, *args]
        elif mode == "scale":
            cmd = [sys.executable, str(HERE / "live_scale_sender.py"), real_url, args[0], args[1]]
        else:
            cmd = [sys.executable, str(HERE / "live_sender.py"), real_url, args[0], args[1]]
        sender = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE,
                                                      stderr=asyncio.subprocess.PIPE)
        lag = LoopLag().start()
        keys: list[float] = []
        opened = None
        while sender.returncode is None:
            try:
                await asyncio.wait_for(sender.wait(), 0.2)
            except asyncio.TimeoutError:
                pass
            if mode == "scale":
                if counts["first"] is not None and hasattr(app.screen, "table"):
                    table = app.screen.table
                    row = table.cursor_row
                    key = "down" if (len(keys) // 6) % 2 == 0 else "up"
                    keys.append(await key_latency(app, key, lambda: table.cursor_row != row))
                continue
            if opened is None and app.live.roots():
                root = app.live.roots()[0]
                app.open_path(f"live:{root}")
                opened = root
                await asyncio.sleep(0.3)
            screen = app.screen
            if opened and hasattr(screen, "tree") and counts["first"] is not None:
                tree = screen.tree
                line = tree.cursor_line
                # (down and up in turn: the mixed load's root, and the replayed session's while its first turns
                # arrive, have trees of a few lines, where six downs in a row left the cursor on the last line and
                # the next keys waited 10 s for a move that cannot happen)
                key = "down" if len(keys) % 2 == 0 else "up"
                keys.append(await key_latency(app, key, lambda: tree.cursor_line != line or app.screen is not screen))
        stdout, stderr = await sender.communicate()
        if sender.returncode != 0:
            raise SystemExit(f"sender failed: {stderr.decode()[-2000:]}")
        text = stdout.decode().split()
        sent = int(text[1]) if mode == "throughput" else int(text[0])
        sender_seconds = float(text[6]) if mode == "throughput" else float(text[1])
        sent_at = time.perf_counter()
        deadline = time.perf_counter() + 60
        while app.live.tally.frames < sent and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        await pilot.pause(0.6)  # the last batch reaches the screen
        lag.stop()
        tally = app.live.tally
        root = app.live.roots()[0] if app.live.roots() else ""
        facts = app.live.facts(root)
        elapsed = (counts["last"] or 0) - (counts["first"] or 0)
        out.update({
            "sent": sent, "sender_seconds": sender_seconds, "received": tally.events, "frames": counts["frames"],
            "bytes": counts["bytes"], "seconds": elapsed, "malformed": tally.malformed, "gaps": tally.gaps,
            "rejected": tally.rejected,
            "root_events": facts.events, "sessions": tally.sessions,
            "events_per_s": tally.events / elapsed if elapsed > 0 else None,
            "stall_s": lag.worst(), "stalls_over_100ms": sum(1 for _, v in lag.samples if v > 0.1),
            "screen_opened": opened is not None,
            "ui_tick_ms": spread([t * 1000 for t in ticks]), "ui_ticks_ms": [round(t * 1000, 2) for t in ticks],
            "worker_tick_ms": spread([t * 1000 for t in app.live.worker.tick_seconds]),
        })
        if mode == "scale":  # keys pressed after the last event arrived: while the backlog is applied
            while time.perf_counter() - sent_at < 3:
                table = app.screen.table
                row = table.cursor_row
                key = "down" if (len(keys) // 6) % 2 == 0 else "up"
                keys.append(await key_latency(app, key, lambda: table.cursor_row != row))
            out["shape"], out["n"] = args[0], int(args[1])
            out["roots"] = app.live.tally.roots
        if keys:
            out["keys"] = {"n": len(keys), "p50": quantile(keys, 0.5), "p95": quantile(keys, 0.95),
                           "max": max(keys, default=float("nan"))}
            if mode == "keys":
                out["rate"] = int(args[0])
    out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


def ui_tick_timer() -> list[float]:
    """The UI thread's CPU time per live tick: each batch of the live worker is handled by the app
    (on_live_rows_changed, on_live_tree_built), then by the browser and the session screens; the durations of those
    handlers are summed per batch (a new batch begins at the app's on_live_rows_changed). Returns the list the sums
    go to."""
    from tui.ui.app import MonitorApp
    from tui.ui.screens.browser import BrowserScreen
    from tui.ui.screens.session import SessionScreen

    sums: list[float] = []

    def timed(cls, name: str, starts: bool) -> None:
        original = getattr(cls, name)

        def wrapper(self, message):
            began = time.thread_time()  # (the UI thread's CPU: robust to a machine shared with other work)
            try:
                return original(self, message)
            finally:
                took = time.thread_time() - began
                if starts or not sums:
                    sums.append(took)
                else:
                    sums[-1] += took
        setattr(cls, name, wrapper)

    timed(MonitorApp, "on_live_rows_changed", True)
    timed(MonitorApp, "on_live_tree_built", False)
    timed(MonitorApp, "on_stream_state_changed", False)
    timed(BrowserScreen, "on_live_rows_changed", False)
    timed(BrowserScreen, "on_live_roots_forgotten", False)
    timed(SessionScreen, "on_live_tree_built", False)
    timed(SessionScreen, "on_stream_state_changed", False)
    return sums


def spread(values: list[float]) -> dict:
    return {"n": len(values), "p50": quantile(values, 0.5), "p99": quantile(values, 0.99),
            "max": max(values, default=float("nan"))}


if __name__ == "__main__":
    result = asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)
