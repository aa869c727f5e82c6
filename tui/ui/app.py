"""The Textual app: owns the configuration, the live sources, and routes between screens."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow, live_session_row, row_from_entry
from tui.formats.load import load_frozen
from tui.inputs.files import LoadError
from tui.inputs.paths import safe_resolve
from tui.inputs.stream.access import mask_token
from tui.inputs.stream.event_stream import connect, is_otlp, listen
from tui.model.document import SNAPSHOT, Document
from tui.model import gc_pause
from tui.model.fields import printable
from tui.ui.idle_collect import IdleCollector
from tui.ui.live_controller import LIVE_APPLY_SECONDS, LiveController
from tui.ui.messages import CompareSessions, OpenSession
from tui.ui.preload import preload
from tui.ui.textual_compat import app_is_exiting, drop_notifications

if TYPE_CHECKING:
    from tui.inputs.watch import DirChanges

@dataclass(frozen=True, slots=True)
class Settings:
    """What the config file sets for the app (tui.cli.config reads it; the command line and the kept place come
    first): the theme, the browser's default sort and filter, the Stats range, key bindings by binding id."""

    theme: str | None = None
    sort: str | None = None
    filter: str | None = None
    stats_range: str | None = None
    keys: dict[str, str] = field(default_factory=dict)


