"""Totals of the session in view: recomputed numbers, and a warning when the stored ones disagree."""

from __future__ import annotations

import time

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from tui.model.fields import one_line
from tui.model.foreign import Facts, facts_of
from tui.model.format import fmt_cost, fmt_duration
from tui.model.nodes import Session, user_turns
from tui.ui.widgets.node_labels import live_duration


def _n(value: int) -> str:
    return f"{value:,}"


SHORT = {"tokens in": "in", "cache read": "cR", "cache write": "cW", "tools run": "tools", "duration": "dur",
         "warnings": "WRN", "errors": "ERR"}


class TotalsPanel(Static):
    """Always describes the session currently in view (the root, or the sub-agent drilled into)."""

    def __init__(self, session: Session, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.border_title = "Totals"
        self.clock = lambda: int(time.time() * 1000)

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
        self.border_title = "Totals"
        t = s.totals
        now = self.clock() if s.running else None
        status = s.status
        style = {"running": "bold yellow", "failed": "bold red"}.get(status, "green")
        c = s.counts
        cells = [
            ("tokens in", _n(t.tokensIn)), ("out", _n(t.tokensOut)),
            ("cache read", _n(t.tokensCacheRead)), ("cache write", _n(t.tokensCacheWrite)),
            ("cost", Text(fmt_cost(t.costUsd), style="bold")), ("turns", _n(user_turns(s))),
            ("tools run", _n(t.toolsRun)), ("agents", _n(t.agentsRun)),
            ("duration", fmt_duration(live_duration(s.started_at, s.ended_at, now))),
            ("status", Text(("● " if status == "running" else "") + status, style=style)),
            ("ops", _n(c.ops)), ("failed", Text(_n(c.failed), style="bold red" if c.failed else "")),
            ("warnings", Text(_n(c.warnings), style="yellow" if c.warnings else "")),
            ("errors", Text(_n(c.errors), style="bold red" if c.errors else "")),
        ]
        if 0 < self.size.width < 48:  # a narrow terminal: same numbers, short labels
            cells = [(SHORT.get(label, label), value) for label, value in cells]
        per_row = 2
        table = Table.grid(padding=(0, 1))
        for _ in range(per_row):
            table.add_column(style="dim", no_wrap=True)
            table.add_column(justify="right", no_wrap=True)
        for i in range(0, len(cells), per_row):
            row = []
            for label, value in cells[i:i + per_row]:
                row.extend([label, value])
            table.add_row(*row)
        if s.mismatch and s.stored_totals is not None:
            stored = s.stored_totals
            lines = Text("⚠ stored totals disagree:\n", style="bold black on yellow")
            for key in s.mismatch:
                a, b = getattr(stored, key), getattr(t, key)
                if key == "costUsd":
                    a, b = fmt_cost(a), fmt_cost(b)
                lines.append(f"  {key}: stored {a}, recomputed {b}\n", style="yellow")
            grid = Table.grid()
            grid.add_row(table)
            grid.add_row(lines)
            self.update(grid)
            self.add_class("mismatch")
        else:
            self.update(table)
            self.remove_class("mismatch")

    def _show_facts(self, facts: Facts) -> None:
        self.border_title = Text(one_line(facts.title, 60))  # never a str: that would be parsed as markup
        narrow = 0 < self.size.width < 48
        table = Table.grid(padding=(0, 1))
        for _ in range(2):
            table.add_column(style="dim", no_wrap=True)
            table.add_column(justify="right", no_wrap=True)
        cells = [(one_line(f.label, 12 if narrow else 40),
                  Text(one_line(f.value, 200), style=FACT_STYLE.get(f.tone, "")))
                 for f in facts.cells]
        for i in range(0, len(cells), 2):
            row = []
            for label, value in cells[i:i + 2]:
                row.extend([Text(label), value])
            table.add_row(*row)
        if not facts.warnings:
            self.update(table)
            self.remove_class("mismatch")
            return
        lines = Text()
        for warning in facts.warnings[:6]:
            lines.append(f"⚠ {one_line(warning, 200)}\n", style="yellow")
        if len(facts.warnings) > 6:
            lines.append(f"… {len(facts.warnings) - 6} more (see the details of the session)\n", style="yellow")
        grid = Table.grid()
        grid.add_row(table)
        grid.add_row(lines)
        self.update(grid)
        self.add_class("mismatch")


FACT_STYLE = {"bad": "bold red", "warn": "yellow", "good": "green", "strong": "bold", "dim": "dim"}
