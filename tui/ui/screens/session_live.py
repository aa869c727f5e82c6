"""The session screen's side of the live pipeline: the trees the screen holds from release, a reloaded file or a
newer live build taken in, the live panel's text, and `x` (export).

A screen shows one session (the root or a drilled-in sub-agent) of one live root or file; every screen of that
session takes each newer version itself, by the sub-agent's path prefix, so a drilled-in sub-agent follows the
stream like its root. While an older version is on screen (tui.ui.screens.session_history) the newest is only
noted. The trees on screen are pinned (LiveController.pinned): a build that no screen, export or diff holds any more
is released at once. A SessionScreen owns one LiveFeed (by composition); the messages arrive at the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from tui.formats.aiagent.live.session import MAX_PENDING_LOGS
from tui.model.fields import one_line
from tui.model.final_report import report_content
from tui.model.nodes import Session
from tui.model.search import find_session_by_prefix

if TYPE_CHECKING:
    from textual.app import App

    from tui.model.document import Document
    from tui.ui.live_controller import LiveController
    from tui.ui.pin import Pin
    from tui.ui.screens.session_history import VersionHistory


class LiveHost(Protocol):
    """What a LiveFeed reads and calls on its screen (a SessionScreen)."""

    doc: Document
    session: Session
    live_root: str | None
    live: LiveController
    history: VersionHistory

    @property
    def app(self) -> App[Any]: ...
    @property
    def is_mounted(self) -> bool: ...
    @property
    def notify(self) -> Callable[..., None]: ...
    @property
    def run_worker(self) -> Callable[..., Any]: ...
    def replace_session(self, session: Session, doc: Document | None = None) -> None: ...
    def show_live_panel(self, text: Text) -> None: ...


class LiveFeed:
    """Newer versions of what one session screen shows, and the trees it holds meanwhile."""

    def __init__(self, screen: LiveHost, key: str | None) -> None:
        self.screen = screen
        self.key = key  # the session's history key: its updates are posted to the screen while it is open
        self.held: dict[int, Pin] = {}  # the trees the screen shows, pinned from release (LiveController)
        self.gone = False  # unmounted: a message still queued must not hold trees again
        self.last_export: str | None = None  # the file the last `x` wrote
        self.sync_holds()
        screen.live.opened(key)  # from now on its updates are posted to the screen (even before it mounts)

    def sync_holds(self) -> None:
        """Hold what is on screen (and the newest document behind it), let go of what no longer is."""
        screen = self.screen
        shown = {id(root): root for root in (screen.doc.root, screen.session.breadcrumb()[0]) if root is not None}
        old = self.held
        held = {key: old.pop(key) if key in old else screen.live.pinned(root) for key, root in shown.items()}
        for pin in old.values():  # what is no longer shown
            pin.release()
        self.held = held

    def takes_tree(self, root: str, session: Session) -> bool:
        """A new build of a live root: this screen's, and still the newest one."""
        return root == self.screen.live_root and not self.gone and self.screen.live.is_current(root, session)

    def takes_document(self, path: str) -> bool:
        return self.screen.live_root is None and not self.gone and self.key == path

    def replace_document(self, doc: Document) -> None:
        """A newer version of the same file: keep expanded nodes, selection, scroll and drill-down level."""
        screen = self.screen
        if doc.root is None:
            return
        session = find_session_by_prefix(doc.root, screen.session.path_prefix)
        if not screen.is_mounted:  # pushed, not composed yet: compose shows the newest
            screen.doc, screen.session = doc, session or screen.session
        elif screen.history.holds(doc):
            pass
        elif session is None:
            screen.doc = doc  # the sub-agent in view is gone from the new version: keep showing the old one
        else:
            screen.replace_session(session, doc)
            return
        self.sync_holds()

    def replace_live(self, root_session: Session) -> None:
        """A new build of the live root this screen (or a sub-agent of it) shows."""
        screen = self.screen
        session = find_session_by_prefix(root_session, screen.session.path_prefix)
        screen.doc.root = root_session
        if session is None or not screen.is_mounted or screen.history.holds():
            # gone from the new build, or an older version is on screen: that stays (the newest is held too)
            if session is not None and not screen.is_mounted:  # pushed, not composed yet: compose uses the newest
                screen.session = session
            self.sync_holds()
        else:
            screen.replace_session(session)
        if screen.is_mounted:
            self.update_panel()

    def update_panel(self) -> None:
        screen = self.screen
        if screen.live_root is not None:
            screen.show_live_panel(live_panel_text(screen.live, screen.live_root))

    def unmounted(self) -> None:
        """The screen went away: its trees may be released now (the last holder frees them), its session's
        updates and history stop once no other screen shows it."""
        self.gone = True
        held, self.held = self.held, {}
        for pin in held.values():
            pin.release()
        key, self.key = self.key, None
        self.screen.live.closed(key)

    # export -----------------------------------------------------------------------------------------------
    def export(self) -> None:
        """Export the version on screen now, whole: its tree is held until the file is written (a live update or
        a reload meanwhile releases the older tree only after that)."""
        from tui.ui.screens.export import ExportScreen

        screen = self.screen
        session = screen.session
        pin = screen.live.pinned(session.breadcrumb()[0])

        def chosen(choice: tuple | None) -> None:
            if choice is None:
                pin.release()
                return
            fmt, path, *overwrite = choice
            screen.run_worker(lambda: self._write_export(session, pin, fmt, path, bool(overwrite and overwrite[0])),
                              thread=True, group="export", exit_on_error=False)

        screen.app.push_screen(ExportScreen(session, sessions_dir=screen.live.sessions_dir,
                                            live_root=screen.live_root, file_key=self.key), chosen)

    def _write_export(self, session: Session, pin: Pin, fmt: str, path: str, overwrite: bool = False) -> None:
        """In a thread: render and write; the result is said on the UI thread."""
        from pathlib import Path

        from tui.text.export import render, write_atomic

        doc, live = self.screen.doc, self.screen.live
        try:
            data = render(session, fmt, source=doc.path, source_format=doc.format)
            written = write_atomic(Path(path), data, overwrite=overwrite, sessions_dirs=(live.sessions_dir,))
        except Exception as exc:  # a full disk or a bad directory must not take the screen down
            self._from_thread(self._export_done, pin, "", f"export failed: {exc}")
            return
        self._from_thread(self._export_done, pin, str(written.resolve()), f"({len(data):,} bytes)")

    def _from_thread(self, callback: Callable[..., None], *args: object) -> None:
        try:
            self.screen.app.call_from_thread(callback, *args)
        except RuntimeError:
            pass  # the app is shutting down

    def _export_done(self, pin: Pin, path: str, note: str) -> None:
        pin.release()
        if not path:
            self.screen.notify(note, title="export", severity="error", markup=False, timeout=10)
            return
        self.last_export = path
        self.screen.notify(f"wrote {path} {note}", title="export", markup=False, timeout=8)


