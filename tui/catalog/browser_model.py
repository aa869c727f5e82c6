"""The sessions browser without its screen: the rows of a sessions directory (and live rows), the filter, the sort,
the summary of what passes, the fill queue, the twins (a session both on file and live shows once) and the place
kept for next time. tui.ui.screens.browser renders it and forwards keys; tests drive it without textual.

The rows are keyed by absolute path (LIVE_PREFIX + root for a live session). `view` is the sorted keys of the rows
that pass the filter, recomputed by `compute_view` (the screen paces how often: re-sorting 100k rows costs
~0.1-0.5 s). The summary is kept row by row between recounts, so that a filled row costs no recount.
"""

from __future__ import annotations

import dataclasses
from tui.model import gc_pause
import operator
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from tui.catalog.browser_sort import TEXT_SORTS, parse_sort
from tui.catalog.fill_queue import FillQueue
from tui.inputs.files import database_of_key
from tui.catalog.forgotten_rows import ForgottenLiveRows
from tui.catalog.index.browser_index import BrowserIndex, progress_line
from tui.catalog.liveness import stale_after
from tui.catalog.row_filter import RowFilter
from tui.catalog.row_merge import hidden_twins
from tui.catalog.rows_summary import RowsSummary
from tui.catalog.scan import Roots, scan
from tui.catalog.session_row import LIVE_PREFIX, RowKind, SessionRow, carry_summary, not_a_session, sort_value
from tui.inputs.agent_roots import location_of_root
from tui.inputs.paths import safe_resolve
from tui.model.fields import printable

FREEZE_ROWS = 10_000  # filled rows moved out of the collector's reach in batches of this many
SORT_CYCLE = ("started", "agent", "status", "duration", "tokens", "cost", "model", "age")


class Upserted(NamedTuple):
    """What `BrowserModel.upsert` changed: whether the order may have changed (`reorder`; `live`: because of a live
    row), whether the Events column came (`columns`), and the rows whose cells alone changed (`changed`)."""

    reorder: bool
    columns: bool
    live: bool
    changed: list[SessionRow]


