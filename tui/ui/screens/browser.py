"""The sessions browser: one row per session file of a sessions directory, filled in the background.

The listing (`scan`) is instant; a thread worker then loads the files one by one (visible rows first, then newest
first) and leaves the results in a deque that a UI timer drains every FLUSH_S seconds, so the table is updated in
batches and keys are never blocked. Adding 100k rows to a DataTable takes seconds, so the table holds a window of
the sorted, filtered list (PAGE rows, growing by PAGE when the cursor reaches its end).
"""

from __future__ import annotations

import collections
import dataclasses
import gc
import operator
import os
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

from tui.model.fields import printable
from tui.catalog.liveness import stale_after
from tui.catalog.row_merge import hidden_twins
from tui.catalog.row_filter import PLACEHOLDER, RowFilter
from tui.catalog.rows_summary import RowsSummary
from tui.catalog.session_row import (
    LIVE_PREFIX, RowKind, SessionRow, carry_summary, fill_row, ledger_parent, sort_value,
)
from tui.catalog.scan import Roots, scan
from tui.inputs.agent_roots import location_of_root
from tui.inputs.paths import safe_resolve
from tui.ui.messages import CompareSessions, LiveRootsForgotten, OpenSession
from tui.ui.clipboard import copy_notice
from tui.ui.screens.browser_columns import Column, layout, row_cells
from tui.ui.screens.browser_details import details_line, file_path
from tui.ui.screens.browser_sort import TEXT_SORTS, parse_sort
from tui.ui.screens.browser_forgotten import ForgottenLiveRows
from tui.ui.screens.browser_index import BrowserIndex, progress_line
from tui.ui.textual_compat import UnmeasuredRowsTable
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.motion import TableMotion

PAGE = 1000  # rows in the table at once (adding 1,000 takes some 30 ms on 2 cores; 100k would take seconds)
FLUSH_S = 0.2  # how often filled rows reach the table
LIVE_RESORT_S = 1.0  # live rows that keep arriving re-sort the list at most this often (_live_resort_due)
VIEW_REFRESH_S = 1.0  # at most this often, re-sort/re-filter because loaded rows changed what matches
FREEZE_ROWS = 10_000  # filled rows moved out of the collector's reach in batches of this many
AGE_REFRESH_S = 1.0  # how often the Age and Status cells of the rows on screen are brought up to date
SORT_CYCLE = ("started", "agent", "status", "duration", "tokens", "cost", "model", "age")


class SessionTable(TableMotion, UnmeasuredRowsTable):
    """A DataTable whose columns all have fixed widths and whose rows are one line high, so new rows need no
    measuring: skipping it halves the cost of showing a page of rows (textual is pinned, see pyproject)."""


class FilterInput(Input):
    BINDINGS = [Binding("escape", "leave", "Clear filter")]

    def action_leave(self) -> None:
        self.value = ""
        self.screen.query_one(DataTable).focus()


