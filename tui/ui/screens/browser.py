"""The sessions browser: a thin view over its model (tui.catalog.browser_model: rows, filter, sort, summary, fill
queue, twins, kept place), which it renders and to which it forwards keys.

The listing (`scan`) is instant; a thread worker then loads the files one by one (visible rows first, then newest
first) into a deque a UI timer drains every FLUSH_S seconds: the table is updated in batches, keys are never blocked.
Adding 100k rows to a DataTable takes seconds, so the table holds a window of the sorted, filtered list (PAGE rows,
growing by PAGE when the cursor reaches its end)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from tui.catalog.browser_model import BrowserModel
from tui.catalog.browser_sort import TEXT_SORTS
from tui.catalog.resort_pace import LIVE_RESORT_S, ResortPace  # noqa: F401  (LIVE_RESORT_S: the tests' pace)
from tui.catalog.row_filter import PLACEHOLDER
from tui.catalog.scan import Roots
from tui.catalog.session_row import SessionRow
from tui.ui.messages import LiveRootsForgotten, LiveRowsChanged, SessionFilesChanged
from tui.ui.screens.browser_actions import copy_path, diff_marked, open_row
from tui.ui.screens.browser_columns import Column, layout, row_cells
from tui.ui.screens.browser_table import FilterInput, SessionTable
from tui.ui.screens.browser_details import details_line, header_line, one_line
from tui.ui.widgets.steady_static import SteadyStatic
from tui.ui.widgets.footer import Footer

PAGE = 1000  # rows in the table at once (adding 1,000 takes some 30 ms on 2 cores; 100k would take seconds)
FLUSH_S = 0.2  # how often filled rows reach the table
AGE_REFRESH_S = 1.0  # how often the Age and Status cells of the rows on screen are brought up to date


class BrowserScreen(Screen):
    CSS_PATH = "browser.tcss"
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/", id="browser.focus_filter"),
        Binding("ctrl+f", "focus_filter", "Filter", show=False, id="browser.focus_filter_ctrl_f"),
        Binding("s", "cycle_sort", "Sort", id="browser.cycle_sort"),
        Binding("S", "reverse_sort", "Reverse", id="browser.reverse_sort"),
        Binding("r", "rescan", "Rescan", id="browser.rescan"),
        Binding("t", "stats", "Stats", id="browser.stats"),
        # (the footer shows the keys in this order while they fit: 80 columns hold the ones above)
        Binding("F", "search_sessions", "Search all sessions", key_display="F", id="browser.search_sessions"),
        Binding("m", "mark", "Mark to compare", id="browser.mark"),
        Binding("d", "diff_marked", "Compare marked with selected", id="browser.diff_marked"),
        Binding("y", "copy_path", "Copy the session file's path", id="browser.copy_path"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="browser.clear_filter"),
    ]

    def __init__(self, sessions_dir: Path | None, live_summary: Callable[[], str] | None = None, *,
                 stale_after_s: float | None = None, demo_for: Path | None = None, sort: str | None = None,
                 filter_text: str | None = None, cursor: str | None = None, stats_range: str | None = None,
                 roots: Roots = (), streams: Sequence[str] = ()) -> None:
        super().__init__()
        # the rows, the filter, the sort, the summary, the fill queue, the twins and the kept place
        self.model = BrowserModel(sessions_dir, roots, stale_after_s=stale_after_s, sort=sort,
                                  filter_text=filter_text, cursor=cursor)
        self.streams = tuple(streams)  # the --listen / --connect URLs (tokens masked): the empty hint names them
        self.initial_filter = filter_text  # --filter: as if typed in the / box
        self.stats_range = stats_range  # the Stats screen's range (the config file's stats_range)
        self.cursor_key: str | None = None  # the highlighted session's key, as last seen (kept with the place)
        self.sessions_dir = self.model.sessions_dir
        self.live_summary = live_summary  # one line on the event streams for the header ("" when none)
        self.demo_for = demo_for  # set while the demo runs in place of this (empty or missing) directory
        self._limit = PAGE  # rows of the view the table may hold (grows by PAGE as the cursor reaches its end)
        self._since_age_refresh = 0.0
        self._since_view_refresh = 0.0
        self._fill_worker: Worker | None = None
        self._was_loading = False
        self.pace = ResortPace()  # how often the view may be re-sorted (tui.catalog.resort_pace)
        self._filter_timer: Timer | None = None
        # Until the cursor is moved off the first row, re-sorts keep it there: while rows fill and re-sort it stays
        # on the top session instead of following whichever row happened to be listed first
        self._cursor_moved = False
        self._details_shown: str | None = None  # the details line as last drawn (_update_details)

    stale_after_s = property(lambda self: self.model.stale_after_s,
                             lambda self, value: setattr(self.model, "stale_after_s", value),
                             doc="A running session silent this long shows as stale (the model's: --stale-after).")

    @property
    def filter_text(self) -> str:
        """The filter applied now (kept with the place: tui.ui.place)."""
        return self.model.filter_text

    @property
    def sort_spec(self) -> str:
        """The sort as --sort names it (`cost:desc`): kept with the place."""
        return self.model.sort_spec

    # ----------------------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield SteadyStatic(id="browser-header")
        yield FilterInput(placeholder=PLACEHOLDER, id="browser-filter", compact=True)
        yield SteadyStatic(id="browser-summary")
        yield SessionTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        yield SteadyStatic(id="browser-note")
        yield SteadyStatic(id="browser-details")
        yield Footer()

    @property
    def table(self) -> SessionTable:
        return self.query_one("#browser-table", SessionTable)

    # read-only views of the model's state: what tests, scenes and tools read instead of it
    @property
    def rows(self) -> Mapping[str, SessionRow]:
        """Every listed row by key, shown or filtered out."""
        return MappingProxyType(self.model.rows)

    def shown_rows(self) -> list[SessionRow]:
        """The rows that pass the filter, in the table's order (those past the page included)."""
        rows = self.model.rows
        return [rows[key] for key in self.model.view if key in rows]

    @property
    def settled(self) -> bool:
        """Nothing changes now until a file or a stream does: scanned, every row loaded and in the table."""
        m = self.model
        return bool(m.scanned and not m.scanning and not m.pending and not m.fill_queue.results
                    and not self._fill_busy() and not m.view_stale and not self._was_loading)

    def on_mount(self) -> None:
        if self.initial_filter:
            self.query_one(FilterInput).value = self.initial_filter
        self._setup_columns()
        self.table.focus()
        self.set_interval(FLUSH_S, self._tick)
        self.action_rescan()

    def on_resize(self) -> None:
        if self.table.session_columns and self.table.session_columns != self._layout():
            self._refresh_view(columns=True)

    def _layout(self) -> tuple[Column, ...]:
        """The columns for the current terminal width (tui.ui.screens.browser_columns)."""
        return layout(self.size.width, live=self.model.has_live, sort=self.model.sort, desc=self.model.desc,
                      agents=self.model.has_agents)

    def _setup_columns(self) -> None:
        self.table.set_columns(self._layout())

    def set_clock(self, clock: Callable[[], float]) -> None:
        """Read the time from `clock` (seconds since the epoch): fixed scenes show the same Age every day."""
        self.model.clock = clock
        self._refresh_view()

    def on_screen_suspend(self) -> None:
        self.model.fill_queue.active.clear()  # a session is open on top: leave it the CPU

    def on_screen_resume(self) -> None:
        self.model.fill_queue.active.set()
        if self.model.view_stale or self.columns_stale:  # rows changed under a session: their cells waited
            columns, self.columns_stale = self.columns_stale, False  # (upsert_rows)
            self._refresh_view(columns=columns)
        if self.header_stale:
            self.update_header()

    # ----------------------------------------------------------------------------------------- scanning
    def action_rescan(self) -> None:
        listed = self.sessions_dir is not None  # (no directory: nothing to list, the scan is done)
        self.model.scanned, self.model.scanning = not listed or self.model.scanned, listed
        self.update_header()
        if listed:
            self.run_worker(self._list_thread, name="scan", group="browser-scan", thread=True,
                            exclusive=True, exit_on_error=False)  # its own group: exclusive must not cancel the filler

    def _list_thread(self) -> list[SessionRow]:
        """Runs in a thread: the model's listing; at the first scan, the index's newest rows are shown first, and
        listing waits until they are drawn."""
        drawn = threading.Event()

        def show_first(rows: list[SessionRow], total: int) -> None:
            self.app.call_from_thread(self._apply_first_rows, rows, total, drawn)
            drawn.wait(1.0)  # the first paint has the interpreter to itself

        return self.model.listing(show_first)

    def _apply_first_rows(self, rows: list[SessionRow], total: int, drawn: threading.Event) -> None:
        if not self.model.first_rows(rows, total):
            drawn.set()
            return
        self._refresh_view()
        self.update_header()
        self.call_after_refresh(drawn.set)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != "scan" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        rows = event.worker.result if event.state == WorkerState.SUCCESS else []
        if event.state == WorkerState.ERROR:
            self.notify(f"cannot list {self.sessions_dir}: {event.worker.error}", severity="error", markup=False)
        listing_order = self.model.finish_scan(rows or [])
        self._refresh_view(listing_order=listing_order)
        self._index_notices()
        self._ensure_worker()

    def _index_notices(self) -> None:
        """Say once what happened to the index (rebuilt, bypassed, dropped): the monitor goes on either way."""
        for notice in self.model.take_notices():
            self.notify(notice, severity="warning", markup=False, timeout=10)

    # ----------------------------------------------------------------------------------------- filling
    def _ensure_worker(self) -> None:
        worker = self._fill_worker
        if self.model.pending and (worker is None or worker.is_finished):
            self._fill_worker = self.run_worker(self._fill_thread, name="fill", thread=True, exit_on_error=False)
            self._was_loading = True  # so that _tick re-sorts once everything is loaded

    def _fill_thread(self) -> None:
        """Runs in a thread: the model's fill (never touches widgets)."""
        worker = get_current_worker()
        self.model.fill(lambda: worker.is_cancelled)

    def _tick(self) -> None:
        model = self.model
        for row in model.apply_filled(model.fill_queue.take_results()):
            if row.key in self.table.shown_set:
                self._update_cells(row)
        self._since_view_refresh += FLUSH_S
        self._since_age_refresh += FLUSH_S
        loading = bool(model.pending or model.fill_queue.results) or self._fill_busy()
        if self._was_loading and not loading:
            model.view_stale = True  # everything is loaded: apply the sort order to the loaded values
        self._was_loading = loading
        # re-sorting 100k rows costs ~0.1-0.5 s: never spend more than a tenth of the time on it. Live rows arriving
        # wait for their turn even when no file is loading (ResortPace.live_due).
        due = self.pace.live_due() if model.live_reorder else self.pace.fill_due(self._since_view_refresh, loading)
        if model.view_stale and due and self.is_current:  # (under a session: on_screen_resume)
            self._refresh_view()
        if self._since_age_refresh >= AGE_REFRESH_S:
            self._refresh_visible()
        self._prioritise_visible()
        self._ensure_worker()
        self._index_notices()
        self.update_header()

    def _fill_busy(self) -> bool:
        return self._fill_worker is not None and not self._fill_worker.is_finished

    def _cells(self, row: SessionRow, now_s: float | None = None) -> tuple:
        return row_cells(row, self.table.session_columns, self.model.clock() if now_s is None else now_s,
                         stale_after_s=self.stale_after_s, marked=row.key == self.model.marked,
                         folded=row.key in self.model.folded)

    def _update_cells(self, row: SessionRow) -> None:
        self.table.update_row(row, self._cells(row))

    def _refresh_visible(self) -> None:
        """Bring the rows on screen up to date with the clock: their Age, and Running turning Stale (only those
        rows: a screenful of them a second, whatever the number of sessions)."""
        self._since_age_refresh = 0.0
        table = self.table
        now_s = self.model.clock()
        for key in table.visible_keys():
            row = self.model.rows.get(key)
            if row is not None:
                table.update_clock_cells(key, self._cells(row, now_s))

    def _prioritise_visible(self) -> None:
        self.model.fill_queue.prioritise(self.table.visible_keys(2))

    # ----------------------------------------------------------------------------------------- the view
    def _refresh_view(self, columns: bool = False, listing_order: bool = False) -> None:
        """Re-sort and re-filter everything, keeping the cursor on the same row (or at the same place)."""
        started = time.perf_counter()
        model = self.model
        table = self.table
        cursor_key = table.cursor_key()
        cursor_row, scroll_y = table.cursor_row, table.scroll_y
        if columns:
            self._setup_columns()
        view = model.compute_view(listing_order)
        restore = model.take_restore(self._limit) if not self._cursor_moved else None
        if restore is not None:
            cursor_key, self._cursor_moved = restore, True  # the kept place (tui.ui.place)
        model.view_stale = False
        self._since_view_refresh = 0.0
        self._limit = max(PAGE, self._limit)  # the window never grows here: 100k rows would take seconds
        self._cursor_moved = self._cursor_moved or cursor_row > 0  # (a move not yet announced by RowHighlighted)
        index = (view.index(cursor_key, 0, self._limit)
                 if self._cursor_moved and cursor_key in view[: self._limit] else -1)
        keys = view[: self._limit]
        # The same rows in the same order (a live row's tick, loading done): their changed cells are repainted in
        # place; clearing would redraw the whole table (every visible row written to the terminal again)
        if columns or index not in (-1, cursor_row) or keys != table.shown or not self._add_rows(keys, True):
            table.clear_rows()
            self._add_rows(keys)
            table.put_cursor_back(index, cursor_row, scroll_y)
        self.update_header()
        self.pace.done(started)
        model.live_reorder = False

    def _add_rows(self, keys: list[str], in_place: bool = False) -> bool:
        """Add these rows to the table; `in_place`: they are the rows it shows, in its order: update their cells
        (False if the table disagrees)."""
        table, model = self.table, self.model
        now_s = self.model.clock()
        stamp = (int(now_s), id(table.session_columns), model.marked)
        return table.add_session_rows(keys, model.rows, self._cells, now_s, stamp, model.folded, in_place)

    @on(DataTable.RowHighlighted, "#browser-table")
    def _maybe_extend(self, event: DataTable.RowHighlighted) -> None:
        table = self.table
        view = self.model.view
        self._cursor_moved = self._cursor_moved or event.cursor_row > 0  # (re-sorts place it on row 0 until then)
        self.cursor_key = self.table.cursor_key()
        if self._cursor_moved:
            self.model.restore_key = None  # moved by hand before the kept row came: the hand wins
        if table.row_count and table.cursor_row >= table.row_count - 1 and len(view) > len(table.shown):
            start = len(table.shown)
            self._limit = start + PAGE
            self._add_rows(view[start: self._limit])
            self.update_header()
        self._update_details()

    columns_stale = header_stale = False  # a live tick under an open session: done on return (14 / 2-3 ms of a tick)

    def update_header(self) -> None:
        """The header, summary, note and details lines (waiting while a screen is on top: on_screen_resume)."""
        self.header_stale = not self.is_current and self.is_mounted
        if self.header_stale:
            return
        loading = len(self.model.pending) + (1 if self._fill_busy() else 0)
        live = self.live_summary() if self.live_summary is not None else ""
        self.query_one("#browser-header", Static).update(
            header_line(self.model.header(loading, self.demo_for), self.demo_for is not None, live))
        self.query_one("#browser-summary", Static).update(one_line(self.model.summary_line()))
        self._update_note()
        self._update_details()

    def _update_details(self) -> None:
        """The highlighted session's full id and path (browser_details), redrawn only when they change."""
        key = self.table.cursor_key()
        line = details_line(self.model.rows.get(key) if key is not None else None)
        if line.plain != self._details_shown:
            self._details_shown = line.plain
            self.query_one("#browser-details", Static).update(line)

    def _update_note(self) -> None:
        note = self.query_one("#browser-note", Static)
        message = self.model.note(len(self.table.shown), PAGE, self.streams)
        note.update(Text(message))
        note.display = bool(message)
        self.table.set_class(not self.model.rows, "-empty")  # the note then stands where the rows would be

    # ----------------------------------------------------------------------------------------- rows from outside
    def upsert_rows(self, rows: list[SessionRow]) -> None:
        """Insert or update rows (a file watcher's, live rows; pass them in batches: a new row re-sorts the list).

        Unloaded rows (`row_from_entry`) are queued to load first; rows that are already loaded are used as given.
        """
        model = self.model
        done = model.upsert(rows)
        shown = self.is_current  # (under an open session its cells wait: redrawn once, when it closes)
        for row in done.changed if shown else ():
            if row.key in self.table.shown_set:
                self._update_cells(row)
        if shown and (done.columns or done.reorder and (self.pace.live_due() if done.live else self.pace.rows_due())):
            self._refresh_view(columns=done.columns)
        elif done.columns or done.reorder or not shown:  # a flood of live sessions: re-sorting a page each time
            model.view_stale = True  # would take the UI thread; the tick re-sorts once their turn comes
            self.columns_stale = self.columns_stale or done.columns  # (under a session: on_screen_resume)
            model.live_reorder = model.live_reorder or done.live
        self._ensure_worker()
        self.update_header()

    def on_session_files_changed(self, message: SessionFilesChanged) -> None:
        """The directory watcher's batch (rows made off the UI thread: tui.catalog.watched_rows); `complete`: the
        directory came back, and the rows of files that went with the old one go (live rows have no file: stay)."""
        if message.rows:
            self.upsert_rows(message.rows)
        if message.removed or message.complete:
            self.remove_paths([*message.removed, *(self.model.missing_files() if message.complete else ())])

    def on_live_rows_changed(self, message: LiveRowsChanged) -> None:
        """A live batch (tui.ui.live_worker): the rows of the live roots it built, and the header's live line."""
        if message.rows:
            self.upsert_rows(list(message.rows))  # (which updates the header too)
        elif message.header:
            self.update_header()

    def on_live_roots_forgotten(self, message: LiveRootsForgotten) -> None:
        """The hub forgot these live sessions: their rows stay, the newest up to a bound (catalog.forgotten_rows); the
        oldest go at the next re-sort, paced like live rows arriving (ResortPace.live_due)."""
        self.model.forget_live_roots(message.roots, message.merged)

    def remove_paths(self, paths) -> None:
        """Drop the rows of files that were deleted, keeping the cursor where it was."""
        if self.model.remove_paths(paths):
            self._refresh_view()

    # ----------------------------------------------------------------------------------------- actions
    def action_focus_filter(self) -> None:
        self.query_one(FilterInput).focus()

    def action_stats(self) -> None:
        """Stats across the directory's sessions (tui.ui.screens.stats); Enter there comes back filtered."""
        from tui.ui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen(self.sessions_dir, range_name=self.stats_range), self.set_filter)

    def action_search_sessions(self) -> None:
        from tui.ui.screens.search import SearchScreen

        self.app.push_screen(SearchScreen(self.sessions_dir))

    def set_filter(self, text: str | None) -> None:
        """Show the rows `text` selects (the filter box takes it, as if typed); None changes nothing."""
        if text is None:
            return
        self.query_one(FilterInput).value = text
        self._apply_filter(text)
        self.table.focus()

    def action_clear_filter(self) -> None:
        """Escape on the table: clear a finished filter (the first screen has nothing to go back to)."""
        box = self.query_one(FilterInput)
        if not box.value and not self.model.filter:
            raise SkipAction()
        box.value = ""
        self._apply_filter("")

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.15, lambda: self._apply_filter(event.value))

    def _apply_filter(self, value: str) -> None:
        if self.model.set_filter(value):
            self._refresh_view()

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._apply_filter(event.value)
        self.table.focus()

    def on_unmount(self) -> None:
        keep = getattr(self.app, "keep_place", None)  # (MonitorApp: the browser's place, kept for next time)
        if keep is not None:
            keep(self)

    def set_sort(self, column: str, desc: bool | None = None) -> None:
        self.model.set_sort(column, desc)
        self._refresh_view(columns=True)  # the arrow moves to the sorted column's header
        self.cursor_to_top()

    def cursor_to_top(self) -> None:
        """A new sort shows its top: the cursor on the first row, the table scrolled there (re-sorts that follow,
        rows filling in, keep it on the first row until it is moved: _cursor_moved)."""
        table = self.table
        self._cursor_moved = False
        if table.row_count:
            table.move_cursor(row=0, scroll=False)
        self.call_after_refresh(table.scroll_to, y=0, animate=False)

    def action_cycle_sort(self) -> None:
        column = self.model.next_sort()
        self.set_sort(column, column not in TEXT_SORTS)

    def action_reverse_sort(self) -> None:
        self.set_sort(self.model.sort, not self.model.desc)

    @on(DataTable.HeaderSelected, "#browser-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        self.set_sort(str(event.column_key.value))

    def action_mark(self) -> None:
        key = self.table.cursor_key()
        rows = self.model.rows
        before = self.model.toggle_mark(key)
        for changed in (before, self.model.marked):  # the glyph and style move with the mark
            if changed is not None and changed in self.table.shown_set and changed in rows:
                self._update_cells(rows[changed])
        self._update_note()

    def action_copy_path(self) -> None:
        copy_path(self)

    def action_diff_marked(self) -> None:
        diff_marked(self)

    @on(DataTable.RowSelected, "#browser-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        open_row(self, str(event.row_key.value))
