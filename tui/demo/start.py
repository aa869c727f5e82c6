"""The built-in demo: a temporary sessions directory with one session written live."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import time
from pathlib import Path

from tui.demo.files import populate
from tui.demo.genkit import make_genkit_shipped, make_genkit_snapshots, write_genkit_dir
from tui.demo.jules import make_jules_activities_page, make_jules_snapshot, write_jules
from tui.demo.snapshots import write_snapshot
from tui.demo.tree import make_tree
from tui.formats.aiagent.timeline import event_times, tree_at

TICK_SECONDS = 0.7
DEMO_PREFIX = "aiagent-monitor-demo-"
JOIN_SECONDS = 10.0  # the writer stops within one snapshot write (a 160-op tree: milliseconds)


class Demo:
    """A running demo: `sessions` is the directory to browse; `stop()` ends the writer, then removes it all."""

    def __init__(self, base: Path) -> None:
        self.base, self.sessions, self.stopping = base, base / "sessions", threading.Event()
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def stop(self) -> None:  # (idempotent) the writer first, else its rename races the removal
        with self._lock:
            self.stopping.set()
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
            demo.thread = threading.Thread(target=write_live, args=(demo.sessions, demo.stopping, seed),
                                           name="demo-live-writer", daemon=True)
            demo.thread.start()
    except BaseException:  # (a signal while the files are written: nothing is left behind)
        demo.stop()
        raise
    return demo


def add_other_formats(sessions: Path, *, seed: int, start_ms: int) -> None:
    """Beside the ai-agent sessions, the other agents' files: Jules (snapshot, REST page) and Genkit (both shapes)."""
    write_jules(sessions, make_jules_snapshot(seed, start_ms=start_ms), gzip=True)
    write_genkit_dir(sessions / "genkit-chat", make_genkit_snapshots(seed, start_ms=start_ms + 1_800_000))
    page = make_jules_activities_page(seed + 1, start_ms=start_ms + 600_000, page_size=30)
    session_id = page["activities"][0]["name"].split("/")[1] if page["activities"] else "page"
    write_jules(sessions, page, name=f"jules-activities-{session_id}.json")
    write_genkit_dir(sessions / "genkit-flow", make_genkit_shipped(seed, start_ms=start_ms + 2_400_000),
                     session_data=False)


def write_live(sessions: Path, stop: threading.Event, seed: int = 7, tick: float = TICK_SECONDS) -> None:
    """Rewrites one snapshot as ai-agent does as its session grows, session after session, until ``stop``."""
    round_ = 0
    try:
        while not stop.is_set():
            _play(sessions, stop, tick, make_tree(seed * 1000 + round_, ops=160, depth=2, fanout=2,
                                                  started_at=int(time.time() * 1000), agent="demo-live"))
            round_ += 1
    except OSError:  # the directory went away under a write (removed by hand): nothing left to write to
        stop.set()


def _play(sessions: Path, stop: threading.Event, tick: float, tree: dict) -> None:
    """Real time: the tree's clock is the wall clock, so running durations on screen are true."""
    times = event_times(tree)
    if not times:
        return
    start, end = times[0], times[-1]
    wall_start = time.monotonic()
    while not stop.is_set():
        t = start + int((time.monotonic() - wall_start) * 1000)
        done = t >= end
        write_snapshot(sessions, tree if done else tree_at(tree, t), version=2,
                       reason="final" if done else "subagent_finish")
        if done:
            stop.wait(5.0)
            return
        stop.wait(tick)
