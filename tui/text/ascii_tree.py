"""The tree as text, in the spirit of the producer's renderAscii: one line per node, box-drawing guides."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tui.model.fields import one_line, printable
from tui.model.format import fmt_cost, fmt_tokens, fmt_ts
from tui.model.session_facts import cost_estimated, shown_duration
from tui.model.nodes import Op, Session, Turn
from tui.model.op_facts import facts_parts, op_facts
from tui.model.trampoline import flatten

OpNotes = Callable[[Op], list[str]]


def render(root: Session, *, max_depth: int | None = None, op_notes: OpNotes | None = None) -> Iterator[str]:
    """The lines of the tree. `op_notes(op)` may add lines under an op (e.g. payloads that cannot be read).

    Sub-agents are walked with an explicit stack: a tree hundreds of levels deep renders without recursion.
    """
    yield session_line(root)
    yield from flatten(_session_body(root, "", max_depth, op_notes))


def session_line(s: Session) -> str:
    parts = [f"SESSION {one_line(s.display_agent, 80)}"]
    if s.trace_id:
        parts.append(f"trace={one_line(s.trace_id, 80)}")
    if s.call_path and s.call_path != s.agent_id:
        parts.append(f"callPath={one_line(s.call_path, 120)}")
    if s.title:
        parts.append(f"title={one_line(s.title, 80)!r}")
    parts.append(s.status.upper() if s.status != "ok" else "ok")
    parts.append(f"started={fmt_ts(s.started_at)}")
    parts.append(f"dur={shown_duration(s)}")
    t = s.totals
    parts.append(
        f"| in={fmt_tokens(t.tokensIn)} out={fmt_tokens(t.tokensOut)} cR={fmt_tokens(t.tokensCacheRead)} "
        f"cW={fmt_tokens(t.tokensCacheWrite)} {'~' if cost_estimated(s) else ''}{fmt_cost(t.costUsd)} tools={t.toolsRun} agents={t.agentsRun}"
    )
    if s.mismatch:
        parts.append(f"TOTALS MISMATCH ({', '.join(s.mismatch)})")
    if s.misfiled:  # the file is named after another session (tui.formats.aiagent.file_identity)
        parts.append(f"FILE ID MISMATCH (file named {one_line(s.misfiled, 80)}, not this session)")
    if s.error:
        parts.append(f"error={one_line(s.error, 160)}")
    return "  ".join(parts)


def turn_line(t: Turn) -> str:
    text = f"{one_line(t.title, 120)}  {fmt_ts(t.started_at)}  {shown_duration(t)}  ops={len(t.ops)}"
    if t.status and t.status != "ok":
        text += f"  {one_line(t.status.upper(), 40)}"
    if t.problems:
        text += f"  BROKEN: {one_line('; '.join(t.problems), 400)}"
    return text


def op_line(op: Op) -> str:
    parts = [op.path, op.kind.upper()]
    if op.target:
        parts.append(one_line(op.target, 80))
    if op.child is not None or op.child_ref is not None:
        agent = op.child_agent
        if agent:
            parts.append(f"-> {one_line(agent, 60)}")
    parts.append(shown_duration(op))
    parts.append("RUNNING" if op.running else one_line(op.status or "-", 40) if op.status != "failed" else "FAILED")
    if op.error:
        parts.append(f"({one_line(op.error, 60)})")
    if op.tokens_in or op.tokens_out:
        parts.append(f"in={fmt_tokens(op.tokens_in)} out={fmt_tokens(op.tokens_out)}")
    if op.cost:
        parts.append(fmt_cost(op.cost))
    parts.extend(facts_parts(op_facts(op)))
    if op.warnings or op.errors:
        parts.append(f"logs: {op.warnings} WRN {op.errors} ERR")
    if op.problems:
        parts.append(f"BROKEN: {one_line('; '.join(op.problems), 400)}")
    return "  ".join(parts)


def _session_body(s: Session, indent: str, max_depth: int | None, op_notes: OpNotes | None) -> Iterator:
    """Lines (str) of a session's turns and ops; a sub-agent is yielded as its own body iterator."""
    if s.problems:
        yield f"{indent}│  ! {one_line('; '.join(s.problems), 400)}"
    for ti, turn in enumerate(s.turns):
        last_turn = ti == len(s.turns) - 1
        yield f"{indent}{'└─' if last_turn else '├─'} {turn_line(turn)}"
        pad = indent + ("   " if last_turn else "│  ")
        if turn.prompts:
            for key in ("system", "user"):
                value = turn.prompts.get(key)
                if isinstance(value, str) and value:
                    yield f"{pad}{key + ':':8}{one_line(value, 120)}"
        for log in turn.extra_logs:
            yield f"{pad}{printable(log.severity)} {one_line(log.message, 160)}"
        for oi, op in enumerate(turn.ops):
            last_op = oi == len(turn.ops) - 1
            yield f"{pad}{'└─' if last_op else '├─'} {op_line(op)}"
            child_pad = pad + ("   " if last_op else "│  ")
            if op_notes is not None:
                for note in op_notes(op):  # "! " marks a problem; a note starting "· " is information
                    mark = "" if note.startswith("· ") else "! "
                    yield f"{child_pad}{mark}{one_line(note, 300)}"
            if op.child is not None:
                if max_depth is not None and op.child.depth > max_depth:
                    continue
                yield f"{child_pad}└─ {session_line(op.child)}"
                yield _session_body(op.child, child_pad + "   ", max_depth, op_notes)
            elif op.child_ref is not None:
                problem = op.child_ref.get("problem")
                yield f"{child_pad}└─ (sub-agent stored elsewhere{': ' + one_line(str(problem), 120) if problem else ''})"
