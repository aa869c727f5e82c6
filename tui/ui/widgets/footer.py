"""Textual's Footer, without its leak: the footer recomposes its keys whenever the bindings change (a screen
pushed or popped, focus moved), and each FooterKey it makes watches the footer's `compact` reactive. Textual only
drops the watchers of closed widgets when `compact` changes, which it never does, so every key ever shown stayed
alive (textual 8.2.8): 28 widgets per drill-down and back, with their cached lines, and full garbage collections
that grew until they stalled the UI for 0.4 s."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter

from tui.ui.textual_compat import drop_closed_watchers


class Footer(TextualFooter):
    def compose(self) -> ComposeResult:
        drop_closed_watchers(self, "compact")
        yield from super().compose()
