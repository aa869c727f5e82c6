"""What a cell, label or Static's content draws as, compared by value: an update with what is already shown is
skipped (rich's Text equality compares only text and spans, and most renderables do not compare at all). Used by
SteadyStatic, the opTree's labels and the browser's cells (tui.ui.textual_compat)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text


def same_cell(shown: Any, value: Any) -> bool:
    """Whether a cell's new value draws as the one shown (rich's Text equality compares only text and spans)."""
    if shown is value:
        return True
    key = draw_key(value)
    return key is not None and key == draw_key(shown)


def draw_key(value: Any) -> tuple | None:
    """What a str, Text or grid of them draws as, as a value to compare (a copy: a Text changed in place later
    still compares as it was); None for any other renderable, which may not compare by value."""
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, Text):
        return ("text", value.plain, tuple(value.spans), value.style, value.justify, value.overflow, value.no_wrap,
                value.end)
    if isinstance(value, Table):  # a grid of str / Text cells (the Totals panel)
        columns = []
        for column in value.columns:
            cells = tuple(draw_key(cell) for cell in column.cells)
            if None in cells:
                return None
            columns.append((column.style, column.justify, column.no_wrap, column.width, cells))
        return ("table", value.padding, value.expand, value.show_header, value.box, tuple(columns))
    return None
