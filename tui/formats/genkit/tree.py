"""Genkit snapshots as a Session tree, and what the screens show of them (facts, details, state, timeline).

A session's main timeline is its turns (consecutive snapshots with the same `turnIndex`); each snapshot is an op
whose kind is its event (`turnEnd`, `toolIterationEnd`, `invocationEnd`) and which lasts from its parent's time to
its own. A branch (the snapshots a restore orphaned) is an op of kind `branch` right after the snapshot it grew
from; it holds the branch as a sub-session, so it expands in place and Enter drills into it. Several sessions in
one input become the ops of a root "store" session, one sub-session each.
"""

from __future__ import annotations

from typing import cast

import orjson

from tui.model.capture import Capture
from tui.model.fields import one_line
from tui.model.foreign import Fact, Facts, ForeignOp, ForeignSession, Section, session_facts
from tui.model.format import fmt_duration
from tui.formats.genkit.snapshot import Branch, GenkitSession, GenkitStore, Snapshot
from tui.formats.genkit.state import added_messages, content_address_matches, message_text, messages, state_changes
from tui.model.logs import LogEntry
from tui.model.nodes import Op, Session, Turn

STATE_PREVIEW_BYTES = 3000
MESSAGES_LOGGED = 50
LAST_MESSAGES = 4


def build_tree(store: GenkitStore) -> ForeignSession:
    if len(store.sessions) == 1:
        root = _session_tree(store.sessions[0], None, "", 0)
        root.problems = list(store.problems) + root.problems
        return root
    root = ForeignSession(GENKIT_VIEW, store)
    root.id = root.trace_id = "genkit-store"
    root.agent_id = "genkit"
    root.title = f"{len(store.sessions)} sessions, {len(store.snapshots)} snapshots"
    root.counts.sessions = 1
    root.problems = list(store.problems)
    turn = Turn(root, "turn", 0)
    turn.label = "sessions"
    root.turns.append(turn)
    root.counts.turns = 1
    for position, g in enumerate(store.sessions, 1):
        op = ForeignOp(turn, f"0-{position}", GENKIT_VIEW, g)
        op.kind = "session"
        op.status = "ok"
        op.name = g.name
        op.child = _session_tree(g, op, op.path, 1)
        op.op_id = g.session_id or g.root_id
        op.started_at, op.ended_at = op.child.started_at, op.child.ended_at
        turn.ops.append(op)
        root.counts.ops += 1
        root.counts.session += 1
        root.counts.add(op.child.counts)
        root.max_depth = max(root.max_depth, op.child.depth, op.child.max_depth)
    times = [s.created_ms for s in store.snapshots if s.created_ms is not None]
    root.started_at = turn.started_at = min(times) if times else None
    root.ended_at = turn.ended_at = max(times) if times else None
    return root


def _session_tree(g: GenkitSession, parent_op: Op | None, prefix: str, depth: int) -> ForeignSession:
    s = ForeignSession(GENKIT_VIEW, g)
    s.id = s.trace_id = g.session_id or g.root_id  # the shipped shape has no sessionId: its first snapshot's id
    s.agent_id = "genkit"
    s.title = _first_user_message(g.main.chain)
    s.problems = list(g.problems)
    _fill(s, g.main, parent_op, prefix, depth)
    for b in g.main.detached:
        turn = Turn(s, "turn", len(s.turns))
        turn.label = "detached chain"
        s.turns.append(turn)
        s.counts.turns += 1
        _branch_op(s, turn, b)
    return s


def _fill(s: ForeignSession, branch: Branch, parent_op: Op | None, prefix: str, depth: int) -> None:
    s.parent_op = parent_op
    s.depth = depth
    s.path_prefix = prefix
    s.counts.sessions = 1
    times = [x.created_ms for x in branch.chain if x.created_ms is not None]
    s.started_at = min(times) if times else None
    s.ended_at = max(times) if times else None
    turn: Turn | None = None
    for snap in branch.chain:
        if turn is None or snap.turn_index != turn.index:
            turn = Turn(s, "turn", len(s.turns))
            turn.index = snap.turn_index if snap.turn_index is not None else len(s.turns)
            turn.started_at = snap.parent.created_ms if snap.parent is not None else snap.created_ms
            s.turns.append(turn)
            s.counts.turns += 1
        _snapshot_op(s, turn, snap)
        turn.ended_at = snap.created_ms
        for b in branch.branches.get(id(snap), ()):
            _branch_op(s, turn, b)
    for t in s.turns:
        _name_turn(t)


