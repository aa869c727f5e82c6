"""Totals of the session in view: recomputed numbers, and a warning when the stored ones disagree."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from tui.catalog.liveness import STALE, Liveness, is_stale, liveness
from tui.model.fields import one_line
from tui.model.foreign import Facts, facts_of
from tui.model.format import fmt_cost, fmt_tokens
from tui.model.nodes import Session
from tui.model.session_facts import session_facts
from tui.ui.widgets.steady_static import SteadyStatic, set_border_title

if TYPE_CHECKING:
    from tui.formats.aiagent.live.facts import LiveFacts


def _n(value: int) -> str:
    return f"{value:,}"


SHORT = {"tokens in": "in", "cache read": "cR", "cache write": "cW", "tools run": "tools", "duration": "dur",
         "warnings": "WRN", "errors": "ERR"}
MAX_ROWS = 7  # the two-column grid's height: a narrow panel drops its least important cells rather than grow


@dataclass(slots=True)
class Cell:
    """One number of the panel. `compact` is the same value in fewer cells (279.1k for 279,108), never a cut one;
    `rank` orders what a narrow panel drops first (higher goes first)."""

    label: str
    value: Text
    compact: Text | None = None
    rank: int = 0


def status_word(session: Session, state: Liveness | None = None) -> str:
    """The status word the panel shows: the browser's `stale` for a session with no end that has not changed for
    a while (`state`, from tui.catalog.liveness), else the session's own status."""
    return state.status if state is not None else session.status


STATUS_STYLE = {"running": ("● running", "bold yellow"), STALE: ("○ stale", "dim"), "failed": ("failed", "bold red")}


