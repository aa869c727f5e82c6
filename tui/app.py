"""The Textual app: owns the configuration, the live sources, and routes between screens."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding

from tui.launch import load_document
from tui.model.document import SNAPSHOT, Document
from tui.model.live import LiveHub
from tui.model.nodes import release_tree
from tui.model.session_row import SessionRow, row_from_entry
from tui.model.source_bytes import LoadError
from tui.sources.dir_watch import DirChanges, watch_sessions
from tui.sources.event_stream import connect, listen
from tui.sources.ledger_tail import LedgerTail

LIVE_APPLY_SECONDS = 0.25  # live updates are batched and applied this often
LIVE_APPLY_SHARE = 4  # ... or, when applying takes longer, after 4 times as long as it took
LIVE_PREFIX = "live:"
# The collector's generations: a full collection scans every live widget, style and cache of the UI (some 30 ms
# on 2 cores, more with the garbage of a closed screen); by default one follows every 10th middle-generation pass,
# which opening a screen on a big session triggers several times. Every 100th keeps drill-downs under 100 ms.
GC_THRESHOLDS = (700, 10, 100)


class MonitorApp(App):
    """aiagent-monitor. Screens: BrowserScreen (a sessions directory), SessionScreen (one tree), PayloadScreen."""

    CSS_PATH = "app.tcss"
    TITLE = "aiagent-monitor"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(self, *, sessions_dir: Path | None = None, document: Document | None = None,
                 op_path: str | None = None, demo_note: str = "", listen_urls: list[str] | None = None,
                 connect_urls: list[str] | None = None, watch: bool = True) -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.initial_document = document
        self.initial_op = op_path
        self.demo_note = demo_note
        self.listen_urls = list(listen_urls or [])
        self.connect_urls = list(connect_urls or [])
        self.watch_files = watch
        self.hub = LiveHub()
        self.stream_status: dict[str, str] = {}
        self._tails: dict[Path, LedgerTail] = {}
        self._reload_lock = threading.Lock()
        self._reported_malformed = 0
        self._live_due = 0.0

    # start-up ---------------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        gc.set_threshold(*GC_THRESHOLDS)
        if self.initial_document is not None:
            settle_heap()
        if self.demo_note:
            self.notify(self.demo_note, title="demo", timeout=8, markup=False)
        if self.initial_document is not None:
            self.push_screen(self.session_screen(self.initial_document, self.initial_op))
            watched = Path(self.initial_document.path).resolve().parent if self.initial_document.path != "-" else None
        else:
            from tui.screens.browser import BrowserScreen

            self.push_screen(BrowserScreen(self.sessions_dir))
            watched = self.sessions_dir
        if self.watch_files and watched is not None and watched.is_dir():
            self.run_worker(watch_sessions(watched, self._dir_changed), group="watch", exit_on_error=False)
        for url in self.listen_urls:
            self.run_worker(listen(url, self.hub.feed, self._stream_status(url),
                                   on_oversized=self.hub.refuse_oversized), group="streams", exit_on_error=False)
        for url in self.connect_urls:
            self.run_worker(connect(url, self.hub.feed, self._stream_status(url),
                                    on_oversized=self.hub.refuse_oversized), group="streams", exit_on_error=False)
        if self.listen_urls or self.connect_urls:
            self.set_interval(LIVE_APPLY_SECONDS, self._live_tick)

    def _stream_status(self, url: str):
        def report(text: str) -> None:
            self.stream_status[url] = text
            browser = self.browser()
            if browser is not None and browser.is_mounted:
                browser.update_header()
        return report

    # documents --------------------------------------------------------------------------------------------
    def load_document(self, path: str) -> Document | None:
        """Load a document; on failure notify and return None (never raise into the UI)."""
        try:
            return load_document(path)
        except LoadError as exc:
            self.notify(str(exc), title="cannot open", severity="error", timeout=10, markup=False)
        except (MemoryError, RecursionError) as exc:
            self.notify(f"{path}: {type(exc).__name__}", title="cannot open", severity="error", timeout=10,
                        markup=False)
        return None

    def session_screen(self, doc: Document, op_path: str | None = None, live_root: str | None = None):
        from tui.screens.session import SessionScreen

        return SessionScreen(doc, doc.root, select_path=op_path, live_root=live_root)

    def open_path(self, path: str, op_path: str | None = None) -> None:
        """Open a session on top of the current screen (the browser calls this on Enter)."""
        if path.startswith(LIVE_PREFIX):
            root = path[len(LIVE_PREFIX):]
            session = self.hub.build(root)
            if session is None:
                self.notify("this live session has not sent its tree yet", severity="warning")
                return
            doc = Document(SNAPSHOT, path, root=session, shape="live")
            self.push_screen(self.session_screen(doc, op_path, live_root=root))
            return
        doc = self.load_document(path)
        if doc is not None:
            settle_heap()
            if doc.root is None:
                self.notify(f"{path}: an accounting ledger has no session tree; use `dump`", severity="warning",
                            markup=False)
                return
            self.push_screen(self.session_screen(doc, op_path))

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def session_screens(self):
        from tui.screens.session import SessionScreen

        return [s for s in self.screen_stack if isinstance(s, SessionScreen)]

    def browser(self):
        from tui.screens.browser import BrowserScreen

        return next((s for s in self.screen_stack if isinstance(s, BrowserScreen)), None)

    # the sessions directory -------------------------------------------------------------------------------
    def _dir_changed(self, batch: DirChanges) -> None:
        browser = self.browser()
        if browser is not None:
            rows = []
            for path in batch.updated:
                try:
                    st = path.stat()
                except OSError:
                    continue
                rows.append(row_from_entry(path, st.st_mtime, st.st_size,
                                           "ledger" if path.suffix == ".jsonl" else "snapshot"))
            if rows:
                browser.upsert_rows(rows)
            if batch.removed:
                browser.remove_paths(batch.removed)
        for path in batch.updated:
            if self.file_screens(path.resolve()):
                self.reload(path.resolve())

    def file_screens(self, path: Path):
        """The session screens showing the file at `path` (resolved): the root view and its drill-downs."""
        return [s for s in self.session_screens()
                if s.live_root is None and s.doc.path != "-" and Path(s.doc.path).resolve() == path]

    @work(thread=True, group="reload", exclusive=False)
    def reload(self, path: Path) -> None:
        # One reload at a time: a slow reload finishing after a newer one must not put older content back on
        # screen, and a ledger's tail must not be read by two threads at once.
        with self._reload_lock:
            self._reload(path)

    def _reload(self, path: Path) -> None:
        try:
            if path.suffix == ".jsonl":
                tail = self._tails.get(path)
                if tail is None:
                    tail = self._tails[path] = LedgerTail(path)
                tail.read_new()
                doc = tail.document()
            else:
                doc = load_document(str(path))
        except (LoadError, OSError):
            return  # a half-written or vanished file: keep what is on screen, the next change will retry
        self.call_from_thread(self._replace_documents, path, doc)

    def _replace_documents(self, path: Path, doc: Document) -> None:
        old_roots = []
        for screen in self.file_screens(path):
            if screen.doc.root is not None and screen.doc.root is not doc.root:
                old_roots.append(screen.doc.root)
            screen.replace_document(Document(**{**doc.__dict__, "path": screen.doc.path}))
        for root in {id(r): r for r in old_roots}.values():
            release_tree(root)

    def on_screen_closed(self, doc: Document) -> None:
        """A root session screen went away: free its tree now rather than at the next full collection."""
        if doc.root is not None and not any(s.doc.root is doc.root for s in self.session_screens()):
            release_tree(doc.root)

    # the live event stream --------------------------------------------------------------------------------
    def _live_tick(self) -> None:
        # Rebuilding a big tree (parse, merge, build, redraw) can take a good part of a second: spend about a
        # fifth of the time on it, so that events keep flowing in and keys keep being answered.
        now = time.monotonic()
        if now < self._live_due:
            return
        self.apply_live()
        self._live_due = now + max(LIVE_APPLY_SECONDS, LIVE_APPLY_SHARE * (time.monotonic() - now))

    def apply_live(self) -> None:
        """Applied a few times a second: whatever arrived since the last call, in one batch."""
        hub = self.hub
        if hub.malformed != self._reported_malformed:
            self.notify(f"{hub.malformed:,} malformed or refused frames so far; last: {hub.last_malformed}",
                        severity="warning", timeout=4, markup=False)
            self._reported_malformed = hub.malformed
        changed, hub.changed = hub.changed, set()
        if not changed:
            return
        browser = self.browser()
        rows = []
        for root in changed:
            try:
                session = hub.build(root)
                if session is None:
                    continue
                rows.append(self.live_row(root, session))
                for screen in self.session_screens():
                    if screen.live_root == root:
                        screen.replace_live(session)
            except Exception as exc:  # a bug must not take the monitor (and every other session) down
                self.notify(f"live update of {root} failed: {type(exc).__name__}: {exc}", severity="error",
                            markup=False)
        if browser is not None and rows:
            browser.upsert_rows(rows)
        if browser is not None:
            browser.update_header()

    def live_summary(self) -> str:
        """One line on the event streams for the browser header ("" when none is configured)."""
        if not (self.listen_urls or self.connect_urls):
            return ""
        hub = self.hub
        parts = [f"live: {hub.events:,} events", f"{len(hub.roots()):,} sessions"]
        gaps = sum(s.gaps for s in hub.sessions.values())
        if gaps:
            parts.append(f"{gaps:,} gaps")
        if hub.malformed:
            parts.append(f"{hub.malformed:,} malformed")
        states = [text for text in self.stream_status.values() if text]
        if states:
            parts.append(states[-1])
        return " · ".join(parts)

    def live_row(self, root: str, session) -> SessionRow:
        events, gaps = self.hub.counters(root)
        live = self.hub.sessions.get(root)
        row = SessionRow(key=LIVE_PREFIX + root, path=Path(LIVE_PREFIX + root), kind="live", session_id=root,
                         mtime=(live.updated if live and live.updated else time.time()), size=0, loaded=True)
        row.started_at = session.started_at
        row.agent = session.display_agent
        row.title = f"[live · {events:,} events · {gaps:,} gaps] {session.title}".strip()
        row.status = session.status
        row.duration_ms = session.duration_ms
        row.turns = session.counts.turns
        row.tokens = session.totals.tokensIn + session.totals.tokensOut
        row.cost = session.totals.cost
        row.mismatch = bool(session.mismatch)
        return row


def settle_heap() -> None:
    """Move what exists now (a freshly loaded document: millions of parsed JSON containers, loaded with the
    collector paused) out of the collector's reach. Otherwise each young-generation pass re-scans them as they
    are promoted, stalling the first seconds of the UI. Parsed JSON is acyclic and our trees are released
    explicitly (release_tree), so refcounting still frees them."""
    gc.freeze()