class BrowserModel:
    """One browser's rows and what it shows of them. Not thread-safe except for the fill queue's documented use:
    the fill thread reads `rows` (`row_of`) and the queue while the UI thread changes them."""

    def __init__(self, sessions_dir: Path | None, roots: Roots = (), *, stale_after_s: float | None = None,
                 sort: str | None = None, filter_text: str | None = None, cursor: str | None = None) -> None:
        self.sessions_dir = Path(sessions_dir) if sessions_dir is not None else None
        self.roots = roots  # other agents' session roots listed too (tui.inputs.agent_roots)
        # other agents' sessions are listed: the Kind column is offered
        self.has_agents = bool(roots) or (self.sessions_dir is not None
                                          and location_of_root(self.sessions_dir) is not None)
        # a running session silent for this long shows as stale (tui.catalog.liveness; --stale-after)
        self.stale_after_s = stale_after() if stale_after_s is None else stale_after_s
        self.clock: Callable[[], float] = time.time  # wall clock (s) for Age and stale (fixed in screenshots)
        self.rows: dict[str, SessionRow] = {}
        self.live_keys: set[str] = set()  # keys of the live rows (tui.catalog.row_merge: one row per session)
        self.forgotten = ForgottenLiveRows()  # live rows whose session the hub forgot: kept up to a bound
        self.view: list[str] = []  # keys of every row that passes the filter, sorted
        self.sort, self.desc = "started", True
        parsed = parse_sort(sort) if sort else None
        if parsed is not None:
            self.sort, self.desc = parsed
        self.filter_text = filter_text or ""  # the filter applied now (kept with the place: tui.ui.place)
        self.filter = RowFilter(stale_after_s=self.stale_after_s)
        if filter_text:
            self.filter = RowFilter.parse(filter_text, now_s=self.clock(), stale_after_s=self.stale_after_s)
        self.summary = RowsSummary()  # of the rows that pass the filter (tui.catalog.rows_summary)
        self.summary_dirty = True  # recount at the next view: rows came or went other than one by one
        self.folded: set[str] = set()  # file rows shown in place of their ended live twin (row_merge): marked
        self.hidden: set[str] = set()  # twins left out at the last view (row_merge): not in the summary either
        self.has_live = False  # live rows exist: the Events column is offered
        self.scanning = False
        self.scanned = False
        self.indexed = 0  # rows of the index's first page are shown while the listing runs: the index's count
        self.view_stale = False  # rows changed what the view would be: re-sort when the pace allows
        self.live_reorder = False  # live rows changed the order: re-sorted at the live pace
        self.marked: str | None = None  # the row `m` marked, to compare with `d`
        self.restore_key = cursor  # the kept place's session: the cursor goes there once its row is shown
        self.fill_queue = FillQueue()
        # the sessions index (tui.catalog.index): a warm start, then the rest read on a process pool
        self.index = BrowserIndex(self.sessions_dir, roots) if self.sessions_dir is not None else None
        self._filled_since_freeze = 0

    # ----------------------------------------------------------------------------------------- the place
    @property
    def sort_spec(self) -> str:
        """The sort as --sort names it (`cost:desc`): kept with the place."""
        return f"{self.sort}:{'desc' if self.desc else 'asc'}"

    def set_sort(self, column: str, desc: bool | None = None) -> None:
        """Sort by `column`; without `desc`, the same column again reverses and another starts in its usual
        direction (numbers highest first, text A to Z)."""
        if desc is None:
            desc = not self.desc if column == self.sort else column not in TEXT_SORTS
        self.sort, self.desc = column, desc

    def next_sort(self) -> str:
        """The column `s` sorts by next (SORT_CYCLE)."""
        i = SORT_CYCLE.index(self.sort) + 1 if self.sort in SORT_CYCLE else 0
        return SORT_CYCLE[i % len(SORT_CYCLE)]

    def set_filter(self, text: str) -> bool:
        """Filter on `text` (the filter language: tui.catalog.row_filter); whether what matches changed."""
        self.filter_text = text
        wanted = RowFilter.parse(text, now_s=self.clock(), stale_after_s=self.stale_after_s)
        if (wanted.words, wanted.terms) == (self.filter.words, self.filter.terms):
            return False
        self.filter = wanted
        self.summary_dirty = True
        return True

    # ----------------------------------------------------------------------------------------- listing
    def listing(self, show_first: Callable[[list[SessionRow], int], None]) -> list[SessionRow]:
        """Runs in the scan thread: the listing, filled from the index when there is one; at the first scan,
        `show_first` gets the index's newest rows before the listing ends (tui.catalog.index.browser_index)."""
        if self.index is None:
            return scan(self.sessions_dir, roots=self.roots) if self.sessions_dir is not None else []
        return self.index.listing(None if self.rows else show_first)

    def first_rows(self, rows: list[SessionRow], total: int) -> bool:
        """The index's first page, shown while the listing runs (unless a listing is in already); whether taken."""
        if self.scanned or self.rows:
            return False
        self.rows = {row.key: row for row in rows}
        self.indexed = total
        self.summary_dirty = True
        return True

    def finish_scan(self, rows: list[SessionRow]) -> bool:
        """The listing is in: rows loaded before and unchanged are kept, live rows stay, the rest wait for the fill.
        Whether nothing is loaded yet (the listing's own order, newest file first, is then the view's)."""
        self.scanning = False
        self.indexed = 0
        old = self.rows
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
        self.rows = fresh
        self.scanned = True
        self.summary_dirty = True
        waiting = [key for key, row in fresh.items() if not row.loaded]
        self.fill_queue.restart(waiting)
        return len(waiting) == len(fresh)

    def take_notices(self) -> list[str]:
        """What to say once about the index (rebuilt, bypassed, dropped): the monitor goes on either way."""
        return self.index.take_notices() if self.index is not None else []

    # ----------------------------------------------------------------------------------------- filling
    def fill(self, cancelled: Callable[[], bool]) -> None:
        """Runs in the fill thread: read the pending rows (tui.catalog.fill_queue)."""
        self.fill_queue.fill(lambda key: self.rows.get(key), cancelled, self.index)  # (a rescan replaces `rows`)

    @property
    def pending(self) -> set[str]:
        return self.fill_queue.pending

    def apply_filled(self, batch: list[SessionRow]) -> list[SessionRow]:
        """Rows the fill read: those still current replace the listed ones (the summary follows); the rows whose
        cells changed are returned. A sub-agent's ledger goes (it is not a session)."""
        changed: list[SessionRow] = []
        for row in batch:
            current = self.rows.get(row.key)
            if current is None or current.mtime != row.mtime or current.size != row.size:
                continue  # rescanned or rewritten meanwhile: the newer row is queued
            was_in, now_in = self.filter.matches(current), self.filter.matches(row)
            if was_in:
                self.summary.remove(current)
            if row.kind == RowKind.CHILD:
                del self.rows[row.key]
                self.view_stale = True
                continue
            if now_in:
                self.summary.add(row)
            self.rows[row.key] = row
            self.fill_queue.pending.discard(row.key)
            if was_in != now_in:
                self.view_stale = True
            changed.append(row)
        self._filled_since_freeze += len(batch)
        if self._filled_since_freeze >= FREEZE_ROWS:
            # Filled rows live as long as the listing: out of the collector's reach, or each full collection
            # (rare, see app.GC_THRESHOLDS) would scan all of them, a quarter of a second with 100k rows.
            gc_pause.freeze()
            self._filled_since_freeze = 0
        return changed

    # ----------------------------------------------------------------------------------------- rows coming and going
    def upsert(self, rows: Iterable[SessionRow]) -> Upserted:
        """Insert or update rows (a file watcher's, live rows). Unloaded rows are queued to load first (showing the
        previous summary until then); loaded rows are used as given."""
        reorder = columns = live = False
        changed: list[SessionRow] = []
        keep = self.filter.matches
        for row in rows:
            if not_a_session(row):  # a sub-agent's ledger
                gone = self.rows.pop(row.key, None)
                if gone is not None:
                    reorder = True
                    if keep(gone):
                        self.summary.remove(gone)
                continue
            old = self.rows.get(row.key)
            if not row.loaded:
                if old is not None:
                    carry_summary(old, row)  # show the previous summary until the reload lands
                self.fill_queue.push(row.key)
            self.rows[row.key] = row
            hidden = row.key in self.hidden  # (a hidden twin's updates must not count its tokens again)
            if old is not None and keep(old) and not hidden:
                self.summary.remove(old)
            if keep(row) and not hidden:
                self.summary.add(row)
            if row.kind == RowKind.LIVE:
                self.live_keys.add(row.key)
                self.forgotten.returned(row.key)
                if not self.has_live:
                    self.has_live = columns = True  # live rows have an Events column
            if (old is None or sort_value(old, self.sort) != sort_value(row, self.sort)
                    or (self.filter and keep(old) != keep(row))
                    or (row.kind == RowKind.LIVE and old.status != row.status)):  # (its file twin: row_merge)
                reorder = True
                live = live or row.kind == RowKind.LIVE
            else:
                changed.append(row)
        return Upserted(reorder, columns, live, changed)

    def forget_live_roots(self, roots: Iterable[str], merged: Iterable[str] = ()) -> None:
        """The hub forgot these live sessions: their rows stay, the newest up to a bound (tui.catalog.forgotten_rows);
        the oldest go at the next view. `merged`: roots now shown under another root, whose rows go then too."""
        if self.forgotten.forgotten((LIVE_PREFIX + root for root in roots), self.rows):
            self.view_stale = self.live_reorder = True
        merged = list(merged)
        if merged:
            self.forgotten.merged((LIVE_PREFIX + root for root in merged), self.rows)
            self.view_stale = self.live_reorder = True

    def missing_files(self) -> list[str]:
        """The keys of file rows whose file is gone (live rows have no file and stay)."""
        return [key for key in list(self.rows) if not key.startswith(LIVE_PREFIX) and not _file_exists(key)]

    def remove_paths(self, paths: Iterable[Path | str]) -> bool:
        """Drop the rows of files that were deleted (under any of the spellings of their path); whether any went."""
        removed = False
        for path in paths:
            p = Path(path)
            for key in {str(p), str(p.absolute()), str(safe_resolve(p))}:
                removed |= self.forget_row(key)
        if removed:
            self.summary_dirty = True
        return removed

    def forget_row(self, key: str) -> bool:
        """Drop a row and what is kept of it (a deleted file's, or a forgotten live session's past the bound);
        whether there was one."""
        self.fill_queue.pending.discard(key)
        self.live_keys.discard(key)
        self.forgotten.returned(key)
        return self.rows.pop(key, None) is not None

    # ----------------------------------------------------------------------------------------- the view
    def compute_view(self, listing_order: bool = False) -> list[str]:
        """The keys that pass the filter, sorted (kept as `view`); the summary of those rows is recounted on the
        way when it must be, and the twins are settled (`hidden`, `folded`)."""
        self.view = self._sorted_keys(listing_order)
        return self.view

    def dropped_by_view(self) -> list[str]:
        """Drop the oldest rows of forgotten live sessions past the bound (at a view only: it never names a
        dropped row); their keys. The summary is recounted: a dropped row may have been a hidden twin."""
        dropped = [key for key in self.forgotten.excess() if self.forget_row(key)]
        self.summary_dirty |= bool(dropped)
        return dropped

    def _sorted_keys(self, listing_order: bool) -> list[str]:
        self.filter = dataclasses.replace(self.filter, now_s=self.clock())  # "stale" as of now
        self.dropped_by_view()
        # Without a filter the summary does not depend on the time and is kept row by row: no recount of 100k
        # rows each time loaded rows are re-sorted. A filter may (status:stale): recounted with it.
        recount, self.summary_dirty = self.summary_dirty or bool(self.filter), False
        self.hidden, self.folded = set(), set()
        if listing_order and not self.filter and self.sort == "started" and self.desc and not self.live_keys:
            if recount:
                self.summary = RowsSummary.of(self.rows.values())
            return list(self.rows)  # a fresh listing, nothing loaded: its order (newest file first) is this one
        started = operator.attrgetter("started_or_mtime_ms")
        folded: set[str] = set()
        twins = hidden_twins(self.rows, self.live_keys, folded)  # a session both on file and live: one row
        self.hidden, self.folded = twins, folded
        if folded and self.filter:  # `kind:live` finds them too
            self.filter = dataclasses.replace(self.filter, also_live=frozenset(folded))
        recount = recount or bool(twins)  # (the summary kept row by row counts both twins)
        rows = sorted((r for r in self.rows.values() if r.key not in twins) if twins else self.rows.values(),
                      key=started, reverse=True)
        if self.filter:
            rows = [row for row in rows if self.filter.matches(row)]
        if recount:
            self.summary = RowsSummary.of(rows)
        if self.sort == "started":
            if not self.desc:  # (sorting again in the same direction would change nothing)
                rows.sort(key=started)
            return [row.key for row in rows]
        present: list[tuple] = []
        missing: list[tuple] = []
        now_s = self.filter.now_s
        for row in rows:
            value = sort_value(row, self.sort, now_s)
            (missing if value is None else present).append((value, row.key))
        present.sort(key=lambda pair: pair[0], reverse=self.desc)
        return [key for _, key in present] + [key for _, key in missing]

    def take_restore(self, limit: int) -> str | None:
        """The kept place's session, once its row is among the first `limit` of the view (then forgotten)."""
        key = self.restore_key
        if key is None or key not in self.view[:limit]:
            return None
        self.restore_key = None
        return key

    def toggle_mark(self, key: str | None) -> str | None:
        """`m` on `key`: mark it, or unmark it when it is the marked one; the key marked before."""
        before = self.marked
        self.marked = None if key is None or key == self.marked else key
        return before

    def marked_row(self) -> SessionRow | None:
        return self.rows.get(self.marked) if self.marked is not None else None

    # ----------------------------------------------------------------------------------------- what it says
    def header(self, loading: int, demo_for: Path | None = None) -> str:
        """The header's words: the directory (or the demo's), the listing (indexed, scanning, N sessions, dropped
        rows, loading: `loading` rows, the index's progress bar when many) and the sort."""
        where = printable(str(self.sessions_dir)) if self.sessions_dir is not None else "no sessions directory"
        if demo_for is not None:
            where = f"DEMO (real sessions come from {printable(str(demo_for))})"
        progress = progress_line(self.index.progress) if self.index is not None and loading else ""
        sort = f"sorted by {self.sort} {'↓' if self.desc else '↑'}"
        return "  ·  ".join([where, *self._status_parts(loading, progress)]) + f"   ({sort})"

    def _status_parts(self, loading: int, progress: str) -> list[str]:
        parts: list[str] = []
        if self.scanning and self.indexed:  # the index's first page, shown while the listing runs
            parts.append(f"{self.indexed:,} session{'s' if self.indexed != 1 else ''} indexed · listing…")
        elif self.scanning and not self.scanned:
            parts.append("scanning…")
        else:
            parts.append(f"{len(self.rows):,} session{'s' if len(self.rows) != 1 else ''}")
            if self.forgotten.dropped:  # (forgotten_rows: the oldest rows of sessions the hub forgot)
                parts.append(f"{self.forgotten.dropped:,} evicted live rows dropped")
            if progress:
                parts.append(progress)
            elif loading and self.rows:
                parts.append(f"{min(loading, len(self.rows)):,} loading…")
            if self.scanning:
                parts.append("rescanning…")
        return parts

    def summary_line(self) -> str:
        """The summary of the rows that pass the filter, with what it is of."""
        line = self.summary.line(self.clock(), self.stale_after_s)
        return ("newest indexed: " if self.indexed else "shown: " if self.filter else "") + line

    def note(self, shown: int, page: int, streams: Sequence[str]) -> str:
        """The line under the table: why it is empty, how much of the view is shown, and the marked session."""
        message = ""
        if self.scanned and not self.rows:
            if self.sessions_dir is None:
                message = "no sessions directory: pass one with --sessions-dir (or open a file directly)"
            elif not self.sessions_dir.is_dir():
                message = f"directory not found: {printable(str(self.sessions_dir))}"
            else:
                message = watching_line(self.sessions_dir, streams)
        elif self.filter and not self.view:
            message = "no session matches the filter"
        elif len(self.view) > shown:
            message = (f"showing {shown:,} of {len(self.view):,}; filter to narrow "
                       f"(moving past the last row shows {page:,} more)")
        marked = self.marked_row()
        if marked is not None:
            mark = f"marked: {printable(marked.session_id)} (d on another row compares them)"
            message = f"{message} · {mark}" if message else mark
        return message


def watching_line(sessions_dir: Path, streams: Sequence[str] = ()) -> str:
    """What an empty browser says: what it watches, and how to stream events in instead; when streams are already
    configured (--listen, --connect), those are named, not another --listen to add."""
    watching = (f"watching {printable(str(sessions_dir))} for sessions (*.json.gz snapshots, session/*.jsonl "
                "ledgers): none yet, they appear as they are written")
    if streams:
        return f"{watching} · streaming events in from {', '.join(printable(url) for url in streams)}"
    return f"{watching} · to stream events in: --listen ws://127.0.0.1:8765 (or unix:PATH)"


def _file_exists(key: str) -> bool:
    """A row's file is there: for a session of a database (`opencode.db#<id>`), the database."""
    if os.path.lexists(key):
        return True
    database = database_of_key(key)
    return database is not None and os.path.lexists(database)
