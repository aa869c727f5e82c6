"""A SessionDiff as plain text lines (the `diff` command), terminal-safe: untrusted text goes through one_line."""

from __future__ import annotations

from collections.abc import Iterator

from tui.model.diff import ADDED, CHANGED, REMOVED, RENAMED, STATUS, OpDelta, SessionDiff, Side
from tui.model.fields import one_line
from tui.model.format import fmt_duration, fmt_ts
from tui.model.session_facts import duration_text

# (label, key in totals/counts, source) for the totals table
TOTAL_ROWS = (
    ("tokens in", "tokensIn", "totals"), ("tokens out", "tokensOut", "totals"),
    ("cache read", "tokensCacheRead", "totals"), ("cache write", "tokensCacheWrite", "totals"),
    ("cost", "costUsd", "totals"), ("tools run", "toolsRun", "totals"), ("agents run", "agentsRun", "totals"),
    ("ops", "ops", "counts"), ("llm", "llm", "counts"), ("tool", "tool", "counts"), ("session", "session", "counts"),
    ("user turns", "turns", "counts"), ("turn records", "turnNodes", "counts"), ("failed", "failed", "counts"), ("logs", "logs", "counts"),
    ("errors", "errors", "counts"),
)
SECTIONS = ((ADDED, "added", "+"), (REMOVED, "removed", "-"), (STATUS, "status changed", "~"),
            (RENAMED, "renamed (same path, another call)", "≠"), (CHANGED, "changed usage or logs", "*"))


def fmt_value(key: str, value: float | int | None) -> str:
    if value is None:
        return "-"
    if key == "costUsd":
        return f"${value:.4f}"
    if key == "durationMs":
        return fmt_duration(value)
    return f"{value:,}"


def fmt_delta(key: str, value: float | int | None) -> str:
    if value is None:
        return "-"
    if not value:
        return "0" if key != "costUsd" else "$0"
    sign = "+" if value > 0 else "-"
    if key == "costUsd":
        return f"{sign}${abs(value):.4f}"
    if key == "durationMs":
        return sign + fmt_duration(abs(value))
    return f"{sign}{abs(value):,}"


def total_rows(diff: SessionDiff) -> list[tuple[str, str, str, str]]:
    """(label, before, after, delta) rows, duration and status last."""
    rows = []
    totals, counts = diff.totals_delta, diff.counts_delta
    for label, key, source in TOTAL_ROWS:
        before = getattr(diff.before.totals, key) if source == "totals" else diff.before.counts[key]
        after = getattr(diff.after.totals, key) if source == "totals" else diff.after.counts[key]
        delta = totals[key] if source == "totals" else counts[key]
        rows.append((label, fmt_value(key, before), fmt_value(key, after), fmt_delta(key, delta)))
    before, after = diff.before, diff.after
    rows.append(("duration", duration_text(before.duration_ms, before.duration_partial),
                 duration_text(after.duration_ms, after.duration_partial), fmt_delta("durationMs", diff.duration_delta)))
    status_change = "" if diff.before.status == diff.after.status else "changed"
    rows.append(("status", diff.before.status, diff.after.status, status_change))
    return rows


def side_line(name: str, side: Side) -> str:
    parts = [f"{name}: {one_line(side.label, 120)}", one_line(side.agent, 60), side.status,
             fmt_ts(side.started_at), duration_text(side.duration_ms, side.duration_partial)]
    if side.title:
        parts.append(f'"{one_line(side.title, 60)}"')  # escaped once: repr() would double every backslash
    return "  ".join(parts)


def usage_text(delta: OpDelta) -> str:
    u = delta.usage
    parts = []
    for key, short in (("tokensIn", "in"), ("tokensOut", "out"), ("tokensCacheRead", "cR"),
                       ("tokensCacheWrite", "cW")):
        if u.get(key):
            parts.append(f"{short} {fmt_delta(key, u[key])}")
    if u.get("costUsd"):
        parts.append(fmt_delta("costUsd", u["costUsd"]))
    if delta.logs:
        parts.append(f"logs {fmt_delta('logs', delta.logs)}")
    return " ".join(parts)


def status_text(delta: OpDelta) -> str:
    """An op's status word(s): the file's own text (any string), so escaped like every other untrusted value."""
    before, after = one_line(delta.status_before, 20), one_line(delta.status_after, 20)
    if delta.change == ADDED:
        return after
    if delta.change == REMOVED:
        return before
    if before != after:
        return f"{before} → {after}"
    return after


def what_text(delta: OpDelta, width: int = 60) -> str:
    target = one_line(delta.target, width)
    if delta.renamed:
        before = f"{delta.kind_before.upper()} " if delta.kind_before != delta.kind else ""
        return f"{target} (was {before}{one_line(delta.target_before, width)})"
    return target


def op_line(delta: OpDelta, mark: str, path_width: int = 14, what_width: int = 30) -> str:
    what = what_text(delta)
    parts = [f"  {mark} {one_line(delta.path, 60):<{path_width}}", f"{delta.kind.upper():<7}",
             f"{what:<{what_width}}", f"{status_text(delta):<18}"]
    usage = usage_text(delta)
    if usage:
        parts.append(usage)
    return "  ".join(parts)


def render(diff: SessionDiff) -> Iterator[str]:
    yield side_line("A", diff.before)
    yield side_line("B", diff.after)
    yield ""
    rows = total_rows(diff)
    widths = [max(len(r[i]) for r in [("", "A", "B", "Δ"), *rows]) for i in range(4)]
    yield f"{'':<{widths[0]}}  {'A':>{widths[1]}}  {'B':>{widths[2]}}  {'Δ':>{widths[3]}}"
    for label, before, after, delta in rows:
        yield f"{label:<{widths[0]}}  {before:>{widths[1]}}  {after:>{widths[2]}}  {delta:>{widths[3]}}"
    path_width = min(40, max((len(d.path) for d in diff.ops), default=0))
    what_width = min(60, max((len(what_text(d)) for d in diff.ops), default=0))
    for change, title, mark in SECTIONS:
        items = diff.of_kind(change)
        yield ""
        yield f"{title} ({len(items):,})" + (":" if items else "")
        for op_delta in items:
            yield op_line(op_delta, mark, path_width, what_width).rstrip()
    yield ""
    yield f"unchanged ops: {diff.unchanged:,}"
