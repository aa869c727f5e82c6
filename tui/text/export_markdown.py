"""A session as a Markdown report: Overview, Insights, Timeline and Errors (in the spirit of Jules' toMarkdown).

Everything that comes from the file is untrusted: it goes through `markdown_safe` (escaped inline text, or fenced
blocks for payload-like text), never into the Markdown as is.
"""

from __future__ import annotations

from collections.abc import Iterator

from tui.model.fields import as_dict, as_list, one_line
from tui.model.format import fmt_cost, fmt_duration, fmt_tokens, fmt_ts
from tui.model.session_facts import session_facts, shown_duration
from tui.model.insights import Insights, Usage, compute
from tui.model.logs import LogEntry, op_logs
from tui.model.nodes import Op, Session, Turn
from tui.model.op_facts import OpFacts, facts_parts, op_facts
from tui.model.search import walk_ops
from tui.model.trampoline import flatten
from tui.text import markdown_safe as md

ERROR_LOGS = 20  # logs listed under each failed op
ERROR_OPS = 500  # failed ops detailed in the Errors section


def render(session: Session, *, source: str = "", insights: Insights | None = None) -> str:
    ins = insights if insights is not None else compute(session)
    parts = [f"# Session report: {md.text(session.display_agent, 120)}", ""]
    if source:
        parts += [f"Exported by aiagent-monitor from {md.code(source, 300)}.", ""]
    parts += _overview(session, ins)
    parts += _insights(ins)
    parts += ["## Timeline", ""]
    parts.extend(_timeline(session, 0))
    parts.append("")
    parts += _errors(session, ins)
    return "\n".join(parts).rstrip("\n") + "\n"


# overview ---------------------------------------------------------------------------------------------------

def _overview(s: Session, ins: Insights) -> list[str]:
    rows = [
        ("Agent", md.text(s.agent_id or s.display_agent)),
        ("Call path", md.text(s.call_path) if s.call_path else ""),
        ("Title", md.text(s.title) if s.title else ""),
        ("Trace id", md.text(s.trace_id) if s.trace_id else ""),
        ("Session id", md.text(s.id) if s.id else ""),
    ]
    if s.parent_op is not None:
        parent = s.parent_op.turn.session
        rows.append(("Sub-agent of", f"op {md.text(s.parent_op.path)} of {md.text(parent.display_agent)}"))
    models = [u for u in ins.by_model if u.calls]
    rows.append(("Models", ", ".join(f"{md.text(u.key, 80)} ({u.calls:,})" for u in models) or "none"))
    status = {"failed": "**failed**", "running": "running"}.get(s.status, "ok")
    if s.error:
        status += f": {md.text(s.error, 300)}"
    rows += [
        ("Status", status),
        ("Started", fmt_ts(s.started_at) + (" UTC" if s.started_at is not None else "")),
        ("Ended", fmt_ts(s.ended_at) + " UTC" if s.ended_at is not None else "not yet"),
        ("Duration", shown_duration(s)),
    ]
    if s.latest_status:
        rows.append(("Latest status", md.text(s.latest_status)))
    rows.append(("User turns", f"{session_facts(s).turns:,}"))
    report = ins.final_report
    if report is not None:
        where = f" at op {_path(report.path)}" if report.path else ""
        fmt = f", format {md.text(report.format, 40)}" if report.format else ""
        rows.append(("Final report", f"{md.text(report.source, 80)}{where}{fmt} (see Insights)"))
    plugins = _plugin_metas(s)
    if plugins:
        rows.append(("Plugin metas", md.text(plugins, 600)))
    out = ["## Overview", "", md.table(["", ""], [[f"**{k}**", v] for k, v in rows if v]), ""]
    t, c = s.totals, s.counts
    facts = session_facts(s)  # turns and cost as every view says them (tui.model.session_facts)
    header = ["tokens in", "tokens out", "cache read", "cache write", "cost", "tools run", "agents run",
              "user turns", "turn records", "ops", "failed ops", "warnings", "errors"]
    row = [f"{t.tokensIn:,}", f"{t.tokensOut:,}", f"{t.tokensCacheRead:,}", f"{t.tokensCacheWrite:,}",
           _cost(facts.cost) if facts.cost is not None else "unknown", f"{t.toolsRun:,}", f"{t.agentsRun:,}",
           f"{facts.turns:,}", f"{c.turns:,}", f"{c.ops:,}", f"{c.failed:,}", f"{c.warnings:,}", f"{c.errors:,}"]
    if c.steps:
        header.insert(9, "steps")
        row.insert(9, f"{c.steps:,}")
    out += ["### Totals", "", md.table(header, [row]), ""]
    if s.mismatch and s.stored_totals is not None:
        stored = s.stored_totals
        diffs = ", ".join(f"{key}: stored {getattr(stored, key)}, recomputed {getattr(t, key)}" for key in s.mismatch)
        out += [f"> **Warning:** the stored totals disagree with the recomputed ones ({md.text(diffs, 600)}).", ""]
    return out


