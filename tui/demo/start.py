"""The built-in demo: a temporary sessions directory from the generator, with one session written live."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from pathlib import Path

from tui.demo.files import populate, write_snapshot
from tui.demo.tree import make_tree
from tui.formats.aiagent.timeline import event_times, tree_at

TICK_SECONDS = 0.7


def start_demo(*, live: bool = True, count: int = 12, seed: int = 7) -> Path:
    base = Path(tempfile.mkdtemp(prefix="aiagent-monitor-demo-"))
    atexit.register(shutil.rmtree, base, True)
    sessions = base / "sessions"
    now = int(time.time() * 1000)
    populate(sessions, count=count, seed=seed, start_ms=now - 20 * 3600 * 1000)
    add_other_formats(sessions, seed=seed, start_ms=now - 3 * 3600 * 1000)
    if live:
        writer = LiveWriter(sessions, seed=seed)
        threading.Thread(target=writer.run, name="demo-live-writer", daemon=True).start()
    return sessions


def add_other_formats(sessions: Path, *, seed: int, start_ms: int) -> None:
    """One Jules snapshot and one Genkit snapshot directory beside the ai-agent sessions."""
    from tui.demo.genkit import make_genkit_snapshots, write_genkit_dir
    from tui.demo.jules import make_jules_snapshot, write_jules

    write_jules(sessions, make_jules_snapshot(seed, start_ms=start_ms), gzip=True)
    write_genkit_dir(sessions / "genkit-chat", make_genkit_snapshots(seed, start_ms=start_ms + 1_800_000))
    from tui.demo.foreign_real import add_real_shapes  # the shapes Jules' API and Genkit's Go code really write

    add_real_shapes(sessions, seed=seed, start_ms=start_ms)


class LiveWriter:
    """Rewrites one snapshot the way ai-agent does (temp file, then rename) as its session grows."""

    def __init__(self, sessions_dir: Path, *, seed: int = 7, tick: float = TICK_SECONDS) -> None:
        self.sessions_dir = sessions_dir
        self.seed = seed
        self.tick = tick
        self.stop = threading.Event()

    def run(self) -> None:
        round_ = 0
        while not self.stop.is_set():
            self.play(make_tree(self.seed * 1000 + round_, ops=160, depth=2, fanout=2,
                                started_at=int(time.time() * 1000), agent="demo-live"))
            round_ += 1

    def play(self, tree: dict) -> None:
        """Real time: the tree's clock is the wall clock, so running durations on screen are true."""
        times = event_times(tree)
        if not times:
            return
        start, end = times[0], times[-1]
        wall_start = time.monotonic()
        while not self.stop.is_set():
            t = start + int((time.monotonic() - wall_start) * 1000)
            done = t >= end
            write_snapshot(self.sessions_dir, tree if done else tree_at(tree, t), version=2,
                           reason="final" if done else "subagent_finish")
            if done:
                self.stop.wait(5.0)
                return
            self.stop.wait(self.tick)
