"""`?`: every key of the screen underneath, the app, and the panels, read from their bindings; then the legend of
the symbols on screen (help_legend)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui.ui.screens.help_legend import legend_table

EXTRA = [
    ("arrows / j k", "move in lists and trees"),
    ("g / G", "first / last (every list, tree and text view)"),
    ("ctrl+d / ctrl+u", "half a page down / up"),
    ("h / l", "left / right: collapse, expand (tree); pan (waterfall); scroll sideways (lists, text)"),
    ("/ n N", "find, next, previous (payload viewer, log pane, waterfall; ops on the session screen)"),
    ("escape", "clear a finished search or filter first, then go back"),
    ("q", "close the view; quit from the first screen"),
    ("ctrl+c / ctrl+q", "quit from anywhere"),
    ("End (log pane)", "follow new lines again (scrolling up pauses)"),
    ("space", "toggle a tree node"),
    ("tab / shift+tab", "move focus between panels"),
    ("ctrl+p", "command palette: every action of this screen, with its key"),
    ("mouse", "click to select, click the arrow to expand, wheel to scroll"),
    # a few letters mean another thing on another screen: said here, where every key is looked up
    ("w x s r t", "by screen: w waterfall (session) / save (payload); x export (session) / hex (payload); "
                  "s sort (browser) / raw-SDK (payload); r rescan (browser) / request-response (payload) / "
                  "refresh (stats); t stats (browser) / totals-ops (diff)"),
]


def _rows(source: object) -> list[tuple[str, str]]:
    rows = []
    for binding in getattr(type(source), "BINDINGS", []):
        if isinstance(binding, Binding) and binding.description:
            rows.append((binding.key_display or binding.key, binding.description))
    return rows


class HelpScreen(ModalScreen):
    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close")]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.described = screen

    def compose(self) -> ComposeResult:
        table = Table(title=f"Keys: {type(self.described).__name__.replace('Screen', '')}", expand=True)
        table.add_column("key", style="bold cyan", no_wrap=True)
        table.add_column("does")
        self.rows: list[tuple[str, str]] = []
        seen = set()
        sources = [self.described, self.app]
        focused = self.described.focused
        if focused is not None:
            sources.insert(1, focused)
        for source in sources:
            for key, description in _rows(source):
                if key not in seen:
                    seen.add(key)
                    self.rows.append((key, description))
        self.rows.extend(EXTRA)
        for key, description in self.rows:
            table.add_row(Text(key), Text(description))
        with VerticalScroll(id="help-body"):
            yield Static(table)
            yield Static(legend_table(), id="help-legend")
            yield Static(Text("escape or ? closes this", style="dim"))

    def action_close(self) -> None:  # (not action_dismiss: Screen's is async and takes a result)
        self.dismiss()
