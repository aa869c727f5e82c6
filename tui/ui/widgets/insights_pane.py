"""The insights panel: a virtual list of the session's insights; Enter (or a click) on an entry jumps to its op."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.fields import one_line, printable
from tui.ui.widgets.motion import half_page, motion_bindings, scroll_sideways

if TYPE_CHECKING:  # (imported when insights are first shown: the pane starts hidden, start-up does not need them)
    from tui.model.insights import Insights
    from tui.text.insights_text import Line

TONE = {
    "error": Style(color="red"),
    "warning": Style(color="yellow"),
    "good": Style(color="green"),
    "dim": Style(dim=True),
}
HEADING = Style(bold=True, underline=True)
CURSOR = Style(reverse=True)


class InsightsPane(ScrollView, can_focus=True):
    BINDINGS = [
        Binding("enter", "jump", "Jump to op", show=False),
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("J,shift+down", "section(1)", "Next section", show=False),
        Binding("K,shift+up", "section(-1)", "Previous section", show=False),
        Binding("home", "edge(0)", show=False),
        Binding("end", "edge(1)", show=False),
        *motion_bindings("edge(0)", "edge(1)", left="sideways(-1)", right="sideways(1)"),
    ]

    class Jump(Message):
        """Enter on an entry: the screen reveals and selects the op at `path` ("" or a prefix: the session)."""

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.insights: Insights | None = None
        self.rows: list[Line] = []
        self.cursor = -1  # index into rows of the selected entry; -1 when there is none

    def set_insights(self, insights: Insights) -> None:
        """Show new insights, keeping the cursor on the same path when it is still there."""
        old = self.rows[self.cursor].path if 0 <= self.cursor < len(self.rows) else None
        self.insights = insights
        from tui.text.insights_text import Line, lines

        self.rows = [Line(r.kind, printable(r.text), r.path, r.tone) for r in lines(insights)]
        self.virtual_size = Size(max((len(r.text) for r in self.rows), default=0), len(self.rows))
        stops = self.stops()
        keep = next((i for i in stops if self.rows[i].path == old), None) if old is not None else None
        self.cursor = keep if keep is not None else (stops[0] if stops else -1)
        n_failed = len(insights.failed_ops)
        # a Text: a str border title is parsed as markup, and the agent name is file content
        self.border_title = Text(f"Insights · {one_line(insights.agent, 60)} · {n_failed:,} failed ops · "
                                 "Enter jumps to the op · J/K next/previous section · i closes")
        self.refresh()

    def stops(self) -> list[int]:
        return [i for i, row in enumerate(self.rows) if row.kind == "entry" and row.path is not None]

    @property
    def selected(self) -> Line | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def select_path(self, path: str) -> bool:
        """Put the cursor on the first entry that jumps to `path`."""
        for i in self.stops():
            if self.rows[i].path == path:
                self._move_to(i)
                return True
        return False

    # keys -------------------------------------------------------------------------------------------------
    def action_cursor(self, step: int) -> None:
        stops = self.stops()
        if not stops:
            return
        if self.cursor not in stops:
            self._move_to(stops[0])
            return
        at = stops.index(self.cursor)
        self._move_to(stops[max(0, min(len(stops) - 1, at + step))])

    def action_page(self, direction: int) -> None:
        self._step_rows(direction * max(1, self.scrollable_content_region.height - 1))

    def action_half_page(self, direction: int) -> None:
        self._step_rows(direction * half_page(self))

    def _step_rows(self, rows: int) -> None:
        """To the entry about `rows` rows away (entries are the only stops), or the last/first one."""
        stops = self.stops()
        if not stops:
            return
        target = self.cursor + rows
        ahead = [i for i in stops if (i >= target if rows > 0 else i <= target)]
        if ahead:
            self._move_to(ahead[0] if rows > 0 else ahead[-1])
        else:
            self._move_to(stops[-1] if rows > 0 else stops[0])

    def action_sideways(self, direction: int) -> None:
        scroll_sideways(self, direction)

    def action_section(self, step: int) -> None:
        """To the first entry of the next (previous) section that has one."""
        heads = [i for i, row in enumerate(self.rows) if row.kind == "heading"]
        here = max((h for h in heads if h <= self.cursor), default=-1)
        stops = self.stops()
        order = [h for h in heads if h > here] if step > 0 else [h for h in reversed(heads) if h < here]
        for head in order:
            nxt = next((h for h in heads if h > head), len(self.rows))
            entry = next((i for i in stops if head < i < nxt), None)
            if entry is not None:
                self._move_to(entry)
                self.scroll_to(y=head, animate=False)  # show the section's heading too
                return

    def action_edge(self, end: int) -> None:
        stops = self.stops()
        if stops:
            self._move_to(stops[-1] if end else stops[0])
            if not end:
                self.scroll_home(animate=False)

    def action_jump(self) -> None:
        row = self.selected
        if row is not None and row.path is not None:
            self.post_message(self.Jump(row.path))

    def on_click(self, event: events.Click) -> None:
        index = event.y + self.scroll_offset.y
        if 0 <= index < len(self.rows) and self.rows[index].kind == "entry" and self.rows[index].path is not None:
            self._move_to(index)
            self.action_jump()

    def _move_to(self, index: int) -> None:
        self.cursor = index
        width = self.scrollable_content_region.width
        self.scroll_to_region(Region(0, index, max(1, width), 1), animate=False, force=True)
        self.refresh()

    # drawing ----------------------------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        row = self.rows[index]
        style = HEADING if row.kind == "heading" else TONE.get(row.tone, Style())
        if index == self.cursor:
            style = style + CURSOR
        strip = Strip([Segment(row.text, style)])
        x = self.scroll_offset.x
        return strip.crop(x, x + width).extend_cell_length(width, style if index == self.cursor else None).apply_style(
            self.rich_style
        )
