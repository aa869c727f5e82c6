"""The insights laid out as plain text lines: `dump --insights` prints them, the insights panel shows them."""

from __future__ import annotations

from dataclasses import dataclass

from tui.model.fields import one_line
from tui.model.format import fmt_cost, fmt_duration, fmt_tokens
from tui.model.insights import SLOWEST, Insights, Usage

TEXT_ROWS = 50  # rows per section in the text output; the JSON has them all

@dataclass(slots=True)
class Line:
    """One line of the laid-out insights: a section heading, an entry (jumps to `path`) or a note."""

    kind: str  # "heading" | "entry" | "note"
    text: str
    path: str | None = None  # where Enter jumps ("" = the session itself); None: nowhere
    tone: str = ""  # "" | "error" | "warning" | "good" | "dim"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def _table(rows: list[tuple[list[str], str | None, str]]) -> list[Line]:
    """Entries with their cells padded into columns (the last cell is left free)."""
    if not rows:
        return []
    widths = [0] * max(len(cells) for cells, _, _ in rows)
    for cells, _, _ in rows:
        for i, cell in enumerate(cells[:-1]):
            widths[i] = max(widths[i], len(cell))
    out = []
    for cells, path, tone in rows:
        text = "  ".join(cell.ljust(widths[i]) if i < len(cells) - 1 else cell for i, cell in enumerate(cells))
        out.append(Line("entry", "  " + text.rstrip(), path, tone))
    return out


def _usage_cells(u: Usage, total_cost: float, calls: str) -> list[str]:
    share = f"{u.cost / total_cost * 100:.0f}%" if total_cost > 0 else ""
    cells = [one_line(u.key, 60), calls, f"in {fmt_tokens(u.tokens_in)}", f"out {fmt_tokens(u.tokens_out)}",
             f"cR {fmt_tokens(u.cache_read)}", f"cW {fmt_tokens(u.cache_write)}", fmt_cost(u.cost), share]
    return cells


def lines(ins: Insights, *, limit: int | None = None) -> list[Line]:
    """The insights as text lines; `limit` caps the entries of each list section (None: all)."""
    out: list[Line] = []

    def section(title: str, rows: list[tuple[list[str], str | None, str]], empty: str) -> None:
        out.append(Line("heading", title))
        if not rows:
            out.append(Line("note", "  " + empty, None, "dim"))
            return
        shown = rows if limit is None else rows[:limit]
        out.extend(_table(shown))
        if len(shown) < len(rows):
            out.append(Line("note", f"  … {len(rows) - len(shown):,} more (dump --json --insights lists them all)",
                            None, "dim"))

    section(f"Failed ops ({len(ins.failed_ops):,})", [
        ([f.path, f.kind.upper(), one_line(f.target, 40), one_line(f.agent, 30),
          one_line(" — ".join(x for x in (f.error, f.detail) if x), 160)], f.path, "error")
        for f in ins.failed_ops], "none")
    section(f"Fatal logs ({len(ins.fatal_logs):,})", [
        ([f.path, f.severity, one_line(f.message, 200)], f.path, "error") for f in ins.fatal_logs], "none")
    section(f"Slowest ops (top {SLOWEST}, sub-agent ops excluded)", [
        ([s.path, s.kind.upper(), fmt_duration(s.duration_ms), one_line(s.target, 80)], s.path, "")
        for s in ins.slowest], "no finished ops")
    cost = ins.cost
    section("Cost and tokens by model", [
        (_usage_cells(u, cost, _plural(u.calls, "call") if u.calls else _plural(u.ops, "op"))
         + ([f"{u.failed} failed"] if u.failed else []), u.path, "warning" if u.failed else "")
        for u in ins.by_model], "no LLM calls")
    section("Cost and tokens by agent (own ops, sub-agents apart)", [
        (_usage_cells(u, cost, f"{u.calls:,}× {u.ops:,} ops") + ([f"{u.failed} failed"] if u.failed else []),
         u.path, "warning" if u.failed else "")
        for u in ins.by_agent], "no agents")
    section("Tools", [
        ([one_line(u.key, 60), _plural(u.calls, "call"), f"{u.failed:,} failed" if u.failed else "",
          f"total {fmt_duration(u.duration_ms)}", f"max {fmt_duration(u.max_ms)}"], u.path,
         "error" if u.failed else "")
        for u in ins.by_tool], "no tool calls")
    out.append(Line("heading", "Cache and errors"))
    total_in = ins.tokens_in + ins.cache_read + ins.cache_write
    out.append(Line("entry", f"  cache read {_pct(ins.cache_share)} of input tokens ({fmt_tokens(ins.cache_read)} of "
                             f"{fmt_tokens(total_in)} = in + cache read + cache write; cache write "
                             f"{fmt_tokens(ins.cache_write)})", None, "good" if (ins.cache_share or 0) >= 0.5 else ""))
    out.append(Line("entry", f"  tool error rate {_pct(ins.tool_error_rate)} ({ins.tool_failed:,} of "
                             f"{ins.tool_calls:,} tool calls failed)",
                    ins.first_failed_tool or None, "error" if ins.tool_failed else ""))
    section(f"Retries ({len(ins.retries):,} turns with more than one attempt)", [
        ([r.path, one_line(r.agent, 30), one_line(r.turn, 30), f"{r.attempts} attempts", one_line(r.reason, 100)],
         r.path, "warning")
        for r in ins.retries], "none")
    out.append(Line("heading", "Final report"))
    report = ins.final_report
    if report is None:
        out.append(Line("note", "  none", None, "dim"))
    else:
        head = f"  {report.path or '(session)'}  {one_line(report.source, 40)}"
        if report.format:
            head += f"  {one_line(report.format, 20)}"
        if report.text:
            head += f"  {len(report.text):,} chars{' (cut)' if report.truncated else ''}"
        if report.captured is not None:
            head += "  captured" if report.captured else "  not captured"
        out.append(Line("entry", head, report.path, "good"))
        for text_line in [x for x in report.text.splitlines() if x.strip()][:3]:
            out.append(Line("entry", "    " + one_line(text_line, 200), report.path, "dim"))
        if report.content_json:
            out.append(Line("entry", "    content_json: " + one_line(report.content_json, 200), report.path, "dim"))
        if report.note:
            out.append(Line("note", f"    ({one_line(report.note, 120)})", report.path, "dim"))
    return out


def render_text(ins: Insights) -> str:
    """`dump --insights`: the laid-out lines, capped per section."""
    return "\n".join(line.text for line in lines(ins, limit=TEXT_ROWS)) + "\n"
