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

from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.dom import NoScreen
from textual.widgets import Footer as TextualFooter

from tui.ui.textual_compat import FooterKey, drop_closed_watchers

FIRST_ACTIONS = ("app.help", "help")  # shown before every other key
COMPACT_BELOW = 200  # 160 columns hold every key of the session screen only without the padding


def first_keys_first(widgets: list) -> list:
    """The help key ahead of the others, each group otherwise in its declared order (pure, for the tests)."""
    first = [w for w in widgets if isinstance(w, FooterKey) and w.action in FIRST_ACTIONS
             and "-command-palette" not in w.classes]
    return first + [w for w in widgets if w not in first]


FOOTER_WORDS = {"errors_only": "Errors", "search_sessions": "Search all", "mark": "Mark", "diff_marked": "Compare",
                "copy_path": "Copy path"}
QUIT_ACTIONS = ("app.close_view", "close_view", "app.quit", "quit")  # kept in any width, after the others


def _cells(key: Any) -> int:
    """Cells a compact key takes: `k Description` and the gap after it."""
    description = getattr(key, "description", "")
    return cell_len(getattr(key, "key_display", "")) + (1 + cell_len(description) if description else 0) + 1


def fit_keys(widgets: list, width: int) -> list:
    """The keys that fit in `width` cells, in their order: help and quit always, then the others in declared order
    while they fit, the `^p palette` key last and only if room is left. A footer wider than the terminal was cut
    mid-key (a stray `i` at 80 columns) and lost its quit key; a width of 0 (not laid out yet) keeps them all."""
    if width <= 0 or sum(map(_cells, widgets)) <= width:
        return widgets
    palette = [w for w in widgets if "-command-palette" in getattr(w, "classes", ())]
    keys = [w for w in widgets if w not in palette]
    must = [w for w in keys if getattr(w, "action", "") in FIRST_ACTIONS + QUIT_ACTIONS]
    room = width - sum(map(_cells, must))
    kept = set(map(id, must))
    for widget in keys:
        if id(widget) not in kept and _cells(widget) <= room:
            kept.add(id(widget))
            room -= _cells(widget)
    for widget in palette:
        if _cells(widget) + 1 <= room:  # (and its separator)
            kept.add(id(widget))
    return [w for w in widgets if id(w) in kept]


def key_signature(key: Any) -> tuple:
    """What a composed footer key shows and does: two compositions with the same signatures look and act alike."""
    return (type(key).__name__, getattr(key, "key", None), getattr(key, "key_display", None),
            getattr(key, "description", None), getattr(key, "action", None), tuple(sorted(key.classes)),
            str(key.tooltip or ""))


class Footer(TextualFooter):
    shown: tuple = ()  # key_signature of each key mounted
    made_from: tuple = ()  # key_basis of the keys mounted

    async def recompose(self) -> None:
        """Textual recomposes the footer whenever it is told the bindings changed (a screen pushed, the focus
        moved, the app focused): several times as a screen opens, each removing, making, styling and laying out
        its dozen keys again (30-80 ms), though they mostly read the same. Nothing is done when the bindings the
        keys are made from are those of the keys shown; otherwise the keys are composed (a dozen widgets made:
        ~4 ms), and mounted only when they differ from those shown."""
        if not self.is_attached:
            return
        try:
            basis = self.key_basis()
            if self.shown and basis == self.made_from and len(self.children) == len(self.shown):
                return
            shown = tuple(map(key_signature, self.compose()))
        except NoScreen:  # (its screen is closing: nothing to show)
            return
        self.made_from = basis
        if shown == self.shown and len(self.children) == len(shown):
            return
        self.shown = shown
        await super().recompose()

    def key_basis(self) -> tuple:
        """What compose makes the keys from: the screen's active bindings (each with whether it is enabled and its
        tooltip), the width they are fitted to and whether the palette key is wanted."""
        active = self.screen.active_bindings
        return (self.app.size.width, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE,
                tuple((key, binding, enabled, tooltip) for key, (_node, binding, enabled, tooltip) in active.items()))

    def compose(self) -> ComposeResult:
        drop_closed_watchers(self, "compact")
        # Compact or not from the terminal's width (the footer spans it), before the keys are made: otherwise the
        # first resize switches it and every key is restyled before the first frame is drawn.
        self.set_reactive(TextualFooter.compact, self._compact_at(self.app.size.width))
        self.set_class(self.compact, "-compact", update=False)
        # Textual's Footer yields FooterKeys (and a KeyGroup only for bindings with a `group`, which this app
        # does not use): they can be reordered before they are mounted.
        self._fitted_to = self.app.size.width
        keys = first_keys_first(list(super().compose()))
        for key in keys:  # shorter words in the footer than in `?` and the palette
            key.description = FOOTER_WORDS.get(getattr(key, "action", ""), key.description)
        yield from fit_keys(keys, self._fitted_to)

    def on_resize(self) -> None:
        self.compact = self._compact_at(self.size.width)
        if self.size.width and self.size.width != getattr(self, "_fitted_to", self.size.width):
            self._fitted_to = self.size.width
            self.call_later(self.recompose)  # another width: another set of keys fits

    @staticmethod
    def _compact_at(width: int) -> bool:
        return 0 < width < COMPACT_BELOW
