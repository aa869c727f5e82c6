"""TextLines: a virtual viewer of a (possibly huge, possibly lazy) sequence of untrusted plain-text lines.

Built on Textual's Line API: only the visible lines are turned into Strips, so a million lines cost nothing
until they scroll into view. Every line is made inert first: C0/DEL/C1 control characters and lone surrogates
become visible escapes, tabs are expanded, and the text goes straight into a Segment (never through markup).
Unwrapped, lines longer than MAX_CELLS cells are cut and end with `…`.

Soft wrap (`set_wrap(True)`) shows every line whole, folded at the widget's width after the last space that fits
(a word longer than the width is cut), its continuation rows indented as far as the line (a hanging indent). It stays lazy: a line no wider than the view is one row, known from its
length when it is printable ASCII (nearly all payload text: two C-speed checks); only a longer line is walked for
its breaks (one `rfind` per row, cached), so a 10 MB single line opens in tens of milliseconds.
Row starts are kept as a prefix array measured in chunks: the first chunk at once, the rest on timers (and on
demand when a jump needs rows not measured yet), so a million lines never hold the UI. `line_to_row` and
`row_to_line` translate between the caller's line numbers and the rows on screen.
"""

from __future__ import annotations

import re
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence

from rich.cells import cell_len, chop_cells, set_cell_size
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

__all__ = ["MAX_CELLS", "TextLines", "inert_line", "word_breaks", "wrap_rows"]

MAX_CELLS = 4000
ELLIPSIS = "…"
_SAMPLE_HEAD = 400
_SAMPLE_TAIL = 100
_SAMPLE_SPREAD = 400
_SURROGATE = re.compile("[\ud800-\udfff]")
# Characters one cell wide for sure (rich's own fast set): a line of only these is cut into rows by slicing.
_NOT_SINGLE = re.compile("[^\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u0482\u2500-\u25fc\u2800-\u28ff]")
WIDE_WRAP_CHARS = 200_000  # a wrapped line with wide/zero-width characters is cut into rows up to here
_MEASURE_FIRST = 0.02  # seconds of measuring rows before the first paint; the rest in slices on timers
_MEASURE_SLICE = 0.008
_CACHE_FORM_CHARS = 4096  # measuring keeps the cut form of lines longer than this (drawing them needs it again)
_MATCH = Style(reverse=True)

LineStyle = Callable[[int, str], "Style | None"]


def inert_line(line: object, max_cells: int = MAX_CELLS) -> tuple[str, int]:
    """(display text, cell width) of one line: control characters escaped, tabs expanded, capped at max_cells."""
    if not isinstance(line, str):
        line = str(line)
    cut = len(line) > max_cells
    s = _inert_full(line[:max_cells] if cut else line)
    width = cell_len(s)
    if cut or width > max_cells:
        if width > max_cells - 1:
            s = set_cell_size(s, max_cells - 1)
        s += ELLIPSIS
        width = cell_len(s)
    return s, width


def _inert_full(line: str) -> str:
    s = printable(line)
    if _SURROGATE.search(s):
        s = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)
    return s.expandtabs(8) if "\t" in s else s


def wrap_rows(line: object, width: int) -> str | list[str]:
    """A line made inert for wrapping at `width` cells: one string to slice `width` characters at a time when every
    character is one cell wide (nearly always), else the list of its rows (cut at WIDE_WRAP_CHARS characters)."""
    s = line if isinstance(line, str) else str(line)
    if s.isascii() and s.isprintable():
        return s
    s = _inert_full(s)
    if s.isascii() or not _NOT_SINGLE.search(s):
        return s
    rest = len(s) - WIDE_WRAP_CHARS
    rows = chop_cells(s[:WIDE_WRAP_CHARS], max(1, width)) if s else [""]
    if rest > 0:
        rows.append(f"{ELLIPSIS} ({rest:,} more characters not wrapped)")
    return rows


def hanging_indent(s: str, width: int) -> int:
    """How far the continuation rows of `s` are indented: as far as the line itself (indented JSON, a tool call's
    arguments stay in their column), at most a third of the width."""
    indent = len(s) - len(s.lstrip(" "))
    return indent if indent < len(s) and indent <= width // 3 else 0


