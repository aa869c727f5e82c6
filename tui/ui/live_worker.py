"""The live pipeline's own thread: where events are read, applied, and turned into trees and browser rows.

One thread runs an asyncio loop of its own. The stream listeners and OTLP receivers run on it, so a frame is read
and applied to the hub (tui.formats.aiagent.live.hub) without the UI's event loop ever seeing it; this thread is
the only one that touches the hub. A few times a second it takes the hub's changes (LiveHub.take_changes), builds
the changed roots' trees and their browser rows, and posts them to the app as messages (tui.ui.messages):
`LiveRowsChanged` (every changed root's build, facts and row; forgotten and merged roots; the header line),
`LiveTreeBuilt` for the roots a screen shows, `StreamStateChanged`. The UI thread's share is handing those to the
screens. Building a big tree blocks this loop (the sockets wait in the kernel: nothing is lost), never the keys.
"""

from __future__ import annotations

import asyncio
from tui.model import gc_pause
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

from textual.message import Message

from tui.catalog.session_row import live_session_row
from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.access import mask_token
from tui.model.nodes import Session
from tui.model.session_facts import read_ahead
from tui.ui.messages import LiveNotice, LiveRowsChanged, LiveTreeBuilt, StreamStateChanged

OTLP_FREEZE_RECORDS = 10_000  # spans + log records received between two gc.freeze() (apply)
LIVE_APPLY_SECONDS = 0.25  # live updates are batched and applied this often
REJECTION_NOTICE_SECONDS = 5.0  # at most one "rejected so far" notification this often
LIVE_APPLY_SHARE = 4  # ... or, when applying takes longer, after 4 times as long as it took
LIVE_APPLY_BUDGET = 0.05  # s of rebuilding per batch: roots changed past it wait for the next batch (100,000
# new sessions arriving at once are shown over a few seconds instead of freezing the pipeline for them)
STOP_SECONDS = 5.0  # how long stop() waits for the listeners to close their sockets


def make_otlp_sink(hub: LiveHub):
    """The OTLP sink (tui.formats.otlp.sink) that turns received spans and log records into live sessions of `hub`;
    imported only when an OTLP receiver starts (opentelemetry-proto is not needed otherwise)."""
    from tui.formats.otlp.sink import OtlpSink

    return OtlpSink(hub)


