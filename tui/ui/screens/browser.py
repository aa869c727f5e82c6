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
import threading
import time
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from tui.model.fields import one_line, printable
from tui.model.format import fmt_cost, fmt_duration, fmt_tokens, fmt_ts
from tui.catalog.session_row import (
    CHILD, LEDGER, SessionRow, carry_summary, fill_row, ledger_parent, matches, sort_value,
)
from tui.catalog.scan import scan
from tui.inputs.paths import safe_resolve
from tui.ui.messages import CompareSessions, OpenSession
from tui.ui.textual_compat import UnmeasuredRowsTable
from tui.ui.widgets.footer import Footer

PAGE = 1000  # rows in the table at once (adding 1,000 takes some 30 ms on 2 cores; 100k would take seconds)
FLUSH_S = 0.2  # how often filled rows reach the table
VIEW_REFRESH_S = 1.0  # at most this often, re-sort/re-filter because loaded rows changed what matches
FREEZE_ROWS = 10_000  # filled rows moved out of the collector's reach in batches of this many
# (key, label, width); Title takes what the others leave; Id shows its first 8 characters on narrow terminals.
COLUMNS = (("started", "Started", 19), ("agent", "Agent", 22), ("title", "Title", 0), ("status", "Status", 9),
           ("duration", "Duration", 8), ("turns", "Turns", 5), ("tokens", "Tokens", 8), ("cost", "Cost", 10),
           ("id", "Id", 36))
SHORT_ID, MIN_TITLE = 8, 48
SORT_CYCLE = ("started", "agent", "status", "duration", "tokens", "cost")
TEXT_SORTS = {"agent", "title", "status", "id"}  # these sort ascending first; the numbers descending
STATUS_STYLE = {"running": ("● running", "bold yellow"), "failed": ("failed", "red"), "ok": ("ok", "green")}
PENDING = Text("…", style="dim")
KIND_TAG = {"ledger": ("v3 ", "cyan"), "live": ("live ", "bold yellow"), "jules": ("jules ", "bold magenta"),
            "genkit": ("genkit ", "bold green")}


def row_cells(row: SessionRow) -> tuple:
    """The cells of a row, all Text objects: file content is never parsed as markup."""
    known = row.loaded or bool(row.status)  # a reloading row keeps showing its previous summary
    started = Text(fmt_ts(row.started_or_mtime_ms), style="" if known and row.started_at else "dim")
    sid = Text(no_wrap=True, overflow="crop")
    tag = KIND_TAG.get(row.kind)
    if tag:  # a v3 ledger beside the snapshot of the same session, or a session from the event stream
        sid.append(tag[0], style=tag[1])
    sid.append(printable(row.session_id), style="dim")
    if row.broken:
        reason = Text(one_line(row.broken), style="red", no_wrap=True, overflow="ellipsis")
        return (started, Text(""), reason, Text("BROKEN", style="bold red"), *([Text("")] * 4), sid)
    if not known:
        return (started, *([PENDING] * 7), sid)
    label, style = STATUS_STYLE.get(row.status, (printable(row.status), ""))
    cost = Text(fmt_cost(row.cost or 0.0) if row.cost is not None else "-", justify="right")
    if row.mismatch:
        cost.append("!", style="bold red")
    return (
        started,
        Text(one_line(row.agent, 80)),
        Text(one_line(row.title, 200), no_wrap=True, overflow="ellipsis"),
        Text(label, style=style),
        Text(fmt_duration(row.duration_ms), justify="right"),
        Text(str(row.turns) if row.turns is not None else "-", justify="right"),
        Text(fmt_tokens(row.tokens) if row.tokens is not None else "-", justify="right"),
        cost,
        sid,
    )


class SessionTable(UnmeasuredRowsTable):
    """A DataTable whose columns all have fixed widths and whose rows are one line high, so new rows need no
    measuring: skipping it halves the cost of showing a page of rows (textual is pinned, see pyproject)."""


class FilterInput(Input):
    BINDINGS = [Binding("escape", "leave", "Clear filter")]

    def action_leave(self) -> None:
        self.value = ""
        self.screen.query_one(DataTable).focus()