def word_breaks(s: str, width: int, indent: int = 0) -> array:
    """Where each row of `s` starts when folded at `width` characters (`width - indent` for the rows after the
    first, which are drawn `indent` spaces in): after the last space that fits in the row, or at the row's width
    when there is none. A space at the very end of a row is not shown (the row is cut at its width)."""
    starts = array("q", [0])
    pos, n, room = 0, len(s), width
    while n - pos > room:
        cut = s.rfind(" ", pos + 1, pos + room + 1)
        pos = cut + 1 if cut > pos else pos + room
        starts.append(pos)
        room = width - indent
    return starts


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
        self._wrap = False
        self._wrap_width = 0  # the width the row index was measured for
        self._starts = array("q", [0])  # wrapped: first row of line i, for the lines measured so far (+ the end)
        # long or non-ASCII lines, ready to cut: (inert text, row starts, hanging indent), or the rows of a line of
        # wide characters
        self._wrapped: LRUCache[int, tuple[str, array, int] | list[str]] = LRUCache(256)
        self._index_generation = 0
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

    def set_lines(self, lines: Sequence[str], *, scroll_home: bool = True, wrap: bool | None = None) -> None:
        """Show `lines` (any sequence: a list, or a lazy one), soft-wrapped or not when `wrap` says (else as
        before). Costs O(samples), not O(len(lines)), plus one measuring chunk when wrapped."""
        self._lines = lines
        self._cache.clear()
        if wrap is not None and bool(wrap) != self._wrap:
            self._wrap = bool(wrap)
            self.styles.overflow_x = "hidden" if self._wrap else "auto"
            if not self._wrap:
                self._index_generation += 1
        self.search_line = -1  # a match's line number means nothing in other lines (the query stays: n finds again)
        n = len(lines)
        sample = set(range(min(n, _SAMPLE_HEAD)))
        sample.update(range(max(0, n - _SAMPLE_TAIL), n))
        if n > _SAMPLE_HEAD + _SAMPLE_TAIL:
            step = max(1, n // _SAMPLE_SPREAD)
            sample.update(range(0, n, step))
        self._width = max((self._display(i)[1] for i in sample), default=0)
        if self._wrap:
            self._reindex()
        else:
            self.virtual_size = Size(self._width, n)
        if scroll_home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    # --- soft wrap -----------------------------------------------------------------------------------

    @property
    def wrap(self) -> bool:
        return self._wrap

    def set_wrap(self, on: bool) -> None:
        """Fold long lines at the widget's width (on) or cut them and scroll sideways (off). The line at the top of
        the view stays at the top."""
        on = bool(on)
        if on == self._wrap:
            return
        top = self.row_to_line(round(self.scroll_offset.y))[0]
        self._wrap = on
        self.styles.overflow_x = "hidden" if on else "auto"
        if on:
            self._reindex()
        else:
            self._index_generation += 1
            self.virtual_size = Size(self._width, len(self._lines))
        self.scroll_to(0, self.line_to_row(top), animate=False, immediate=True, force=True)
        self.refresh()

    @property
    def row_count(self) -> int:
        """Rows of the whole text as shown (lines not measured yet count one row each)."""
        if not self._wrap:
            return len(self._lines)
        return self._starts[-1] + len(self._lines) - (len(self._starts) - 1)

    def line_to_row(self, index: int) -> int:
        """The first row on screen of line `index` (the row to scroll to for it)."""
        index = max(0, min(index, len(self._lines) - 1))
        if not self._wrap:
            return index
        if index >= len(self._starts) - 1:
            self._measure(index + 1)
            self._resize_virtual()  # before the caller scrolls there
        return self._starts[min(index, len(self._starts) - 1)]

    def row_to_line(self, row: int) -> tuple[int, int]:
        """(line index, row within that line) of a row on screen."""
        if not self._wrap:
            return row, 0
        starts = self._starts
        if row >= starts[-1] and len(starts) - 1 < len(self._lines):
            self._measure_rows(row + 1)
            self.call_later(self._resize_virtual)
        if row >= starts[-1]:
            return len(self._lines) + row - starts[-1], 0
        line = bisect_right(starts, row) - 1
        return line, row - starts[line]

    def _width_for_wrap(self) -> int:
        """The wrap width: the widget's width less the vertical scrollbar's, always kept free (a scrollbar that
        comes and goes would change the width, and with it every row)."""
        width = self.size.width - self.styles.scrollbar_size_vertical
        return max(8, width) if self.size.width else 80

    def _reindex(self) -> None:
        self._index_generation += 1
        self._wrap_width = self._width_for_wrap()
        self._starts = array("q", [0])
        self._wrapped.clear()
        self._measure(len(self._lines), _MEASURE_FIRST)
        self.virtual_size = Size(self._wrap_width, self.row_count)
        if len(self._starts) - 1 < len(self._lines):
            generation = self._index_generation
            self.set_timer(0.01, lambda: self._measure_more(generation))

    def _measure_more(self, generation: int) -> None:
        if generation != self._index_generation or not self._wrap:
            return
        self._measure(len(self._lines), _MEASURE_SLICE)
        self._resize_virtual()
        if len(self._starts) - 1 < len(self._lines):
            self.set_timer(0.01, lambda: self._measure_more(generation))

    def _resize_virtual(self) -> None:
        if self._wrap:
            size = Size(self._wrap_width, self.row_count)
            if size != self.virtual_size:
                self.virtual_size = size

    def _measure(self, upto: int, budget: float | None = None) -> None:
        """Extend the row index to lines [0, upto), or as far as `budget` seconds take it."""
        lines, starts, width = self._lines, self._starts, self._wrap_width
        deadline = time.perf_counter() + budget if budget is not None else None
        total = starts[-1]
        for i in range(len(starts) - 1, min(upto, len(lines))):
            s = lines[i]
            if type(s) is str and len(s) <= width and s.isascii() and s.isprintable():
                total += 1
            elif type(s) is str and len(s) <= _CACHE_FORM_CHARS:
                form = wrap_rows(s, width)
                total += len(word_breaks(form, width, hanging_indent(form, width))) if isinstance(form, str) \
                    else len(form) or 1
            else:
                total += self._rows_of(i)
            starts.append(total)
            if deadline is not None and not i & 511 and time.perf_counter() > deadline:
                break

    def _measure_rows(self, rows: int) -> None:
        while self._starts[-1] < rows and len(self._starts) - 1 < len(self._lines):
            self._measure(len(self._starts) - 1 + 2000)

    def _wrap_form(self, index: int) -> tuple[str, array, int] | list[str]:
        hit = self._wrapped.get(index)
        if hit is None:
            form = wrap_rows(self._lines[index], self._wrap_width)
            width = self._wrap_width
            if isinstance(form, str):
                indent = hanging_indent(form, width)
                hit = (form, word_breaks(form, width, indent), indent)
            else:
                hit = form
            self._wrapped[index] = hit
        return hit

    def _rows_of(self, index: int) -> int:
        form = self._wrap_form(index)
        return len(form[1]) if isinstance(form, tuple) else len(form) or 1

    def _row_text(self, index: int, row: int) -> tuple[str, int]:
        width = self._wrap_width
        s = self._lines[index]
        if type(s) is str and len(s) <= width and s.isascii() and s.isprintable():
            return (s, len(s)) if row == 0 else ("", 0)
        form = self._wrap_form(index)
        if isinstance(form, list):
            text = form[row] if row < len(form) else ""
            return text, cell_len(text)
        s, starts, indent = form
        if row >= len(starts):
            return "", 0
        end = starts[row + 1] if row + 1 < len(starts) else len(s)
        if row == 0:
            text = s[:min(end, width)]
        else:
            text = " " * indent + s[starts[row]:min(end, starts[row] + width - indent)]
        return text, len(text)

    def on_resize(self) -> None:
        if self._wrap and self._width_for_wrap() != self._wrap_width:
            top = self.row_to_line(round(self.scroll_offset.y))[0]
            self._reindex()
            self.scroll_to(0, self.line_to_row(top), animate=False, immediate=True, force=True)
            self.refresh()

    def search(self, needle: str, *, ignore_case: bool = True) -> list[int]:
        """Indices of the lines that contain `needle` (linear in the number of lines)."""
        if not needle:
            return []
        if ignore_case:
            return find_lines(self._lines, needle)
        return [i for i, line in enumerate(self._lines) if needle in line]

    def scroll_to_line(self, index: int) -> None:
        """Scroll so that line `index` (a line of `lines`, wrapped or not) is at the top."""
        self.scroll_to(y=self.line_to_row(index), animate=False, immediate=True, force=True)

    def action_half_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * half_page(self), animate=False, immediate=True)

    def action_sideways(self, direction: int) -> None:
        scroll_sideways(self, direction)

    # --- find (LineSearch) ---------------------------------------------------------------------------

    def search_lines(self) -> Sequence[str]:
        return self._lines

    def search_goto(self, line: int) -> None:
        """The match's line in view, a few lines below the top (a wrapped view maps `line` to its row here)."""
        row = self.line_to_row(max(0, min(line, len(self._lines) - 1)))
        self.scroll_to(y=max(0, row - 2), animate=False, immediate=True, force=True)

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
        width = self.size.width
        base = self.rich_style
        if self._wrap:
            index, row = self.row_to_line(scroll_y + y)
            if not 0 <= index < len(self._lines):
                return Strip.blank(width, base)
            text, cells = self._row_text(index, row)
            style = self._style_of(index, base)
            return Strip([Segment(text, style)], cells).crop_extend(0, width, base).apply_offsets(0, scroll_y + y)
        index = scroll_y + y
        if not 0 <= index < len(self._lines):
            return Strip.blank(width, base)
        text, cells = self._display(index)
        style = self._style_of(index, base)
        if cells > self._width:
            self._width = cells
            self.call_later(self._grow)
        strip = Strip([Segment(text, style)], cells)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, index)

    def _style_of(self, index: int, base: Style) -> Style:
        if self.line_style is not None:
            extra = self.line_style(index, self._lines[index])
            if extra is not None:
                base = base + extra
        return base + _MATCH if index == self.search_line else base

    def _grow(self) -> None:
        if not self._wrap and self._width > self.virtual_size.width:
            self.virtual_size = Size(self._width, len(self._lines))
