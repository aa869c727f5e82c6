"""The Stats screen (`t` in the browser): cost, tokens, sessions and failures across the sessions of the directory,
per day (a bar per day, sparklines of the four series) and by agent, model, headend, agent kind and project, with
the most expensive, slowest and most failing sessions and the agents failing most, over a time range chosen with
keys.

Every number comes from SQL over the sessions index (tui.catalog.index.stats), queried in a thread worker: the
screen only draws the answer. Enter on a day or a group dismisses the screen with the browser filter that lists
those sessions (the browser applies it: `day:`, `agent:`, `model:`, `kind:`, `project:` and `since:` terms,
tui.catalog.row_filter); Enter on a top session opens it (OpenSession).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.catalog.index import stats as st
from tui.model.fields import one_line, printable
from tui.model.format import fmt_cost, fmt_duration, fmt_known_cost, fmt_tokens, fmt_ts
from tui.text.stats_text import bar, daily, group_key, sparkline
from tui.ui.messages import OpenSession
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.motion import TableMotion

# (key, label, seconds back from now; None: all time)
RANGES = (("1", "1d", 86400.0), ("7", "7d", 7 * 86400.0), ("3", "30d", 30 * 86400.0), ("a", "all", None))
RANGE_NAMES = tuple(name for _, name, _ in RANGES)
DEFAULT_RANGE = "7d"
GROUP_TABLES = ("agent", "model", "headend", "kind", "project")  # kind: the agent kind (ai-agent, claude-code, ..)
TOP_TABLES = (("expensive", "most expensive"), ("slowest", "slowest"), ("failing", "most failed ops"))
KEY_WIDTH = 28  # a group's key column, when the screen is wide enough
KEY_MIN = 12  # ... and at 80 columns (a day is 10 cells)
BAR_MIN = 10  # the cost bar: 80 columns still show one you can read
NUMBER_COLUMNS = (("cost", 10), ("sessions", 8), ("failed", 9), ("tokens in", 9), ("out", 8))
TOP_COLUMNS = (("value", 10), ("started", 16))  # then agent and title, sized to the screen
TITLE_MIN = 20
MAX_ROWS = 39  # a table's rows shown without scrolling it (then it scrolls inside)
PAD = 2  # a DataTable cell's padding (one cell each side)
CHROME = 4  # the tables' margins and the body's scrollbar


class StatsTable(TableMotion):
    """One table of the screen: as tall as its rows (the screen scrolls), a row cursor."""

    @property
    def fitted_height(self) -> int:
        """The header line, and at most MAX_ROWS rows (the screen scrolls, not the table)."""
        return min(self.row_count, MAX_ROWS) + 1

    def fit_rows(self) -> None:
        """Its height set from its rows as they are given, not left to `height: auto`: auto follows the scrolling
        size DataTable measures at its next idle, and a table laid out empty in between sometimes kept height 0
        (a failing snapshot run, 10 s later: scrolling size 2 rows, region 0 high; 1 run in ~20 on a loaded
        machine)."""
        self.styles.height = self.fitted_height


def filter_term(name: str, value: str) -> str:
    """A browser filter term for a group key: its first word (the filter splits on spaces); "" when empty."""
    word = value.split()[0] if value.split() else ""
    return f"{name}:{word}" if word else ""


class StatsScreen(Screen):
    CSS_PATH = "stats.tcss"
    BINDINGS = [
        Binding("1", "range('1d')", "1d", id="stats.range_1d"),
        Binding("7", "range('7d')", "7d", id="stats.range_7d"),
        Binding("3", "range('30d')", "30d", id="stats.range_30d"),
        Binding("a", "range('all')", "All", id="stats.range_all"),
        Binding("c", "toggle_accounting", "Acct cost", id="stats.toggle_accounting"),
        Binding("r", "refresh", "Refresh", id="stats.refresh"),
        Binding("escape", "close", "Back", show=False, id="stats.close"),
        Binding("question_mark", "app.help", "Help", key_display="?", id="stats.help"),
        Binding("q", "close", "Back", id="stats.close_q"),
    ]

    def __init__(self, sessions_dir: Path | None, *, range_name: str | None = None,
                 index_path: Path | None = None) -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.index_path = index_path  # None: the index of sessions_dir (tui.catalog.index.reader)
        # No range asked for: the first that has sessions (7d, then 30d, then all), so that the screen never opens
        # empty on a directory of older sessions; a range asked for (a key, the config file) is kept as it is.
        self.range_name = range_name or DEFAULT_RANGE
        self.widening = range_name is None
        self.widened_from = ""  # the range that had no sessions, said in the header
        self.accounting = False  # show accounting.jsonl's cost beside the sessions' own
        self.stats: st.Stats | None = None
        self.problem = ""  # why there is nothing to show (no index yet), with what to do
        self._asked = 0  # the newest query: an older one finishing later is not drawn
        self._shown = -1  # the query whose answer is on screen

    @property
    def settled(self) -> bool:
        """The newest query's answer is drawn: nothing changes now until a key asks again (what waiting ends on).
        Drawn means laid out too: a table given its rows takes its fitted height at the next layout, and a
        screenshot taken before that showed the titles over empty tables."""
        return self._shown == self._asked and all(
            table.region.height == table.fitted_height for table in self.query(StatsTable) if table.row_count)

    def compose(self) -> ComposeResult:
        yield Static(id="stats-header")
        with VerticalScroll(id="stats-body"):
            yield Static(id="stats-sparks")
            # the most expensive sessions first, under the sparklines, with the keys: on screen as it opens, even at
            # 80x24 (they were the sixth table down, five tabs and a scroll away)
            yield from self._top_tables(TOP_TABLES[:1])
            yield Static("per day (Enter: the browser filtered to that day)", classes="stats-title",
                         id="title-stats-day")
            yield StatsTable(id="stats-day", cursor_type="row")
            for name in GROUP_TABLES:
                yield Static(f"by {name}", classes="stats-title", id=f"title-stats-{name}")
                yield StatsTable(id=f"stats-{name}", cursor_type="row")
            yield Static("agents failing most", classes="stats-title", id="title-stats-failing-agents")
            yield StatsTable(id="stats-failing-agents", cursor_type="row")
            yield from self._top_tables(TOP_TABLES[1:])
        yield Footer()

    @staticmethod
    def _top_tables(tables: tuple[tuple[str, str], ...]) -> ComposeResult:
        for name, title in tables:
            yield Static(f"{title} (Enter opens the session)", classes="stats-title", id=f"title-stats-top-{name}")
            yield StatsTable(id=f"stats-top-{name}", cursor_type="row")

    def on_mount(self) -> None:
        self.query_one("#stats-top-expensive", StatsTable).focus(scroll_visible=False)  # (its top stays in view)
        self.action_refresh()

    # ------------------------------------------------------------------------------------------- the query
    def span(self) -> st.TimeRange:
        seconds = next((s for _, name, s in RANGES if name == self.range_name), None)
        return st.last(seconds)

    def action_range(self, name: str) -> None:
        self.range_name = name
        self.widening, self.widened_from = False, ""  # chosen: kept even when empty
        self.action_refresh()

    def on_descendant_focus(self) -> None:
        """Which table has the keys: its title is shown reversed, besides the table's own edge (tcss)."""
        focused = self.focused
        for title in self.query(".stats-title").results(Static):
            mine = focused is not None and title.id == f"title-{focused.id}"
            title.set_class(mine, "-focused")

    def action_toggle_accounting(self) -> None:
        self.accounting = not self.accounting
        self.action_refresh()

    def action_refresh(self) -> None:
        self.query_one("#stats-header", Static).update(Text(f"stats · {self.range_name} · querying…"))
        span, accounting = self.span(), self.accounting
        self._asked += 1
        asked = self._asked
        self.run_worker(lambda: self._query(span, accounting, asked), name="stats", group="stats", thread=True,
                        exit_on_error=False)

    def _query(self, span: st.TimeRange, accounting: bool, asked: int = 0) -> None:
        """In a thread: the whole screen's numbers (a few SQL aggregates), then drawn on the UI thread."""
        from tui.catalog.index.accounting_cost import accounting_path, attach, read_cost
        from tui.catalog.index.reader import add_stats_index, ask, index_file

        result: st.Stats | None = None
        if self.sessions_dir is None and self.index_path is None:
            problem = "no sessions directory: stats need one (--sessions-dir)"
        else:
            path = self.index_path or index_file(self.sessions_dir or Path("."))
            add_stats_index(path)
            result, problem = ask(path, lambda conn: st.collect(conn, span), "the sessions index cannot be read")
            if result is not None and accounting:
                acc = accounting_path(self.sessions_dir)
                if acc is None:
                    problem = "no accounting.jsonl in or beside the sessions directory"
                else:
                    attach(result, read_cost(acc, span))
        self.app.call_from_thread(self._show, result, problem, asked)

    # ------------------------------------------------------------------------------------------- drawing
    def _show(self, result: st.Stats | None, problem: str, asked: int = 0) -> None:
        if asked != self._asked:
            return  # a newer query is on its way
        if self.widening and result is not None and not result.totals.sessions and self.range_name != "all":
            self.widened_from = self.widened_from or self.range_name
            self.range_name = RANGE_NAMES[RANGE_NAMES.index(self.range_name) + 1]
            self.action_refresh()  # the next wider range (the index answers in milliseconds)
            return
        self.widening = False
        self.stats, self.problem = result, problem
        self._shown = asked
        header = Text(f"stats · {self.range_name}", style="bold")
        if self.widened_from:
            header.append(f" (no sessions in the last {self.widened_from})", style="dim")
        if result is not None:
            t = result.totals
            header.append(f" · {result.range.label()} · {t.sessions:,} sessions · {t.failures:,} failed · "
                          f"{fmt_tokens(t.tokens_in)} in / {fmt_tokens(t.tokens_out)} out · {fmt_cost(t.cost_usd)}")
            if t.accounting_cost_usd is not None:
                header.append(f" (accounting.jsonl {fmt_cost(t.accounting_cost_usd)})")
        if problem:
            header.append("\n" + printable(problem), style="yellow")
        self.query_one("#stats-header", Static).update(header)
        self._sparks(result)
        self._day_table(result)
        for name in GROUP_TABLES:
            self._group_table(f"#stats-{name}", name, result.by.get(name, []) if result else [])
        self._group_table("#stats-failing-agents", "agent", result.failing_agents if result else [], failing=True)
        for name, _ in TOP_TABLES:
            self._top_table(name, getattr(result, name) if result else [])

    def _sparks(self, result: st.Stats | None) -> None:
        days = result.by.get("day", []) if result else []
        text = Text()
        if days:
            text.append(f"{days[0].key} → {days[-1].key}\n", style="dim")
            for name, get in (("cost", lambda g: g.cost_usd), ("tokens", lambda g: g.tokens_in + g.tokens_out),
                              ("sessions", lambda g: g.sessions), ("failures", lambda g: g.failures)):
                text.append(f"{name:<9}")
                text.append(sparkline(daily(days, get)) + ("" if name == "failures" else "\n"),
                            style="red" if name == "failures" else "green")
        elif result is not None:
            text.append("no sessions in this time range", style="dim")
        self.query_one("#stats-sparks", Static).update(text)

    def on_resize(self) -> None:
        if self.stats is not None:  # the column widths follow the screen's (80 columns cut nothing)
            self._show(self.stats, self.problem, self._asked)

    def _group_widths(self, accounting: bool) -> tuple[int, int]:
        """The key and bar columns' widths: every number shows at any width; the key column takes what the bar
        (BAR_MIN..30) leaves, up to KEY_WIDTH."""
        numbers = sum(w + PAD for _, w in NUMBER_COLUMNS) + (10 + PAD if accounting else 0)
        room = self.size.width - CHROME - numbers - 2 * PAD
        key = max(KEY_MIN, min(KEY_WIDTH, room - BAR_MIN))
        return key, max(1, min(30, room - key))

    def _top_widths(self) -> tuple[int, int]:
        """The agent and title columns of a top table: the title takes the rest of the screen (≥ TITLE_MIN)."""
        room = self.size.width - CHROME - sum(w + PAD for _, w in TOP_COLUMNS) - 2 * PAD
        agent = 20 if room >= 20 + 60 else 14
        return agent, max(TITLE_MIN, min(120, room - agent))

    def _columns(self, table: DataTable, first: str, accounting: bool) -> None:
        table.clear(columns=True)
        key, bar_width = self._group_widths(accounting)
        table.add_column(first, width=key, key="key")
        for label, width in NUMBER_COLUMNS:
            table.add_column(label, width=width)
        if accounting:
            table.add_column("acct.jsonl", width=10)
        table.add_column("", width=bar_width, key="bar")

    def _group_row(self, g: st.Group, by: str, peak: float, accounting: bool) -> list:
        key, bar_width = self._group_widths(accounting)
        cells = [Text(group_key(g.key, by, key)),
                 Text(fmt_known_cost(g.cost_usd, g.costed), justify="right"),
                 Text(f"{g.sessions:,}", justify="right"),
                 Text(f"{g.failures:,} {g.failure_rate * 100:.0f}%", justify="right",
                      style="red" if g.failures else ""),
                 Text(fmt_tokens(g.tokens_in), justify="right"), Text(fmt_tokens(g.tokens_out), justify="right")]
        if accounting:
            cells.append(Text(fmt_cost(g.accounting_cost_usd or 0.0), justify="right"))
        cells.append(Text(bar(g.cost_usd, peak, bar_width), style="green"))
        return cells

    def _day_table(self, result: st.Stats | None) -> None:
        self._group_table("#stats-day", "day", result.by.get("day", []) if result else [])

    def _group_table(self, selector: str, by: str, groups: list[st.Group], failing: bool = False) -> None:
        table = self.query_one(selector, StatsTable)
        accounting = (self.stats is not None and self.stats.totals.accounting_cost_usd is not None
                      and by in ("day", "agent", "model") and not failing)
        self._columns(table, by, accounting)
        peak = max((g.cost_usd for g in groups), default=0.0)
        for i, g in enumerate(groups):
            table.add_row(*self._group_row(g, by, peak, accounting), key=f"{by}\x00{i}\x00{g.key}")
        table.fit_rows()
        table.display = bool(groups)

    def _top_table(self, name: str, sessions: list[st.TopSession]) -> None:
        table = self.query_one(f"#stats-top-{name}", StatsTable)
        table.clear(columns=True)
        agent, title = self._top_widths()
        for label, width in (*TOP_COLUMNS, ("agent", agent), ("title", title)):
            table.add_column(label, width=width)
        for i, s in enumerate(sessions):
            value = {"expensive": fmt_cost(s.cost_usd or 0.0), "slowest": fmt_duration(s.duration_ms),
                     "failing": f"{s.failed_ops:,} ✗"}[name]
            table.add_row(Text(value, justify="right"), Text(fmt_ts(s.started_ms)), Text(one_line(s.agent, agent)),
                          Text(one_line(s.title or s.session_id, title)), key=f"{i}\x00{s.path}")
        table.fit_rows()
        table.display = bool(sessions)

    # ------------------------------------------------------------------------------------------- Enter
    def range_term(self) -> str:
        return "" if self.range_name == "all" else f"since:{self.range_name}"

    def filter_for(self, by: str, key: str) -> str:
        """The browser filter listing the sessions of one day or group in the screen's time range."""
        if by == "day":
            return f"day:{key}" if key else self.range_term()
        if by == "headend" or (by == "kind" and key == "ai-agent"):  # the browser's rows do not know their headend,
            return self.range_term()  # and ai-agent's kind there is snapshot or ledger: the time range only
        return " ".join(t for t in (filter_term(by, key), self.range_term()) if t)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        table_id = event.data_table.id or ""
        key = str(event.row_key.value)
        if table_id.startswith("stats-top-"):
            path = key.split("\x00", 1)[1]
            self.post_message(OpenSession(path))
            return
        by, _, group_key = key.split("\x00", 2)
        if by == "headend":
            self.notify("the browser has no headend column: showing the time range", severity="warning")
        self.dismiss(self.filter_for(by, group_key))

    def action_close(self) -> None:
        self.dismiss(None)
