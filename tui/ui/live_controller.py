"""The live controller: where live events and file changes become tree updates on screen.

It owns the event hub (tui.formats.aiagent.live), the tails of open ledgers, the reloads of changed files, the
live builds and their release, and the recorded history (tui.ui.app_history). What changes reaches the screens
as messages (tui.ui.messages): `LiveTreeBuilt`, `DocumentReloaded`, `HistoryChanged`, `StreamStateChanged`,
`LiveRootsForgotten`, posted to every screen in the stack; each screen takes what concerns it. Screens get the
controller at construction and ask it only for what they need (the clock of a live root, the history, a hold on a
tree).

Trees are released (tui.model.nodes.release_tree) as soon as nothing holds them: the controller holds the
newest build of each live root; a screen holds the roots it shows; an export or a diff holds what it reads until
it is done. A resent 50,000-op tree every second otherwise piles up until a full collection.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tui.formats.agents import is_agent_file
from tui.formats.aiagent.ledger_tail import LedgerTail
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import load_frozen
from tui.inputs.files import LoadError
from tui.inputs.stream.access import mask_token
from tui.model.document import Document
from tui.model.nodes import Session, release_tree
from tui.ui.app_history import LIVE_PREFIX, HistoryRecorder
from tui.ui.messages import DocumentReloaded, LiveRootsForgotten, LiveTreeBuilt, StreamStateChanged

if TYPE_CHECKING:
    from textual.app import App

    from tui.catalog.session_row import SessionRow

OTLP_FREEZE_RECORDS = 10_000  # spans + log records received between two gc.freeze() (apply)
RELEASE_AWAY_TURNS = 1_000  # a tree let go with this many turns is cut in a thread (0.4 s of the keys' at 20,000 ops)
LIVE_APPLY_SECONDS = 0.25  # live updates are batched and applied this often
REJECTION_NOTICE_SECONDS = 5.0  # at most one "rejected so far" notification this often
LIVE_APPLY_SHARE = 4  # ... or, when applying takes longer, after 4 times as long as it took
LIVE_APPLY_BUDGET = 0.05  # s of rebuilding per batch: roots changed past it wait for the next batch (100,000
# new sessions arriving at once are shown over a few seconds instead of freezing the keys for them)


def make_otlp_sink(hub: LiveHub):
    """The OTLP sink (tui.formats.otlp.sink) that turns received spans and log records into live sessions of `hub`;
    imported only when an OTLP receiver starts (opentelemetry-proto is not needed otherwise)."""
    from tui.formats.otlp.sink import OtlpSink

    return OtlpSink(hub)


class LiveController(HistoryRecorder):
    """One per app (MonitorApp.live). `app` is None for a screen shown on its own (tests): nothing is posted."""

    def __init__(self, app: App[Any] | None, *, sessions_dir: Path | None = None, streams: bool = False,
                 on_rows: Callable[[list[SessionRow], bool], None] | None = None,
                 live_row: Callable[[str, Session], SessionRow] | None = None,
                 on_diff: Callable[[str, str, Any], None] | None = None) -> None:
        self.app = app
        self._on_diff = on_diff
        self.sessions_dir = sessions_dir  # where exports and saved payloads must not go
        self.streams = streams  # --listen or --connect given
        self.hub = LiveHub()
        self.stream_status: dict[str, str] = {}
        self._otlp_frozen = 0  # spans + log records received when the heap was last frozen
        self.otlp_sink: Any = None  # made by the first OTLP receiver (otlp_receiver)
        self._on_rows = on_rows  # the browser's rows of changed live roots, and whether its header changed
        self._live_row = live_row
        self._tails: dict[Path, LedgerTail] = {}
        self._reload_lock = threading.Lock()
        self._reload_errors: dict[Path, str] = {}  # the last failed reload of each open file, told once
        self._reported_problems = 0
        self._reported_at = 0.0
        self._panel_counts: tuple = ()
        self._live_due = 0.0
        self._live_builds: dict[str, Session] = {}  # live root -> its newest build (held)
        self._holds: dict[int, list] = {}  # id(root) -> [root, holders]
        self._built: set[int] = set()  # ids of the held trees that are hub builds (their raw goes with them)
        self._open: dict[str, int] = {}  # history key -> session screens showing it
        self.init_history()

    @classmethod
    def detached(cls) -> LiveController:
        return cls(None)

    # screens ----------------------------------------------------------------------------------------------
    def post(self, make: Callable[[], Message]) -> None:
        """A fresh message to every screen of the stack (a message belongs to one queue)."""
        if self.app is None:
            return
        for screen in list(self.app.screen_stack):
            screen.post_message(make())

    def closing(self) -> bool:
        from tui.ui.textual_compat import app_is_exiting

        return self.app is None or app_is_exiting(self.app)

    def notify(self, message: str, **kwargs: Any) -> None:
        if self.app is not None:
            self.app.notify(message, **kwargs)

    def opened(self, key: str | None) -> None:
        """A session screen shows the session of history key `key` (its updates are wanted)."""
        if key is not None:
            self._open[key] = self._open.get(key, 0) + 1

    def closed(self, key: str | None) -> None:
        """A session screen went away: once none shows that session, its history is forgotten."""
        if key is None or key not in self._open:
            return
        self._open[key] -= 1
        if self._open[key] <= 0:
            del self._open[key]
            self.forget_history(key)

    def is_open(self, key: str) -> bool:
        return key in self._open

    # holding trees ------------------------------------------------------------------------------------------
    def hold(self, root: Session | None) -> None:
        """`root` is in use (shown, exported, compared): it is not released until let go as often."""
        if root is None:
            return
        entry = self._holds.get(id(root))
        if entry is None:
            self._holds[id(root)] = [root, 1]
        else:
            entry[1] += 1

    def let_go(self, root: Session | None) -> None:
        """One holder of `root` is done with it; the last one releases it."""
        if root is None:
            return
        entry = self._holds.get(id(root))
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self._holds[id(root)]
            if self.app is None:  # (a detached controller knows too little of who else shows a tree)
                pass
            elif len(root.turns) >= RELEASE_AWAY_TURNS:  # (nobody reads it any more: a thread may cut it)
                threading.Thread(target=self._release, args=(root, id(root) in self._built), name="release-tree",
                                 daemon=True).start()
            else:
                self._release(root, id(root) in self._built)
            self._built.discard(id(root))

    @staticmethod
    def _release(root: Session, built: bool) -> None:
        """A cyclic tree (parents <-> children) nobody uses: cut it now rather than at a full collection."""
        nodes: list = []
        if built:
            stack = [root]
            while stack:  # (iterative: sub-agents thousands deep)
                session = stack.pop()
                nodes.append(session)
                nodes.extend(session.turns)
                stack.extend(op.child for turn in session.turns for op in turn.ops if op.child is not None)
        release_tree(root)
        for node in nodes:
            # The screen's old tree-widget nodes (cyclic too) still reach these sessions and turns until the
            # collector runs: without the parsed tree they hold little. (Ops keep theirs: a payload screen may
            # be showing one.)
            node.raw = None

    def is_current(self, root: str, session: Session) -> bool:
        """The newest build of live root `root` is `session` (an older one may have been released already)."""
        return self._live_builds.get(root) is session

    def build(self, root: str) -> Session | None:
        """The newest build of live root `root`, held as that root's current build (the older one let go)."""
        session = self.hub.build(root)
        if session is None:
            return None
        old = self._live_builds.get(root)
        if old is not session:
            self._live_builds[root] = session
            self._built.add(id(session))
            self.hold(session)
            self.let_go(old)
        return session

    def clock(self, root: str) -> Callable[[], int]:
        """What "now" is for the running nodes of live root `root` (the producer's clock, not ours)."""
        hub = self.hub
        return lambda: hub.clock(root, time.time())

    # the event streams ----------------------------------------------------------------------------------------
    def stream_state(self) -> str:
        """The newest line any stream reported (listening, clients, disconnected/reconnected)."""
        return next((text for text in reversed(self.stream_status.values()) if text), "")

    def stream_reporter(self, url: str) -> Callable[[str], None]:
        def report(text: str) -> None:  # shown by the next apply (a burst of clients costs no redraws)
            self.stream_status.pop(url, None)  # keep the newest last
            self.stream_status[url] = mask_token(text)  # a ?token= in a --connect URL is never shown
        return report

    def otlp_receiver(self) -> Callable[[str, bytes, str], int]:
        """What the OTLP receivers hand each export request to (their threads decode it, the tick applies it)."""
        if self.otlp_sink is None:
            self.otlp_sink = make_otlp_sink(self.hub)
            self.otlp_sink.start()  # trees assembled off the UI thread; apply() only hands them to the hub
        return self.otlp_sink.accept

    def tick(self) -> None:
        # Rebuilding a big tree (parse, merge, build, redraw) can take a good part of a second: spend about a
        # fifth of the time on it, so that events keep flowing in and keys keep being answered.
        # The OTLP sink's assembled trees go into the hub at every tick, due or not: handing them over is a few dict
        # operations each (bounded by its DRAIN_BUDGET), and while they waited for the next batch (4 times a slow
        # batch's time: 3 s after one of 0.8 s) the sink's ready queue filled up (MAX_READY) and stopped its
        # assembling thread, so that 200,000 spans took 2-5 s more to be applied once the last one arrived.
        now = time.monotonic()
        if self.closing():
            return
        if now < self._live_due:
            if self.otlp_sink is not None:
                self.otlp_sink.drain()
            return
        self.apply()
        self._live_due = now + max(LIVE_APPLY_SECONDS, LIVE_APPLY_SHARE * (time.monotonic() - now))

    def apply(self) -> None:
        """Applied a few times a second: whatever arrived since the last call, in one batch."""
        hub = self.hub
        if self.otlp_sink is not None:
            sink = self.otlp_sink
            sink.drain()  # what the receivers decoded and assembled since the last batch, into the hub
            taken = sink.spans_received + sink.logs_received
            if taken - self._otlp_frozen >= OTLP_FREEZE_RECORDS:
                # The held spans, records and trees are long-lived: left to the collector, every full collection
                # walked them all (1-1.5 s stalls at 100,000 spans). Frozen, they are out of its reach; they hold
                # no cycles, so an evicted trace is still freed at once by reference counting.
                gc.freeze()
                self._otlp_frozen = taken
        problems = hub.malformed + hub.rejected["auth refused"]
        now = time.monotonic()
        if problems != self._reported_problems and now - self._reported_at >= REJECTION_NOTICE_SECONDS:
            self.notify(f"rejected so far: {hub.rejection_summary()}; last: {hub.last_rejected}",
                        severity="warning", timeout=4, markup=False)
            self._reported_problems, self._reported_at = problems, now
        changed, hub.changed = hub.changed, set()
        gone, hub.forgotten = hub.forgotten, set()
        for root in gone:  # evicted by the OTLP sink's caps: its last build goes too (the browser keeps the row)
            if not self.is_open(LIVE_PREFIX + root):
                self.let_go(self._live_builds.pop(root, None))
        merged, hub.merged = hub.merged, set()  # roots now shown under another root: their rows go
        changed -= merged
        for root in merged:
            if not self.is_open(LIVE_PREFIX + root):
                self.let_go(self._live_builds.pop(root, None))
        gone -= changed  # (one that came back since is live again: its row is updated below)
        if gone or merged:  # the browser keeps a bounded number of forgotten rows (tui.catalog.forgotten_rows)
            self.post(partial(LiveRootsForgotten, frozenset(gone), frozenset(merged)))
        self.live_history_tick(changed)
        counts = (sum(hub.rejected.values()), tuple(self.stream_status.values()))
        counts_moved = counts != self._panel_counts
        if counts_moved:  # rejections and stream states concern every live screen, not only changed roots
            self._panel_counts = counts
            self.post(StreamStateChanged)
        rows = []
        started = time.monotonic()
        for done, root in enumerate(changed):
            if done and time.monotonic() - started > LIVE_APPLY_BUDGET:
                hub.changed.update(root for n, root in enumerate(changed) if n >= done)
                break
            try:
                session = self.build(root)
                if session is None:
                    continue
                if self._live_row is not None:
                    rows.append(self._live_row(root, session))
                if self.is_open(LIVE_PREFIX + root):  # (a root no screen shows costs no message)
                    self.post(partial(LiveTreeBuilt, root, session))
            except Exception as exc:  # a bug must not take the monitor (and every other session) down
                self.notify(f"live update of {root} failed: {type(exc).__name__}: {exc}", severity="error",
                            markup=False)
        if self._on_rows is not None and (rows or changed or counts_moved):
            self._on_rows(rows, bool(changed or counts_moved))

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
        parts.extend(text for text in self.stream_status.values() if text)  # each listener's and server's state
        return " · ".join(parts)

    # changed files ------------------------------------------------------------------------------------------
    def file_changed(self, path: Path) -> None:
        """A watched file changed (`path` resolved): read it again if a screen shows it."""
        if self.is_open(str(path)) and self.app is not None:
            self.app.run_worker(lambda: self._reload_locked(path), thread=True, group="reload",
                                exit_on_error=False)

    def _reload_locked(self, path: Path) -> None:
        # One reload at a time: a slow reload finishing after a newer one must not put older content back on
        # screen, and a ledger's tail must not be read by two threads at once.
        with self._reload_lock:
            self._reload(path)

    def _reload(self, path: Path) -> None:
        assert self.app is not None
        tail = None
        try:
            if path.suffix == ".jsonl" and not is_agent_file(path):  # (a Claude Code file is no ledger)
                tail = self._tails.get(path)
                if tail is None:
                    tail = self._tails[path] = LedgerTail(path)
                tail.read_new()
                doc = tail.document()
            else:
                doc = load_frozen(str(path))
        except LoadError as exc:
            # half-written, or replaced by something broken: keep what is on screen, the next change will retry
            self._call(self._reload_failed, path, exc.reason)
            return
        except (OSError, RuntimeError, MemoryError):
            return  # vanished meanwhile
        version = self.record_file_version(path, doc, tail)
        self._call(self._reloaded, path, doc, version)

    def _call(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        assert self.app is not None
        try:
            self.app.call_from_thread(callback, *args, **kwargs)
        except RuntimeError:  # the app is closing
            pass

    def _reload_failed(self, path: Path, reason: str) -> None:
        if self.is_open(str(path)) and self._reload_errors.get(path) != reason:
            self._reload_errors[path] = reason
            self.notify(f"{path.name} changed but cannot be read now: {reason}. Showing the last version read.",
                        title="file changed", severity="warning", timeout=8)

    def _reloaded(self, path: Path, doc: Document, version: Any) -> None:
        """UI thread: tell the screens, and note that the live view now shows that recorded version."""
        if self.closing():
            return
        self._reload_errors.pop(path, None)
        if version is not None:
            self.history_shown[str(path)] = version
        self.post(partial(DocumentReloaded, path, doc, version))
        self.history_changed(str(path))
