"""TextLines: a virtual viewer of a (possibly huge, possibly lazy) sequence of untrusted plain-text lines.

Built on Textual's Line API: only the visible lines are turned into Strips, so a million lines cost nothing
until they scroll into view. Every line is made inert first: C0/DEL/C1 control characters and lone surrogates
become visible escapes, tabs are expanded, and the text goes straight into a Segment (never through markup).
Lines longer than MAX_CELLS cells are cut and end with `…`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.fields import printable
from tui.model.line_search import find_lines
from tui.ui.widgets.line_search import LineSearch
from tui.ui.widgets.motion import half_page, motion_bindings, scroll_sideways

__all__ = ["MAX_CELLS", "TextLines", "inert_line"]

MAX_CELLS = 4000
ELLIPSIS = "…"
_SAMPLE_HEAD = 400
_SAMPLE_TAIL = 100
_SAMPLE_SPREAD = 400
_SURROGATE = re.compile("[\ud800-\udfff]")
_MATCH = Style(reverse=True)

LineStyle = Callable[[int, str], "Style | None"]


def inert_line(line: object, max_cells: int = MAX_CELLS) -> tuple[str, int]:
    """(display text, cell width) of one line: control characters escaped, tabs expanded, capped at max_cells."""
    if not isinstance(line, str):
        line = str(line)
    cut = len(line) > max_cells
    s = line[:max_cells] if cut else line
    s = printable(s)
    if _SURROGATE.search(s):
        s = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)
    if "\t" in s:
        s = s.expandtabs(8)
    width = cell_len(s)
    if cut or width > max_cells:
        if width > max_cells - 1:
            s = set_cell_size(s, max_cells - 1)
        s += ELLIPSIS
        width = cell_len(s)
    return s, width


class TextLines(LineSearch, ScrollView, can_focus=True):
    """Scrollable viewer of plain strings. Keys: arrows, PgUp/PgDn, Home/End (ScrollView bindings), g/G, ctrl+d/u,
    h/l sideways, / n N to find (LineSearch); mouse wheel."""

    BINDINGS = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        *motion_bindings("scroll_home", "scroll_end", left="sideways(-1)", right="sideways(1)"),
    ]

    DEFAULT_CSS = """
    TextLines {
        background: $surface;
        color: $text;
        overflow: auto auto;
    }
    """

    def __init__(self, lines: Sequence[str] | None = None, *, line_style: LineStyle | None = None,
                 name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.line_style = line_style
        self._lines: Sequence[str] = []
        self._width = 0
        self._cache: LRUCache[int, tuple[str, int]] = LRUCache(2048)
        if lines is not None:
            self.set_lines(lines)

    # --- content -------------------------------------------------------------------------------------

    @property
    def lines(self) -> Sequence[str]:
        return self._lines

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def content_width(self) -> int:
        """Widest line seen so far (sampled at set_lines, widened as lines are rendered)."""
        return self._width

    def set_lines(self, lines: Sequence[str], *, scroll_home: bool = True) -> None:
        """Show `lines` (any sequence: a list, or a lazy one). Costs O(samples), not O(len(lines))."""
        self._lines = lines
        self._cache.clear()
        self.search_line = -1  # a match's line number means nothing in other lines (the query stays: n finds again)
        n = len(lines)
        sample = set(range(min(n, _SAMPLE_HEAD)))
        sample.update(range(max(0, n - _SAMPLE_TAIL), n))
        if n > _SAMPLE_HEAD + _SAMPLE_TAIL:
            step = max(1, n // _SAMPLE_SPREAD)
            sample.update(range(0, n, step))
        self._width = max((self._display(i)[1] for i in sample), default=0)
        self.virtual_size = Size(self._width, n)
        if scroll_home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def search(self, needle: str, *, ignore_case: bool = True) -> list[int]:
        """Indices of the lines that contain `needle` (linear in the number of lines)."""
        if not needle:
            return []
        if ignore_case:
            return find_lines(self._lines, needle)
        return [i for i, line in enumerate(self._lines) if needle in line]

    def scroll_to_line(self, index: int) -> None:
        self.scroll_to(y=max(0, min(index, len(self._lines) - 1)), animate=False, immediate=True)

    def action_half_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * half_page(self), animate=False, immediate=True)

    def action_sideways(self, direction: int) -> None:
        scroll_sideways(self, direction)

    # --- find (LineSearch) ---------------------------------------------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self._lines

    def search_goto(self, line: int) -> None:
        """The match's line in view, a few lines below the top (a wrapped view maps `line` to its row here)."""
        self.scroll_to(y=max(0, min(line, len(self._lines) - 1) - 2), animate=False, immediate=True)

    # --- rendering -----------------------------------------------------------------------------------

    def _display(self, index: int) -> tuple[str, int]:
        hit = self._cache.get(index)
        if hit is None:
            hit = inert_line(self._lines[index])
            self._cache[index] = hit
        return hit

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if not 0 <= index < len(self._lines):
            return Strip.blank(width, base)
        text, cells = self._display(index)
        style = base
        if self.line_style is not None:
            extra = self.line_style(index, self._lines[index])
            if extra is not None:
                style = base + extra
        if index == self.search_line:
            style = style + _MATCH
        if cells > self._width:
            self._width = cells
            self.call_later(self._grow)
        strip = Strip([Segment(text, style)], cells)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, index)

    def _grow(self) -> None:
        if self._width > self.virtual_size.width:
            self.virtual_size = Size(self._width, len(self._lines))
