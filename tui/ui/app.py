"""The Textual app: owns the configuration, the live sources, and routes between screens."""

from __future__ import annotations

import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import Screen

from tui.catalog.session_row import LIVE_PREFIX
from tui.catalog.watched_rows import watched_rows
from tui.formats.load import load_frozen
from tui.inputs.files import LoadError, database_of_key
from tui.inputs.paths import safe_resolve
from tui.inputs.stream.access import mask_token
from tui.inputs.stream.event_stream import connect, is_otlp, listen
from tui.model.document import SNAPSHOT, Document
from tui.model import gc_pause
from tui.model.fields import printable
from tui.ui.idle_collect import IdleCollector
from tui.ui.live_controller import LiveController
from tui.ui.live_worker import LiveWorker
from tui.ui.messages import (
    CompareSessions, DiffReady, LiveNotice, LiveRowsChanged, LiveTreeBuilt, OpenSession, SessionFilesChanged,
    StreamStateChanged,
)
from tui.ui.preload import preload
from tui.ui.textual_compat import CoveredScreensStayDark, app_is_exiting, drop_notifications, share_parsed_css

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


class MonitorApp(IdleCollector, CoveredScreensStayDark):
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
        share_parsed_css()  # (tui.ui.textual_compat: each CSS source parsed once per process, not per re-parse)
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
        self.live = LiveController(self, sessions_dir=sessions_dir, streams=bool(self.listen_urls or self.connect_urls))
        self._last_size: Size | None = None  # the size of the last Resize the app was sent (on_resize)
        self._watched_rows: ThreadPoolExecutor | None = None  # the watcher's batches made rows, in order (_dir_changed)
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
            if watched is not None and self._is_opencode(watched):  # (followed as OpenCode's: _watch_agent_roots)
                watched = None
            if self.watch_files:
                self._watch_agent_roots()
        if self.watch_files and watched is not None and watched.is_dir():
            def start_watch() -> None:
                from tui.inputs.watch import watch_sessions  # (watchfiles: not needed for the first paint)

                self.run_worker(watch_sessions(watched, self._dir_changed, files=opened, on_status=self._watch_status),
                                group="watch", exit_on_error=False)
            if opened:  # an opened file's directory is watched from the first paint on (start-up time)
                self.call_after_refresh(start_watch)
                self.call_after_refresh(self._watch_content_root, opened[0])
            else:
                start_watch()
        if self.listen_urls or self.connect_urls:  # (the floods that freeze garbage: tui/ui/idle_collect.py)
            self.watch_frozen_garbage()
        self._start_streams()
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

    def _start_streams(self) -> None:
        """Every --listen and --connect, run on the live worker's thread (tui.ui.live_worker): what they read is
        applied there, never on this loop."""
        token, remote, origins = self.token, self.allow_remote, self.allow_origins
        for url in self.listen_urls:
            if is_otlp(url):
                self.live.run_stream(url, partial(_receive_otlp, url, token, remote, origins))
                continue
            self.live.run_stream(url, partial(_listen, url, token, remote, origins))
        for url in self.connect_urls:
            self.live.run_stream(url, partial(_connect, url, token))

    def stream_state(self) -> str:
        return self.live.stream_state()

    def live_summary(self) -> str:
        return self.live.summary()

    def on_unmount(self) -> None:
        """The app is going: the listeners close their sockets (and remove their files), the live thread ends."""
        self.live.stop()

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

    def on_diff_ready(self, message: DiffReady) -> None:
        """The controller compared two sessions (browser rows): show the diff; an op in it opens its session."""
        from tui.ui.screens.diff import DiffScreen

        a, b, diff = message.before, message.after, message.diff

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
    @staticmethod
    def _is_opencode(path: Path) -> bool:
        from tui.inputs.agent_roots import OPENCODE, location_of_root

        return location_of_root(path) is OPENCODE

    def _watch_agent_roots(self) -> None:
        """Follow the other agents' roots the browser lists (and the sessions directory when it is one)."""
        from tui.inputs.agent_roots import OPENCODE, location_of_root, opencode_sources
        from tui.inputs.watch import watch_agent_root

        roots = list(self.agent_roots)
        own = location_of_root(self.sessions_dir) if self.sessions_dir is not None else None
        if own is not None:
            roots.append((own, self.sessions_dir))
        seen: set[Path] = set()
        databases: list[Path] = []
        for loc, root in roots:
            key = safe_resolve(Path(root))
            if loc is OPENCODE:  # (the storage folder of a data directory; its databases followed apart)
                storage, found = opencode_sources(key)
                databases += found
                key = storage if storage is not None else key
            if key in seen or not key.is_dir():
                continue
            seen.add(key)
            self.run_worker(watch_agent_root(loc, key, self._dir_changed), group="watch", exit_on_error=False)
        self._watch_databases(databases)

    def _watch_databases(self, databases: list[Path]) -> None:
        """OpenCode's databases: a write to one refreshes the rows of its sessions that changed, and a session of
        it on screen (tui.inputs.watch.watch_databases)."""
        from tui.inputs.agent_roots import OPENCODE
        from tui.inputs.watch import watch_databases

        if databases:
            self.run_worker(watch_databases(OPENCODE, sorted(set(databases)), self._dir_changed), group="watch",
                            exit_on_error=False)

    def _watch_content_root(self, opened: Path) -> None:
        """An opened OpenCode session changes in its message and part files, not in the file opened: its storage
        root is followed too (tui.inputs.agent_roots.content_root_of), each change reported as the session's."""
        from tui.inputs.agent_roots import content_root_of
        from tui.inputs.watch import watch_agent_root

        database = database_of_key(opened.name)
        if database is not None:  # a session of a database (`opencode.db#<id>`): the database followed
            self._watch_databases([opened.parent / database])
            return
        found = content_root_of(opened)
        if found is not None and found[1].is_dir():
            self.run_worker(watch_agent_root(found[0], found[1], self._dir_changed), group="watch",
                            exit_on_error=False)

    def _dir_changed(self, batch: DirChanges) -> None:
        """A watcher batch: its rows are made off the UI thread, one batch after the other (tui.catalog.watched_rows),
        and posted to the browser as SessionFilesChanged; an open session of a changed file is read again."""
        if self.closing():
            return
        browser = self.browser()
        if browser is not None:
            if self._watched_rows is None:
                self._watched_rows = ThreadPoolExecutor(max_workers=1, thread_name_prefix="watched-rows")
            self._watched_rows.submit(post_watched_rows, browser, batch)
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

    def on_resize(self, event: events.Resize) -> None:
        """A resize to the size the app already has is dropped: the driver's first Resize repeats the one Textual
        dispatched itself at start, and Textual keeps it to post to the screen on top at the next idle, which laid
        the whole first screen out once more (~5% of an app's start-up CPU, ~20 ms of ~360 ms in the tests)."""
        if event.size == self._last_size:
            event.prevent_default()
        self._last_size = event.size

    def pop_screen(self):
        popped = super().pop_screen()
        self.collect_when_idle()  # the closed screen's widgets are cyclic garbage in the oldest generation
        return popped

    def closing(self) -> bool:
        """True once the app has begun to shut down: its screens are losing their widgets, so timers and
        workers still delivering (a last live tick, a directory change) must not touch them."""
        return app_is_exiting(self)

    # the live pipeline's messages (tui.ui.live_worker): the controller takes the builds, the screens the rest ---
    def on_live_rows_changed(self, message: LiveRowsChanged) -> None:
        if self.closing():
            return
        self.live.took(message)
        self.live.post(partial(LiveRowsChanged, message.rows, message.builds, message.forgotten, message.merged,
                               message.summary, message.header, message.tally))

    def on_live_tree_built(self, message: LiveTreeBuilt) -> None:
        if not self.closing():
            self.live.post(partial(LiveTreeBuilt, message.root, message.session, message.facts))

    def on_stream_state_changed(self, message: StreamStateChanged) -> None:
        if not self.closing():
            self.live.post(StreamStateChanged)

    def on_live_notice(self, message: LiveNotice) -> None:
        if not self.closing():
            self.notify(message.text, markup=False, **message.options)


