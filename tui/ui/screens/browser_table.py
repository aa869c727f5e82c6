"""The browser's table and filter box: the table holds a window of the model's view (`shown`, the first rows of
the sorted, filtered keys) and reuses the cells of rows that did not change."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from textual.binding import Binding
from textual.widgets import DataTable, Input

from tui.catalog.session_row import SessionRow
from tui.ui.screens.browser_columns import Column
from tui.ui.textual_compat import UnmeasuredRowsTable
from tui.ui.widgets.motion import TableMotion

CLOCK_COLUMNS = ("age", "status", "duration")  # the cells that change with the clock alone


class SessionTable(TableMotion, UnmeasuredRowsTable):
    """A DataTable whose columns all have fixed widths and whose rows are one line high, so new rows need no
    measuring: skipping it halves the cost of showing a page of rows (textual is pinned, see pyproject)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.shown: list[str] = []  # the keys of the rows in the table: a prefix of the model's view
        self.shown_set: set[str] = set()
        self.session_columns: tuple[Column, ...] = ()
        self._cell_cache: dict[str, tuple] = {}  # key -> (row, (second, columns, marked), cells): add_session_rows

    def set_columns(self, columns: tuple[Column, ...]) -> None:
        """New columns (the width or the sort changed): the table is emptied."""
        self.clear(columns=True)
        self.session_columns = columns
        for column in columns:
            self.add_column(column.label, width=column.width, key=column.key)
        self.shown, self.shown_set = [], set()

    def clear_rows(self) -> None:
        self.clear()
        self.shown, self.shown_set = [], set()

    def add_session_rows(self, keys: list[str], rows: Mapping[str, SessionRow],
                         cells_of: Callable[[SessionRow, float], tuple], now_s: float, stamp: tuple,
                         folded: set[str], in_place: bool = False) -> bool:
        """Append these rows. A re-sort puts back a page of rows most of which did not change: their cells are
        reused while `stamp` (the second, as Age is shown in seconds; the columns; the mark) is the same, so a live
        burst of new sessions costs the new rows' cells, not a page's. `folded`: rows marked as folded twins.
        `in_place`: they are the rows the table shows, in its order: only their changed cells are repainted (False
        if the table disagrees)."""
        cache, fresh = self._cell_cache, {}
        batch = []
        for key in keys:
            row = rows[key]
            hit = cache.get(key)
            row_stamp = (stamp, key in folded)
            cells = hit[2] if hit is not None and hit[0] is row and hit[1] == row_stamp else cells_of(row, now_s)
            fresh[key] = (row, row_stamp, cells)
            batch.append((key, cells))
        self._cell_cache = fresh if len(keys) >= len(self.shown) else {**cache, **fresh}
        if in_place:
            return self.update_rows_in_place(batch)
        self.add_keyed_rows(batch)
        self.shown.extend(keys)
        self.shown_set.update(keys)
        return True

    def put_cursor_back(self, index: int, cursor_row: int, scroll_y: float) -> None:
        """After the rows were put back: the cursor on row `index` (-1: where it was, `cursor_row`), the table
        scrolled by as much as the cursor moved."""
        if self.shown:
            target = index if index >= 0 else min(cursor_row, len(self.shown) - 1)
            self.move_cursor(row=target, scroll=False)
            self.call_after_refresh(self.scroll_to, y=max(0, scroll_y + (target - cursor_row)), animate=False)

    def cursor_key(self) -> str | None:
        """The key of the highlighted row."""
        row = self.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def visible_keys(self, extra: int = 0) -> list[str]:
        """The keys of the rows on screen (and `extra` more below)."""
        first = int(self.scroll_y)
        return self.shown[first:first + self.size.height + extra]

    def update_row(self, row: SessionRow, cells: tuple) -> None:
        for column, cell in zip(self.session_columns, cells):
            self.update_cell(row.key, column.key, cell)

    def update_clock_cells(self, key: str, cells: tuple) -> None:
        """Bring a row's Age, Status and Duration up to date (only the cells that changed are redrawn)."""
        for column, cell in zip(self.session_columns, cells):
            if column.key in CLOCK_COLUMNS and self.get_cell(key, column.key).plain != cell.plain:
                self.update_cell(key, column.key, cell)


class FilterInput(Input):
    BINDINGS = [Binding("escape", "leave", "Clear filter")]

    def action_leave(self) -> None:
        self.value = ""
        self.screen.query_one(DataTable).focus()