# insights ---------------------------------------------------------------------------------------------------

def _insights(ins: Insights) -> list[str]:
    out = ["## Insights", ""]
    out += [f"### Failed ops ({len(ins.failed_ops):,})", ""]
    out += [md.table(["op", "kind", "target", "agent", "error"], [
        [_path(f.path), f.kind, md.text(f.target, 80), md.text(f.agent, 60),
         md.text(" — ".join(x for x in (f.error, f.detail) if x), 240)] for f in ins.failed_ops[:ERROR_OPS]])
        if ins.failed_ops else "None.", ""]
    out += [f"### Fatal logs ({len(ins.fatal_logs):,})", ""]
    out += [md.table(["op", "time", "message"], [
        [_path(f.path), fmt_ts(f.ts), md.text(f.message, 400)] for f in ins.fatal_logs])
        if ins.fatal_logs else "None.", ""]
    out += ["### Slowest ops", "", "Sub-agent ops are left out: they contain their children.", ""]
    out += [md.table(["op", "kind", "duration", "target"], [
        [_path(s.path), s.kind, fmt_duration(s.duration_ms), md.text(s.target, 80)] for s in ins.slowest])
        if ins.slowest else "No finished ops.", ""]
    out += ["### Cost and tokens by model", "", _usage_table("model", ins.by_model, ins.cost, "calls"), ""]
    out += ["### Cost and tokens by agent", "", "Each agent's own ops; its sub-agents are counted apart.", "",
            _usage_table("agent", ins.by_agent, ins.cost, "runs"), ""]
    out += ["### Tools", ""]
    out += [md.table(["tool", "calls", "failed", "total time", "slowest", "see"], [
        [md.text(u.key, 80), f"{u.calls:,}", f"{u.failed:,}", fmt_duration(u.duration_ms), fmt_duration(u.max_ms),
         _path(u.path)] for u in ins.by_tool]) if ins.by_tool else "No tool calls.", ""]
    share, rate = ins.cache_share, ins.tool_error_rate
    total_in = ins.tokens_in + ins.cache_read + ins.cache_write
    out += ["### Cache and tool errors", "",
            f"- Cache read share: **{_pct(share)}** of input tokens ({ins.cache_read:,} cache read of {total_in:,} "
            f"= tokens in + cache read + cache write).",
            f"- Tool error rate: **{_pct(rate)}** ({ins.tool_failed:,} of {ins.tool_calls:,} tool calls failed"
            + (f"; first at {_path(ins.first_failed_tool)}" if ins.first_failed_tool else "") + ").", ""]
    out += [f"### Retries ({len(ins.retries):,})", ""]
    out += [md.table(["op", "agent", "turn", "attempts", "reason"], [
        [_path(r.path), md.text(r.agent, 60), md.text(r.turn, 40), str(r.attempts), md.text(r.reason, 200)]
        for r in ins.retries]) if ins.retries else "No turn needed more than one attempt.", ""]
    out += ["### Final report", ""]
    report = ins.final_report
    if report is None:
        out += ["None.", ""]
    else:
        where = f"op {_path(report.path)}, " if report.path else ""
        fmt = f", {md.text(report.format, 40)}" if report.format else ""
        out += [f"From {where}{md.text(report.source, 80)}{fmt}:", ""]
        if report.text:
            lang = "markdown" if report.format in ("", "markdown") else "json" if report.format == "json" else ""
            out += [md.block(report.text, lang, limit=len(report.text)), ""]
        if report.content_json:
            out += ["content_json:", "", md.block(report.content_json, "json", limit=len(report.content_json)), ""]
        if report.captured is not None:
            out += [f"Captured: {'yes' if report.captured else 'no'}.", ""]
        if report.note:
            out += [f"_No content: {md.text(report.note, 200)}._", ""]
        if report.truncated:
            out += ["_The report was cut: see the JSON export or the file._", ""]
    return out