class FileChange:
    """When a session file last changed (its mtime, wall seconds; None for stdin or a file gone): the Totals
    panel's `last_change` for a file. Stat at most once a second: the tree's clock asks for each running node."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._seen: tuple[float, float | None] | None = None

    def __call__(self) -> float | None:
        now = time.monotonic()
        if self._seen is not None and now - self._seen[0] < 1.0:
            return self._seen[1]
        try:
            mtime = os.stat(self.path).st_mtime if self.path != "-" else None
        except (OSError, ValueError):
            mtime = None
        self._seen = (now, mtime)
        return mtime


def last_event(facts: Callable[[], LiveFacts]) -> Callable[[], float | None]:
    """The panel's `last_change` for a streamed root: the wall time of its last event (as its browser row), as of
    its newest build (`facts()`: LiveController.facts)."""
    return lambda: facts().updated or None


def went_silent(last_change: Callable[[], float | None]) -> Callable[[], bool]:
    """Whether a running session whose last change `last_change` gives is stale now (the tree's `○ stale`)."""
    return lambda: is_stale("running", last_change(), time.time())


def held_clock(last_change: Callable[[], float | None]) -> Callable[[], int]:
    """"Now" (wall ms) for the running nodes of a file, held at its last change once it went stale: a killed
    writer's turns show how long they ran, not a clock ticking for 5,000 hours."""
    def clock() -> int:
        now, last = time.time(), last_change()
        return int((last if last is not None and is_stale("running", last, now) else now) * 1000)
    return clock


def _width(text: Text | str) -> int:
    return text.cell_len if isinstance(text, Text) else cell_len(text)


def _grid(rows: list[list[tuple[str, Text]]]) -> Table:
    table = Table.grid(padding=(0, 1))
    for _ in range(max((len(row) for row in rows), default=1)):
        table.add_column(style="dim", no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*[part for label, value in row for part in (Text(label), value)])
    return table


def _grid_width(rows: list[list[tuple[str, Text]]]) -> int:
    columns = max((len(row) for row in rows), default=0)
    widths = [0] * (2 * columns)
    for row in rows:
        for i, (label, value) in enumerate(row):
            widths[2 * i] = max(widths[2 * i], _width(label))
            widths[2 * i + 1] = max(widths[2 * i + 1], _width(value))
    return sum(widths) + max(0, len(widths) - 1)


def _flow(pairs: list[tuple[str, Text]], width: int) -> list[Text]:
    """`label value` pairs packed into lines of at most `width` cells, two spaces apart."""
    lines: list[Text] = []
    line = Text()
    for label, value in pairs:
        cell = Text.assemble((label, "dim"), " ", value)
        if line.cell_len and line.cell_len + 2 + cell.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append("  ")
        line.append_text(cell)
    if line.cell_len:
        lines.append(line)
    return lines


def lay_out(cells: list[Cell], width: int, max_rows: int = MAX_ROWS) -> Table | Text:
    """The cells in `width` columns without cutting a value: a two-column grid with full labels, then short
    labels, then compact numbers; when even that is too wide, the cells flow into lines and the least important
    ones are dropped until the lines fit in `max_rows` (a value longer than the whole width wraps, never cut).
    `width` 0 (not laid out yet) takes the first grid."""
    attempts = [
        [(c.label, c.value) for c in cells],
        [(SHORT.get(c.label, c.label), c.value) for c in cells],
        [(SHORT.get(c.label, c.label), c.compact or c.value) for c in cells],
    ]
    for pairs in attempts:
        rows = [pairs[i:i + 2] for i in range(0, len(pairs), 2)]
        if width <= 0 or _grid_width(rows) <= width:
            return _grid(rows)
    kept = list(range(len(cells)))
    pairs = attempts[-1]
    lines = _flow(pairs, width)
    for drop in sorted(range(len(cells)), key=lambda i: (-cells[i].rank, -i)):
        if len(lines) <= max_rows or cells[drop].rank <= 0:
            break
        kept.remove(drop)
        lines = _flow([pairs[i] for i in kept], width)
    return Text("\n").join(lines)


def lines_at(shown: Table | Text, width: int) -> int | None:
    """The lines lay_out's result takes at `width` without drawing it: a grid is chosen only when its rows fit,
    one line each; flowed lines are one each unless one is wider (a value longer than the width wraps): None."""
    if isinstance(shown, Table):
        return shown.row_count
    lines = shown.split("\n")
    return len(lines) if all(line.cell_len <= width for line in lines) else None


class TotalsPanel(SteadyStatic):
    """Always describes the session currently in view (the root, or the sub-agent drilled into)."""

    def __init__(self, session: Session, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session
        set_border_title(self, "Totals")
        # when the session's file or stream last changed (wall seconds; None: unknown, never stale), and the
        # threshold (None: the process's --stale-after, as the browser)
        self.last_change: Callable[[], float | None] = lambda: None
        self.stale_after_s: float | None = None

    def on_mount(self) -> None:
        self.update_totals()

    def on_resize(self) -> None:
        self.update_totals()

    def update_totals(self) -> None:
        s = self.session
        facts = facts_of(s)  # Jules / Genkit sessions: their own numbers instead of tokens and cost
        if facts is not None:
            self._show_facts(facts)
            return
        set_border_title(self, "Totals")
        t = s.totals
        truth = session_facts(s)  # the one truth of duration, turns and cost (tui.model.session_facts)
        state = None
        if s.status == "running":  # running or stale: as the browser rows say it
            state = liveness(truth.status, truth.duration_ms, last_change_s=self.last_change(), now_s=time.time(),
                             stale_after_s=self.stale_after_s)
        status = status_word(s, state)
        label, style = STATUS_STYLE.get(status, (status, "green"))
        shown_duration = truth.duration_text
        c = s.counts

        def tokens(label: str, n: int, rank: int) -> Cell:
            return Cell(label, Text(_n(n)), Text(fmt_tokens(n)), rank)

        def count(label: str, n: int, style: str = "", rank: int = 0) -> Cell:
            return Cell(label, Text(_n(n), style=style if n else ""), Text(fmt_tokens(n), style=style if n else ""),
                        rank)

        cells = [
            tokens("tokens in", t.tokensIn, 0), tokens("out", t.tokensOut, 0),
            tokens("cache read", t.tokensCacheRead, 2), tokens("cache write", t.tokensCacheWrite, 3),
            Cell("cost", Text(truth.cost_text if truth.cost is not None else "unknown", style="bold")),  # ~$: estimate
            count("turns", truth.turns, rank=1),
            count("tools run", t.toolsRun, rank=1), count("agents", t.agentsRun, rank=2),
            Cell("duration", Text(shown_duration, style="dim" if status == STALE else "")),
            Cell("status", Text(label, style=style)),
            count("ops", c.ops, rank=1), count("failed", c.failed, "bold red"),
            count("warnings", c.warnings, "yellow", rank=1), count("errors", c.errors, "bold red"),
        ]
        table = lay_out(cells, self.content_size.width)
        if s.mismatch and s.stored_totals is not None:
            stored = s.stored_totals
            lines = Text("⚠ stored totals disagree:\n", style="bold black on yellow")
            for key in s.mismatch:
                a, b = getattr(stored, key), getattr(t, key)
                if key == "costUsd":
                    a, b = fmt_cost(a), fmt_cost(b)
                lines.append(f"  {key}: stored {a}, recomputed {b}\n", style="yellow")
            self._show(table, lines)
        else:
            self._show(table)

    def _show_facts(self, facts: Facts) -> None:
        set_border_title(self, Text(one_line(facts.title, 60)))  # never a str: that would be parsed as markup
        table = lay_out([Cell(one_line(f.label, 40), Text(one_line(f.value, 200), style=FACT_STYLE.get(f.tone, "")))
                         for f in facts.cells], self.content_size.width, max_rows=len(facts.cells))
        if not facts.warnings:
            self._show(table)
            return
        lines = Text()
        for warning in facts.warnings[:6]:
            lines.append(f"⚠ {one_line(warning, 200)}\n", style="yellow")
        if len(facts.warnings) > 6:
            lines.append(f"… {len(facts.warnings) - 6} more (see the details of the session)\n", style="yellow")
        self._show(table, lines)

    def _show(self, table: Table | Text, warnings: Text | None = None) -> None:
        """The grid, with the warning lines under it and the panel's border marked when there are any."""
        if warnings is None:
            self.update(table, lines=lines_at(table, self.content_size.width))
        else:
            grid = Table.grid()
            grid.add_row(table)
            grid.add_row(warnings)
            self.update(grid)
        self.set_class(warnings is not None, "mismatch")


FACT_STYLE = {"bad": "bold red", "warn": "yellow", "good": "green", "strong": "bold", "dim": "dim"}
