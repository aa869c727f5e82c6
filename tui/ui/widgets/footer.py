"""Textual's Footer, without its leak, and with `? Help` first.

The leak: the footer recomposes its keys whenever the bindings change (a screen pushed or popped, focus moved), and
each FooterKey it makes watches the footer's `compact` reactive. Textual only drops the watchers of closed widgets
when `compact` changes, so every key ever shown stayed alive (textual 8.2.8): 28 widgets per drill-down and back,
with their cached lines, and full garbage collections that grew until they stalled the UI for 0.4 s.

The order: a footer wider than the terminal loses its last keys, and `?` (which lists every key) came last. It now
comes first, then the screen's keys in their declared order (a screen declares its most used keys first), and a
footer narrower than COMPACT_BELOW columns drops the padding between keys so more of them fit.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer as TextualFooter

from tui.ui.textual_compat import FooterKey, drop_closed_watchers

FIRST_ACTIONS = ("app.help", "help")  # shown before every other key
COMPACT_BELOW = 200  # 160 columns hold every key of the session screen only without the padding


def first_keys_first(widgets: list) -> list:
    """The help key ahead of the others, each group otherwise in its declared order (pure, for the tests)."""
    first = [w for w in widgets if isinstance(w, FooterKey) and w.action in FIRST_ACTIONS
             and "-command-palette" not in w.classes]
    return first + [w for w in widgets if w not in first]


class Footer(TextualFooter):
    def compose(self) -> ComposeResult:
        drop_closed_watchers(self, "compact")
        # Compact or not from the terminal's width (the footer spans it), before the keys are made: otherwise the
        # first resize switches it and every key is restyled before the first frame is drawn.
        self.set_reactive(TextualFooter.compact, self._compact_at(self.app.size.width))
        self.set_class(self.compact, "-compact", update=False)
        # Textual's Footer yields FooterKeys (and a KeyGroup only for bindings with a `group`, which this app
        # does not use): they can be reordered before they are mounted.
        yield from first_keys_first(list(super().compose()))

    def on_resize(self) -> None:
        self.compact = self._compact_at(self.size.width)

    @staticmethod
    def _compact_at(width: int) -> bool:
        return 0 < width < COMPACT_BELOW
