"""The log pane: a virtual list (only visible lines are rendered), severity coloured and filterable.

It tails like `tail -f`: while the view is at the bottom, new lines keep it there ("following"); scrolling up
stops following (lines still arrive, the view stays: "paused"); End (or G, or scrolling back to the bottom) follows
again. `/`, `n`, `N` find in the lines (LineSearch); g/G, ctrl+d/ctrl+u, h/l move (motion)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from rich.segment import Segment
from rich.text import Text
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.fields import one_line
from tui.model.logs import LogView
from tui.ui.textual_compat import set_scroll_size
from tui.ui.widgets.line_search import LineSearch
from tui.ui.widgets.motion import half_page, motion_bindings, scroll_sideways
from tui.ui.widgets.steady_static import set_border_title

SEVERITY_STYLE = {
    "FATAL": Style(color="white", bgcolor="red", bold=True),
    "ERR": Style(color="red", bold=True),
    "WRN": Style(color="yellow", bold=True),
    "FIN": Style(color="green"),
    "INF": Style(color="cyan"),
    "VRB": Style(),
    "DBG": Style(dim=True),
    "TRC": Style(dim=True),
    "THK": Style(color="magenta", italic=True),
}
# Filter levels the `l` key cycles through: (name, severities kept or None for all).
LEVELS = (
    ("all", None),
    ("WRN+", frozenset({"WRN", "ERR", "FATAL"})),
    ("ERR+", frozenset({"ERR", "FATAL"})),
)
MESSAGE_CELLS = 2000
_DIM = Style(dim=True)
_MATCH = Style(reverse=True)
FOLLOWING = "following"
PAUSED = "paused — End to follow"


class LogText(Sequence):
    """The searched text of each entry of a LogView (severity, op path, message), made on access."""

    __slots__ = ("view",)

    def __init__(self, view: LogView) -> None:
        self.view = view

    def __len__(self) -> int:
        return len(self.view)

    def __getitem__(self, index):  # type: ignore[override]
        entry = self.view[index]
        return f"{entry.severity} {entry.path} {entry.message}"


def _clock(ts: int | None) -> str:
    if ts is None:
        return "--:--:--.---"
    try:
        return datetime.fromtimestamp(ts / 1000, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    except (OverflowError, OSError, ValueError):
        return "??:??:??.???"


class LogPane(LineSearch, ScrollView, can_focus=True):
    DEFAULT_CSS = """
    LogPane {
        overflow-y: auto;
        overflow-x: hidden;
    }
    """
    BINDINGS = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", show=False),
        Binding("pagedown", "page_down", show=False),
        Binding("home", "scroll_home", show=False),
        Binding("end", "follow", "Follow the end", show=False),
        *motion_bindings("scroll_home", "follow", left="sideways(-1)", right="sideways(1)"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: LogView = LogView([], [], [])
        self.shown: LogView = self.entries
        self.level = 0
        self.dropped = 0  # older entries dropped from view by a cap upstream
        self.scope = ""
        self.following = True  # at the bottom, staying there as lines arrive
        self._text = LogText(self.shown)

    def set_entries(self, entries: LogView, scope: str = "", dropped: int = 0) -> None:
        """New entries: more of the same node's (a live session), or another node's (a new tail: following)."""
        if scope != self.scope:
            self.following = True
        self.entries = entries
        self.scope = scope
        self.dropped = dropped
        self._apply_filter()

    # following ----------------------------------------------------------------------------------------------
    def action_follow(self) -> None:
        """End: to the last line, and stay there as lines arrive."""
        self._set_following(True)
        self._to_end()

    def _to_end(self) -> None:
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
        # ... and once more after the next layout: new lines can arrive before the pane has its final size (the
        # first screen, a resize under way), when max_scroll_y is not yet the real bottom
        self.call_after_refresh(self._settle_end)

    def _settle_end(self) -> None:
        if self.following and self.scroll_y < self.max_scroll_y:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        if self.following:  # a taller or shorter pane: the last line stays the last one shown
            self._to_end()

    def action_half_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * half_page(self), animate=False, immediate=True)

    def action_sideways(self, direction: int) -> None:
        scroll_sideways(self, direction)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # Any scroll decides: away from the bottom pauses, back at the bottom follows (as `tail -f` in a pager)
        self._set_following(round(new_value) >= self.max_scroll_y)

    def _set_following(self, following: bool) -> None:
        if following != self.following:
            self.following = following
            self._update_title()

    def gathering(self, scope: str, count: int) -> None:
        """Empty while the entries of a big node are gathered (in a thread)."""
        self.set_entries(LogView([], [], []), scope)
        self.border_title = f"{f'Logs {scope}'.rstrip()} · gathering {count:,} entries…"

    def cycle_level(self) -> str:
        self.level = (self.level + 1) % len(LEVELS)
        self._apply_filter()
        return LEVELS[self.level][0]

    def _apply_filter(self) -> None:
        before = self._visible_lines() if self.search_line < 0 else (-1, [])  # (a highlighted match: all)
        keep = LEVELS[self.level][1]
        self.shown = self.entries if keep is None else self.entries.keep(keep)
        sample = self.shown[:500]
        widest = max((len(e.message) for e in sample), default=0) + 32
        self._text = LogText(self.shown)
        self.search_line = -1  # line numbers of the old lines mean nothing now (the query stays)
        set_scroll_size(self, Size(min(MESSAGE_CELLS, widest), len(self.shown)))
        if self.following:
            self._to_end()
        self._update_title()
        self._repaint_changed(before)

    def _visible_lines(self) -> tuple[int, list[tuple]]:
        """The scroll offset and what each line on screen shows (a live session's reload brings the same
        entries again, mostly: only lines that differ need writing to the terminal)."""
        top, shown = self.scroll_offset.y, self.shown
        lines = range(top, min(top + self.scrollable_content_region.height, len(shown)))
        return top, [(e.ts, e.severity, e.path, e.message) for e in (shown[i] for i in lines)]

    def _repaint_changed(self, before: tuple[int, list[tuple]]) -> None:
        """Repaint the lines that changed; everything if the view scrolled (Textual repaints a scroll whole)."""
        top, after = self._visible_lines()
        if top != before[0]:
            self.refresh()
            return
        old = before[1]
        for y in range(max(len(old), len(after))):
            if y >= len(old) or y >= len(after) or old[y] != after[y]:
                self.refresh_line(top + y)

    # find (LineSearch) --------------------------------------------------------------------------------------
    def search_lines(self) -> Sequence[str]:
        return self._text

    def search_goto(self, line: int) -> None:
        height = self.scrollable_content_region.height
        self.scroll_to(y=max(0, line - height // 3), animate=False, immediate=True)  # follow pauses (unless bottom)

    def _update_title(self) -> None:
        counts = self.entries.severity_counts()
        parts = [f"Logs {self.scope}".rstrip(), f"{len(self.shown):,}/{len(self.entries):,}", f"filter {LEVELS[self.level][0]}"]
        for sev in ("FATAL", "ERR", "WRN"):
            if counts.get(sev):
                parts.append(f"{sev} {counts[sev]}")
        if self.dropped:
            parts.append(f"{self.dropped:,} older dropped")
        parts.append(FOLLOWING if self.following else PAUSED)
        set_border_title(self, Text(" · ".join(parts)))  # a str would be parsed as markup; scope is file content

    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if index >= len(self.shown):
            return Strip.blank(width, self.rich_style)
        entry = self.shown[index]
        style = SEVERITY_STYLE.get(entry.severity, Style())
        segments = [
            Segment(_clock(entry.ts) + " ", _DIM),
            Segment(f"{one_line(entry.severity, 8):<5}", style),
            Segment(f" {one_line(entry.path, 24):<10} ", _DIM),
            Segment(one_line(entry.message, MESSAGE_CELLS), style if entry.severity in ("FATAL", "ERR", "WRN") else None),
        ]
        strip = Strip(segments)
        if index == self.search_line:
            strip = strip.apply_style(_MATCH)
        return strip.crop(self.scroll_offset.x, self.scroll_offset.x + width).extend_cell_length(width).apply_style(
            self.rich_style
        )
