"""The log pane: a virtual list (only visible lines are rendered), severity coloured and filterable."""

from __future__ import annotations

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


def _clock(ts: int | None) -> str:
    if ts is None:
        return "--:--:--.---"
    try:
        return datetime.fromtimestamp(ts / 1000, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]
    except (OverflowError, OSError, ValueError):
        return "??:??:??.???"


class LogPane(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", show=False),
        Binding("pagedown", "page_down", show=False),
        Binding("home", "scroll_home", show=False),
        Binding("end", "scroll_end", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.entries: LogView = LogView([], [], [])
        self.shown: LogView = self.entries
        self.level = 0
        self.dropped = 0  # older entries dropped from view by a cap upstream
        self.scope = ""

    def set_entries(self, entries: LogView, scope: str = "", dropped: int = 0) -> None:
        self.entries = entries
        self.scope = scope
        self.dropped = dropped
        self._apply_filter()

    def gathering(self, scope: str, count: int) -> None:
        """Empty while the entries of a big node are gathered (in a thread)."""
        self.set_entries(LogView([], [], []), scope)
        self.border_title = f"{f'Logs {scope}'.rstrip()} · gathering {count:,} entries…"

    def cycle_level(self) -> str:
        self.level = (self.level + 1) % len(LEVELS)
        self._apply_filter()
        return LEVELS[self.level][0]

    def _apply_filter(self) -> None:
        keep = LEVELS[self.level][1]
        self.shown = self.entries if keep is None else self.entries.keep(keep)
        sample = self.shown[:500]
        widest = max((len(e.message) for e in sample), default=0) + 32
        self.virtual_size = Size(min(MESSAGE_CELLS, widest), len(self.shown))
        self._update_title()
        self.refresh()

    def _update_title(self) -> None:
        counts = self.entries.severity_counts()
        parts = [f"Logs {self.scope}".rstrip(), f"{len(self.shown):,}/{len(self.entries):,}", f"filter {LEVELS[self.level][0]}"]
        for sev in ("FATAL", "ERR", "WRN"):
            if counts.get(sev):
                parts.append(f"{sev} {counts[sev]}")
        if self.dropped:
            parts.append(f"{self.dropped:,} older dropped")
        self.border_title = Text(" · ".join(parts))  # a str would be parsed as markup, and scope is file content

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
        return strip.crop(self.scroll_offset.x, self.scroll_offset.x + width).extend_cell_length(width).apply_style(
            self.rich_style
        )
