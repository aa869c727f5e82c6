"""The waterfall view: one row per turn/op on a time axis, sub-agents nested; only the visible rows are drawn.

Line API: the two header lines (tick labels, ruler) stay on top, the rows below scroll. Names are untrusted and
go into Segments as plain text (the model already escaped control characters).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from tui.model.format import fmt_duration
from tui.model.waterfall import Row, Waterfall
from tui.model.waterfall_axis import Window, axis, bar_cells, fit, pan, ticks, zoom
from tui.ui.widgets.line_search import LineSearch
from tui.ui.widgets.motion import half_page, motion_bindings
from tui.ui.widgets.node_labels import KIND_STYLE, KIND_TAG

HEADER = 2
ZOOM_STEP = 0.5
PAN_STEP = 0.25
DURATION_CELLS = 8
MAX_INDENT = 12
MIN_NAME = 6  # cells of a deep row's name kept before its indent shrinks

# Bars and tags share a colour per kind; none of them is red, which means failed.
KIND_COLOR = {"llm": "#4fc1e9", "tool": "#8cc152", "session": "#ac92ec", "system": "#8a8a8a", "?": "#f6bb42"}
_DIM = Style(dim=True)
_GRID = Style(color="grey30")
_SEP = Style(color="grey42")
_FAILED = Style(color="#ff4040", bold=True)
_RUNNING = Style(color="yellow")
_CONTAINER = {"root": Style(color="white", bold=True), "turn": Style(color="grey62")}
_TAGS = {
    kind: (tag + " ", Style(color=KIND_COLOR[kind], bold=kind != "system") if kind in KIND_COLOR
           else Style.parse(KIND_STYLE.get(kind, "")))
    for kind, tag in KIND_TAG.items()
}


def label_width(width: int) -> int:
    """Cells of the name column for a view `width` cells wide (the rest, less a separator, holds the bars)."""
    return max(24, min(64, int(width * 0.38)))


class RowNames(Sequence):
    """The names of a waterfall's rows, as `/` searches them."""

    __slots__ = ("rows",)

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):  # type: ignore[override]
        return self.rows[index].name