class LiveWorker:
    """The hub's thread. `deliver(message)` hands a message to the app (thread-safe: App.post_message);
    `open_roots` names the live roots a screen shows (kept by the UI thread: only read here, copied)."""

    def __init__(self, deliver: Callable[[Message], Any], open_roots: set[str], streams: bool = False,
                 paced: bool = False) -> None:
        self.hub = LiveHub()
        # `paced`: one batch in flight at a time. The next is built only once the app has taken the last one
        # (LiveController.took sets `taken`); meanwhile the changes gather in the hub, one build per root for all
        # of them. Unpaced, a UI slower than the batches let them queue up in the app, each holding whole trees.
        self.paced = paced
        self.taken = threading.Event()
        self.taken.set()
        self.deliver = deliver
        self.open_roots = open_roots
        self.streams = streams  # --listen or --connect given: the header says how the streams go
        self.stream_status: dict[str, str] = {}
        self.otlp_sink: Any = None  # made by the first OTLP receiver (otlp_receiver)
        self._otlp_frozen = 0  # spans + log records received when the heap was last frozen
        self._waiting: set[str] = set()  # changed roots a batch over its budget left for the next one
        self._panel_counts: tuple = ()
        self._reported_problems = 0
        self._reported_at = 0.0
        self._due = 0.0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._tasks: set[asyncio.Task] = set()
        self.tick_seconds: list[float] = []  # (benchmarks) how long each batch took on this thread, the newest 1,000

    # the thread ---------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the thread and its loop (once; a later call returns at once)."""
        if self._thread is not None:
            self._started.wait(STOP_SECONDS)
            return
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), name="live-pipeline", daemon=True)
        self._thread.start()
        self._started.wait(STOP_SECONDS)

    def stop(self) -> None:
        """End the listeners (their sockets closed, their files removed) and the thread."""
        loop, stop = self._loop, self._stop
        if loop is None or stop is None or self._thread is None:
            return
        try:
            loop.call_soon_threadsafe(stop.set)
        except RuntimeError:  # the loop ended already
            return
        if self._thread is not threading.current_thread():
            self._thread.join(STOP_SECONDS)

    def run(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a listener (a coroutine) on this thread's loop until it ends or the pipeline stops."""
        self.start()
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._run_task, coro)

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call fn(*args) on this thread (frames and rejections from another thread: what the hub gets goes
        through here or through a listener on this loop)."""
        self.start()
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # stopped
            pass

    def _run_task(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._started.set()
        try:
            while not self._stop.is_set():
                self.tick()
                try:
                    await asyncio.wait_for(self._stop.wait(), LIVE_APPLY_SECONDS)
                except asyncio.TimeoutError:
                    pass
        finally:
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.otlp_sink is not None:
                self.otlp_sink.stop()

    # the streams ------------------------------------------------------------------------------------------
    def stream_reporter(self, url: str) -> Callable[[str], None]:
        def report(text: str) -> None:  # shown by the next batch (a burst of clients costs no redraws)
            self.stream_status.pop(url, None)  # keep the newest last
            self.stream_status[url] = mask_token(text)  # a ?token= in a --connect URL is never shown
        return report

    def otlp_receiver(self) -> Callable[[str, bytes, str], int]:
        """What the OTLP receivers hand each export request to (their threads decode it, the batch applies it)."""
        self.start()
        if self.otlp_sink is None:
            self.otlp_sink = make_otlp_sink(self.hub)
            self.otlp_sink.start()  # trees assembled off this thread; a batch only hands them to the hub
        return self.otlp_sink.accept

    # batches ----------------------------------------------------------------------------------------------
    def tick(self) -> None:
        """Every LIVE_APPLY_SECONDS. The OTLP sink's assembled trees go into the hub at every tick, due or not
        (while they waited, the sink's ready queue filled up and stopped its assembling thread); the changes are
        built when due: after a slow batch, 4 times as long as it took, so that reading keeps its share."""
        now = time.monotonic()
        if self.otlp_sink is not None:
            self.otlp_sink.drain()
        if now < self._due:
            return
        if not self.apply():
            return
        spent = time.monotonic() - now
        self.tick_seconds = [*self.tick_seconds[-999:], spent]
        self._due = now + max(LIVE_APPLY_SECONDS, LIVE_APPLY_SHARE * spent)

    def apply(self) -> bool:
        """Whatever arrived since the last batch, built and posted in one batch (paced: once the last was taken;
        False when it was not)."""
        if self.paced and not self.taken.is_set():
            return False
        hub = self.hub
        self._freeze_otlp()
        self._notice_rejections()
        changes = hub.take_changes()
        changed = (self._waiting | changes.changed) - changes.merged
        self._waiting = set()
        counts = (sum(hub.rejected.values()), tuple(self.stream_status.values()))
        counts_moved = counts != self._panel_counts
        if counts_moved:
            self._panel_counts = counts
        builds = self._build(changed)
        if builds or changed or counts_moved or changes.forgotten or changes.merged:
            rows = tuple(live_session_row(root, session, facts.events, facts.gaps, facts.updated)
                         for root, (session, facts) in builds.items())
            if self.paced:
                self.taken.clear()
            if self.deliver(LiveRowsChanged(rows, builds, changes.forgotten, changes.merged, self.summary(),
                                            header=bool(changed or counts_moved), tally=hub.tally())) is False:
                self.taken.set()  # (not queued: the app is not running, or going; nobody will take it)
        if counts_moved:  # rejections and stream states concern every live screen (after the batch: its tally)
            self.deliver(StreamStateChanged())
        opened = set(self.open_roots)
        for root, (session, facts) in builds.items():
            if root in opened:  # (a root no screen shows costs no message)
                self.deliver(LiveTreeBuilt(root, session, facts))
        return True

    def _build(self, changed: set[str]) -> dict:
        """root -> (its build, its facts), for the changed roots this batch's budget covers (the rest wait). While a
        live session's screen is open, the browser is under it: only the roots shown are built, the others wait until
        it closes (their rows were a quarter of this thread's time under the mixed load of 1,000 sessions, unseen)."""
        hub = self.hub
        builds: dict = {}
        shown = set(self.open_roots)
        if shown:
            self._waiting, changed = changed - shown, changed & shown
        started = time.monotonic()
        for done, root in enumerate(changed):
            if done and time.monotonic() - started > LIVE_APPLY_BUDGET:
                self._waiting |= {r for n, r in enumerate(changed) if n >= done}
                break
            try:
                session: Session = hub.build(root)
                read_ahead(session)
            except Exception as exc:  # a bug must not take the monitor (and every other session) down
                self._notify(f"live update of {root} failed: {type(exc).__name__}: {exc}", severity="error")
                continue
            builds[root] = (session, hub.facts(root))
        return builds

    def _freeze_otlp(self) -> None:
        sink = self.otlp_sink
        if sink is None:
            return
        taken = sink.spans_received + sink.logs_received
        if taken - self._otlp_frozen >= OTLP_FREEZE_RECORDS:
            # The held spans, records and trees are long-lived: left to the collector, every full collection
            # walked them all (1-1.5 s stalls at 100,000 spans). Frozen, they are out of its reach; they hold
            # no cycles, so an evicted trace is still freed at once by reference counting.
            gc_pause.freeze()
            self._otlp_frozen = taken

    def _notice_rejections(self) -> None:
        hub = self.hub
        problems = hub.malformed + hub.rejected["auth refused"]
        now = time.monotonic()
        if problems != self._reported_problems and now - self._reported_at >= REJECTION_NOTICE_SECONDS:
            self._notify(f"rejected so far: {hub.rejection_summary()}; last: {hub.last_rejected}",
                         severity="warning", timeout=4)
            self._reported_problems, self._reported_at = problems, now

    def _notify(self, text: str, **kwargs: Any) -> None:
        self.deliver(LiveNotice(text, kwargs))

    def summary(self) -> str:
        """One line on the event streams for the browser header ("" when none is configured)."""
        if not self.streams:
            return ""
        hub = self.hub
        roots = hub.root_count  # (kept by the hub as events arrive: nothing here scans every session)
        parts = [f"live: {hub.events:,} events", f"{roots:,} session{'s' if roots != 1 else ''}"]
        if hub.gaps:
            parts.append(f"{hub.gaps:,} gaps")
        if hub.resets:
            parts.append(f"{hub.resets:,} sequence resets")
        if hub.reordered:
            parts.append(f"{hub.reordered:,} reordered")
        if hub.rejected:
            parts.append(f"rejected: {hub.rejection_summary()}")
        if self.otlp_sink is not None:  # spans and log records received over OTLP, what the caps let go
            parts.append(self.otlp_sink.summary())
        if hub.bridge_dropped:  # events the Node bridge (tui/bridge) could not hold while no monitor listened
            parts.append(f"{hub.bridge_dropped:,} dropped by bridge")
        parts.extend(text for text in list(self.stream_status.values()) if text)  # each listener's state
        return " · ".join(parts)
