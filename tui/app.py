"""The Textual app: owns the configuration and routes between screens."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from tui.model.document import Document, load
from tui.model.source_bytes import LoadError


class MonitorApp(App):
    """aiagent-monitor. Screens: BrowserScreen (a sessions directory), SessionScreen (one tree), PayloadScreen."""

    CSS_PATH = "app.tcss"
    TITLE = "aiagent-monitor"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    def __init__(self, *, sessions_dir: Path | None = None, document: Document | None = None,
                 op_path: str | None = None, demo_note: str = "") -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.initial_document = document
        self.initial_op = op_path
        self.demo_note = demo_note

    def on_mount(self) -> None:
        if self.demo_note:
            self.notify(self.demo_note, title="demo", timeout=8)
        if self.initial_document is not None:
            self.push_screen(self.session_screen(self.initial_document, self.initial_op))
            return
        from tui.screens.browser import BrowserScreen

        self.push_screen(BrowserScreen(self.sessions_dir))

    def load_document(self, path: str) -> Document | None:
        """Load a document; on failure notify and return None (never raise into the UI)."""
        try:
            return load(path)
        except LoadError as exc:
            self.notify(str(exc), title="cannot open", severity="error", timeout=10)
        except (MemoryError, RecursionError) as exc:
            self.notify(f"{path}: {type(exc).__name__}", title="cannot open", severity="error", timeout=10)
        return None

    def session_screen(self, doc: Document, op_path: str | None = None):
        from tui.screens.session import SessionScreen

        return SessionScreen(doc, doc.root, select_path=op_path)

    def open_path(self, path: str, op_path: str | None = None) -> None:
        """Open a session file on top of the current screen (the browser calls this on Enter)."""
        doc = self.load_document(path)
        if doc is not None:
            if doc.root is None:
                self.notify(f"{path}: an accounting ledger has no session tree; use `dump`", severity="warning")
                return
            self.push_screen(self.session_screen(doc, op_path))

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))
