"""The live controller's side of snapshot history: record the versions of open sessions, and open diffs.

Files: the reload worker records each version it loaded (hashing there, off the UI thread); the version on screen
when the file was opened is recorded at its first change. Live streams: a background worker records the newest
build of each open live root at most once every LIVE_HISTORY_SECONDS (and when it finishes). A session's
history lives as long as a screen shows it. Screens learn of new versions by `HistoryChanged` (tui.ui.messages).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from contextlib import ExitStack
from functools import partial
from typing import TYPE_CHECKING, Any

from tui.formats.aiagent.history import History, Version, summary_of
from tui.formats.aiagent.ledger import parse_records
from tui.formats.load import load
from tui.inputs.files import LoadError, open_regular
from tui.catalog.session_row import LIVE_PREFIX
from tui.inputs.paths import safe_resolve
from tui.model.document import Document
from tui.model.gc_pause import paused_gc
from tui.model.nodes import Session, release_tree
from tui.ui.messages import DiffReady, HistoryChanged
from tui.ui.textual_compat import drop_notifications

if TYPE_CHECKING:
    from textual.app import App

    from tui.formats.aiagent.live.facts import LiveFacts
    from tui.ui.pin import Pin

LIVE_HISTORY_SECONDS = 1.0
LIVE_HISTORY_SHARE = 0.25  # a live root's versions take at most this share of a thread's time to record
COMPARING = "comparing…"  # the notice while two browser rows are compared (taken down once the diff shows)


class HistoryRecorder:
    """Mixed into the LiveController (which provides app, post, pinned, build, facts, is_open, notify)."""

    app: App[Any] | None
    _live_builds: dict[str, Session]

    if TYPE_CHECKING:
        def post(self, make: Any) -> None: ...
        def notify(self, message: str, **kwargs: Any) -> None: ...
        def is_open(self, key: str) -> bool: ...
        def pinned(self, root: Session | None) -> Pin: ...
        def build(self, root: str) -> Session | None: ...
        def facts(self, root: str) -> LiveFacts: ...
        def _call(self, callback: Any, *args: Any, **kwargs: Any) -> None: ...

    def init_history(self) -> None:
        self.history = History()
        self.history_shown: dict[str, Version] = {}  # key -> the recorded version the live view shows
        self._history_seeds: dict[str, tuple] = {}  # key -> what was on screen when the file was opened
        self._history_lock = threading.Lock()
        self._live_pending: dict[str, tuple] = {}
        self._live_dirty: set[str] = set()
        self._live_recorded_at: dict[str, float] = {}
        self._live_record_cost: dict[str, float] = {}  # seconds its last version took to record (thread time)
        self._draining = False

    # keys -----------------------------------------------------------------------------------------------
    @staticmethod
    def history_key(doc: Document, live_root: str | None) -> str | None:
        if live_root is not None:
            return LIVE_PREFIX + live_root
        if doc.path == "-" or not doc.path:
            return None
        return str(safe_resolve(Path(doc.path)))

    def note_opened(self, doc: Document, live_root: str | None) -> None:
        """A root session screen opens: remember what it shows, to record it as version 1 at the first change."""
        key = self.history_key(doc, live_root)
        if key is None or doc.root is None or self.history.has(key):
            return
        if live_root is not None:
            self._queue_live(key, doc.root)
            return
        try:
            size = os.stat(doc.path).st_size
        except OSError:
            size = None
        # the tree as opened, decoded only if the file changes (a lazily read snapshot keeps its bytes)
        self._history_seeds[key] = (doc.root.raw_later(), summary_of(doc.root), time.time(), size)

    def forget_history(self, key: str) -> None:
        """No screen shows that session any more (LiveController.closed): forget its history."""
        self.history.drop(key)
        self.history_shown.pop(key, None)
        self._history_seeds.pop(key, None)
        with self._history_lock:
            self._live_pending.pop(key, None)
            self._live_record_cost.pop(key, None)
        self._live_dirty.discard(key)
        self._live_recorded_at.pop(key, None)

    # files (runs in the reload worker) -------------------------------------------------------------------
    def record_file_version(self, path: Path, doc: Document, tail=None) -> Version | None:
        key = str(path)
        if doc.root is None or not (key in self._history_seeds or self.history.has(key)):
            return None  # no screen opened it (or they all closed): nothing to record
        with paused_gc():
            if not self.history.has(key):
                self._record_seed(key, path, tail)
            summary = summary_of(doc.root)
            if tail is not None:
                version, _ = self.history.add_ledger(key, tail.records, len(tail.records), summary,
                                                     sessions_dir=tail.sessions_dir, path=str(path))
            elif doc.root.raw is not None:
                version, _ = self.history.add_tree(key, doc.root.raw, summary)
            else:
                return None
        return version

    def _record_seed(self, key: str, path: Path, tail) -> None:
        seed = self._history_seeds.pop(key, None)
        if seed is None:
            return
        raw_later, summary, at, size = seed
        if tail is None:
            raw = raw_later()
            if raw is not None:
                self.history.add_tree(key, raw, summary, at=at)
            return
        if size is None:
            return
        try:
            with open_regular(path) as f:
                data = f.read(size)
        except OSError:
            return
        count = len(parse_records(data)[0])  # the records the screen was built from (the ledger only grows)
        if count <= len(tail.records):
            self.history.add_ledger(key, tail.records, count, summary, sessions_dir=tail.sessions_dir,
                                    path=str(path), at=at)

    # live streams ---------------------------------------------------------------------------------------
    def live_history_tick(self, changed: set[str]) -> None:
        """Called with every live batch (UI thread): queue the open live roots that are due for recording."""
        self._live_dirty.update(key for key in (LIVE_PREFIX + root for root in changed) if self.is_open(key))
        if not self._live_dirty:
            return
        now = time.monotonic()
        for key in list(self._live_dirty):
            session = self.build(key[len(LIVE_PREFIX):])
            if session is None:
                self._live_dirty.discard(key)
                continue
            if now - self._live_recorded_at.get(key, 0.0) >= self._live_interval(key) or not session.running:
                self._live_dirty.discard(key)
                self._queue_live(key, session)

    def _live_interval(self, key: str) -> float:
        """Seconds between two recorded versions of a live root: LIVE_HISTORY_SECONDS, longer for a root whose
        versions are costly to record (a 50,000-span trace: up to 0.6 s a version, every second, in a thread
        that took the interpreter from the keys; `otlp_big_run.py`'s keys row)."""
        return max(LIVE_HISTORY_SECONDS, self._live_record_cost.get(key, 0.0) / LIVE_HISTORY_SHARE)

    def _queue_live(self, key: str, session: Session) -> None:
        if session.raw is None:
            return
        self._live_recorded_at[key] = time.monotonic()
        with self._history_lock:
            now = time.time()
            clock = self.facts(key[len(LIVE_PREFIX):]).clock(now)
            self._live_pending[key] = (session.raw, summary_of(session), now, clock)
            if self._draining:
                return
            self._draining = True
        if self.app is not None:
            self.app.run_worker(self._drain_live, thread=True, group="history", exit_on_error=False)

    def _drain_live(self) -> None:
        while True:
            with self._history_lock:
                if not self._live_pending:
                    self._draining = False
                    return
                key = next(iter(self._live_pending))
                raw, summary, at, clock = self._live_pending.pop(key)
            began = time.thread_time()
            with paused_gc():
                version, _ = self.history.add_tree(key, raw, summary, at=at, clock_ms=clock)
            with self._history_lock:  # (forget_history drops it under the lock)
                self._live_record_cost[key] = time.thread_time() - began
            try:
                assert self.app is not None
                self.app.call_from_thread(self._live_recorded, key, raw, version)
            except RuntimeError:  # the app is closing
                with self._history_lock:
                    self._draining = False
                return

    def _live_recorded(self, key: str, raw: dict, version: Version) -> None:
        current = self._live_builds.get(key[len(LIVE_PREFIX):])
        if current is not None and current.raw is raw:  # what the live views show (or are about to)
            self.history_shown[key] = version
        self.history_changed(key)

    def history_changed(self, key: str) -> None:
        self.post(partial(HistoryChanged, key))

    # diffs ----------------------------------------------------------------------------------------------
    def diff_paths(self, a: str, b: str) -> None:
        """Compare two sessions (browser rows: files or live roots) in a background worker, then show the diff."""
        if self.app is None:
            return
        self.notify(COMPARING, timeout=2)
        self.app.run_worker(lambda: self._diff_worker(a, b), thread=True, group="diff", exit_on_error=False)

    def _held_build(self, root: str) -> Pin:
        """UI thread: a live root's build, kept whole (not released by the next tick) until the Pin is released."""
        return self.pinned(self.build(root))

    def _diff_worker(self, a: str, b: str) -> None:
        pinned = ExitStack()  # the live builds it reads: released on the UI thread once the diff is made
        try:
            self._diff(a, b, pinned)
        finally:
            if self.app is not None:  # the notice goes when the diff (or why there is none) is shown
                self._call(drop_notifications, self.app, COMPARING, "")
            self._call(pinned.close)

    def _diff(self, a: str, b: str, pinned: ExitStack) -> None:
        assert self.app is not None
        roots: list[Session] = []
        owned: list[Session] = []
        for path in (a, b):
            if path.startswith(LIVE_PREFIX):
                pin = self.app.call_from_thread(self._held_build, path[len(LIVE_PREFIX):])
                session = pinned.enter_context(pin).root
                if session is None:
                    self._call(self.notify, f"{path}: no tree yet", severity="warning", markup=False)
                    return
            else:
                try:
                    doc = load(path)
                except (LoadError, MemoryError, RecursionError) as exc:
                    self._call(self.notify, str(exc), title="cannot compare", severity="error",
                                          markup=False)
                    return
                if doc.root is None:
                    self._call(self.notify, f"{path}: an accounting ledger has no session tree",
                                          severity="warning", markup=False)
                    return
                session = doc.root
                owned.append(session)
            roots.append(session)
        from tui.model.diff import diff_sessions  # (imported when first used: start-up does not need it)

        diff = diff_sessions(roots[0], roots[1], before_label=Path(a).name, after_label=Path(b).name)
        for root in owned:
            release_tree(root)
        self._call(self._show_file_diff, a, b, diff)

    def _show_file_diff(self, a: str, b: str, diff: Any) -> None:
        if self.app is not None:  # the app shows it (MonitorApp.on_diff_ready)
            self.app.post_message(DiffReady(a, b, diff))
