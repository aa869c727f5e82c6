"""DataTable's private API: a table of one-line rows that measures none and repaints a changed cell alone."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import zip_longest
from typing import Any

from textual.geometry import Region
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, DuplicateKey, Row, RowKey

from tui.ui.draw_key import same_cell


class UnmeasuredRowsTable(DataTable):
    """A DataTable for fixed-width columns and one-line rows: it overrides the private `_update_dimensions` to
    measure no rows, and adds rows by filling `_row_locations`, `_data`, `rows`, `_new_rows` itself."""

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(())

    def add_keyed_rows(self, rows: list[tuple[str, tuple]]) -> None:
        """add_row for many one-line rows at once: what add_row does per row (including re-validating the
        cursor and checking for idle, most of its cost) is done once for the batch (mirrors DataTable.add_row's
        private bookkeeping: `_row_locations`, `_data`, `_new_rows`, `_require_update_dimensions`,
        `_highlight_cursor`, `_update_count`)."""
        if not rows:
            return
        columns = self.ordered_columns
        first = self.row_count == 0
        for key, cells in rows:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = Row(row_key, 1, None, False)
            self._new_rows.add(row_key)
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if first and len(self.columns) > 0 and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()
        self._update_count += 1
        self.check_idle()

    def update_rows_in_place(self, rows: list[tuple[str, tuple]]) -> bool:
        """When `rows` are the table's rows in its order (`_row_locations`), bring their cells up to date, each
        changed cell repainted alone (update_cell), and say True; otherwise change nothing and say False."""
        locations = self._row_locations
        if len(rows) != self.row_count or any(locations.get(RowKey(key)) != i for i, (key, _) in enumerate(rows)):
            return False
        columns = self.ordered_columns
        for key, cells in rows:
            for column, cell in zip(columns, cells):
                self.update_cell(key, column.key, cell)
        return True

    def update_cell(self, row_key: RowKey | str, column_key: ColumnKey | str, value: Any, *,
                    update_width: bool = False) -> None:
        """DataTable.update_cell repaints the whole table, even for a value equal to the one shown: a live row's
        tick (ten cells) or the Age column's second redrew every visible row. Here an equal value is skipped and
        a changed one repaints its own cell (rows are one line high: its place is known without summing the
        heights of the rows above). Mirrors the private bookkeeping of DataTable.update_cell (`_data`,
        `_update_count`, the render caches' key) and uses `_refresh_region` (translates for scrolling)."""
        row_key = RowKey(row_key) if isinstance(row_key, str) else row_key
        column_key = ColumnKey(column_key) if isinstance(column_key, str) else column_key
        row = self._data.get(row_key)
        column = self._column_locations.get(column_key)
        line = self._row_locations.get(row_key)
        if update_width or row is None or column is None or line is None:
            super().update_cell(row_key, column_key, value, update_width=update_width)  # (raises if missing)
            return
        if same_cell(row.get(column_key), value):
            return
        row[column_key] = value
        self._update_count += 1
        columns = self.ordered_columns
        x = self._row_label_column_width + sum(c.get_render_width(self) for c in columns[:column])
        y = line + (self.header_height if self.show_header else 0)
        self._refresh_region(Region(x, y, columns[column].get_render_width(self), 1))