def new_messages(snap: Snapshot) -> list:
    """The messages this snapshot added to its parent's (all of them when the history was rewritten)."""
    before = messages(snap.parent.state) if snap.parent is not None else []
    return added_messages(before, messages(snap.state))


def _name_turn(turn: Turn) -> None:
    """The user's message(s) of the turn: the messages this turn's snapshots added since the turn began."""
    snaps = [op.info for op in turn.ops if isinstance(op, ForeignOp) and isinstance(op.info, Snapshot)]
    if not snaps:
        return
    first, last = snaps[0], snaps[-1]
    before = messages(first.parent.state) if first.parent is not None else []
    new = added_messages(before, messages(last.state))
    users = [message_text(m).removeprefix("user: ") for m in new if isinstance(m, dict) and m.get("role") == "user"]
    if users:
        turn.prompts = {"user": "\n".join(users)}
        turn.label = one_line(users[0], 50)


def _snapshot_op(s: ForeignSession, turn: Turn, snap: Snapshot) -> ForeignOp:
    op = _op(s, turn, snap)
    op.raw = snap.raw
    op.op_id = snap.id
    op.kind = snap.event
    op.name = snapshot_title(snap)
    op.ended_at = snap.created_ms
    parent_ms = snap.parent.created_ms if snap.parent is not None else None
    op.started_at = parent_ms if parent_ms is not None and op.ended_at is not None and parent_ms <= op.ended_at \
        else snap.created_ms
    op.problems = list(snap.problems)
    op.log_count = 1
    if snap.status == "error" or snap.error:
        op.status = "failed"
        op.error = snap.error or "status error"
        s.counts.failed += 1
        s.counts.errors += 1
    if snap.orphaned:
        op.warnings = 1
        s.counts.warnings += 1
    return op


def _branch_op(s: ForeignSession, turn: Turn, b: Branch) -> ForeignOp:
    op = _op(s, turn, b)
    op.kind = "branch"
    op.name = branch_title(b)
    child = ForeignSession(GENKIT_VIEW, b)
    child.id = child.trace_id = s.id
    child.agent_id = "orphaned branch" if b.orphaned == len(b.chain) and b.chain else "branch"
    if b.origin is None:
        child.agent_id = "detached chain"
    child.title = f"restored from #{b.origin.index} {b.origin.short}" if b.origin is not None else \
        "its first snapshot's parent is missing"
    _fill(child, b, op, op.path, s.depth + 1)
    op.child = child
    op.started_at, op.ended_at = child.started_at, child.ended_at
    s.counts.session += 1
    s.counts.add(child.counts)
    s.max_depth = max(s.max_depth, child.depth, child.max_depth)
    return op


def _op(s: ForeignSession, turn: Turn, info: object) -> ForeignOp:
    op = ForeignOp(turn, f"{s.path_prefix + '.' if s.path_prefix else ''}{turn.index}-{len(turn.ops) + 1}",
                   GENKIT_VIEW, info)
    op.status = "ok"
    turn.ops.append(op)
    s.counts.ops += 1
    return op


def snapshot_title(snap: Snapshot) -> str:
    index = "?" if snap.index is None else snap.index
    text = f"#{index} {snap.short}"
    if snap.orphaned:
        text += " orphaned"
    msgs = messages(snap.state)
    parent_msgs = messages(snap.parent.state) if snap.parent is not None else []
    if msgs and len(msgs) > len(parent_msgs):
        return f"{text}  {one_line(message_text(msgs[-1]), 120)}"
    if snap.parent is not None and not added_messages(parent_msgs, msgs) and msgs != parent_msgs:
        # only the runner's metadata.snapshotId changed in the messages: say what else did
        changes = [c for c in state_changes(snap.state, snap.parent.state) if c != "~messages"]
        return f"{text}  " + (", ".join(changes[:6]) if changes else "state unchanged")
    if snap.parent is not None:
        changes = state_changes(snap.state, snap.parent.state)
        return f"{text}  " + (", ".join(changes[:6]) if changes else "state unchanged")
    return text


def branch_title(b: Branch) -> str:
    if not b.chain:
        return "empty branch"
    first, last = b.chain[0].index, b.chain[-1].index
    n = len(b.chain)
    nested = sum(1 for _ in b.all_branches())
    text = f"{n} snapshot{'s' if n != 1 else ''} #{first}–#{last}"
    if b.orphaned:
        text += f", {b.orphaned} orphaned"
    if nested:
        text += f", {nested} more branch{'es' if nested != 1 else ''}"
    return text