class MonitorApp(IdleCollector, App):
    """aiagent-monitor. Screens: BrowserScreen (a sessions directory), SessionScreen (one tree), PayloadScreen.

    The app holds the configuration and routes between screens; the live pipeline (event hub, reloads, history,
    releasing old trees) is its LiveController (`self.live`), which tells the screens by messages."""

    CSS_PATH = "app.tcss"
    TITLE = "aiagent-monitor"
    BINDINGS = [
        # q closes the view on top; quits from the first screen. ctrl+q quits too (Textual's own binding)
        Binding("q", "close_view", "Quit", id="app.close_view"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="app.quit"),
        Binding("question_mark", "help", "Help", key_display="?", id="app.help"),
        Binding("ctrl+z", "suspend_process", "Suspend to the shell (fg comes back)", show=False,
                id="app.suspend_process"),
    ]

    def __init__(self, *, sessions_dir: Path | None = None, document: Document | None = None,
                 op_path: str | None = None, demo_note: str = "", listen_urls: list[str] | None = None,
                 connect_urls: list[str] | None = None, watch: bool = True, token: str | None = None,
                 demo_for: Path | None = None, sort: str | None = None, filter_text: str | None = None,
                 allow_remote: bool = False, allow_origins: list[str] | None = None,
                 settings: Settings | None = None, keep_place: bool = False, agent_roots: tuple = ()) -> None:
        super().__init__()
        self.browser_sort = sort  # the browser's first sort and filter (--sort, --filter)
        self.browser_filter = filter_text
        self.settings = settings or Settings()  # the config file's (tui.cli.config)
        # Keep the browser's place and the theme per sessions directory (tui.ui.place): the command line does; an
        # app built in a test does only when asked (two apps on one directory would otherwise share a place).
        self.keep_places = keep_place
        self.kept_theme: str | None = None  # the theme the kept place named, and the one this run started with
        self.start_theme: str | None = None
        if self.settings.keys:
            self.set_keymap(self.settings.keys)
        self.sessions_dir = sessions_dir
        # other agents' session roots the browser lists and follows too: ((AgentLocation, Path), ...)
        self.agent_roots = tuple(agent_roots)
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
        self.live = LiveController(self, sessions_dir=sessions_dir, streams=bool(self.listen_urls or self.connect_urls),
                                   on_rows=self._live_rows, live_row=self.live_row, on_diff=self._show_diff)
        self.hub = self.live.hub  # (the tests feed it)
        self.history = self.live.history
        self.history_shown = self.live.history_shown
        self.stream_status = self.live.stream_status

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
        gc_pause.tune_for_ui()
        if self.initial_document is not None:
            gc_pause.freeze()  # the document loaded before the app: see gc_pause.paused_gc_then_frozen
        if self.demo_note:
            self.notify(self.demo_note, title="demo", timeout=8, markup=False)
        if self.initial_document is not None:
            self.push_screen(self.session_screen(self.initial_document, self.initial_op))
            path = self.initial_document.path
            opened = (safe_resolve(Path(path)),) if path != "-" else ()  # followed wherever it sits (a ledger too)
            watched = opened[0].parent if opened else None
        else:
            self.push_screen(self._first_browser())
            watched, opened = self.sessions_dir, ()
            if self.watch_files:
                self._watch_agent_roots()
        if self.watch_files and watched is not None and watched.is_dir():
            def start_watch() -> None:
                from tui.inputs.watch import watch_sessions  # (watchfiles: not needed for the first paint)

                self.run_worker(watch_sessions(watched, self._dir_changed, files=opened, on_status=self._watch_status),
                                group="watch", exit_on_error=False)
            if opened:  # an opened file's directory is watched from the first paint on (start-up time)
                self.call_after_refresh(start_watch)
            else:
                start_watch()
        if any(is_otlp(url) for url in self.listen_urls):
            self.watch_frozen_garbage()  # (the one flood known to freeze garbage: see tui/ui/idle_collect.py)
        for url in self.listen_urls:
            if is_otlp(url):
                self.run_worker(self._stream(url, self._receive_otlp(url)), group="streams", exit_on_error=False)
                continue
            self.run_worker(self._stream(url, listen(
                url, self.hub.feed, self.live.stream_reporter(url), on_oversized=self.hub.refuse_oversized,
                on_rejected=self.hub.reject, token=self.token, allow_remote=self.allow_remote,
                allow_origins=self.allow_origins)),
                group="streams", exit_on_error=False)
        for url in self.connect_urls:
            self.run_worker(self._stream(url, connect(
                url, self.hub.feed, self.live.stream_reporter(url), on_oversized=self.hub.refuse_oversized,
                on_rejected=self.hub.reject, token=self.token)), group="streams", exit_on_error=False)
        if self.listen_urls or self.connect_urls:
            self.set_interval(LIVE_APPLY_SECONDS, self.live.tick)
        # What keys would read from disk on first use, read now (tui.ui.preload: no key needs a free descriptor)
        self.call_after_refresh(lambda: self.run_worker(lambda: preload(self), thread=True, group="preload",
                                                        exit_on_error=False))

    def _first_browser(self):
        """The browser where it was left (tui.ui.place), under what the command line and the config file ask:
        --sort and --filter first, then the kept place, then the config's defaults."""
        from tui.ui.place import Place, load_place
        from tui.ui.screens.browser import BrowserScreen

        place = load_place(self.sessions_dir) if self.keep_places else Place()
        theme = place.theme or self.settings.theme
        if theme and theme in self.available_themes:
            self.theme = theme
        # a theme is kept only once chosen here (ctrl+p): else the config file's theme, changed later, would lose
        # to the one this run merely started with
        self.kept_theme, self.start_theme = place.theme, self.theme
        sort = self.browser_sort or place.sort or self.settings.sort
        text = self.browser_filter
        if text is None:
            text = place.filter if place.filter is not None else self.settings.filter
        return BrowserScreen(self.sessions_dir, live_summary=self.live.summary, demo_for=self.demo_for, sort=sort,
                             filter_text=text, cursor=place.cursor, stats_range=self.settings.stats_range,
                             roots=self.agent_roots,
                             streams=[mask_token(url) for url in [*self.listen_urls, *self.connect_urls]])

    def keep_place(self, browser) -> None:
        """The browser is going (the app quits): keep its sort, filter, cursor and the theme for next time."""
        if not self.keep_places:
            return
        from tui.ui.place import Place, save_place

        save_place(browser.sessions_dir if self.demo_for is None else None,
                   Place(sort=browser.sort_spec, filter=browser.filter_text, cursor=browser.cursor_key,
                         theme=self.theme if self.theme != self.start_theme else self.kept_theme))

    async def _stream(self, url: str, runner) -> None:
        """Run a listener or subscriber; a failure to listen (address in use, a live socket) is shown, not lost."""
        try:
            await runner
        except (OSError, ValueError) as exc:
            self.live.stream_reporter(url)(f"not listening on {url}: {exc}")
            self.notify(mask_token(str(exc)), title=mask_token(f"cannot listen on {url}"), severity="error",
                        timeout=30, markup=False)

    async def _receive_otlp(self, url: str) -> None:
        """An OpenTelemetry receiver (otlp://, otlp+http://): grpc and the sink are imported only here."""
        from tui.inputs.stream.otlp_listen import listen_otlp

        try:
            await listen_otlp(url, self.live.otlp_receiver(), self.live.stream_reporter(url),
                              on_rejected=self.hub.reject, token=self.token, allow_remote=self.allow_remote,
                              allow_origins=self.allow_origins)
        finally:  # (the sink's assembling thread ends with the app's OTLP receivers)
            if self.live.otlp_sink is not None:
                self.live.otlp_sink.stop()

    def stream_state(self) -> str:
        return self.live.stream_state()

    def apply_live(self) -> None:
        """Apply what the streams sent since the last batch now (the tests call it instead of waiting)."""
        self.live.apply()

    def live_summary(self) -> str:
        return self.live.summary()

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

        self.live.note_opened(doc, live_root)
        return SessionScreen(doc, doc.root, live=self.live, select_path=op_path, live_root=live_root)

    def open_path(self, path: str, op_path: str | None = None, locate=None) -> None:
        """Open a session on top of the current screen (the browser calls this on Enter); `locate(root)`, when
        given, names the op to open it at once the tree is loaded (a search hit)."""
        if path.startswith(LIVE_PREFIX):
            root = path[len(LIVE_PREFIX):]
            session = self.live.build(root)
            if session is None:
                self.notify("this live session has not sent its tree yet", severity="warning")
                return
            live_doc = Document(SNAPSHOT, path, root=session, shape="live")
            self.push_screen(self.session_screen(live_doc, op_path, live_root=root))
            return
        doc = self.load_document(path)  # frozen out of the collector's reach as it loads
        if doc is not None:
            if doc.root is None:
                self.notify(f"{path}: an accounting ledger has no session tree; use `dump`", severity="warning",
                            markup=False)
                return
            if locate is not None:
                op_path = locate(doc.root) or op_path
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

    def on_open_session(self, message: OpenSession) -> None:
        if message.locate is None:
            self.open_path(message.path, message.op_path)
        else:
            self.open_path(message.path, message.op_path, locate=message.locate)

    def on_compare_sessions(self, message: CompareSessions) -> None:
        self.live.diff_paths(message.before, message.after)

    def _show_diff(self, a: str, b: str, diff) -> None:
        """The controller compared two sessions (browser rows): show the diff; an op in it opens its session."""
        from tui.ui.screens.diff import DiffScreen

        def open_op(delta, side: str) -> None:
            self.open_path(a if side == "before" else b, delta.path)

        self.push_screen(DiffScreen(diff, on_open_op=open_op))

    def action_help(self) -> None:
        from tui.ui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def browser(self):
        from tui.ui.screens.browser import BrowserScreen

        return next((s for s in self.screen_stack if isinstance(s, BrowserScreen)), None)

    # the sessions directory -------------------------------------------------------------------------------
    def _watch_agent_roots(self) -> None:
        """Follow the other agents' roots the browser lists (and the sessions directory when it is one)."""
        from tui.inputs.agent_roots import location_of_root
        from tui.inputs.watch import watch_agent_root

        roots = list(self.agent_roots)
        own = location_of_root(self.sessions_dir) if self.sessions_dir is not None else None
        if own is not None:
            roots.append((own, self.sessions_dir))
        seen: set[Path] = set()
        for loc, root in roots:
            key = safe_resolve(Path(root))
            if key in seen or not key.is_dir():
                continue
            seen.add(key)
            self.run_worker(watch_agent_root(loc, key, self._dir_changed), group="watch", exit_on_error=False)

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
                kind = batch.kinds.get(path) or (RowKind.LEDGER if path.suffix == ".jsonl" else RowKind.SNAPSHOT)
                if path.is_dir():  # a Genkit snapshot directory (tui.inputs.watch.genkit_dir_of)
                    from tui.formats.genkit.snapshot import looks_like_genkit_dir

                    if not looks_like_genkit_dir(path):
                        continue
                    kind = RowKind.GENKIT
                rows.append(row_from_entry(path, st.st_mtime, st.st_size or 1, kind))
            if rows:
                browser.upsert_rows(rows)
            if batch.removed:
                browser.remove_paths(batch.removed)
            if batch.complete:  # the directory came back: rows of files that went with the old one go
                browser.drop_missing_files()
        for path in batch.updated:
            self.live.file_changed(safe_resolve(path))

    def _watch_status(self, text: str) -> None:
        """The watched directory went away or came back (tui.inputs.watch): say so."""
        if not self.closing():
            self.notify(text, title="following files", severity="warning", timeout=8)

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

    def _live_rows(self, rows: list[SessionRow], header: bool) -> None:
        """The live controller's batch: the browser's rows of the changed roots, and its header."""
        browser = self.browser()
        if browser is None:
            return
        if rows:
            browser.upsert_rows(rows)
        if header:
            browser.update_header()

    def live_row(self, root: str, session) -> SessionRow:
        live = self.hub.sessions.get(root)  # (its title is its own: events and gaps have their own column)
        return live_session_row(root, session, *self.hub.counters(root), live.updated if live else None)
