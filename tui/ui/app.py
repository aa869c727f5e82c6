"""The Textual app: owns the configuration, the live sources, and routes between screens."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow, live_session_row, row_from_entry
from tui.formats.aiagent.ledger_tail import LedgerTail
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.genkit.snapshot import looks_like_genkit_dir
from tui.formats.load import load_frozen
from tui.inputs.files import LoadError
from tui.inputs.paths import safe_resolve
from tui.inputs.stream.access import mask_token
from tui.inputs.stream.event_stream import connect, listen
from tui.inputs.watch import DirChanges, watch_sessions
from tui.model.document import SNAPSHOT, Document
from tui.model.fields import printable
from tui.model.nodes import release_tree
from tui.ui.app_history import HistoryRecorder
from tui.ui.idle_collect import IdleCollector
from tui.ui.preload import preload
from tui.ui.textual_compat import app_is_exiting, drop_notifications

LIVE_APPLY_SECONDS = 0.25  # live updates are batched and applied this often
REJECTION_NOTICE_SECONDS = 5.0  # at most one "rejected so far" notification this often
LIVE_APPLY_SHARE = 4  # ... or, when applying takes longer, after 4 times as long as it took
LIVE_APPLY_BUDGET = 0.05  # s of rebuilding per batch: roots changed past it wait for the next batch (100,000
# new sessions arriving at once are shown over a few seconds instead of freezing the keys for them)
# The collector's generations: a full collection scans every live widget, style and cache of the UI (some 30 ms
# on 2 cores, more with the garbage of a closed screen); by default one follows every 10th middle-generation pass,
# which opening a screen on a big session triggers several times. Every 100th keeps drill-downs under 100 ms.
GC_THRESHOLDS = (700, 10, 100)


class MonitorApp(HistoryRecorder, IdleCollector, App):
    """aiagent-monitor. Screens: BrowserScreen (a sessions directory), SessionScreen (one tree), PayloadScreen."""

    CSS_PATH = "app.tcss"
    TITLE = "aiagent-monitor"
    BINDINGS = [
        Binding("q", "close_view", "Quit"),  # closes the view on top; quits from the first screen
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),  # (ctrl+q too: Textual's own binding)
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(self, *, sessions_dir: Path | None = None, document: Document | None = None,
                 op_path: str | None = None, demo_note: str = "", listen_urls: list[str] | None = None,
                 connect_urls: list[str] | None = None, watch: bool = True, token: str | None = None,
                 demo_for: Path | None = None,
                 allow_remote: bool = False, allow_origins: list[str] | None = None) -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.initial_document = document
        self.initial_op = op_path
        self.demo_note = demo_note
        self.demo_for = demo_for  # the demo runs in place of this (empty) sessions directory
        self.listen_urls = list(listen_urls or [])
        self.connect_urls = list(connect_urls or [])
        self.watch_files = watch
        self.token = token  # required from WebSocket producers of --listen, sent to --connect servers
        self.allow_remote = allow_remote
        self.allow_origins = list(allow_origins or [])  # web pages allowed to push to a ws:// --listen
        self.hub = LiveHub()
        self.stream_status: dict[str, str] = {}
        self._tails: dict[Path, LedgerTail] = {}
        self._reload_lock = threading.Lock()
        self._reload_errors: dict[Path, str] = {}  # the last failed reload of each open file, told once
        self.init_history()
        self._reported_problems = 0
        self._reported_at = 0.0
        self._panel_counts: tuple = ()
        self._live_due = 0.0
        self._live_builds: dict[str, object] = {}  # live root -> the build last handed to its screens and row
        self.live_pinned: dict[int, int] = {}  # id(build) -> users outside the screens (a diff being computed)

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every notification (screens and widgets end up here) is plain text: messages quote file names, file
        content and stream data, so markup is never parsed and control characters are shown escaped."""
        message, title = printable(str(message), keep_newlines=True), printable(str(title))
        # the same notice again replaces the one on screen (queued like it: notify may come from a thread)
        self.call_later(drop_notifications, self, message, title)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # start-up ---------------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        gc.set_threshold(*GC_THRESHOLDS)
        if self.initial_document is not None:
            settle_heap()
        if self.demo_note:
            self.notify(self.demo_note, title="demo", timeout=8, markup=False)
        if self.initial_document is not None:
            self.push_screen(self.session_screen(self.initial_document, self.initial_op))
            path = self.initial_document.path
            opened = (safe_resolve(Path(path)),) if path != "-" else ()  # followed wherever it sits (a ledger too)
            watched = opened[0].parent if opened else None
        else:
            from tui.ui.screens.browser import BrowserScreen

            self.push_screen(BrowserScreen(self.sessions_dir, demo_for=self.demo_for))
            watched, opened = self.sessions_dir, ()
        if self.watch_files and watched is not None and watched.is_dir():
            def start_watch() -> None:
                self.run_worker(watch_sessions(watched, self._dir_changed, files=opened, on_status=self._watch_status),
                                group="watch", exit_on_error=False)
            if opened:  # an opened file's directory is watched from the first paint on (start-up time)
                self.call_after_refresh(start_watch)
            else:
                start_watch()
        for url in self.listen_urls:
            self.run_worker(self._stream(url, listen(
                url, self.hub.feed, self._stream_status(url), on_oversized=self.hub.refuse_oversized,
                on_rejected=self.hub.reject, token=self.token, allow_remote=self.allow_remote,
                allow_origins=self.allow_origins)),
                group="streams", exit_on_error=False)
        for url in self.connect_urls:
            self.run_worker(self._stream(url, connect(
                url, self.hub.feed, self._stream_status(url), on_oversized=self.hub.refuse_oversized,
                on_rejected=self.hub.reject, token=self.token)), group="streams", exit_on_error=False)
        if self.listen_urls or self.connect_urls:
            self.set_interval(LIVE_APPLY_SECONDS, self._live_tick)
        # What keys would read from disk on first use, read now (tui.ui.preload: no key needs a free descriptor)
        self.call_after_refresh(lambda: self.run_worker(lambda: preload(self), thread=True, group="preload",
                                                        exit_on_error=False))

    async def _stream(self, url: str, runner) -> None:
        """Run a listener or subscriber; a failure to listen (address in use, a live socket) is shown, not lost."""
        try:
            await runner
        except (OSError, ValueError) as exc:
            self._stream_status(url)(f"not listening on {url}: {exc}")
            self.notify(mask_token(str(exc)), title=mask_token(f"cannot listen on {url}"), severity="error",
                        timeout=30, markup=False)

    def stream_state(self) -> str:
        """The newest line any stream reported (listening, clients, disconnected/reconnected)."""
        return next((text for text in reversed(self.stream_status.values()) if text), "")

    def _stream_status(self, url: str):
        def report(text: str) -> None:  # shown by the next apply_live (a burst of clients costs no redraws)
            self.stream_status.pop(url, None)  # keep the newest last
            self.stream_status[url] = mask_token(text)  # a ?token= in a --connect URL is never shown
        return report

    # documents --------------------------------------------------------------------------------------------
    def load_document(self, path: str) -> Document | None:
        """Load a document; on failure notify and return None (never raise into the UI)."""
        try:
            return load_frozen(path)
        except LoadError as exc:
            self.notify(str(exc), title="cannot open", severity="error", timeout=10, markup=False)
        except (MemoryError, RecursionError) as exc:
            self.notify(f"{path}: {type(exc).__name__}", title="cannot open", severity="error", timeout=10,
                        markup=False)
        except Exception as exc:  # noqa: BLE001 - one bad file must not take the monitor down
            self.notify(f"{path}: cannot load: {type(exc).__name__}: {exc}", title="cannot open", severity="error",
                        timeout=10)
        return None

    def session_screen(self, doc: Document, op_path: str | None = None, live_root: str | None = None):
        from tui.ui.screens.session import SessionScreen

        self.note_opened(doc, live_root)
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
        doc = self.load_document(path)  # frozen out of the collector's reach as it loads
        if doc is not None:
            if doc.root is None:
                self.notify(f"{path}: an accounting ledger has no session tree; use `dump`", severity="warning",
                            markup=False)
                return
            self.push_screen(self.session_screen(doc, op_path))

    def action_close_view(self) -> None:
        """`q`, as in k9s and lazygit: close the view on top (a dialog, a drill-down, the payload viewer); on the
        first screen, quit."""
        if len(self.screen_stack) > 2:
            self.pop_screen()
        else:
            self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The command palette (ctrl+p) lists every action the screen offers now, with its key."""
        yield from super().get_system_commands(screen)
        seen: dict[tuple[int, str], tuple[str, DOMNode, list[str]]] = {}
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if binding.system or not binding.description or binding.action == "command_palette":
                continue
            entry = seen.setdefault((id(active.node), binding.action), (binding.description, active.node, []))
            entry[2].append(binding.key_display or self.get_key_display(binding))
        for (_, action), (description, node, keys) in seen.items():
            keys_text = " ".join(dict.fromkeys(keys))
            yield SystemCommand(f"{description} · {keys_text}", f"key {keys_text}",
                                partial(self.run_action, action, node))

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def session_screens(self):
        from tui.ui.screens.session import SessionScreen

        return [s for s in self.screen_stack if isinstance(s, SessionScreen)]

    def browser(self):
        from tui.ui.screens.browser import BrowserScreen

        return next((s for s in self.screen_stack if isinstance(s, BrowserScreen)), None)

    # the sessions directory -------------------------------------------------------------------------------
    def _dir_changed(self, batch: DirChanges) -> None:
        if self.closing():
            return
        browser = self.browser()
        if browser is not None:
            rows = []
            for path in batch.updated:
                try:
                    st = path.stat()
                except OSError:
                    continue
                kind = RowKind.LEDGER if path.suffix == ".jsonl" else RowKind.SNAPSHOT
                if path.is_dir():  # a Genkit snapshot directory (tui.inputs.watch.genkit_dir_of)
                    if not looks_like_genkit_dir(path):
                        continue
                    kind = RowKind.GENKIT
                rows.append(row_from_entry(path, st.st_mtime, st.st_size or 1, kind))
            if rows:
                browser.upsert_rows(rows)
            if batch.removed:
                browser.remove_paths(batch.removed)
            if batch.complete:  # the directory came back: rows of files that went with the old one go
                browser.remove_paths([key for key in list(browser._rows) if not os.path.lexists(key)])
        for path in batch.updated:
            resolved = safe_resolve(path)
            if self.file_screens(resolved):
                self.reload(resolved)

    def _watch_status(self, text: str) -> None:
        """The watched directory went away or came back (tui.inputs.watch): say so."""
        if not self.closing():
            self.notify(text, title="following files", severity="warning", timeout=8)

    def file_screens(self, path: Path):
        """The session screens showing the file at `path` (resolved): the root view and its drill-downs."""
        return [s for s in self.session_screens()
                if s.live_root is None and s.doc.path != "-" and safe_resolve(Path(s.doc.path)) == path]

    @work(thread=True, group="reload", exclusive=False)
    def reload(self, path: Path) -> None:
        # One reload at a time: a slow reload finishing after a newer one must not put older content back on
        # screen, and a ledger's tail must not be read by two threads at once.
        with self._reload_lock:
            self._reload(path)

    def _reload(self, path: Path) -> None:
        tail = None
        try:
            if path.suffix == ".jsonl":
                tail = self._tails.get(path)
                if tail is None:
                    tail = self._tails[path] = LedgerTail(path)
                tail.read_new()
                doc = tail.document()
            else:
                doc = load_frozen(str(path))
        except LoadError as exc:
            # half-written, or replaced by something broken: keep what is on screen, the next change will retry
            self.call_from_thread(self._reload_failed, path, exc.reason)
            return
        except (OSError, RuntimeError, MemoryError):
            return  # vanished meanwhile
        version = self.record_file_version(path, doc, tail)
        self.call_from_thread(self.replace_with_version, path, doc, version)

    def _reload_failed(self, path: Path, reason: str) -> None:
        if self.file_screens(path) and self._reload_errors.get(path) != reason:
            self._reload_errors[path] = reason
            self.notify(f"{path.name} changed but cannot be read now: {reason}. Showing the last version read.",
                        title="file changed", severity="warning", timeout=8)

    def _replace_documents(self, path: Path, doc: Document) -> None:
        self._reload_errors.pop(path, None)
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
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.note_input()
        await super().on_event(event)

    def pop_screen(self):
        popped = super().pop_screen()
        self.collect_when_idle()  # the closed screen's widgets are cyclic garbage in the oldest generation
        return popped

    def closing(self) -> bool:
        """True once the app has begun to shut down: its screens are losing their widgets, so timers and
        workers still delivering (a last live tick, a directory change) must not touch them."""
        return app_is_exiting(self)

    def _live_tick(self) -> None:
        # Rebuilding a big tree (parse, merge, build, redraw) can take a good part of a second: spend about a
        # fifth of the time on it, so that events keep flowing in and keys keep being answered.
        now = time.monotonic()
        if now < self._live_due or self.closing():
            return
        self.apply_live()
        self._live_due = now + max(LIVE_APPLY_SECONDS, LIVE_APPLY_SHARE * (time.monotonic() - now))

    def apply_live(self) -> None:
        """Applied a few times a second: whatever arrived since the last call, in one batch."""
        hub = self.hub
        problems = hub.malformed + hub.rejected["auth refused"]
        now = time.monotonic()
        if problems != self._reported_problems and now - self._reported_at >= REJECTION_NOTICE_SECONDS:
            self.notify(f"rejected so far: {hub.rejection_summary()}; last: {hub.last_rejected}",
                        severity="warning", timeout=4, markup=False)
            self._reported_problems, self._reported_at = problems, now
        changed, hub.changed = hub.changed, set()
        self.live_history_tick(changed)
        counts = (sum(hub.rejected.values()), tuple(self.stream_status.values()))
        counts_moved = counts != self._panel_counts
        if counts_moved:  # rejections and stream states concern every live screen, not only changed roots
            self._panel_counts = counts
            for screen in self.session_screens():
                if screen.live_root is not None and screen.live_root not in changed and screen.is_mounted:
                    screen.update_live_panel()
        browser = self.browser()
        rows = []
        started = time.monotonic()
        for done, root in enumerate(changed):
            if done and time.monotonic() - started > LIVE_APPLY_BUDGET:
                hub.changed.update(root for n, root in enumerate(changed) if n >= done)
                break
            try:
                session = hub.build(root)
                if session is None:
                    continue
                rows.append(self.live_row(root, session))
                for screen in self.session_screens():
                    if screen.live_root == root:
                        screen.replace_live(session)
                self._release_live_build(self._live_builds.get(root), session)
                self._live_builds[root] = session
            except Exception as exc:  # a bug must not take the monitor (and every other session) down
                self.notify(f"live update of {root} failed: {type(exc).__name__}: {exc}", severity="error",
                            markup=False)
        if browser is not None and rows:
            browser.upsert_rows(rows)
        if browser is not None and (changed or counts_moved):
            browser.update_header()

    def _release_live_build(self, old, new) -> None:
        """Free the previous build of a live root at once, unless something still shows or uses it.

        A build is a cyclic tree (parents <-> children): left to the collector, each resend of a big tree piled
        up until a full collection (a 50,000-op tree resent every second grew the app past 4 GB)."""
        if old is None or old is new or id(old) in self.live_pinned:
            return
        for screen in self.session_screens():
            if screen.doc.root is old or screen.session.breadcrumb()[0] is old:
                return
        nodes, stack = [], [old]
        while stack:  # (iterative: sub-agents thousands deep)
            session = stack.pop()
            nodes.append(session)
            nodes.extend(session.turns)
            stack.extend(op.child for turn in session.turns for op in turn.ops if op.child is not None)
        release_tree(old)
        for node in nodes:
            # The screen's old tree-widget nodes (cyclic too) still reach these sessions and turns until the
            # collector runs: without the parsed tree they hold little. (Ops keep theirs: a payload screen may
            # be showing one.)
            node.raw = None

    def live_summary(self) -> str:
        """One line on the event streams for the browser header ("" when none is configured)."""
        if not (self.listen_urls or self.connect_urls):
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
        parts.extend([f"{hub.bridge_dropped:,} dropped by bridge"] if hub.bridge_dropped else [])
        parts.extend(text for text in self.stream_status.values() if text)  # each listener's and server's state
        return " · ".join(parts)

    def live_row(self, root: str, session) -> SessionRow:
        live = self.hub.sessions.get(root)  # (its title is its own: events and gaps have their own column)
        return live_session_row(root, session, *self.hub.counters(root), live.updated if live else None)


def settle_heap() -> None:
    """Move what exists now (a freshly loaded document: millions of parsed JSON containers, loaded with the
    collector paused) out of the collector's reach. Otherwise each young-generation pass re-scans them as they
    are promoted, stalling the first seconds of the UI. Parsed JSON is acyclic and our trees are released
    explicitly (release_tree), so refcounting still frees them."""
    gc.freeze()

