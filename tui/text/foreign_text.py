"""`dump` text and `dump --json` for Jules and Genkit documents."""

from __future__ import annotations

from collections.abc import Iterator

from tui.formats.genkit import snapshot as genkit
from tui.formats.jules import snapshot as jules
from tui.model.document import JULES
from tui.model.fields import one_line
from tui.model.format import fmt_duration, fmt_ts
from tui.model.nodes import Op, Session


def render(doc, max_depth: int | None = None) -> Iterator[str]:
    if doc.format == JULES:
        yield from _jules_header(doc.extra, doc.root.title)
        yield "Timeline:"
    else:
        yield from _genkit_header(doc.extra)
    yield from _body(doc.root, "", max_depth)


def _jules_header(snap: jules.JulesSnapshot, tree_title: str = "") -> Iterator[str]:
    # the tree's title: the snapshot's own, else its prompt, first user message or description (as the browser)
    yield f"Jules session: {one_line(snap.title or tree_title, 120) or '(untitled)'}"
    parts = [f"id={one_line(snap.id, 80)}", f"state={one_line(snap.state, 40) or '?'}",
             f"created={snap.created_at or '-'}", f"updated={snap.updated_at or '-'}",
             f"dur={fmt_duration(snap.duration_ms)}"]
    if snap.url:
        parts.append(f"url={one_line(snap.url, 200)}")
    yield "  " + "  ".join(parts)
    if snap.prompt:
        yield f"  prompt: {one_line(snap.prompt, 200)}"
    if snap.pr:
        yield f"  pull request: {one_line(str(snap.pr.get('title', '')), 120)}  {one_line(str(snap.pr.get('url', '')), 200)}"
    ins = snap.insights.as_dict()
    ins["failedCommandCount"] = snap.failed_command_count
    yield "Insights: " + "  ".join(f"{k}={'?' if v is None else v}" for k, v in ins.items())
    yield "Activity counts: " + ("  ".join(f"{k}={v}" for k, v in snap.activity_counts.items()) or "none")
    if not snap.activities_included:
        yield "  ! the file has no activities: the tree below is its stored timeline"
    if snap.shape == "activitiesPage":
        yield ("  one page of GET .../activities (no session fields)"
               + (f"; more on the next page: nextPageToken={one_line(snap.next_page_token, 80)}"
                  if snap.next_page_token else ""))
    omitted = sum(1 for a in snap.commands if a.exit_code_omitted)
    if omitted:
        yield f"  {omitted} command{'s' if omitted != 1 else ''} without exitCode: the API leaves exit code 0 out (succeeded)"
    for m in snap.mismatch:
        yield f"  ! stored {one_line(m, 200)}"
    for n in snap.notes:
        yield f"  note: {one_line(n, 240)}"
    for p in snap.problems:
        yield f"  ! {one_line(p, 200)}"


def _genkit_header(store: genkit.GenkitStore) -> Iterator[str]:
    c = genkit.counts(store)
    events = "  ".join(f"{k}={v}" for k, v in c["events"].items())
    yield (f"Genkit snapshots ({store.shape}): snapshots={c['snapshots']} sessions={c['sessions']} turns={c['turns']} "
           f"branches={c['branches']} orphaned={c['orphaned']}  events: {events}")
    if store.snapshot_shape in ("shipped", "mixed"):
        yield ("  shipped shape (snapshotId, no sessionId/index/turnIndex/orphaned): conversations, index, turns and "
               "orphaned derived from parentId, createdAt and the events")
    for g in store.sessions:
        head = g.head
        yield (f"  session {one_line(g.name, 80)}: {len(g.snapshots)} snapshots, "
               f"head #{head.index if head else '-'} {head.id if head else ''}, {len(g.branches)} branches")
    for p in store.problems + [p for g in store.sessions for p in g.problems]:
        yield f"  ! {one_line(p, 200)}"


def _body(s: Session, indent: str, max_depth: int | None) -> Iterator[str]:
    for p in s.problems:
        yield f"{indent}│  ! {one_line(p, 200)}"
    for ti, turn in enumerate(s.turns):
        last_turn = ti == len(s.turns) - 1
        head = f"{turn.title}  {fmt_ts(turn.started_at)}  ops={len(turn.ops)}"
        if turn.status == "failed":
            head += "  FAILED"
        yield f"{indent}{'└─' if last_turn else '├─'} {head}"
        pad = indent + ("   " if last_turn else "│  ")
        if turn.prompts and turn.prompts.get("user"):
            yield f"{pad}user: {one_line(str(turn.prompts['user']), 160)}"
        for oi, op in enumerate(turn.ops):
            last_op = oi == len(turn.ops) - 1
            yield f"{pad}{'└─' if last_op else '├─'} {op_line(op)}"
            if op.child is not None and (max_depth is None or op.child.depth <= max_depth):
                child_pad = pad + ("   " if last_op else "│  ")
                child = op.child
                yield f"{child_pad}└─ {one_line(child.display_agent, 40)}: {one_line(child.title, 120)}"
                yield from _body(child, child_pad + "   ", max_depth)


def op_line(op: Op) -> str:
    parts = [op.path, op.kind, one_line(op.name, 140) or "-", fmt_duration(op.duration_ms),
             "FAILED" if op.failed else (op.status or "-")]
    if op.error:
        parts.append(f"({one_line(op.error, 80)})")
    if op.problems:
        parts.append(f"BROKEN: {one_line('; '.join(op.problems), 120)}")
    return "  ".join(parts)


def summarise(doc, root_fields) -> dict:
    """`dump --json` for these formats: the usual keys (null where the format has no such thing), then its own."""
    root = doc.root
    out = {
        "format": doc.format,
        "root": root_fields(root),
        "totals": None,
        "storedTotals": None,
        "totalsMismatch": False,
    }
    if doc.format == JULES:
        snap: jules.JulesSnapshot = doc.extra
        commands = snap.commands
        out["counts"] = {
            "activities": len(snap.activities),
            "turns": len(root.turns),
            "commands": len(commands) if snap.activities_included else None,
            "failedCommands": snap.failed_command_count,
            "patches": sum(1 for a in snap.activities for x in a.artifacts if x.kind == "changeSet"),
            "byType": dict(snap.activity_counts),
        }
        out["maxDepth"] = 0
        out["jules"] = jules.summary(snap)
    else:
        store: genkit.GenkitStore = doc.extra
        out["counts"] = genkit.counts(store)
        out["maxDepth"] = root.max_depth
        out["genkit"] = genkit.summary(store)
    return out
