"""The diff screen: totals deltas and the ops added, removed or changed between two sessions.

Two modes: two versions of one session (a version list on top: `a`/`b` pick the two, Enter views a version in
the session screen), or a precomputed diff of two files (the browser's `m` and `d`). Enter on an op opens it.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.formats.aiagent.history import Version, version_time
from tui.model.diff import ADDED, CHANGED, REMOVED, RENAMED, STATUS, OpDelta, SessionDiff, diff_sessions
from tui.model.fields import one_line
from tui.model.format import fmt_cost, fmt_tokens
from tui.model.session_facts import duration_text
from tui.model.nodes import Session, release_tree
from tui.model.search import find_session_by_prefix
from tui.text.diff_text import fmt_delta, total_rows, what_text
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.motion import TableMotion

MAX_ROWS = 2000  # op rows in the table; the rest are counted in the status line
CHANGE_STYLE = {ADDED: ("+ added", "green"), REMOVED: ("- removed", "red"), STATUS: ("~ status", "yellow"),
                RENAMED: ("≠ renamed", "magenta"), CHANGED: ("* usage", "cyan")}
FILTERS = (None, ADDED, REMOVED, STATUS, RENAMED, CHANGED)
STATE_STYLE = {"ok": "green", "failed": "bold red", "running": "yellow"}
# (key, label, width); Op takes what the others leave
OP_COLUMNS = (("change", "Change", 9), ("path", "Path", 14), ("op", "Op", 0), ("status", "Status", 16),
              ("in", "Δ in", 7), ("out", "Δ out", 7), ("cost", "Δ cost", 9), ("logs", "Δ logs", 6))
TOTALS_WIDTH = 46  # keep in step with #diff-totals in diff.tcss
MIN_OP_WIDTH = 16
NARROW_WIDTH = 110  # below this many columns the Totals and the Ops take turns (t) instead of sharing the width
MAX_PATH_WIDTH = 24
VERSION_COLUMNS = (("mark", "", 3), ("seq", "#", 4), ("seen", "Seen", 8), ("ops", "Ops", 6), ("turns", "Turns", 5),
                   ("failed", "Failed", 6), ("status", "Status", 8), ("tokens", "Tokens", 8), ("cost", "Cost", 9),
                   ("id", "Id", 8))


def _signed(key: str, value) -> Text:
    text = fmt_delta(key, value) if value else ""
    return Text(text, style="red" if value and value > 0 and key == "costUsd" else "", justify="right")


def _status_cell(delta: OpDelta) -> Text:
    text = Text()
    if delta.change not in (ADDED, REMOVED) and delta.status_before != delta.status_after:
        text.append(one_line(delta.status_before, 20), style=STATE_STYLE.get(delta.status_before, ""))
        text.append(" → ")
    state = delta.status_before if delta.change == REMOVED else delta.status_after
    text.append(one_line(state, 20), style=STATE_STYLE.get(state, ""))  # the file's text: escaped once
    return text


def op_cells(delta: OpDelta) -> tuple:
    label, style = CHANGE_STYLE[delta.change]
    u = delta.usage
    return (
        Text(label, style=style),
        Text(one_line(delta.path, 60), no_wrap=True, overflow="ellipsis"),
        Text.assemble((f"{delta.kind.upper()} ", "dim"), what_text(delta, 60), no_wrap=True, overflow="ellipsis"),
        _status_cell(delta),
        _signed("tokensIn", u.get("tokensIn", 0)),
        _signed("tokensOut", u.get("tokensOut", 0)),
        _signed("costUsd", u.get("costUsd", 0.0)),
        _signed("logs", delta.logs),
    )


def version_cells(version: Version, mark: str) -> tuple:
    s = version.summary
    return (
        Text(mark, style="bold reverse" if mark else ""),
        Text(str(version.seq), justify="right"),
        Text(version_time(version)),
        Text(f"{s.ops:,}", justify="right"),
        Text(f"{s.turns:,}", justify="right"),
        Text(f"{s.failed:,}" if s.failed else "", style="red", justify="right"),
        Text(s.status, style=STATE_STYLE.get(s.status, "")),
        Text(fmt_tokens(s.tokens), justify="right"),
        Text(fmt_cost(s.cost), justify="right"),
        Text(version.short_id, style="dim"),
    )


def _side_text(side) -> str:
    parts = [one_line(side.label, 32), one_line(side.agent, 24), f"{side.counts['ops']:,} ops", side.status]
    if side.duration_ms is not None:
        parts.append(duration_text(side.duration_ms, side.duration_partial))
    return " · ".join(parts)


def totals_table(diff: SessionDiff) -> Table:
    table = Table(box=None, expand=True, padding=(0, 1), show_edge=False)
    table.add_column("", style="bold", no_wrap=True)
    for name in ("A", "B", "Δ"):
        table.add_column(name, justify="right", no_wrap=True)
    for label, before, after, delta in total_rows(diff):
        style = "bold yellow" if delta and delta != "0" and delta != "$0" else "dim"
        table.add_row(Text(label), Text(before), Text(after), Text(delta, style=style))
    return table


class VersionTable(TableMotion):
    """Home and End go to the first and the newest version (a DataTable scrolls sideways on them)."""

    BINDINGS = [Binding("home", "scroll_top", "First", show=False), Binding("end", "scroll_bottom", "Newest",
                                                                            show=False)]


class DiffScreen(Screen):
    CSS_PATH = "diff.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("a", "set_a", "Set A"),
        Binding("b", "set_b", "Set B"),
        Binding("c", "cycle_filter", "Filter changes"),
        Binding("t", "toggle_totals", "Totals/Ops"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.close_view", "Close"),
    ]

    def __init__(self, diff: SessionDiff | None, *, versions: list[Version] | None = None,
                 a: Version | None = None, b: Version | None = None,
                 load_version: Callable[[Version], Session | None] | None = None, scope: str = "",
                 on_open_op: Callable | None = None, on_view_version: Callable | None = None) -> None:
        super().__init__()
        self.diff = diff
        self.versions = list(versions or [])
        self.a, self.b = a, b
        self.load_version = load_version
        self.scope = scope
        self.on_open_op = on_open_op
        self.on_view_version = on_view_version
        self.filter: str | None = None
        self._totals_shown = False  # narrow terminals: the Totals instead of the Ops (t)
        self._rows: list[OpDelta] = []
        self._pending: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="diff-title")
        yield VersionTable(id="diff-versions", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="diff-main"):
            yield Static(id="diff-totals")
            yield TableMotion(id="diff-ops", cursor_type="row", zebra_stripes=True)
        yield Static(id="diff-status")
        yield Footer()

    def on_mount(self) -> None:
        ops = self.query_one("#diff-ops", DataTable)
        self._lay_out()
        table = self.query_one("#diff-versions", DataTable)
        table.display = bool(self.versions)
        table.border_title = "Versions (a: set A · b: set B · Enter: view it)"
        if self.versions:
            for key, label, width in VERSION_COLUMNS:
                table.add_column(label, width=width, key=key)
            self._fill_versions()
            table.move_cursor(row=self._version_row(self.b), scroll=True)
            table.focus()
        else:
            ops.focus()
        if self.diff is not None:
            self._show(self.diff)
        else:
            self._compute()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("set_a", "set_b"):
            return bool(self.versions)
        return True

    # versions ------------------------------------------------------------------------------------------
    def _version_row(self, version: Version | None) -> int:
        return next((n for n, v in enumerate(self.versions) if version is not None and v.seq == version.seq), 0)

    def _fill_versions(self) -> None:
        table = self.query_one("#diff-versions", DataTable)
        cursor = table.cursor_row
        table.clear()
        for version in self.versions:
            mark = ("A" if self.a is not None and version.seq == self.a.seq else "") + \
                   ("B" if self.b is not None and version.seq == self.b.seq else "")
            table.add_row(*version_cells(version, mark), key=str(version.seq))
        if self.versions:
            table.move_cursor(row=min(cursor, len(self.versions) - 1), scroll=False)

    def _highlighted_version(self) -> Version | None:
        table = self.query_one("#diff-versions", DataTable)
        if not self.versions or not 0 <= table.cursor_row < len(self.versions):
            return None
        return self.versions[table.cursor_row]

    def action_set_a(self) -> None:
        version = self._highlighted_version()
        if version is not None:
            self.a = version
            self._fill_versions()
            self._compute()

    def action_set_b(self) -> None:
        version = self._highlighted_version()
        if version is not None:
            self.b = version
            self._fill_versions()
            self._compute()

    @on(DataTable.RowSelected, "#diff-versions")
    def _version_selected(self, event: DataTable.RowSelected) -> None:
        version = self._highlighted_version()
        if version is not None and self.on_view_version is not None:
            self.app.pop_screen()
            self.on_view_version(version)

    # computing -----------------------------------------------------------------------------------------
    def _compute(self) -> None:
        if self.load_version is None or self.a is None or self.b is None:
            return
        a, b, load, scope = self.a, self.b, self.load_version, self.scope
        self._pending = (a.seq, b.seq)
        self._set_status(f"comparing version {a.seq} with version {b.seq}…")

        def work() -> None:
            roots = [load(a), load(b)]
            sides = [find_session_by_prefix(r, scope) if r is not None else None for r in roots]
            diff = diff_sessions(sides[0] or Session(), sides[1] or Session(),
                                 before_label=f"version {a.seq} · {version_time(a)}",
                                 after_label=f"version {b.seq} · {version_time(b)}")
            for root in roots:
                if root is not None:
                    release_tree(root)
            try:
                self.app.call_from_thread(self._computed, (a.seq, b.seq), diff)
            except RuntimeError:
                pass

        self.run_worker(work, thread=True, group="diff", exit_on_error=False)

    def _computed(self, wanted: tuple, diff: SessionDiff) -> None:
        if wanted == self._pending and self.is_mounted:
            self._show(diff)

    def _show(self, diff: SessionDiff) -> None:
        self.diff = diff
        title = Text()
        title.append(" diff  ", style="bold")
        title.append("A ", style="bold reverse")
        title.append(f" {_side_text(diff.before)}   ")
        title.append("B ", style="bold reverse")
        title.append(f" {_side_text(diff.after)}")
        self.query_one("#diff-title", Static).update(title)
        self.query_one("#diff-totals", Static).update(totals_table(diff))
        self._fill_ops()

    def _fill_ops(self) -> None:
        diff = self.diff
        if diff is None:
            return
        table = self.query_one("#diff-ops", DataTable)
        rows = diff.ops if self.filter is None else diff.of_kind(self.filter)
        order = {STATUS: 0, RENAMED: 1, ADDED: 2, CHANGED: 3, REMOVED: 4}
        rows = sorted(rows, key=lambda d: order[d.change])  # stable: tree order within a kind
        self._rows = rows[:MAX_ROWS]
        self._setup_op_columns(max((len(d.path) for d in self._rows), default=0))
        for n, delta in enumerate(self._rows):
            table.add_row(*op_cells(delta), key=str(n))
        counts = [f"{len(diff.of_kind(kind)):,} {CHANGE_STYLE[kind][0][2:]}" for kind in
                  (ADDED, REMOVED, STATUS, RENAMED, CHANGED)]
        parts = [" · ".join(counts), f"{diff.unchanged:,} unchanged"]
        if self.filter is not None:
            parts.append(f"showing {CHANGE_STYLE[self.filter][0][2:]} only (c: next filter)")
        if len(rows) > MAX_ROWS:
            parts.append(f"first {MAX_ROWS:,} of {len(rows):,} shown")
        parts.append("Enter on an op opens it")
        self._set_status("   ".join(parts))

    def _setup_op_columns(self, longest_path: int) -> None:
        """Paths as wide as the longest (within reason); the op name takes the rest of the width."""
        table = self.query_one("#diff-ops", DataTable)
        table.clear(columns=True)
        widths = {key: width for key, _, width in OP_COLUMNS}
        widths["path"] = min(MAX_PATH_WIDTH, max(widths["path"], longest_path))
        fixed = sum(w + 2 for key, w in widths.items() if key != "op") + 2 + 2 + 2  # cell padding, border, bar
        beside = 0 if self.narrow() else TOTALS_WIDTH
        widths["op"] = max(MIN_OP_WIDTH, self.app.size.width - beside - fixed)
        for key, label, _ in OP_COLUMNS:
            table.add_column(label, width=widths[key], key=key)

    @property
    def rows(self) -> tuple[OpDelta, ...]:
        """The op rows in the table, in its order (read-only: what tests and tools read)."""
        return tuple(self._rows)

    # narrow terminals ------------------------------------------------------------------------------------
    def narrow(self) -> bool:
        """Below NARROW_WIDTH columns the Totals and the Ops do not fit side by side (at 80 the op names were
        cut to two letters): one of them fills the width, `t` swaps them."""
        return self.app.size.width < NARROW_WIDTH

    def _lay_out(self) -> None:
        narrow = self.narrow()
        self.set_class(narrow, "-narrow")
        self.query_one("#diff-totals").display = not narrow or self._totals_shown
        self.query_one("#diff-ops").display = not narrow or not self._totals_shown
        self.query_one("#diff-ops").border_title = "Ops · t: Totals" if narrow else "Ops"
        self.query_one("#diff-totals").border_title = "Totals · t: Ops" if narrow else "Totals"

    def on_resize(self) -> None:
        was = self.has_class("-narrow")
        self._lay_out()
        if was != self.narrow() and self.diff is not None:
            self._show(self.diff)  # the op column's width depends on what is beside it

    def action_toggle_totals(self) -> None:
        self._totals_shown = not self._totals_shown
        self._lay_out()
        if not self.narrow():
            self.notify("Totals and Ops are side by side at this width; t swaps them below "
                        f"{NARROW_WIDTH} columns")

    def _set_status(self, message: str) -> None:
        self.query_one("#diff-status", Static).update(Text(message))

    # keys ----------------------------------------------------------------------------------------------
    def action_cycle_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]
        self._fill_ops()

    @on(DataTable.RowSelected, "#diff-ops")
    def _op_selected(self, event: DataTable.RowSelected) -> None:
        index = event.cursor_row
        if not 0 <= index < len(self._rows) or self.on_open_op is None:
            return
        delta = self._rows[index]
        side = "before" if delta.change == REMOVED else "after"
        self.app.pop_screen()
        if self.versions:
            self.on_open_op(delta.path, self.a if side == "before" else self.b)
        else:
            self.on_open_op(delta, side)

    def action_back(self) -> None:
        """Escape: first show every change again (after `c`), then back."""
        if self.filter is not None:
            self.filter = None
            self._fill_ops()
            return
        self.app.pop_screen()