def _usage_table(name: str, rows: list[Usage], total_cost: float, calls: str) -> str:
    if not rows:
        return "None."
    return md.table([name, calls, "ops", "failed", "tokens in", "tokens out", "cache read", "cache write", "cost",
                     "share", "see"], [
        [md.text(u.key, 80), f"{u.calls:,}", f"{u.ops:,}", f"{u.failed:,}", f"{u.tokens_in:,}", f"{u.tokens_out:,}",
         f"{u.cache_read:,}", f"{u.cache_write:,}", _cost(u.cost),
         f"{u.cost / total_cost * 100:.0f}%" if total_cost > 0 else "-", _path(u.path)] for u in rows])


def _cost(usd: float) -> str:
    """A dollar amount, its `$` escaped: two on a line read as math on GitHub."""
    return "\\" + fmt_cost(usd)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def _path(path: str) -> str:
    """Op paths are built by the loader from turn numbers and positions: digits, `S`, `-` and `.` only."""
    return f"`{path}`" if path else "(session)"


# timeline ---------------------------------------------------------------------------------------------------

def _in_time_order(items):
    return sorted(items, key=lambda x: (x.started_at is None, x.started_at or 0))


def _ops_in_time_order(ops: list[Op]) -> list[tuple[Op, OpFacts]]:
    """Ops with their facts, in time order; an op without a start sits at its stand-in time (record/accounting)."""
    pairs = [(op, op_facts(op)) for op in ops]
    return sorted(pairs, key=lambda p: (p[1].when is None, p[1].when or 0))


def _timeline(s: Session, level: int) -> Iterator[str]:
    """The timeline lines; sub-agents are walked with an explicit stack (no recursion: any depth)."""
    return flatten(_timeline_body(s, level))


def _timeline_body(s: Session, level: int) -> Iterator:
    pad = "  " * level
    if not s.turns:
        yield f"{pad}- (no turns)"
    for turn in _in_time_order(s.turns):
        yield pad + "- " + _turn_line(turn)
        for op, facts in _ops_in_time_order(turn.ops):
            yield pad + "  - " + _op_line(op, facts)
            if op.child is not None:
                child = op.child
                yield pad + "    - " + _session_line(child)
                yield _timeline_body(child, level + 3)
            elif op.child_ref is not None:
                yield pad + "    - sub-agent stored elsewhere: " + md.text(op.child_agent or "?", 80)


def _turn_line(t: Turn) -> str:
    parts = [f"**{md.text(t.title, 60)}**", fmt_ts(t.started_at, date=False), shown_duration(t),
             f"{len(t.ops):,} ops"]
    if t.status and t.status != "ok":
        parts.append(f"**{md.text(t.status, 20)}**")
    return " · ".join(parts)


