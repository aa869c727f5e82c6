"""The session screen's side of the live pipeline: the messages of tui.ui.live_controller (a newer live build, a
reloaded file, the streams' state), the trees the screen holds from release, and `x` (export).

A screen shows one session (the root or a drilled-in sub-agent) of one live root or file; every screen of that
session takes each newer version itself, by the sub-agent's path prefix, so a drilled-in sub-agent follows the
stream like its root. While an older version is on screen (tui.ui.screens.session_history) the newest is only
noted. The trees on screen are held (LiveController.hold): a build that no screen, export or diff holds any more
is released at once.
"""

from __future__ import annotations

import dataclasses

from rich.text import Text
from textual import work
from textual.widgets import Static

from tui.formats.aiagent.live.session import MAX_PENDING_LOGS
from tui.model.document import Document
from tui.model.fields import one_line
from tui.model.final_report import report_content
from tui.model.nodes import Session
from tui.model.search import find_session_by_prefix
from tui.ui.messages import DocumentReloaded, LiveTreeBuilt, StreamStateChanged
from tui.ui.screens.session_history import SessionScreenMixin


class LiveView(SessionScreenMixin):
    """Mixed into SessionScreen (which provides doc, session, live, live_root, _key, _held, replace_session)."""

    last_export: str | None = None  # the file the last `x` wrote
    _gone = False  # unmounted: a message still queued must not hold trees again

    def on_live_tree_built(self, message: LiveTreeBuilt) -> None:
        """A new build of a live root: taken when it is this screen's root and still the newest one."""
        if (message.root == self.live_root and not self._gone
                and self.live.is_current(message.root, message.session)):
            self.replace_live(message.session)

    def on_document_reloaded(self, message: DocumentReloaded) -> None:
        if self.live_root is None and not self._gone and self._key == str(message.path):
            self.replace_document(dataclasses.replace(message.doc, path=self.doc.path))

    def on_stream_state_changed(self, message: StreamStateChanged) -> None:
        if self.live_root is not None and self.is_mounted:
            self.update_live_panel()

    def _sync_holds(self) -> None:
        """Hold what is on screen (and the newest document behind it), let go of what no longer is."""
        shown = {id(root): root for root in (self.doc.root, self.session.breadcrumb()[0]) if root is not None}
        for key, root in shown.items():
            if key not in self._held:
                self.live.hold(root)
        for key, root in self._held.items():
            if key not in shown:
                self.live.let_go(root)
        self._held = shown

    def replace_document(self, doc: Document) -> None:
        """A newer version of the same file: keep expanded nodes, selection, scroll and drill-down level."""
        if doc.root is None:
            return
        session = find_session_by_prefix(doc.root, self.session.path_prefix)
        if not self.is_mounted:  # pushed, not composed yet: compose shows the newest
            self.doc, self.session = doc, session or self.session
            self._sync_holds()
            return
        if self.history_holds(doc):
            self._sync_holds()
            return
        if session is None:
            self.doc = doc  # the sub-agent in view is gone from the new version: keep showing the old one
            self._sync_holds()
            return
        self.replace_session(session, doc)

    def replace_live(self, root_session: Session) -> None:
        """A new build of the live root this screen (or a sub-agent of it) shows."""
        session = find_session_by_prefix(root_session, self.session.path_prefix)
        self.doc.root = root_session
        if session is None or not self.is_mounted or self.history_holds():
            # gone from the new build, or an older version is on screen: that stays (the newest is held too)
            if session is not None and not self.is_mounted:  # pushed, not composed yet: compose uses the newest
                self.session = session
            self._sync_holds()
            if self.is_mounted:
                self.update_live_panel()
            return
        self.replace_session(session)
        self.update_live_panel()

    def update_live_panel(self) -> None:
        if self.live_root is None:
            return
        facts = self.live.facts(self.live_root)  # (taken with the newest build: the hub is the worker's)
        text = Text()
        text.append(f" live · {facts.events:,} events · {facts.gaps:,} gaps",
                    style="bold yellow" if facts.gaps else "bold green")
        if facts.reordered:
            text.append(f" · {facts.reordered:,} reordered")
        rejections = self.live.tally.rejections  # (over every stream, as of the last batch)
        if rejections:
            text.append(f" · rejected: {rejections}", style="bold red")
        state = self.live.stream_state()
        if state.startswith(("disconnected", "cannot connect", "not listening", "reconnected")):
            text.append(f" · {one_line(state, 120)}", style="bold yellow")
        if facts.dropped_logs:
            text.append(f" · {facts.dropped_logs:,} older logs dropped from view (cap {MAX_PENDING_LOGS:,} between "
                        "trees)", style="yellow")
        if facts.status:
            text.append(f" · {one_line(facts.status, 80)}")
        if facts.output:
            text.append("\n ▸ ", style="dim")
            text.append(one_line(facts.output, 300), style="italic")
        content = report_content(facts.final_report) if facts.final_report else ""
        if content:  # its `content`, or `content_json` as JSON: never "None"
            text.append("\n final report: ", style="bold")
            text.append(one_line(content, 200))
        self.query_one("#live", Static).update(text)

    def on_unmount(self) -> None:
        """The screen went away: its trees may be released now (the last holder frees them), its session's
        updates and history stop once no other screen shows it."""
        self._gone = True
        held, self._held = self._held, {}
        for root in held.values():
            self.live.let_go(root)
        key, self._key = self._key, None
        self.live.closed(key)

    # export -----------------------------------------------------------------------------------------------
    def action_export(self) -> None:
        """Export the version on screen now, whole: its tree is held until the file is written (a live update or
        a reload meanwhile releases the older tree only after that)."""
        from tui.ui.screens.export import ExportScreen

        session = self.session
        root = session.breadcrumb()[0]
        self.live.hold(root)

        def chosen(choice: tuple | None) -> None:
            if choice is None:
                self.live.let_go(root)
                return
            fmt, path, *overwrite = choice
            self._write_export(session, root, fmt, path, bool(overwrite and overwrite[0]))

        self.app.push_screen(ExportScreen(session, sessions_dir=self.live.sessions_dir, live_root=self.live_root,
                                          file_key=self._key),
                             chosen)

    @work(thread=True, group="export", exit_on_error=False)
    def _write_export(self, session: Session, root: Session, fmt: str, path: str, overwrite: bool = False) -> None:
        from pathlib import Path

        from tui.text.export import render, write_atomic

        try:
            data = render(session, fmt, source=self.doc.path, source_format=self.doc.format)
            written = write_atomic(Path(path), data, overwrite=overwrite, sessions_dirs=(self.live.sessions_dir,))
        except Exception as exc:  # a full disk or a bad directory must not take the screen down
            self._from_thread(self._export_failed, root, f"export failed: {exc}")
            return
        self._from_thread(self._exported, root, str(written.resolve()), len(data))

    def _from_thread(self, callback, *args) -> None:
        try:
            self.app.call_from_thread(callback, *args)
        except RuntimeError:
            pass  # the app is shutting down

    def _export_failed(self, root: Session, message: str) -> None:
        self.live.let_go(root)
        self.notify(message, title="export", severity="error", markup=False, timeout=10)

    def _exported(self, root: Session, path: str, size: int) -> None:
        self.live.let_go(root)
        self.last_export = path
        self.notify(f"wrote {path} ({size:,} bytes)", title="export", markup=False, timeout=8)