def _first_user_message(chain: list[Snapshot]) -> str:
    for snap in chain:
        for m in messages(snap.state):
            if isinstance(m, dict) and m.get("role") == "user":
                return one_line(message_text(m).removeprefix("user: "), 80)
    return ""


class GenkitView:
    """What the screens show of a Genkit node beyond the generic tree."""

    tree_title = "Genkit snapshots"

    def facts(self, session: Session) -> Facts:
        info = getattr(session, "info", None)
        if isinstance(info, GenkitStore):
            return _store_facts(info)
        branch = cast(Branch, info.main if isinstance(info, GenkitSession) else info)  # (a Genkit tree's)
        chains = [branch.chain, *(b.chain for b in branch.all_branches())]
        snaps = [x for chain in chains for x in chain]
        events: dict[str, int] = {}
        for x in snaps:
            events[x.event] = events.get(x.event, 0) + 1
        head = branch.chain[-1] if branch.chain else None
        orphaned = sum(1 for x in snaps if x.orphaned)
        cells = [
            Fact("snapshots", f"{len(snaps):,}"),
            Fact("on timeline", f"{len(branch.chain):,}"),
            Fact("turns", f"{len({x.turn_index for x in branch.chain}):,}"),
            Fact("branches", f"{len(chains) - 1:,}", "warn" if len(chains) > 1 else ""),
            Fact("orphaned", f"{orphaned:,}", "warn" if orphaned else ""),
            Fact("head", f"#{head.index} {head.short}" if head else "-", "strong"),
            Fact("duration", fmt_duration(session.duration_ms)),
        ]
        cells.extend(Fact(name, f"{n:,}", "dim") for name, n in events.items())
        warnings = list(session.problems)
        return Facts("Genkit snapshots", cells, warnings)

    def sections(self, node: object) -> list[Section]:
        info = getattr(node, "info", None)
        if isinstance(node, ForeignOp):
            if isinstance(info, Snapshot):
                return _snapshot_sections(info)
            if isinstance(info, Branch):
                return _branch_sections(info)
            return []
        if isinstance(info, GenkitSession):
            out = _session_sections(info)
        elif isinstance(info, Branch):
            out = _branch_sections(info)
        elif isinstance(info, GenkitStore):
            out = [Section("Genkit snapshots", [Fact("sessions", str(len(info.sessions))),
                                                Fact("snapshots", str(len(info.snapshots)))])]
        else:
            return []
        if isinstance(node, Session):
            out[0].fields[0:0] = [f for f in session_facts(node) if f.label != "broken"]
            out.extend([Section("Problems", text="\n".join(node.problems), tone="bad")] if node.problems else [])
        return out

    def captures(self, op: Op) -> list[Capture]:
        info = getattr(op, "info", None)
        if not isinstance(info, Snapshot):
            return []
        out = []
        if info.parent is not None:
            out.append(Capture("request", "payload", "json", "plain", plain=info.parent.state,
                               note="the parent snapshot's state"))
        out.append(Capture("response", "payload", "json", "plain", plain=info.state, note="this snapshot's state"))
        return out

    def logs(self, op: Op) -> list[LogEntry]:
        info = getattr(op, "info", None)
        if not isinstance(info, Snapshot):
            return []
        text = f"snapshot #{info.index} {info.event} turn {info.turn_index} {info.short}"
        if info.orphaned:
            text += " (orphaned)"
        if info.error:
            text += f": {one_line(info.error, 300)}"
        severity = "ERR" if op.failed else "WRN" if info.orphaned else "INF"
        entries = [LogEntry(info.created_ms, severity, text, op.path, op, None)]
        for message in new_messages(info)[:MESSAGES_LOGGED]:  # the conversation, as it grew
            entries.append(LogEntry(info.created_ms, "VRB", "  " + one_line(message_text(message), 2000), op.path,
                                    op, None))
        return entries


GENKIT_VIEW = GenkitView()


def _store_facts(store: GenkitStore) -> Facts:
    branches = sum(len(g.branches) for g in store.sessions)
    orphaned = sum(1 for s in store.snapshots if s.orphaned)
    cells = [
        Fact("sessions", f"{len(store.sessions):,}"),
        Fact("snapshots", f"{len(store.snapshots):,}"),
        Fact("branches", f"{branches:,}", "warn" if branches else ""),
        Fact("orphaned", f"{orphaned:,}", "warn" if orphaned else ""),
    ]
    cells.extend(Fact(name, f"{n:,}", "dim") for name, n in store.event_counts().items())
    return Facts("Genkit snapshots", cells, list(store.problems))


