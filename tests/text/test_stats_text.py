"""The stats command's text (tui.text.stats_text): bars, sparklines, and hostile group keys kept inert."""

from __future__ import annotations

from tui.catalog.index.stats import Group, Stats, TimeRange
from tui.text.stats_text import bar, daily, render, sparkline


def test_bar_in_eighths():
    assert bar(0, 10) == "" and bar(5, 0) == ""
    assert bar(10, 10, width=4) == "████"
    assert bar(5, 10, width=4) == "██"
    assert bar(0.001, 10, width=4) == "▏"  # not zero: a sliver
    assert bar(20, 10, width=2) == "██"  # never past the width


def test_sparkline_scales_to_the_peak():
    assert sparkline([]) == ""
    assert sparkline([0, 0]) == "▁▁"
    line = sparkline([0, 1, 4, 8])
    assert line[0] == " " and line[-1] == "█" and len(line) == 4


def test_render_keeps_hostile_keys_inert():
    stats = Stats(TimeRange(), totals=Group("total", sessions=1, cost_usd=1.0))
    stats.by = {"day": [Group("2026-11-20", sessions=1, cost_usd=1.0)],
                "agent": [Group("\x1b[31mred\x1b[0m\nnext", sessions=1, cost_usd=1.0)]}
    text = "\n".join(render(stats, "agent"))
    assert "\x1b" not in text and "red" in text
    assert "no sessions" in render(Stats(TimeRange()), "day")[-1]


def test_daily_series_keeps_the_days_without_sessions():
    days = [Group("2026-11-20", sessions=2), Group("2026-11-23", sessions=4)]
    assert daily(days, lambda g: g.sessions) == [2.0, 0.0, 0.0, 4.0]
    assert daily([], lambda g: g.sessions) == []
    assert daily([Group("?", sessions=1)], lambda g: g.sessions) == [1.0]
    long = [Group("2020-01-01", sessions=1), Group("2026-01-01", sessions=3)]
    assert len(daily(long, lambda g: g.sessions)) == 120


def test_a_project_key_from_the_index_keeps_its_end_and_stays_inert():
    """An index written by something else may hold any project: the table shows its end (a path's end tells
    projects apart), escaped, in the key column's cells; an empty one is "(none)" (ai-agent's sessions)."""
    hostile = "\x1b[2J\x1b]0;x\x07/srv/" + "q" * 10_000 + "/app\u202e"
    stats = Stats(TimeRange(), totals=Group("total", sessions=2, cost_usd=1.0),
                  by={"day": [], "project": [Group(hostile, sessions=1, cost_usd=1.0), Group("", sessions=1)]})
    lines = render(stats, "project")
    table = lines[lines.index(next(line for line in lines if line.startswith("project"))):]
    assert table[1].startswith("…") and "/app" in table[1].split()[0]
    assert not any(ord(c) < 32 or c == "\u202e" for line in lines for c in line)
    assert table[1].index(" ") == 28 and table[2].startswith("(none) ")


def test_a_group_with_no_priced_session_shows_its_cost_as_unknown():
    """A model the price table does not know gives a session no cost: a group of only such sessions is "-" in the
    table (it used to read $0.0000, as if free), while a group with a recorded cost of 0 stays $0.0000."""
    stats = Stats(TimeRange(), totals=Group("total", sessions=3, cost_usd=0.5, costed=2),
                  by={"day": [], "model": [Group("known", sessions=1, cost_usd=0.5, costed=1),
                                           Group("free", sessions=1, cost_usd=0.0, costed=1),
                                           Group("mystery-model", sessions=1)]})
    lines = render(stats, "model")
    rows = {line.split()[0]: line.split() for line in lines if line.split() and line.split()[0] in
            ("known", "free", "mystery-model")}
    assert "$0.5000" in rows["known"]
    assert "$0.0000" in rows["free"]
    assert "-" in rows["mystery-model"] and "$0.0000" not in rows["mystery-model"]