async def _listen(url: str, token: str | None, allow_remote: bool, allow_origins: list[str],
                  worker: LiveWorker) -> None:
    """A --listen (unix:, ws://) on the live worker's loop: each frame goes to its hub there."""
    hub = worker.hub
    await listen(url, hub.feed, worker.stream_reporter(url), on_oversized=hub.refuse_oversized,
                 on_rejected=hub.reject, token=token, allow_remote=allow_remote, allow_origins=allow_origins)


async def _connect(url: str, token: str | None, worker: LiveWorker) -> None:
    """A --connect, likewise."""
    hub = worker.hub
    await connect(url, hub.feed, worker.stream_reporter(url), on_oversized=hub.refuse_oversized,
                  on_rejected=hub.reject, token=token)


async def _receive_otlp(url: str, token: str | None, allow_remote: bool, allow_origins: list[str],
                        worker: LiveWorker) -> None:
    """An OpenTelemetry receiver (otlp://, otlp+http://) on the live worker's loop: grpc and the sink are imported
    only here."""
    from tui.inputs.stream.otlp_listen import listen_otlp

    await listen_otlp(url, worker.otlp_receiver(), worker.stream_reporter(url), on_rejected=worker.hub.reject,
                      token=token, allow_remote=allow_remote, allow_origins=allow_origins)


def post_watched_rows(browser: Screen, batch: DirChanges) -> None:
    """Runs in the watched-rows thread: the batch's rows (stat, kind, row: tui.catalog.watched_rows), to the browser."""
    changes = watched_rows(batch)
    if changes:
        browser.post_message(SessionFilesChanged(changes))
