"""Stats across sessions as plain text (tui.catalog.index.stats): the `stats` command's table, with a bar per row
and a sparkline per series of the days. No textual: the Stats screen draws its own widgets from the same numbers
and takes `bar` and `sparkline` from here."""

from __future__ import annotations

import datetime
import math
import time

from tui.catalog.index.stats import Group, Stats, TopSession
from tui.model.agent_nodes import project_label
from tui.model.fields import one_line
from tui.model.format import fmt_cost, fmt_duration, fmt_known_cost, fmt_tokens

SPARKS = "▁▂▃▄▅▆▇█"
BAR_WIDTH = 24
MAX_SPARK = 120  # days in a sparkline (the newest)
KEY_WIDTH = 28


def bar(value: float, peak: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of `value` against `peak`, in eighths of a cell; at least a sliver when not zero."""
    if peak <= 0 or value <= 0:
        return ""
    eighths = max(1, round(width * 8 * min(value / peak, 1.0)))
    full, rest = divmod(eighths, 8)
    return "█" * full + ("" if not rest else " ▏▎▍▌▋▊▉"[rest])


def sparkline(values: list[float]) -> str:
    """One character per value, the highest value the full block; zeros as the lowest block's baseline."""
    values = [v if math.isfinite(v) else 0.0 for v in values]
    peak = max(values, default=0)
    if peak <= 0:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[min(len(SPARKS) - 1, int(v / peak * (len(SPARKS) - 1) + 0.5))] if v > 0 else " "
                   for v in values)


def daily(days: list[Group], get) -> list[float]:
    """The values of consecutive calendar days from the first group's to the last's, a day without sessions as 0
    (the groups list only days with sessions: a sparkline must not close the gaps). At most MAX_SPARK days, the
    newest."""
    values: list[float] = []
    try:
        first = datetime.date.fromisoformat(days[0].key)
        last = datetime.date.fromisoformat(days[-1].key)
    except (IndexError, ValueError):
        return [float(get(g)) for g in days]
    if (last - first).days >= MAX_SPARK:
        first = last - datetime.timedelta(days=MAX_SPARK - 1)
    by_key = {g.key: g for g in days}
    day = first
    while day <= last:
        group = by_key.get(day.isoformat())
        values.append(float(get(group)) if group is not None else 0.0)
        if day == datetime.date.max:  # (a day of year 9999 in an index written by something else)
            break
        day += datetime.timedelta(days=1)
    return values


def group_key(key: str, by: str, width: int = KEY_WIDTH) -> str:
    """A group's key in `width` cells, made safe (an index may hold anything): a project (a path, mostly) keeps its
    end, which tells projects apart; a group without a key is "(none)" (a project: ai-agent's files record none)."""
    if not key:
        return "(none)" if by != "day" else "?"
    if by == "project":
        return project_label(one_line(key[-4 * width:], 4 * width), width)
    return one_line(key, width)


def _pct(rate: float) -> str:
    return f"{rate * 100:.0f}%"


def group_table(groups: list[Group], by: str, *, accounting: bool = False) -> list[str]:
    """One line per group: key, sessions, failures (and rate), tokens in/out, cost, [accounting cost], a bar."""
    header = f"{by:<{KEY_WIDTH}} {'sessions':>8} {'failed':>10} {'tokens in':>10} {'out':>8} {'cost':>10}"
    if accounting:
        header += f" {'acct.jsonl':>10}"
    lines = [header]
    peak = max((g.cost_usd for g in groups), default=0.0)
    for g in groups:
        failed = f"{g.failures:,} {_pct(g.failure_rate)}"
        line = (f"{group_key(g.key, by):<{KEY_WIDTH}} {g.sessions:>8,} {failed:>10} "
                f"{fmt_tokens(g.tokens_in):>10} {fmt_tokens(g.tokens_out):>8} {fmt_known_cost(g.cost_usd, g.costed):>10}")
        if accounting:
            line += f" {fmt_cost(g.accounting_cost_usd or 0.0):>10}"
        lines.append(line + " " + bar(g.cost_usd, peak))
    return lines


def _top(title: str, sessions: list[TopSession], value) -> list[str]:
    if not sessions:
        return []
    lines = ["", title]
    for s in sessions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.started_ms / 1000)) if s.started_ms else "?"
        lines.append(f"  {value(s):>10}  {when}  {one_line(s.agent, 20):<20}  {one_line(s.title or s.session_id, 60)}")
        lines.append(f"  {'':>10}  {one_line(s.path, 200)}")
    return lines


def render(stats: Stats, by: str, *, accounting: bool = False) -> list[str]:
    """The `stats` command's text: totals, the days' sparklines, the table of `by`, the top lists."""
    t = stats.totals
    lines = [f"{stats.range.label()}: {t.sessions:,} sessions, {t.failures:,} failed ({_pct(t.failure_rate)}), "
             f"{t.failed_ops:,} failed ops, tokens {fmt_tokens(t.tokens_in)} in / {fmt_tokens(t.tokens_out)} out, "
             f"cost {fmt_cost(t.cost_usd)}"
             + (f" (~{fmt_cost(t.estimated_cost_usd)} of it estimated)" if t.estimated_cost_usd else "")
             + (f" (accounting.jsonl: {fmt_cost(t.accounting_cost_usd)})" if t.accounting_cost_usd is not None else "")]
    if t.sessions == 0:
        lines.append("no sessions in this time range")
        return lines
    days = stats.by.get("day", [])
    if days and by != "day":
        lines.append(f"per day {days[0].key} → {days[-1].key}:")
    if days:
        for name, get in (("cost", lambda g: g.cost_usd), ("tokens", lambda g: g.tokens_in + g.tokens_out),
                          ("sessions", lambda g: g.sessions), ("failures", lambda g: g.failures)):
            lines.append(f"  {name:<9}{sparkline(daily(days, get))}")
    lines.append("")
    lines.extend(group_table(stats.by.get(by, []), by, accounting=accounting))
    lines.extend(_top("most expensive", stats.expensive, lambda s: fmt_cost(s.cost_usd or 0.0)))
    lines.extend(_top("slowest", stats.slowest, lambda s: fmt_duration(s.duration_ms)))
    lines.extend(_top("most failed ops", stats.failing, lambda s: f"{s.failed_ops:,} ✗"))
    if stats.suspect_count:
        lines.extend(["", f"suspect: {stats.suspect_count:,} session{'s' if stats.suspect_count != 1 else ''} "
                          "with absurd numbers: counted at their bounds, or unknown (see each)"])
        for s in stats.suspect:
            lines.append(f"  {one_line(s.suspect, 110)}")
            lines.append(f"  {one_line(s.path, 200)}")
    if stats.failing_agents:
        lines.extend(["", "agents failing most"])
        for g in stats.failing_agents:
            lines.append(f"  {g.failures:>6,} of {g.sessions:<6,} {_pct(g.failure_rate):>5}  "
                         f"{group_key(g.key, 'agent')}")
    return lines
