"""The built-in demo: a temporary sessions directory with one session written live. `Demo.stop()` (idempotent, at
exit) stops the writer before removing the directory, else its rename races the removal."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from pathlib import Path

from tui.demo.files import populate
from tui.demo.snapshots import write_snapshot
from tui.demo.tree import make_tree
from tui.formats.aiagent.timeline import event_times, tree_at

TICK_SECONDS = 0.7
DEMO_PREFIX = "aiagent-monitor-demo-"
JOIN_SECONDS = 10.0  # the writer stops within one snapshot write (a 160-op tree: milliseconds)


class Demo:
    """A running demo: `sessions` is the directory to browse; `stop()` ends the writer, then removes it all."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.sessions = base / "sessions"
        self.writer: LiveWriter | None = None
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def stop(self) -> None:
        with self._lock:
            if self.writer is not None:
                self.writer.stop.set()
            if self.thread is not None and self.thread is not threading.current_thread():
                self.thread.join(JOIN_SECONDS)
            shutil.rmtree(self.base, ignore_errors=True)


def start_demo(*, live: bool = True, count: int = 12, seed: int = 7) -> Demo:
    demo = Demo(Path(tempfile.mkdtemp(prefix=DEMO_PREFIX)))
    try:
        now = int(time.time() * 1000)
        populate(demo.sessions, count=count, seed=seed, start_ms=now - 20 * 3600 * 1000)
        add_other_formats(demo.sessions, seed=seed, start_ms=now - 3 * 3600 * 1000)
        if live:
            demo.writer = LiveWriter(demo.sessions, seed=seed)
            demo.thread = threading.Thread(target=demo.writer.run, name="demo-live-writer", daemon=True)
            demo.thread.start()
    except BaseException:  # (a signal while the files are written: nothing is left behind)
        demo.stop()
        raise
    return demo


def add_other_formats(sessions: Path, *, seed: int, start_ms: int) -> None:
    """Beside the ai-agent sessions, the other agents' files: Jules (snapshot, REST page) and Genkit (both shapes)."""
    from tui.demo.genkit import make_genkit_shipped, make_genkit_snapshots, write_genkit_dir
    from tui.demo.jules import make_jules_activities_page, make_jules_snapshot, write_jules

    write_jules(sessions, make_jules_snapshot(seed, start_ms=start_ms), gzip=True)
    write_genkit_dir(sessions / "genkit-chat", make_genkit_snapshots(seed, start_ms=start_ms + 1_800_000))
    page = make_jules_activities_page(seed + 1, start_ms=start_ms + 600_000, page_size=30)
    session_id = page["activities"][0]["name"].split("/")[1] if page["activities"] else "page"
    write_jules(sessions, page, name=f"jules-activities-{session_id}.json")
    write_genkit_dir(sessions / "genkit-flow", make_genkit_shipped(seed, start_ms=start_ms + 2_400_000),
                     session_data=False)


class LiveWriter:
    """Rewrites one snapshot the way ai-agent does (temp file, then rename) as its session grows."""

    def __init__(self, sessions_dir: Path, *, seed: int = 7, tick: float = TICK_SECONDS) -> None:
        self.sessions_dir = sessions_dir
        self.seed = seed
        self.tick = tick
        self.stop = threading.Event()

    def run(self) -> None:
        round_ = 0
        try:
            while not self.stop.is_set():
                self.play(make_tree(self.seed * 1000 + round_, ops=160, depth=2, fanout=2,
                                    started_at=int(time.time() * 1000), agent="demo-live"))
                round_ += 1
        except OSError:  # the directory went away under a write (removed by hand): nothing left to write to
            self.stop.set()

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
