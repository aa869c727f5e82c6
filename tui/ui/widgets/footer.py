"""Textual's Footer, without its leak: the footer recomposes its keys whenever the bindings change (a screen
pushed or popped, focus moved), and each FooterKey it makes watches the footer's `compact` reactive. Textual only
drops the watchers of closed widgets when `compact` changes, which it never does, so every key ever shown stayed
alive (textual 8.2.8): 28 widgets per drill-down and back, with their cached lines, and full garbage collections
that grew until they stalled the UI for 0.4 s."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter

_WATCHERS = "__watchers"  # where textual.reactive keeps the watchers of an object


class Footer(TextualFooter):
    def compose(self) -> ComposeResult:
        watchers = getattr(self, _WATCHERS, {}).get("compact")
        if watchers:
            watchers[:] = [(node, callback) for node, callback in watchers if not (node._closing or node._closed)]
        yield from super().compose()