class WaterfallView(LineSearch, ScrollView, can_focus=True):
    """Rows of a `Waterfall` and a cursor; the time window zooms and pans independently of the rows."""

    COMPONENT_CLASSES = {"waterfall--cursor"}
    DEFAULT_CSS = """
    WaterfallView {
        overflow-x: hidden;
        overflow-y: auto;
    }
    WaterfallView > .waterfall--cursor {
        background: $accent 30%;
    }
    """
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First row", show=False),
        Binding("end", "last", "Last row", show=False),
        Binding("enter", "open", "Fold/Go to op"),
        Binding("space", "fold", "Fold", show=False),
        Binding("right,plus,equals_sign", "zoom(0.5)", "Zoom in", key_display="+"),
        Binding("left,minus", "zoom(2.0)", "Zoom out", key_display="-"),
        Binding("h,shift+left", "pan(-1)", "Pan left", key_display="h", show=False),  # (80 columns: Back)
        Binding("l,shift+right", "pan(1)", "Pan right", key_display="l", show=False),
        Binding("z", "zoom_row", "Zoom to row", show=False),
        Binding("0", "fit", "Fit all", show=False),
        *motion_bindings(),
    ]

    class Highlighted(Message):
        """The cursor moved (or the rows/window changed under it)."""

        def __init__(self, row: Row | None) -> None:
            super().__init__()
            self.row = row

    class Jump(Message):
        """Go to this node in the session screen's tree."""

        def __init__(self, row: Row) -> None:
            super().__init__()
            self.row = row

    def __init__(self, model: Waterfall, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.window: Window = fit(model.total)
        self.cursor = 0
        self._axis_cache: tuple | None = None
        self._names: RowNames | None = None

    # state ------------------------------------------------------------------------------------------------
    @property
    def row(self) -> Row | None:
        rows = self.model.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    @property
    def fitted(self) -> bool:
        return self.window == fit(self.model.total)

    def set_model(self, model: Waterfall, *, cursor: int | None = None, window: Window | None = None) -> None:
        self.model = model
        self.window = window if window is not None else fit(model.total)
        self.cursor = max(0, min(cursor if cursor is not None else self.cursor, len(model.rows) - 1))
        self._changed()

    def _changed(self) -> None:
        self._axis_cache = None
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.model.rows) + HEADER)
        self._follow_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self.row))

    def on_resize(self, event: events.Resize) -> None:
        self._axis_cache = None
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.model.rows) + HEADER)
        self._follow_cursor()

    def move_to(self, index: int) -> None:
        rows = len(self.model.rows)
        if rows == 0:
            return
        index = max(0, min(index, rows - 1))
        if index == self.cursor:
            return
        old, top = self.cursor, self.scroll_offset.y
        self.cursor = index
        self._follow_cursor()
        if self.scroll_offset.y == top:  # only the two cursor rows change
            self.refresh_line(old + HEADER)
            self.refresh_line(index + HEADER)
        else:
            self.refresh()
        self.post_message(self.Highlighted(self.row))

    def _follow_cursor(self) -> None:
        visible = max(1, self.scrollable_content_region.height - HEADER)
        top = round(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)

    def set_window(self, window: Window) -> None:
        self.window = window
        self._axis_cache = None
        self.refresh()
        self.post_message(self.Highlighted(self.row))

    # keys -------------------------------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        self.move_to(self.cursor + step)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * max(1, self.scrollable_content_region.height - HEADER - 1))

    def action_half_page(self, direction: int) -> None:
        self.move_to(self.cursor + direction * half_page(self))

    # find (LineSearch): over the row names; a match moves the cursor ------------------------------------------
    def search_lines(self) -> Sequence[str]:
        if self._names is None or self._names.rows is not self.model.rows:
            self._names = RowNames(self.model.rows)
        return self._names

    def search_position(self) -> int:
        return self.cursor

    def search_goto(self, line: int) -> None:
        self.move_to(line)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.model.rows) - 1)

    def action_fold(self) -> None:  # (not action_toggle: DOMNode's toggles an attribute)
        if self.row is not None and self.model.toggle(self.cursor):
            self._changed()

    def action_open(self) -> None:
        row = self.row
        if row is None:
            return
        if row.expandable:
            self.action_fold()
        else:
            self.post_message(self.Jump(row))

    def _anchor(self) -> float:
        """Where zooming centres: the selected bar's middle (zoom keeps it in place on screen)."""
        row = self.row
        if row is None:
            return (self.window.start + self.window.end) / 2
        start, end = self.model.span(row)
        return (start + end) / 2

    def action_zoom(self, factor: float) -> None:
        self.set_window(zoom(self.window, factor, self._anchor(), self.model.total))

    def action_pan(self, direction: int) -> None:
        self.set_window(pan(self.window, direction * PAN_STEP, self.model.total))

    def action_fit(self) -> None:
        self.set_window(fit(self.model.total))

    def action_zoom_row(self) -> None:
        row = self.row
        if row is None:
            return
        start, end = self.model.span(row)
        margin = max((end - start) * 0.02, 0.5)
        window = Window(max(0.0, start - margin), min(self.model.total, end + margin))
        if window.span <= 0:
            window = fit(self.model.total)
        self.set_window(zoom(window, 1.0, window.start, self.model.total))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < HEADER:
            return
        index = round(self.scroll_y) + offset.y - HEADER
        if 0 <= index < len(self.model.rows):
            self.move_to(index)
            if event.chain >= 2:
                self.action_open()

    # drawing ----------------------------------------------------------------------------------------------
    def _layout(self) -> tuple[int, int]:
        width = self.scrollable_content_region.width
        names = label_width(width)
        return names, max(0, width - names - 1)

    def _axis(self, bars: int) -> tuple[str, str, set[int]]:
        key = (self.window, bars)
        if self._axis_cache is None or self._axis_cache[0] != key:
            labels, ruler = axis(self.window, bars)
            grid = {tick.column for tick in ticks(self.window, bars)}
            self._axis_cache = (key, labels, ruler, grid)
        return self._axis_cache[1], self._axis_cache[2], self._axis_cache[3]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        names, bars = self._layout()
        labels, ruler, grid = self._axis(bars)
        if y == 0:
            title = f" {len(self.model.rows):,} rows"
            head = set_cell_size(title, max(0, names - DURATION_CELLS)) + "took".rjust(DURATION_CELLS)
            segments = [Segment(set_cell_size(head, names), _DIM), Segment("│", _SEP), Segment(labels, _DIM)]
            return Strip(segments).crop_extend(0, width, base).apply_style(base)
        if y == 1:
            segments = [Segment("─" * names + "┼", _SEP), Segment(ruler, _SEP)]
            return Strip(segments).crop_extend(0, width, base).apply_style(base)
        index = round(self.scroll_y) + y - HEADER
        if not 0 <= index < len(self.model.rows):
            return Strip.blank(width, base)
        row = self.model.rows[index]
        segments = self._name_segments(row, names)
        segments.append(Segment("│", _SEP))
        segments.extend(self._bar_segments(row, bars, grid))
        strip = Strip(segments).crop_extend(0, width, base)
        if index == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("waterfall--cursor"))
        return strip.apply_style(base)

    def _name_segments(self, row: Row, width: int) -> list[Segment]:
        model = self.model
        kind = row.kind
        tag, tag_style = _TAGS.get(kind, ("", None))
        # the indent gives way before the name column overflows (deep rows in a narrow view pushed the bars right)
        # (the same cap for every kind, so rows at one depth stay level; AGENT is the widest ai-agent tag)
        depth_cells = min(2 * min(row.depth, MAX_INDENT), max(0, width - 2 - 6 - DURATION_CELLS - MIN_NAME))
        indent = " " * depth_cells
        if row.expandable:
            indent += "▾ " if model.is_expanded(row) else "▸ "
        else:
            indent += "  "
        start, end = model.span(row)
        status = model.status(row)
        duration = ("~" if status == "inferred" else "") + fmt_duration(round(end - start))
        segments = [Segment(indent, _DIM)]
        used = cell_len(indent)
        if tag:
            segments.append(Segment(tag, tag_style))
            used += cell_len(tag)
        room = max(0, width - used - DURATION_CELLS)
        name = row.name
        if cell_len(name) > room:
            name = set_cell_size(name, max(0, room - 1)) + "…" if room else ""
        name_style = _FAILED if status == "failed" else Style(bold=True) if kind in ("root", "turn") else None
        segments.append(Segment(set_cell_size(name, room), name_style))
        dur_style = _RUNNING if status == "running" else _DIM
        segments.append(Segment(duration.rjust(DURATION_CELLS)[-DURATION_CELLS:], dur_style))
        return list(Strip(segments).crop_extend(0, width, None)) if used + DURATION_CELLS > width else segments

    def _bar_segments(self, row: Row, width: int, grid: set[int]) -> list[Segment]:
        if width <= 0:
            return []
        back = ["┊" if i in grid else " " for i in range(width)]
        start, end = self.model.span(row)
        cells = bar_cells(start, end, self.window, width)
        if cells is None:
            if end < self.window.start:
                back[0] = "◂"
            else:
                back[-1] = "▸"
            return [Segment("".join(back), _GRID)]
        status = self.model.status(row)
        kind = row.kind
        if kind in _CONTAINER:
            char, style = "━", _CONTAINER[kind]
        else:
            char, style = "█", Style(color=KIND_COLOR.get(kind, "white"))
        if status == "failed":
            style = _FAILED
        elif status == "running":
            char, style = "▒", _RUNNING
        elif status == "inferred":
            char = "░"
        length = cells.last - cells.first
        if cells.mark:
            bar = "│" if end == start else "▌"
        else:
            bar = char * length
        segments = [Segment("".join(back[:cells.first]), _GRID), Segment(bar, style)]
        rest = back[cells.last:]
        if status == "failed" and rest:
            segments.append(Segment("✗", _FAILED))
            rest = rest[1:]
        segments.append(Segment("".join(rest), _GRID))
        return segments


class StatusLines(Widget):
    """Fixed-height text that changes on every cursor move: a repaint, never a relayout (Static.update is one)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()

    def show(self, text: Text) -> None:
        self.text = text
        self.refresh()

    def render(self) -> Text:
        return self.text