def _op_line(op: Op, facts=None) -> str:
    parts = [_path(op.path), f"{op.kind.upper()} {md.text(op.target, 80)}".rstrip(), shown_duration(op)]
    if op.failed:
        parts.append("**FAILED**" + (f" ({md.text(op.error, 80)})" if op.error else ""))
    elif op.running:
        parts.append("running")
    else:
        parts.append(md.text(op.status or "-", 20))
    if op.tokens_in or op.tokens_out:
        parts.append(f"in {fmt_tokens(op.tokens_in)} / out {fmt_tokens(op.tokens_out)}")
    if op.cost:
        parts.append(_cost(op.cost))
    parts.extend(md.text(part, 80) for part in facts_parts(facts if facts is not None else op_facts(op)))
    if op.warnings or op.errors:
        parts.append(f"{op.warnings} WRN, {op.errors} ERR")
    if op.problems:
        parts.append("broken: " + md.text("; ".join(op.problems), 120))
    return " · ".join(parts)


def _plugin_metas(s: Session) -> str:
    """v2 `opTree.pluginMetas` as one line of JSON ("" when absent)."""
    metas = s.field("pluginMetas")
    if metas is None:
        return ""
    import orjson

    try:
        return orjson.dumps(metas).decode()
    except TypeError:
        return str(metas)


def _session_line(s: Session) -> str:
    parts = [f"sub-agent **{md.text(s.display_agent, 80)}**", s.status, shown_duration(s),
             f"{s.counts.ops:,} ops", _cost(s.totals.costUsd)]
    if s.error:
        parts.append(md.text(s.error, 120))
    return " · ".join(parts)


# errors -----------------------------------------------------------------------------------------------------

def _errors(s: Session, ins: Insights) -> list[str]:
    out = ["## Errors", ""]
    if s.status == "failed" or s.error:
        out += ["### The session", "", md.block(s.error or "failed without an error message"), ""]
    if not ins.failed_ops:
        if len(out) == 2:
            out += ["No failed ops.", ""]
        return out
    failed = {f.path for f in ins.failed_ops[:ERROR_OPS]}
    for op in walk_ops(s):
        if op.path not in failed:
            continue
        out += [f"### {_path(op.path)} {op.kind.upper()} {md.text(op.target, 80)}", ""]
        out.append(f"- agent: {md.text(op.turn.session.display_agent, 80)}")
        out.append(f"- started: {fmt_ts(op.started_at)}, duration {shown_duration(op)}")
        if op.error:
            out.append(f"- error: {md.text(op.error, 300)}")
        if op.child is not None and op.child.error:
            out.append(f"- sub-agent error: {md.text(op.child.error, 300)}")
        out.append("")
        detail = _error_payload(op)
        if detail:
            out += ["Response:", "", md.block(detail), ""]
        logs = [entry for entry in op_logs(op) if entry.severity in ("WRN", "ERR", "FATAL")] or op_logs(op)
        if logs:
            out += ["Logs:", "", md.block("\n".join(_log_line(entry) for entry in logs[:ERROR_LOGS])), ""]
            if len(logs) > ERROR_LOGS:
                out += [f"_… {len(logs) - ERROR_LOGS:,} more logs_", ""]
    if len(ins.failed_ops) > ERROR_OPS:
        out += [f"_… {len(ins.failed_ops) - ERROR_OPS:,} more failed ops: see the Insights table or the JSON "
                "export._", ""]
    return out


def _error_payload(op: Op) -> str:
    if op.raw is None or op.kind != "tool":
        return ""
    payload = as_dict(op.raw.get("response")).get("payload")
    if isinstance(payload, str):
        return payload
    if isinstance(payload, (dict, list)) and payload:
        import orjson

        try:
            return orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode()
        except TypeError:
            return str(payload)
    for entry in as_list(op.raw.get("accounting")):
        if isinstance(entry, dict) and isinstance(entry.get("error"), str):
            return entry["error"]
    return ""


def _log_line(entry: LogEntry) -> str:
    return f"{fmt_ts(entry.ts, date=False)} {entry.severity:<5} {entry.path} {one_line(entry.message, 2000)}"