def live_panel_text(live: LiveController, live_root: str) -> Text:
    """The live panel: counters, gaps, the stream's state, the newest status, output and final report (as of the
    newest build: the hub is the live worker's, LiveController.facts)."""
    facts = live.facts(live_root)
    text = Text()
    text.append(f" live · {facts.events:,} events · {facts.gaps:,} gaps",
                style="bold yellow" if facts.gaps else "bold green")
    if facts.reordered:
        text.append(f" · {facts.reordered:,} reordered")
    rejections = live.tally.rejections  # (over every stream, as of the last batch)
    if rejections:
        text.append(f" · rejected: {rejections}", style="bold red")
    state = live.stream_state()
    if state.startswith(("disconnected", "cannot connect", "not listening", "reconnected")):
        text.append(f" · {one_line(state, 120)}", style="bold yellow")
    if facts.dropped_logs:
        text.append(f" · {facts.dropped_logs:,} older logs dropped from view (cap {MAX_PENDING_LOGS:,} between trees)",
                    style="yellow")
    if facts.status:
        text.append(f" · {one_line(facts.status, 80)}")
    if facts.output:
        text.append("\n ▸ ", style="dim")
        text.append(one_line(facts.output, 300), style="italic")
    content = report_content(facts.final_report) if facts.final_report else ""
    if content:  # its `content`, or `content_json` as JSON: never "None"
        text.append("\n final report: ", style="bold")
        text.append(one_line(content, 200))
    return text