def _snapshot_sections(snap: Snapshot) -> list[Section]:
    if snap.shipped:
        fields = [  # the shipped shape (aix.SessionSnapshot): no sessionId, index, turnIndex or orphaned
            Fact("snapshotId", snap.id), Fact("parentId", snap.parent_id or "(first snapshot)"),
            Fact("event", snap.event), Fact("createdAt", snap.created_at),
            Fact("index", f"{snap.index} (derived: order of createdAt)", "dim"),
            Fact("turn", f"{snap.turn_index} (derived: turnEnd events along the chain)", "dim"),
            Fact("orphaned", "yes: not on the line to the newest snapshot" if snap.orphaned else "no",
                 "warn" if snap.orphaned else ""),
        ]
        if snap.status:
            fields.append(Fact("status", snap.status, "bad" if snap.status == "error" else ""))
        if snap.error:
            fields.append(Fact("error", snap.error, "bad"))
    else:
        fields = [  # the id is the op's opId, above
            Fact("parentId", snap.parent_id or "(first snapshot)"),
            Fact("sessionId", snap.session_id), Fact("index", str(snap.index)),
            Fact("turnIndex", str(snap.turn_index)),
            Fact("event", snap.event), Fact("createdAt", snap.created_at),
            Fact("orphaned", "yes: a restore moved the timeline away" if snap.orphaned else "no",
                 "warn" if snap.orphaned else ""),
            Fact("content id", "matches sha256(state)" if content_address_matches(snap) else "not sha256 of this "
                 "serialisation of the state", "dim"),
        ]
    out = []
    if snap.parent is not None:
        changes = state_changes(snap.state, snap.parent.state)
        out.append(Section("State changes since the parent", text=", ".join(changes) or "none"))
    added = new_messages(snap)
    if added:
        shown = added[:MESSAGES_LOGGED]
        out.append(Section(f"Messages added ({len(added)})", text="\n".join(
            one_line(message_text(m), 2000) for m in shown) + (f"\n… {len(added) - len(shown)} more" if
                                                                 len(added) > len(shown) else "")))
    msgs = messages(snap.state)
    if msgs:
        shown = msgs[-LAST_MESSAGES:]
        out.append(Section(f"Last messages ({len(shown)} of {len(msgs)})",
                           text="\n".join(one_line(message_text(m), 400) for m in shown)))
    out.append(Section("Genkit snapshot", fields))
    for p in snap.problems:
        out[-1].fields.append(Fact("broken", p, "bad"))
    if snap.children:
        out.append(Section("Children", [Fact(f"#{c.index}", f"{c.short} {c.event}" + (" orphaned" if c.orphaned
                                                                                      else ""))
                                        for c in snap.children[:20]]))
    out.append(Section("State (p: full state; r: the parent's)", text=_state_text(snap.state)))
    return out


def _state_text(state: object) -> str:
    try:
        text = orjson.dumps(state, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        text = repr(state)
    if len(text) > STATE_PREVIEW_BYTES:
        return text[:STATE_PREVIEW_BYTES] + f"\n… ({len(text) - STATE_PREVIEW_BYTES:,} more characters: press p)"
    return text


def _branch_sections(b: Branch) -> list[Section]:
    origin = b.origin
    fields = [
        Fact("grew from", f"#{origin.index} {origin.id}" if origin else "(its parent is not in the input)"),
        Fact("snapshots", str(len(b.chain))),
        Fact("orphaned", str(b.orphaned), "warn" if b.orphaned else ""),
        Fact("indexes", f"#{b.chain[0].index} … #{b.chain[-1].index}" if b.chain else "-"),
        Fact("branches", str(sum(1 for _ in b.all_branches()))),
    ]
    if origin is not None:
        kept = [c for c in origin.children if c not in b.chain]
        if kept:
            fields.append(Fact("timeline", f"continues with #{kept[0].index} {kept[0].short}"))
    return [Section("Branch (restored away from)", fields)]


def _session_sections(g: GenkitSession) -> list[Section]:
    head = g.head
    fields = [
        Fact("sessionId", g.session_id or "(none: the shipped shape; the conversation is its parentId chain)"),
        Fact("first snapshot", g.root_id), Fact("snapshots", str(len(g.snapshots))), Fact("turns", str(g.turns)),
        Fact("head", f"#{head.index} {head.id}" if head else "-"), Fact("branches", str(len(g.branches))),
        Fact("orphaned", str(sum(1 for s in g.snapshots if s.orphaned))),
    ]
    return [Section("Genkit session", fields)]
