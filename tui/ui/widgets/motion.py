"""The movement keys people bring from less, vim, k9s and lazygit, in one place for every list, tree and text view:
`g`/`G` first/last, ctrl+d/ctrl+u half a page down/up, `h`/`l` left/right.

Each view names the actions these keys run (its own first/last/half-page moves: a cursor in a list or tree, the
scroll position in a text view); `half_page` is the one definition of "half a page"."""

from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import DataTable


def motion_bindings(first: str = "first", last: str = "last", half: str = "half_page",
                    left: str | None = None, right: str | None = None) -> list[BindingType]:
    """g/G, ctrl+d/ctrl+u (and h/l when `left`/`right` are given), hidden from the footer (the help lists them)."""
    bindings: list[BindingType] = [
        Binding("g", first, "First", show=False),
        Binding("G", last, "Last", key_display="G", show=False),
        Binding("ctrl+d", f"{half}(1)", "Half page down", key_display="ctrl+d", show=False),
        Binding("ctrl+u", f"{half}(-1)", "Half page up", key_display="ctrl+u", show=False),
    ]
    if left is not None and right is not None:
        bindings += [Binding("h", left, "Left", show=False), Binding("l", right, "Right", show=False)]
    return bindings


def half_page(widget: Widget) -> int:
    """Half the rows the widget shows (at least one)."""
    return max(1, widget.scrollable_content_region.height // 2)


def scroll_sideways(widget: Widget, direction: int) -> None:
    """h/l: a quarter of the view's width sideways (forced: a view that cuts its lines at the edge has no scrollbar)."""
    step = max(4, widget.scrollable_content_region.width // 4)
    x = max(0, min(widget.max_scroll_x, round(widget.scroll_x) + direction * step))
    widget.scroll_to(x=x, animate=False, immediate=True, force=True)


class TableMotion(DataTable):
    """A row-cursor DataTable with the keys above: j/k down/up, g/G first/last row, ctrl+d/ctrl+u half a page, h/l
    sideways."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        *motion_bindings("scroll_top", "scroll_bottom", left="sideways(-1)", right="sideways(1)"),
    ]

    def action_half_page(self, direction: int) -> None:
        if self.row_count:
            row = self.cursor_row + direction * half_page(self)
            self.move_cursor(row=max(0, min(self.row_count - 1, row)))

    def action_sideways(self, direction: int) -> None:
        scroll_sideways(self, direction)