def watching_line(sessions_dir: Path, streams: Sequence[str] = ()) -> str:
    """What an empty browser says: what it watches, and how to stream events in instead; when streams are already
    configured (--listen, --connect), those are named, not another --listen to add."""
    watching = (f"watching {printable(str(sessions_dir))} for sessions (*.json.gz snapshots, session/*.jsonl "
                "ledgers): none yet, they appear as they are written")
    if streams:
        return f"{watching} · streaming events in from {', '.join(printable(url) for url in streams)}"
    return f"{watching} · to stream events in: --listen ws://127.0.0.1:8765 (or unix:PATH)"


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
        self.streams = tuple(streams)  # the --listen / --connect URLs (tokens masked): the empty hint names them
        self.initial_sort = sort  # --sort (COLUMN, -COLUMN, COLUMN:asc|desc): applied at mount
        self.initial_filter = filter_text  # --filter: as if typed in the / box
        self.filter_text = filter_text or ""  # the filter applied now (kept with the place: tui.ui.place)
        self.stats_range = stats_range  # the Stats screen's range (the config file's stats_range)
        # the kept place's session: the cursor goes there once its row is in the table (unless moved before)
        self._restore_key = cursor
        self.cursor_key: str | None = None  # the highlighted session's key, as last seen (kept with the place)
        self.sessions_dir = Path(sessions_dir) if sessions_dir is not None else None
        self.roots = roots  # other agents' session roots listed too (tui.inputs.agent_roots)
        # other agents' sessions are listed: the Kind column is offered
        self._has_agents = bool(roots) or (self.sessions_dir is not None and location_of_root(self.sessions_dir)
                                           is not None)
        self.live_summary = live_summary  # one line on the event streams for the header ("" when none)
        # a running session silent for this long shows as stale (tui.catalog.liveness; --stale-after)
        self.stale_after_s = stale_after() if stale_after_s is None else stale_after_s
        self.clock: Callable[[], float] = time.time  # wall clock (s) for Age and stale; see set_clock
        self.demo_for = demo_for  # set while the demo runs in place of this (empty or missing) directory
        self._rows: dict[str, SessionRow] = {}
        self._live_keys: set[str] = set()  # keys of the live rows (tui.catalog.row_merge: one row per session)
        self._forgotten = ForgottenLiveRows()  # live rows whose session the hub forgot: kept up to a bound
        self._cell_cache: dict[str, tuple] = {}  # key -> (row, (second, columns, marked), cells): _add_rows
        self._view: list[str] = []  # keys of every row that passes the filter, sorted
        self._shown: list[str] = []  # the prefix of _view that is in the table
        self._shown_set: set[str] = set()
        self._limit = PAGE
        self._sort, self._desc = "started", True
        self._filter = RowFilter(stale_after_s=self.stale_after_s)
        self._summary = RowsSummary()  # of the rows that pass the filter (tui.catalog.rows_summary)
        self._summary_dirty = True  # recount at the next view: rows came or went other than one by one
        self._folded: set[str] = set()  # file rows shown in place of their ended live twin (row_merge): marked
        self._hidden: set[str] = set()  # twins left out at the last view (row_merge): not in the summary either
        self._columns: tuple[Column, ...] = ()
        self._has_live = False  # live rows exist: the Events column is offered
        self._since_age_refresh = 0.0
        self._scanning = False
        self._scanned = False
        self._view_stale = False
        self._since_view_refresh = 0.0
        # Shared with the fill thread: plain containers whose single operations are atomic.
        self._pending: set[str] = set()
        self._queue: collections.deque[str] = collections.deque()  # newest first
        self._priority: collections.deque[str] = collections.deque()  # rows on screen
        self._results: collections.deque[SessionRow] = collections.deque()
        self._fill_worker: Worker | None = None
        self._was_loading = False
        self._view_refresh_cost = 0.0  # seconds the last _refresh_view took
        self._view_refreshed_at = 0.0  # perf_counter() when it ended
        self._live_reorder = False  # upsert_rows left the re-sort to the tick (live rows arriving faster than it)
        self._active = threading.Event()  # cleared while another screen is on top: loading pauses
        self._active.set()
        self._filter_timer: Timer | None = None
        self._marked: str | None = None  # the row `m` marked, to compare with `d`
        self._filled_since_freeze = 0
        # the sessions index (tui.catalog.index): a warm start, then the rest read on a process pool
        self._index = BrowserIndex(self.sessions_dir, roots) if self.sessions_dir is not None else None
        self._indexed = 0  # rows of the index's first page are shown while the listing runs: the index's count
        # Until the cursor is moved off the first row, re-sorts keep it there: while rows fill and re-sort it stays
        # on the top session instead of following whichever row happened to be listed first
        self._cursor_moved = False
        self._details_shown: str | None = None  # the details line as last drawn (_update_details)

    # ----------------------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="browser-header")
        yield FilterInput(placeholder=PLACEHOLDER, id="browser-filter", compact=True)
        yield Static(id="browser-summary")
        yield SessionTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="browser-note")
        yield Static(id="browser-details")
        yield Footer()

    @property
    def table(self) -> SessionTable:
        return self.query_one("#browser-table", SessionTable)

    # read-only views of the state the browser alone assigns: what tests, scenes and tools read instead of it
    @property
    def rows(self) -> Mapping[str, SessionRow]:
        """Every listed row by key, shown or filtered out."""
        return MappingProxyType(self._rows)

    def shown_rows(self) -> list[SessionRow]:
        """The rows that pass the filter, in the table's order (those past the page included)."""
        return [self._rows[key] for key in self._view if key in self._rows]

    @property
    def settled(self) -> bool:
        """The scan is done, every row is loaded and the last batch reached the table: nothing changes now until
        a file or a stream does."""
        return bool(self._scanned and not self._scanning and not self._pending and not self._results
                    and not self._fill_busy() and not self._view_stale and not self._was_loading)

    def on_mount(self) -> None:
        parsed = parse_sort(self.initial_sort) if self.initial_sort else None
        if parsed is not None:
            self._sort, self._desc = parsed
        if self.initial_filter:
            self.query_one(FilterInput).value = self.initial_filter
            self._filter = RowFilter.parse(self.initial_filter, now_s=self.clock(), stale_after_s=self.stale_after_s)
        self._setup_columns()
        self.table.focus()
        self.set_interval(FLUSH_S, self._tick)
        self.action_rescan()

    def on_resize(self) -> None:
        if self._columns and self._columns != self._layout():
            self._refresh_view(columns=True)

    def _layout(self) -> tuple[Column, ...]:
        """The columns for the current terminal width (tui.ui.screens.browser_columns)."""
        return layout(self.size.width, live=self._has_live, sort=self._sort, desc=self._desc,
                      agents=self._has_agents)

    def _setup_columns(self) -> None:
        table = self.table
        table.clear(columns=True)
        self._columns = self._layout()
        for column in self._columns:
            table.add_column(column.label, width=column.width, key=column.key)
        self._shown, self._shown_set = [], set()

    def set_clock(self, clock: Callable[[], float]) -> None:
        """Read the time from `clock` (seconds since the epoch): fixed scenes show the same Age every day."""
        self.clock = clock
        self._refresh_view()

    def on_screen_suspend(self) -> None:
        self._active.clear()  # a session is open on top: leave it the CPU

    def on_screen_resume(self) -> None:
        self._active.set()

    # ----------------------------------------------------------------------------------------- scanning
    def action_rescan(self) -> None:
        if self.sessions_dir is None:
            self._scanned = True
            self.update_header()
            return
        self._scanning = True
        self.update_header()
        self.run_worker(self._list_thread, name="scan", group="browser-scan", thread=True,
                        exclusive=True, exit_on_error=False)  # its own group: exclusive must not cancel the filler

    def _list_thread(self) -> list[SessionRow]:
        """Runs in a thread: the listing, filled from the index when there is one (tui.ui.screens.browser_index);
        at the first scan, the index's newest rows are shown first, and listing waits until they are drawn."""
        if self._index is None:
            return scan(self.sessions_dir, roots=self.roots) if self.sessions_dir is not None else []
        drawn = threading.Event()

        def show_first(rows: list[SessionRow], total: int) -> None:
            self.app.call_from_thread(self._apply_first_rows, rows, total, drawn)
            drawn.wait(1.0)  # the first paint has the interpreter to itself

        return self._index.listing(None if self._rows else show_first)

    def _apply_first_rows(self, rows: list[SessionRow], total: int, drawn: threading.Event) -> None:
        if self._scanned or self._rows:
            drawn.set()
            return
        self._rows = {row.key: row for row in rows}
        self._indexed = total
        self._summary_dirty = True
        self._refresh_view()
        self.update_header()
        self.call_after_refresh(drawn.set)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != "scan" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        self._scanning = False
        self._indexed = 0
        rows = event.worker.result if event.state == WorkerState.SUCCESS else []
        if event.state == WorkerState.ERROR:
            self.notify(f"cannot list {self.sessions_dir}: {event.worker.error}", severity="error", markup=False)
        self._apply_scan(rows or [])

    def _apply_scan(self, rows: list[SessionRow]) -> None:
        old = self._rows
        if old:
            fresh: dict[str, SessionRow] = {}
            for row in rows:
                prev = old.get(row.key)
                if prev is not None and prev.loaded and prev.mtime == row.mtime and prev.size == row.size:
                    row = prev  # unchanged since it was loaded
                if row.kind != RowKind.CHILD:
                    fresh[row.key] = row
            fresh.update((key, row) for key, row in old.items() if row.kind == RowKind.LIVE)  # not files: kept
        else:  # the first scan of 100,000s of files: nothing to carry over
            fresh = {row.key: row for row in rows if row.kind != RowKind.CHILD}
        self._rows = fresh
        self._scanned = True
        self._summary_dirty = True
        waiting = [key for key, row in fresh.items() if not row.loaded]
        self._pending = set(waiting)
        self._queue = collections.deque(waiting)
        self._results.clear()
        self._refresh_view(listing_order=len(waiting) == len(fresh))
        self._index_notices()
        self._ensure_worker()

    def _index_notices(self) -> None:
        """Say once what happened to the index (rebuilt, bypassed, dropped): the monitor goes on either way."""
        for notice in self._index.take_notices() if self._index is not None else ():
            self.notify(notice, severity="warning", markup=False, timeout=10)

    # ----------------------------------------------------------------------------------------- filling
    def _ensure_worker(self) -> None:
        worker = self._fill_worker
        if self._pending and (worker is None or worker.is_finished):
            self._fill_worker = self.run_worker(self._fill_thread, name="fill", thread=True, exit_on_error=False)
            self._was_loading = True  # so that _tick re-sorts once everything is loaded

    def _next_pending(self) -> str | None:
        for source in (self._priority, self._queue):
            while source:
                key = source.popleft()  # only this thread pops: a non-empty deque stays non-empty
                if key in self._pending:
                    self._pending.discard(key)
                    return key
        return None

    def _fill_thread(self) -> None:
        """Runs in a thread: load rows one by one and leave the results for _tick (never touches widgets)."""
        worker = get_current_worker()
        if self._index is not None:  # on a process pool when many, writing to the index (browser_index)
            self._index.fill(self._next_pending, lambda key: self._rows.get(key), self._results,
                             lambda: worker.is_cancelled, self._active, len(self._pending))
            return
        while not worker.is_cancelled:
            if not self._active.wait(0.5):
                continue
            key = self._next_pending()
            if key is None:
                return
            row = self._rows.get(key)
            if row is not None and not row.loaded:
                self._results.append(fill_row(dataclasses.replace(row)))

    def _tick(self) -> None:
        batch = [self._results.popleft() for _ in range(len(self._results))]
        if batch:
            self._apply_filled(batch)
        self._since_view_refresh += FLUSH_S
        self._since_age_refresh += FLUSH_S
        loading = bool(self._pending or self._results) or self._fill_busy()
        if self._was_loading and not loading:
            self._view_stale = True  # everything is loaded: apply the sort order to the loaded values
        self._was_loading = loading
        # re-sorting 100k rows costs ~0.1-0.5 s: never spend more than a tenth of the time on it. Live rows arriving
        # wait for their turn even when no file is loading (_live_resort_due).
        if self._live_reorder:
            due = self._live_resort_due()
        else:
            due = self._since_view_refresh >= max(VIEW_REFRESH_S, 10 * self._view_refresh_cost) or not loading
        if self._view_stale and due:
            self._refresh_view()
        if self._since_age_refresh >= AGE_REFRESH_S:
            self._refresh_visible()
        self._prioritise_visible()
        self._ensure_worker()
        self._index_notices()
        self.update_header()

    def _apply_filled(self, batch: list[SessionRow]) -> None:
        for row in batch:
            current = self._rows.get(row.key)
            if current is None or current.mtime != row.mtime or current.size != row.size:
                continue  # rescanned or rewritten meanwhile: the newer row is queued
            was_in, now_in = self._filter.matches(current), self._filter.matches(row)
            if was_in:
                self._summary.remove(current)
            if row.kind == RowKind.CHILD:
                del self._rows[row.key]
                self._view_stale = True
                continue
            if now_in:
                self._summary.add(row)
            self._rows[row.key] = row
            self._pending.discard(row.key)
            if was_in != now_in:
                self._view_stale = True
            if row.key in self._shown_set:
                self._update_cells(row)
        self._filled_since_freeze += len(batch)
        if self._filled_since_freeze >= FREEZE_ROWS:
            # Filled rows live as long as the listing: out of the collector's reach, or each full collection
            # (rare, see app.GC_THRESHOLDS) would scan all of them, a quarter of a second with 100k rows.
            gc.freeze()
            self._filled_since_freeze = 0

    def _fill_busy(self) -> bool:
        return self._fill_worker is not None and not self._fill_worker.is_finished

    def _cells(self, row: SessionRow, now_s: float | None = None) -> tuple:
        return row_cells(row, self._columns, self.clock() if now_s is None else now_s,
                         stale_after_s=self.stale_after_s, marked=row.key == self._marked,
                         folded=row.key in self._folded)

    def _update_cells(self, row: SessionRow) -> None:
        table = self.table
        for column, cell in zip(self._columns, self._cells(row)):
            table.update_cell(row.key, column.key, cell)

    def _refresh_visible(self) -> None:
        """Bring the rows on screen up to date with the clock: their Age, and Running turning Stale (only those
        rows: a screenful of them a second, whatever the number of sessions)."""
        self._since_age_refresh = 0.0
        table = self.table
        first = int(table.scroll_y)
        now_s = self.clock()
        for key in self._shown[first:first + table.size.height]:
            row = self._rows.get(key)
            if row is None:
                continue
            cells = self._cells(row, now_s)
            for column, cell in zip(self._columns, cells):
                if column.key in ("age", "status", "duration") and table.get_cell(key, column.key).plain != cell.plain:
                    table.update_cell(key, column.key, cell)

    def _prioritise_visible(self) -> None:
        table = self.table
        first = int(table.scroll_y)
        visible = self._shown[first:first + table.size.height + 2]
        self._priority = collections.deque(key for key in visible if key in self._pending)

    # ----------------------------------------------------------------------------------------- the view
    def _compute_view(self, listing_order: bool = False) -> list[str]:
        """The keys that pass the filter, sorted; the summary of those rows is recounted on the way."""
        self._filter = dataclasses.replace(self._filter, now_s=self.clock())  # "stale" as of now
        self._drop_forgotten()  # (only here: the view never names a dropped row)
        # Without a filter the summary does not depend on the time and is kept row by row: no recount of 100k
        # rows each time loaded rows are re-sorted. A filter may (status:stale): recounted with it.
        recount, self._summary_dirty = self._summary_dirty or bool(self._filter), False
        self._hidden, self._folded = set(), set()
        if listing_order and not self._filter and self._sort == "started" and self._desc and not self._live_keys:
            if recount:
                self._summary = RowsSummary.of(self._rows.values())
            return list(self._rows)  # a fresh listing, nothing loaded: its order (newest file first) is this one
        started = operator.attrgetter("started_or_mtime_ms")
        folded: set[str] = set()
        twins = hidden_twins(self._rows, self._live_keys, folded)  # a session both on file and live: one row
        self._hidden, self._folded = twins, folded
        if folded and self._filter:  # `kind:live` finds them too
            self._filter = dataclasses.replace(self._filter, also_live=frozenset(folded))
        recount = recount or bool(twins)  # (the summary kept row by row counts both twins)
        rows = sorted((r for r in self._rows.values() if r.key not in twins) if twins else self._rows.values(),
                      key=started, reverse=True)
        if self._filter:
            rows = [row for row in rows if self._filter.matches(row)]
        if recount:
            self._summary = RowsSummary.of(rows)
        if self._sort == "started":
            if not self._desc:  # (sorting again in the same direction would change nothing)
                rows.sort(key=started)
            return [row.key for row in rows]
        present: list[tuple] = []
        missing: list[tuple] = []
        now_s = self._filter.now_s
        for row in rows:
            value = sort_value(row, self._sort, now_s)
            (missing if value is None else present).append((value, row.key))
        present.sort(key=lambda pair: pair[0], reverse=self._desc)
        return [key for _, key in present] + [key for _, key in missing]

    def _drop_forgotten(self) -> None:
        """Drop the oldest rows of forgotten live sessions past the bound (at a re-sort only: the view, the table
        and the cell cache are rebuilt from what is left). The summary is recounted: a dropped row may have been
        the hidden twin of a file's row (row_merge), which the summary did not count."""
        for key in self._forgotten.excess():
            self._summary_dirty |= self._forget_row(key)

    def _forget_row(self, key: str) -> bool:
        """Drop a row and what the browser keeps of it (a deleted file's, or a forgotten live session's past the
        bound); whether there was one."""
        self._pending.discard(key)
        self._live_keys.discard(key)
        self._cell_cache.pop(key, None)
        self._forgotten.returned(key)
        return self._rows.pop(key, None) is not None

    def _refresh_view(self, columns: bool = False, listing_order: bool = False) -> None:
        """Re-sort and re-filter everything, keeping the cursor on the same row (or at the same place)."""
        started = time.perf_counter()
        table = self.table
        cursor_key = self._shown[table.cursor_row] if 0 <= table.cursor_row < len(self._shown) else None
        cursor_row, scroll_y = table.cursor_row, table.scroll_y
        if columns:
            self._setup_columns()
        self._view = self._compute_view(listing_order)
        if self._restore_key is not None and not self._cursor_moved and self._restore_key in self._view[: self._limit]:
            cursor_key, self._cursor_moved = self._restore_key, True  # the kept place (tui.ui.place)
            self._restore_key = None
        self._view_stale = False
        self._since_view_refresh = 0.0
        self._limit = max(PAGE, self._limit)  # the window never grows here: 100k rows would take seconds
        self._cursor_moved = self._cursor_moved or cursor_row > 0  # (a move not yet announced by RowHighlighted)
        index = (self._view.index(cursor_key, 0, self._limit)
                 if self._cursor_moved and cursor_key in self._view[: self._limit] else -1)
        table.clear()
        self._shown, self._shown_set = [], set()
        self._add_rows(self._view[: self._limit])
        if self._shown:
            target = index if index >= 0 else min(cursor_row, len(self._shown) - 1)
            table.move_cursor(row=target, scroll=False)
            new_scroll = max(0, scroll_y + (target - cursor_row))
            self.call_after_refresh(table.scroll_to, y=new_scroll, animate=False)
        self.update_header()
        self._view_refreshed_at = time.perf_counter()
        self._view_refresh_cost = self._view_refreshed_at - started
        self._live_reorder = False

    def _add_rows(self, keys: list[str]) -> None:
        rows = self._rows
        now_s = self.clock()
        # A re-sort puts back a page of rows most of which did not change: their cells are reused within the same
        # second (Age is shown in seconds), so a live burst of new sessions costs the new rows' cells, not a page's.
        cache, fresh = self._cell_cache, {}
        stamp = (int(now_s), id(self._columns), self._marked)
        batch = []
        for key in keys:
            row = rows[key]
            hit = cache.get(key)
            row_stamp = (stamp, key in self._folded)
            cells = hit[2] if hit is not None and hit[0] is row and hit[1] == row_stamp else self._cells(row, now_s)
            fresh[key] = (row, row_stamp, cells)
            batch.append((key, cells))
        self._cell_cache = fresh if len(keys) >= len(self._shown) else {**cache, **fresh}
        self.table.add_keyed_rows(batch)
        self._shown.extend(keys)
        self._shown_set.update(keys)

    @on(DataTable.RowHighlighted, "#browser-table")
    def _maybe_extend(self, event: DataTable.RowHighlighted) -> None:
        table = self.table
        self._cursor_moved = self._cursor_moved or event.cursor_row > 0  # (re-sorts place it on row 0 until then)
        self.cursor_key = self._cursor_key()
        if self._cursor_moved:
            self._restore_key = None  # moved by hand before the kept row came: the hand wins
        if table.row_count and table.cursor_row >= table.row_count - 1 and len(self._view) > len(self._shown):
            start = len(self._shown)
            self._limit = start + PAGE
            self._add_rows(self._view[start: self._limit])
            self.update_header()
        self._update_details()

    def update_header(self) -> None:
        where = printable(str(self.sessions_dir)) if self.sessions_dir is not None else "no sessions directory"
        parts = [where]
        if self.demo_for is not None:
            parts = [f"DEMO (real sessions come from {printable(str(self.demo_for))})"]
        if self._scanning and self._indexed:  # the index's first page, shown while the listing runs
            parts.append(f"{self._indexed:,} session{'s' if self._indexed != 1 else ''} indexed · listing…")
        elif self._scanning and not self._scanned:
            parts.append("scanning…")
        else:
            parts.append(f"{len(self._rows):,} session{'s' if len(self._rows) != 1 else ''}")
            if self._forgotten.dropped:  # (browser_forgotten: the oldest rows of sessions the hub forgot)
                parts.append(f"{self._forgotten.dropped:,} evicted live rows dropped")
            loading = len(self._pending) + (1 if self._fill_busy() else 0)
            progress = progress_line(self._index.progress) if self._index is not None and loading else ""
            if progress:
                parts.append(progress)
            elif loading and self._rows:
                parts.append(f"{min(loading, len(self._rows)):,} loading…")
            if self._scanning:
                parts.append("rescanning…")
        sort = f"sorted by {self._sort} {'↓' if self._desc else '↑'}"
        # one line, cut with … (a stream's state such as `client #1 closed` wrapped it and pushed the table down)
        header = Text("  ·  ".join(parts) + f"   ({sort})", no_wrap=True, overflow="ellipsis")
        if self.demo_for is not None:
            header.stylize("bold black on yellow", 0, len("DEMO"))
        live = self.live_summary() if self.live_summary is not None else ""
        if live:
            header.append("   " + live, style="bold yellow")
        self.query_one("#browser-header", Static).update(header)
        self._update_summary()
        self._update_note()
        self._update_details()

    def _update_details(self) -> None:
        """The highlighted session's full id and path (browser_details), redrawn only when they change."""
        key = self._cursor_key()
        line = details_line(self._rows.get(key) if key is not None else None)
        if line.plain != self._details_shown:
            self._details_shown = line.plain
            self.query_one("#browser-details", Static).update(line)

    def _update_summary(self) -> None:
        """The summary line of the rows that pass the filter (kept as rows change, see _apply_filled)."""
        line = self._summary.line(self.clock(), self.stale_after_s)
        lead = "newest indexed: " if self._indexed else "shown: " if self._filter else ""
        text = Text(lead + line, no_wrap=True, overflow="ellipsis")
        self.query_one("#browser-summary", Static).update(text)

    def _update_note(self) -> None:
        note = self.query_one("#browser-note", Static)
        message = ""
        if self._scanned and not self._rows:
            if self.sessions_dir is None:
                message = "no sessions directory: pass one with --sessions-dir (or open a file directly)"
            elif not self.sessions_dir.is_dir():
                message = f"directory not found: {printable(str(self.sessions_dir))}"
            else:
                message = watching_line(self.sessions_dir, self.streams)
        elif self._filter and not self._view:
            message = "no session matches the filter"
        elif len(self._view) > len(self._shown):
            message = (f"showing {len(self._shown):,} of {len(self._view):,}; filter to narrow "
                       f"(moving past the last row shows {PAGE:,} more)")
        if self._marked is not None and self._marked in self._rows:
            mark = f"marked: {printable(self._rows[self._marked].session_id)} (d on another row compares them)"
            message = f"{message} · {mark}" if message else mark
        note.update(Text(message))
        note.display = bool(message)
        self.table.set_class(not self._rows, "-empty")  # the note then stands where the rows would be

    # ----------------------------------------------------------------------------------------- for a watcher
    def upsert_rows(self, rows: list[SessionRow]) -> None:
        """Insert or update rows (e.g. from a file watcher; pass them in batches: a new row re-sorts the list).

        Unloaded rows (`row_from_entry`) are queued to load first; rows that are already loaded are used as given.
        """
        reorder = columns = live = False
        keep = self._filter.matches
        for row in rows:
            if row.kind == RowKind.CHILD or (row.kind == RowKind.LEDGER and not row.loaded and ledger_parent(row.path)):
                gone = self._rows.pop(row.key, None)  # a sub-agent's ledger: not a session
                if gone is not None:
                    reorder = True
                    if keep(gone):
                        self._summary.remove(gone)
                continue
            old = self._rows.get(row.key)
            if not row.loaded:
                if old is not None:
                    carry_summary(old, row)  # show the previous summary until the reload lands
                self._pending.add(row.key)
                self._queue.appendleft(row.key)
            self._rows[row.key] = row
            hidden = row.key in self._hidden  # (a hidden twin's updates must not count its tokens again)
            if old is not None and keep(old) and not hidden:
                self._summary.remove(old)
            if keep(row) and not hidden:
                self._summary.add(row)
            if row.kind == RowKind.LIVE:
                self._live_keys.add(row.key)
                self._forgotten.returned(row.key)
            if row.kind == RowKind.LIVE and not self._has_live:
                self._has_live = columns = True  # live rows have an Events column
            if (old is None or sort_value(old, self._sort) != sort_value(row, self._sort)
                    or (self._filter and keep(old) != keep(row))
                    or (row.kind == RowKind.LIVE and old.status != row.status)):  # (its file twin: row_merge)
                reorder = True
                live = live or row.kind == RowKind.LIVE
            elif row.key in self._shown_set:
                self._update_cells(row)
        if columns or (reorder and (self._live_resort_due() if live else
                                    time.perf_counter() - self._view_refreshed_at >= 10 * self._view_refresh_cost)):
            self._refresh_view(columns=columns)
        elif reorder:  # a flood of live sessions: re-sorting a page each time would take the UI thread; the tick
            self._view_stale = True  # re-sorts once their turn comes
            self._live_reorder = self._live_reorder or live
        self._ensure_worker()
        self.update_header()

    def on_live_roots_forgotten(self, message: LiveRootsForgotten) -> None:
        """The hub forgot these live sessions: their rows stay, the newest up to a bound (browser_forgotten); the
        oldest go at the next re-sort, paced like live rows arriving (_live_resort_due)."""
        if self._forgotten.forgotten((LIVE_PREFIX + root for root in message.roots), self._rows):
            self._view_stale = self._live_reorder = True
        if message.merged:  # (roots now under another root: their rows go at the next re-sort)
            self._forgotten.merged((LIVE_PREFIX + root for root in message.merged), self._rows)
            self._view_stale = self._live_reorder = True

    def _live_resort_due(self) -> bool:
        """Whether live rows that changed the order may re-sort the list now: a tenth of the time at most, and
        not more often than LIVE_RESORT_S. A re-sort clears the table, and the redraw that follows (every visible
        cell rendered again) costs two or three times the sort, unmeasured here: paced on the sort alone, 8,000
        OTLP sessions arriving re-sorted 2-3 times a second and the re-sorts and redraws took half the UI thread's
        time, which the receiving threads then waited for."""
        return time.perf_counter() - self._view_refreshed_at >= max(LIVE_RESORT_S, 10 * self._view_refresh_cost)

    def drop_missing_files(self) -> None:
        """The watched directory came back: drop the rows of files no longer there. Live rows have no file
        (their key is LIVE_PREFIX + the session id) and stay."""
        self.remove_paths([key for key in list(self._rows)
                           if not key.startswith(LIVE_PREFIX) and not os.path.lexists(key)])

    def remove_paths(self, paths) -> None:
        """Drop the rows of files that were deleted, keeping the cursor where it was."""
        removed = False
        for path in paths:
            p = Path(path)
            for key in {str(p), str(p.absolute()), str(safe_resolve(p))}:
                removed |= self._forget_row(key)
        if removed:
            self._summary_dirty = True
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
        if not box.value and not self._filter:
            raise SkipAction()
        box.value = ""
        self._apply_filter("")

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.15, lambda: self._apply_filter(event.value))

    def _apply_filter(self, value: str) -> None:
        self.filter_text = value
        wanted = RowFilter.parse(value, now_s=self.clock(), stale_after_s=self.stale_after_s)
        if (wanted.words, wanted.terms) != (self._filter.words, self._filter.terms):
            self._filter = wanted
            self._summary_dirty = True
            self._refresh_view()

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._apply_filter(event.value)
        self.table.focus()

    @property
    def sort_spec(self) -> str:
        """The sort as --sort names it (`cost:desc`): kept with the place."""
        return f"{self._sort}:{'desc' if self._desc else 'asc'}"

    def on_unmount(self) -> None:
        keep = getattr(self.app, "keep_place", None)  # (MonitorApp: the browser's place, kept for next time)
        if keep is not None:
            keep(self)

    def set_sort(self, column: str, desc: bool | None = None) -> None:
        if desc is None:
            desc = not self._desc if column == self._sort else column not in TEXT_SORTS
        self._sort, self._desc = column, desc
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
        i = SORT_CYCLE.index(self._sort) + 1 if self._sort in SORT_CYCLE else 0
        column = SORT_CYCLE[i % len(SORT_CYCLE)]
        self.set_sort(column, column not in TEXT_SORTS)

    def action_reverse_sort(self) -> None:
        self.set_sort(self._sort, not self._desc)

    @on(DataTable.HeaderSelected, "#browser-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        self.set_sort(str(event.column_key.value))

    def _cursor_key(self) -> str | None:
        row = self.table.cursor_row
        return self._shown[row] if 0 <= row < len(self._shown) else None

    def action_mark(self) -> None:
        key = self._cursor_key()
        before = self._marked
        self._marked = None if key is None or key == self._marked else key
        for changed in (before, self._marked):  # the glyph and style move with the mark
            if changed is not None and changed in self._shown_set and changed in self._rows:
                self._update_cells(self._rows[changed])
        self._update_note()

    def action_copy_path(self) -> None:
        """`y`: the highlighted session's file path to the clipboard (OSC 52), for a shell command."""
        key = self._cursor_key()
        path = file_path(self._rows.get(key) if key is not None else None)
        if path is None:
            self.notify("no file to copy: " + ("a live session comes from an event stream" if key else "no session"),
                        severity="warning")
            return
        self.app.copy_to_clipboard(path)
        self.notify(copy_notice(f"copied the path {path}"), markup=False)

    def action_diff_marked(self) -> None:
        key = self._cursor_key()
        marked = self._marked if self._marked in self._rows else None
        if marked is None or key is None or key == marked:
            self.notify("mark a session with m, then press d on another to compare them", severity="warning")
            return
        self.post_message(CompareSessions(str(self._rows[marked].path), str(self._rows[key].path)))

    @on(DataTable.RowSelected, "#browser-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        row = self._rows.get(str(event.row_key.value))
        if row is None:
            return
        if row.broken:
            self.notify(f"{printable(row.session_id)}: {row.broken}", title="cannot open", severity="error",
                        markup=False)
            return
        self.post_message(OpenSession(str(row.path)))
