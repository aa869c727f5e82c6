"""The app's side of snapshot history: record the versions of open sessions, and open diffs.

Files: the reload worker records each version it loaded (hashing there, off the UI thread); the version on screen
when the file was opened is recorded at its first change. Live streams: a background worker records the newest
build of each open live root at most once every LIVE_HISTORY_SECONDS (and when it finishes). A session's
history lives as long as a screen shows it.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from tui.formats.aiagent.history import History, Version, summary_of
from tui.formats.aiagent.ledger import parse_records
from tui.formats.load import load
from tui.inputs.files import LoadError, open_regular
from tui.catalog.session_row import LIVE_PREFIX
from tui.model.diff import diff_sessions
from tui.model.document import Document
from tui.model.gc_pause import paused_gc
from tui.model.nodes import Session, release_tree
from tui.ui.host import AppMixin

LIVE_HISTORY_SECONDS = 1.0


class HistoryRecorder(AppMixin):
    """Mixed into MonitorApp (which provides hub, session_screens, call_from_thread, run_worker, notify)."""

    def init_history(self) -> None:
        self.history = History()
        self.history_shown: dict[str, Version] = {}  # key -> the recorded version the live view shows
        self._history_seeds: dict[str, tuple] = {}  # key -> what was on screen when the file was opened
        self._history_lock = threading.Lock()
        self._live_pending: dict[str, tuple] = {}
        self._live_dirty: set[str] = set()
        self._live_recorded_at: dict[str, float] = {}
        self._draining = False

    # keys -----------------------------------------------------------------------------------------------
    @staticmethod
    def history_key(doc: Document, live_root: str | None) -> str | None:
        if live_root is not None:
            return LIVE_PREFIX + live_root
        if doc.path == "-" or not doc.path:
            return None
        return str(Path(doc.path).resolve())

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
        self._history_seeds[key] = (doc.root.raw, summary_of(doc.root), time.time(), size)

    def history_closed(self, key: str | None) -> None:
        """A session screen went away: forget the history once no screen shows that session."""
        if key is None:
            return
        if any(s.history_key == key and s.is_attached for s in self.session_screens()):
            return
        self.history.drop(key)
        self.history_shown.pop(key, None)
        self._history_seeds.pop(key, None)
        with self._history_lock:
            self._live_pending.pop(key, None)
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
        raw, summary, at, size = seed
        if tail is None:
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

    def replace_with_version(self, path: Path, doc: Document, version: Version | None) -> None:
        """UI thread: show the new version, and note that the live view now shows that recorded version."""
        if self.closing():
            return
        if version is not None:
            self.history_shown[str(path)] = version
        self._replace_documents(path, doc)
        self.refresh_history_banners(str(path))

    # live streams ---------------------------------------------------------------------------------------
    def live_history_tick(self, changed: set[str]) -> None:
        """Called with every live batch (UI thread): queue the open live roots that are due for recording."""
        shown = {s.live_root for s in self.session_screens() if s.live_root is not None}
        self._live_dirty.update(LIVE_PREFIX + root for root in changed if root in shown)
        if not self._live_dirty:
            return
        now = time.monotonic()
        for key in list(self._live_dirty):
            session = self.hub.build(key[len(LIVE_PREFIX):])
            if session is None:
                self._live_dirty.discard(key)
                continue
            if now - self._live_recorded_at.get(key, 0.0) >= LIVE_HISTORY_SECONDS or not session.running:
                self._live_dirty.discard(key)
                self._queue_live(key, session)

    def _queue_live(self, key: str, session: Session) -> None:
        if session.raw is None:
            return
        self._live_recorded_at[key] = time.monotonic()
        with self._history_lock:
            now = time.time()
            clock = self.hub.clock(key[len(LIVE_PREFIX):], now)
            self._live_pending[key] = (session.raw, summary_of(session), now, clock)
            if self._draining:
                return
            self._draining = True
        self.run_worker(self._drain_live, thread=True, group="history", exit_on_error=False)

    def _drain_live(self) -> None:
        while True:
            with self._history_lock:
                if not self._live_pending:
                    self._draining = False
                    return
                key = next(iter(self._live_pending))
                raw, summary, at, clock = self._live_pending.pop(key)
            with paused_gc():
                version, _ = self.history.add_tree(key, raw, summary, at=at, clock_ms=clock)
            try:
                self.call_from_thread(self._live_recorded, key, raw, version)
            except RuntimeError:  # the app is closing
                with self._history_lock:
                    self._draining = False
                return

    def _live_recorded(self, key: str, raw: dict, version: Version) -> None:
        for screen in self.session_screens():
            if screen.history_key == key and screen.doc.root is not None and screen.doc.root.raw is raw:
                self.history_shown[key] = version
                break
        self.refresh_history_banners(key)

    def refresh_history_banners(self, key: str) -> None:
        for screen in self.session_screens():
            if screen.history_key == key and screen.is_mounted:
                screen.update_history_banner()

    # diffs ----------------------------------------------------------------------------------------------
    def diff_paths(self, a: str, b: str) -> None:
        """Compare two sessions (browser rows: files or live roots) in a background worker, then show the diff."""
        self.notify("comparing…", timeout=2)
        self.run_worker(lambda: self._diff_worker(a, b), thread=True, group="diff", exit_on_error=False)

    def _pinned_build(self, root: str) -> Session | None:
        """UI thread: a live root's build, kept whole (not released by the next tick) until unpinned."""
        session = self.hub.build(root)
        if session is not None:
            self.live_pinned[id(session)] = self.live_pinned.get(id(session), 0) + 1
        return session

    def _unpin(self, sessions: list[Session]) -> None:
        for session in sessions:
            left = self.live_pinned.get(id(session), 0) - 1
            if left > 0:
                self.live_pinned[id(session)] = left
            else:
                self.live_pinned.pop(id(session), None)

    def _diff_worker(self, a: str, b: str) -> None:
        pinned: list[Session] = []
        try:
            self._diff(a, b, pinned)
        finally:
            if pinned:
                try:
                    self.call_from_thread(self._unpin, pinned)
                except RuntimeError:  # the app is closing
                    pass

    def _diff(self, a: str, b: str, pinned: list[Session]) -> None:
        roots: list[Session] = []
        owned: list[Session] = []
        for path in (a, b):
            if path.startswith(LIVE_PREFIX):
                session = self.call_from_thread(self._pinned_build, path[len(LIVE_PREFIX):])
                if session is not None:
                    pinned.append(session)
                if session is None:
                    self.call_from_thread(self.notify, f"{path}: no tree yet", severity="warning", markup=False)
                    return
            else:
                try:
                    doc = load(path)
                except (LoadError, MemoryError, RecursionError) as exc:
                    self.call_from_thread(self.notify, str(exc), title="cannot compare", severity="error",
                                          markup=False)
                    return
                if doc.root is None:
                    self.call_from_thread(self.notify, f"{path}: an accounting ledger has no session tree",
                                          severity="warning", markup=False)
                    return
                session = doc.root
                owned.append(session)
            roots.append(session)
        diff = diff_sessions(roots[0], roots[1], before_label=Path(a).name, after_label=Path(b).name)
        for root in owned:
            release_tree(root)
        self.call_from_thread(self._show_file_diff, a, b, diff)

    def _show_file_diff(self, a: str, b: str, diff) -> None:
        from tui.ui.screens.diff import DiffScreen

        def open_op(delta, side: str) -> None:
            self.open_path(a if side == "before" else b, delta.path)

        self.push_screen(DiffScreen(diff, on_open_op=open_op))
