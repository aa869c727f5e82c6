"""A Static that repaints only when what it shows changes.

Static.update re-lays out and repaints on every call, equal content or not. Lines rebuilt on a timer (the
browser's header and summary, twice a second) were written to the terminal each time though they read the same:
over SSH that is most of what an idle screen costs. Text and str are compared by what they draw (tui.ui.
textual_compat.draw_key); any other renderable is always drawn (it may not compare by value).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tui.ui.textual_compat import draw_key


class SteadyStatic(Static):
    """Static whose update() with what it already shows does nothing (no layout, no repaint)."""

    def __init__(self, content: Any = "", **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._drawn: tuple | None = draw_key(content)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        key = draw_key(content)
        if key is not None and key == self._drawn:
            return
        self._drawn = key
        super().update(content, layout=layout)