class BrowserScreen(Screen):
    CSS_PATH = "browser.tcss"
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/"),
        Binding("ctrl+f", "focus_filter", "Filter", show=False),
        Binding("s", "cycle_sort", "Sort"),
        Binding("S", "reverse_sort", "Reverse"),
        Binding("r", "rescan", "Rescan"),
        Binding("m", "mark", "Mark to compare", show=False),
        Binding("d", "diff_marked", "Compare marked with selected", show=False),
    ]

    def __init__(self, sessions_dir: Path | None, live_summary: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.sessions_dir = Path(sessions_dir) if sessions_dir is not None else None
        self.live_summary = live_summary  # one line on the event streams for the header ("" when none)
        self._rows: dict[str, SessionRow] = {}
        self._view: list[str] = []  # keys of every row that passes the filter, sorted
        self._shown: list[str] = []  # the prefix of _view that is in the table
        self._shown_set: set[str] = set()
        self._limit = PAGE
        self._sort, self._desc = "started", True
        self._filter = ""
        self._scanning = False
        self._scanned = False
        self._view_stale = False
        self._since_view_refresh = 0.0
        self._title_width = 0
        # Shared with the fill thread: plain containers whose single operations are atomic.
        self._pending: set[str] = set()
        self._queue: collections.deque[str] = collections.deque()  # newest first
        self._priority: collections.deque[str] = collections.deque()  # rows on screen
        self._results: collections.deque[SessionRow] = collections.deque()
        self._fill_worker: Worker | None = None
        self._was_loading = False
        self._view_refresh_cost = 0.0  # seconds the last _refresh_view took
        self._active = threading.Event()  # cleared while another screen is on top: loading pauses
        self._active.set()
        self._filter_timer = None
        self._marked: str | None = None  # the row `m` marked, to compare with `d`
        self._filled_since_freeze = 0

    # ----------------------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="browser-header")
        yield FilterInput(placeholder="/ filter on agent, title, id, status (Esc clears)", id="browser-filter",
                          compact=True)
        yield SessionTable(id="browser-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="browser-note")
        yield Footer()

    @property
    def table(self) -> SessionTable:
        return self.query_one("#browser-table", SessionTable)

    def on_mount(self) -> None:
        self._setup_columns()
        self.table.focus()
        self.set_interval(FLUSH_S, self._tick)
        self.action_rescan()

    def on_resize(self) -> None:
        if self._title_width and self._title_width != self._compute_widths()[0]:
            self._refresh_view(columns=True)

    def _compute_widths(self) -> tuple[int, int]:
        """(title width, id width) for the current terminal width."""
        fixed = sum(width + 2 for key, _, width in COLUMNS if width and key != "id") + 2 + 2 + 2
        room = self.size.width - fixed  # for title and id: cell paddings, title padding, scrollbar counted
        id_width = 36 if room - 36 >= MIN_TITLE else SHORT_ID
        return max(16, room - id_width), id_width

    def _setup_columns(self) -> None:
        table = self.table
        table.clear(columns=True)
        self._title_width, id_width = self._compute_widths()
        for key, label, width in COLUMNS:
            width = self._title_width if key == "title" else id_width if key == "id" else width
            table.add_column(label, width=width, key=key)
        self._shown, self._shown_set = [], set()

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
        self.run_worker(lambda: scan(self.sessions_dir), name="scan", group="browser-scan", thread=True,
                        exclusive=True, exit_on_error=False)  # its own group: exclusive must not cancel the filler

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name != "scan" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        self._scanning = False
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
                if row.kind != CHILD:
                    fresh[row.key] = row
            fresh.update((key, row) for key, row in old.items() if row.kind == "live")  # not files: a scan keeps them
        else:  # the first scan of 100,000s of files: nothing to carry over
            fresh = {row.key: row for row in rows if row.kind != CHILD}
        self._rows = fresh
        self._scanned = True
        waiting = [key for key, row in fresh.items() if not row.loaded]
        self._pending = set(waiting)
        self._queue = collections.deque(waiting)
        self._results.clear()
        self._refresh_view(listing_order=len(waiting) == len(fresh))
        self._ensure_worker()

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
        loading = bool(self._pending or self._results) or self._fill_busy()
        if self._was_loading and not loading:
            self._view_stale = True  # everything is loaded: apply the sort order to the loaded values
        self._was_loading = loading
        # re-sorting 100k rows costs ~0.1-0.5 s: never spend more than a tenth of the time on it
        interval = max(VIEW_REFRESH_S, 10 * self._view_refresh_cost)
        if self._view_stale and (self._since_view_refresh >= interval or not loading):
            self._refresh_view()
        self._prioritise_visible()
        self._ensure_worker()
        self.update_header()

    def _apply_filled(self, batch: list[SessionRow]) -> None:
        for row in batch:
            current = self._rows.get(row.key)
            if current is None or current.mtime != row.mtime or current.size != row.size:
                continue  # rescanned or rewritten meanwhile: the newer row is queued
            if row.kind == CHILD:
                del self._rows[row.key]
                self._view_stale = True
                continue
            self._rows[row.key] = row
            self._pending.discard(row.key)
            if self._filter and matches(current, self._filter) != matches(row, self._filter):
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

    def _update_cells(self, row: SessionRow) -> None:
        table = self.table
        for (column, _, _), cell in zip(COLUMNS, row_cells(row)):
            table.update_cell(row.key, column, cell)

    def _prioritise_visible(self) -> None:
        table = self.table
        first = int(table.scroll_y)
        visible = self._shown[first:first + table.size.height + 2]
        self._priority = collections.deque(key for key in visible if key in self._pending)

    # ----------------------------------------------------------------------------------------- the view
    def _compute_view(self, listing_order: bool = False) -> list[str]:
        if listing_order and not self._filter and self._sort == "started" and self._desc:
            return list(self._rows)  # a fresh listing, nothing loaded: its order (newest file first) is this one
        started = operator.attrgetter("started_or_mtime_ms")
        rows = sorted(self._rows.values(), key=started, reverse=True)
        if self._filter:
            rows = [row for row in rows if matches(row, self._filter)]
        if self._sort == "started":
            if not self._desc:  # (sorting again in the same direction would change nothing)
                rows.sort(key=started)
            return [row.key for row in rows]
        present, missing = [], []
        for row in rows:
            value = sort_value(row, self._sort)
            (missing if value is None else present).append((value, row.key))
        present.sort(key=lambda pair: pair[0], reverse=self._desc)
        return [key for _, key in present] + [key for _, key in missing]

    def _refresh_view(self, columns: bool = False, listing_order: bool = False) -> None:
        """Re-sort and re-filter everything, keeping the cursor on the same row (or at the same place)."""
        started = time.perf_counter()
        table = self.table
        cursor_key = self._shown[table.cursor_row] if 0 <= table.cursor_row < len(self._shown) else None
        cursor_row, scroll_y = table.cursor_row, table.scroll_y
        if columns:
            self._setup_columns()
        self._view = self._compute_view(listing_order)
        self._view_stale = False
        self._since_view_refresh = 0.0
        self._limit = max(PAGE, self._limit)  # the window never grows here: 100k rows would take seconds
        index = self._view.index(cursor_key, 0, self._limit) if cursor_key in self._view[: self._limit] else -1
        table.clear()
        self._shown, self._shown_set = [], set()
        self._add_rows(self._view[: self._limit])
        if self._shown:
            target = index if index >= 0 else min(cursor_row, len(self._shown) - 1)
            table.move_cursor(row=target, scroll=False)
            new_scroll = max(0, scroll_y + (target - cursor_row))
            self.call_after_refresh(table.scroll_to, y=new_scroll, animate=False)
        self.update_header()
        self._view_refresh_cost = time.perf_counter() - started

    def _add_rows(self, keys: list[str]) -> None:
        rows = self._rows
        self.table.add_keyed_rows([(key, row_cells(rows[key])) for key in keys])
        self._shown.extend(keys)
        self._shown_set.update(keys)

    @on(DataTable.RowHighlighted, "#browser-table")
    def _maybe_extend(self) -> None:
        table = self.table
        if table.row_count and table.cursor_row >= table.row_count - 1 and len(self._view) > len(self._shown):
            start = len(self._shown)
            self._limit = start + PAGE
            self._add_rows(self._view[start: self._limit])
            self.update_header()

    def update_header(self) -> None:
        where = printable(str(self.sessions_dir)) if self.sessions_dir is not None else "no sessions directory"
        parts = [where]
        if self._scanning and not self._scanned:
            parts.append("scanning…")
        else:
            parts.append(f"{len(self._rows):,} session{'s' if len(self._rows) != 1 else ''}")
            if self._filter:
                parts.append(f"{len(self._view):,} shown")
            loading = len(self._pending) + (1 if self._fill_busy() else 0)
            if loading and self._rows:
                parts.append(f"{min(loading, len(self._rows)):,} loading…")
            if self._scanning:
                parts.append("rescanning…")
        sort = f"sorted by {self._sort} {'↓' if self._desc else '↑'}"
        header = Text("  ·  ".join(parts) + f"   ({sort})")
        live = self.live_summary() if self.live_summary is not None else ""
        if live:
            header.append("   " + live, style="bold yellow")
        self.query_one("#browser-header", Static).update(header)
        self._update_note()

    def _update_note(self) -> None:
        note = self.query_one("#browser-note", Static)
        message = ""
        if self._scanned and not self._rows:
            if self.sessions_dir is None:
                message = "no sessions directory: pass one with --sessions-dir (or open a file directly)"
            elif not self.sessions_dir.is_dir():
                message = f"directory not found: {printable(str(self.sessions_dir))}"
            else:
                message = "no session files here (*.json.gz snapshots, session/*.jsonl ledgers)"
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

    # ----------------------------------------------------------------------------------------- for a watcher
    def upsert_rows(self, rows: list[SessionRow]) -> None:
        """Insert or update rows (e.g. from a file watcher; pass them in batches: a new row re-sorts the list).

        Unloaded rows (`row_from_entry`) are queued to load first; rows that are already loaded are used as given.
        """
        reorder = False
        for row in rows:
            if row.kind == CHILD or (row.kind == LEDGER and not row.loaded and ledger_parent(row.path)):
                reorder |= self._rows.pop(row.key, None) is not None  # a sub-agent's ledger: not a session
                continue
            old = self._rows.get(row.key)
            if not row.loaded:
                if old is not None:
                    carry_summary(old, row)  # show the previous summary until the reload lands
                self._pending.add(row.key)
                self._queue.appendleft(row.key)
            self._rows[row.key] = row
            if (old is None or sort_value(old, self._sort) != sort_value(row, self._sort)
                    or (self._filter and matches(old, self._filter) != matches(row, self._filter))):
                reorder = True
            elif row.key in self._shown_set:
                self._update_cells(row)
        if reorder:
            self._refresh_view()
        self._ensure_worker()
        self.update_header()

    def remove_paths(self, paths) -> None:
        """Drop the rows of files that were deleted, keeping the cursor where it was."""
        removed = False
        for path in paths:
            p = Path(path)
            for key in {str(p), str(p.absolute()), str(safe_resolve(p))}:
                removed |= self._rows.pop(key, None) is not None
                self._pending.discard(key)
        if removed:
            self._refresh_view()

    # ----------------------------------------------------------------------------------------- actions
    def action_focus_filter(self) -> None:
        self.query_one(FilterInput).focus()

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.15, lambda: self._apply_filter(event.value))

    def _apply_filter(self, value: str) -> None:
        needle = value.strip().lower()
        if needle != self._filter:
            self._filter = needle
            self._refresh_view()

    @on(Input.Submitted, "#browser-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self._apply_filter(event.value)
        self.table.focus()

    def set_sort(self, column: str, desc: bool | None = None) -> None:
        if desc is None:
            desc = not self._desc if column == self._sort else column not in TEXT_SORTS
        self._sort, self._desc = column, desc
        self._refresh_view()

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
        self._marked = None if key is None or key == self._marked else key
        self._update_note()

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
