"""A Static that repaints only when what it shows changes.

Static.update re-lays out and repaints on every call, equal content or not. Lines rebuilt on a timer (the
browser's header and summary, twice a second) were written to the terminal each time though they read the same:
over SSH that is most of what an idle screen costs. Text and str are compared by what they draw
(tui.ui.draw_key); any other renderable is always drawn (it may not compare by value). Border titles likewise
(set_border_title). New content of the height shown is repainted without a layout of the whole screen (the
live banner, the totals and the details change on every live batch: each laid out the session screen).
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from tui.ui.draw_key import draw_key


class SteadyStatic(Static):
    """Static whose update() with what it already shows does nothing (no layout, no repaint)."""

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._drawn: tuple | None = draw_key(content)

    def update(self, content: Any = "", *, layout: bool = True, lines: int | None = None) -> None:
        """`lines`: the content's height at the width shown, when the caller knows it without drawing it (the
        totals' grid: measuring it renders the whole table, ~10 ms on every live batch)."""
        key = draw_key(content)
        if key is not None and key == self._drawn:
            return
        self._drawn = key
        super().update(content, layout=False)
        if layout and self.resizes(lines):
            self.refresh(layout=True)

    def resizes(self, lines: int | None = None) -> bool:
        """Whether the content just set may change this widget's size: its size follows its content (auto) and
        the new content's height (`lines`, or measured) differs from the height laid out, or it was not laid out
        yet."""
        width, height, shown = self.styles.width, self.styles.height, self.content_size
        if not shown or (width is not None and width.is_auto):
            return True
        if height is None or not height.is_auto:
            return False
        if lines is None:
            lines = self.get_content_height(self.container_size, self.app.size, shown.width)
        return lines != shown.height


_TITLES: WeakKeyDictionary[Widget, tuple] = WeakKeyDictionary()  # the border title each widget was last given


def set_border_title(widget: Widget, title: str | Text) -> None:
    """Setting `border_title` repaints the whole widget, an equal title or not (the log pane's counts, the
    totals' "Totals", set on every live reload, rewrote every line of both): set it only when it changes."""
    key = draw_key(title)
    if key is None or _TITLES.get(widget) != key:
        if key is not None:
            _TITLES[widget] = key
        widget.border_title = title
