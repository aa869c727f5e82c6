"""One session, one truth: the facts every view shows of a session, computed in one place.

The browser row, the Totals panel, the tree's labels, the details panel, `dump`, `export`, `diff`, `stats` and the
sessions index all show a session's status, duration, turns, totals and cost. When each derived them its own way
they disagreed (a killed session was `running 356ms+` in the browser and `running 10m57s`, growing with the clock,
on its own screen; "turns" was 5 in one view and 18 in another). Every door (snapshot, ledger, accounting, live
stream, OTLP) fills the same normalised Session (tui.model.nodes); this module derives what is shown of it.

The rules:
- **Duration.** An ended node lasted `endedAt - startedAt`. A node without an end (still running, killed, or its
  writer silent) lasted *at least* up to its last activity: the newest start or end time inside it. It never
  counts up to "now": a process killed half a year ago did not run for half a year. Shown with a `+`.
- **Turns** are the session's own user turns (tui.model.nodes.user_turns): what the producer counts as turns used.
  The number of turn records over the whole tree (turn 0 and sub-agents' turns included) is `turn_nodes`.
- **Cost** is None when the path the session came by records none (OpenTelemetry from ai-agent exports no cost):
  unknown, never a made-up $0.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.model.format import fmt_cost, fmt_duration
from tui.model.nodes import Op, Session, Turn, remembered, user_turns
from tui.model.search import walk_ops
from tui.model.totals import Totals


@dataclass(frozen=True, slots=True)
class SessionFacts:
    status: str  # "ok" | "failed" | "running" (the shown `stale` is a matter of wall time: tui.catalog.liveness)
    started_at: int | None
    ended_at: int | None
    last_activity_ms: int | None  # its end, else the newest time inside the tree (session time)
    duration_ms: int | None
    partial: bool  # no end recorded: the duration runs up to the last activity, shown with `+`
    turns: int  # the session's own user turns
    turn_nodes: int  # every turn record in the tree (turn 0 and sub-agents' turns included)
    totals: Totals  # over the session and everything below it
    cost: float | None  # rounded to 4 decimals; None: not recorded on this path
    failed_ops: int
    error: str | None
    cost_estimated: bool = False  # the cost is the price table's estimate (tui.model.prices), not recorded

    @property
    def cost_text(self) -> str:
        """`$0.0123`, `~$0.0123` for an estimate, `-` when unknown."""
        return shown_cost(self.cost, self.cost_estimated)

    @property
    def duration_text(self) -> str:
        return duration_text(self.duration_ms, self.partial)

    def as_dict(self) -> dict:
        """The facts as `dump --json` and `export --format json` write them."""
        return {"status": self.status, "durationMs": self.duration_ms, "durationPartial": self.partial,
                "lastActivityMs": self.last_activity_ms, "userTurns": self.turns, "turnNodes": self.turn_nodes,
                "costUsd": self.cost, "failedOps": self.failed_ops,
                **({"costEstimated": True} if self.cost_estimated else {})}


def session_facts(session: Session) -> SessionFacts:
    """The facts of one session (a root, or a sub-agent with everything below it)."""
    # an ended session's last activity is its end (the walk is only paid for one without: running or killed)
    last = session.ended_at if session.ended_at is not None else last_activity(session)
    duration, partial = node_duration(session, last)
    totals = session.totals
    return SessionFacts(
        status=session.status, started_at=session.started_at, ended_at=session.ended_at, last_activity_ms=last,
        duration_ms=duration, partial=partial, turns=user_turns(session), turn_nodes=session.counts.turns,
        totals=totals, cost=None if cost_unknown(session) else totals.cost, failed_ops=session.counts.failed,
        error=session.error, cost_estimated=cost_estimated(session),
    )


def cost_estimated(session: Session) -> bool:
    """Whether the session's cost (or part of it) is the price table's estimate (tui.model.prices): a Claude Code,
    Codex or Gemini CLI file records no cost, so its reader marks the tree `costEstimated`."""
    root = session.breadcrumb()[0] if session.parent_op is not None else session  # a sub-agent: its root says
    attributes = root.field("attributes")
    return isinstance(attributes, dict) and attributes.get("costEstimated") is True


def shown_cost(cost: float | None, estimated: bool = False) -> str:
    """A cost as every view writes it: `$0.0123`, `~$0.0123` when estimated, `-` when unknown."""
    if cost is None:
        return "-"
    return ("~" if estimated else "") + fmt_cost(cost)


def cost_unknown(session: Session) -> bool:
    """Whether the session or a sub-agent came over OTLP from a producer that exports no cost (ai-agent's own
    telemetry has no cost attribute; tui.formats.otlp.assemble marks such trees `costUnknown`): its cost is
    unknown, never zero. Only an OTLP tree, or one without attributes (a live placeholder for a root not seen
    yet), is walked for sub-agents: a snapshot's answer costs one lookup."""
    attributes = session.field("attributes")
    if isinstance(attributes, dict):
        if attributes.get("costUnknown") is True:
            return True
        if attributes.get("source") != "otlp":
            return False
    return remembered(session, "cost_unknown", tree_counts(session), lambda: any(
        isinstance(attributes := op.child.field("attributes"), dict) and attributes.get("costUnknown") is True
        for op in walk_ops(session) if op.child is not None))


def read_ahead(session: Session) -> None:
    """Walk now what the labels of a running session read of its whole tree (its last activity, the running
    turns', whether a cost is unknown): the live worker's thread calls this after each build, so the UI thread
    finds the answers kept (`remembered`) as the screen takes the build."""
    if session.ended_at is not None:
        return
    last_activity(session)
    cost_unknown(session)
    for turn in session.turns[-3:]:
        if turn.ended_at is None:
            last_activity(turn)


def tree_counts(session: Session) -> tuple:
    """What changes when a session's tree does (its answers are read again then: `remembered`)."""
    return session.counts.ops, len(session.turns), session.ended_at


def shown_counts(session: Session) -> dict:
    """The session's counts as `dump --json`, `export` and `diff` write them: `turns` its own user turns (the one
    meaning of turns), `turnNodes` every turn record in the tree; the other counts over the whole tree."""
    counts = session.counts.as_dict()
    counts["turnNodes"] = counts["turns"]
    counts["turns"] = user_turns(session)
    return counts


def duration_text(duration_ms: int | None, partial: bool) -> str:
    """`1.2s`, or `356ms+` for a node without an end (at least that long), or `-` when not known."""
    if duration_ms is None:
        return "-"
    return fmt_duration(duration_ms) + ("+" if partial else "")


def shown_duration(node: Session | Turn | Op) -> str:
    """A session's, turn's or op's duration as every view writes it: `1.2s`, `356ms+` (no end), `-`."""
    return duration_text(*node_duration(node))


def node_duration(node: Session | Turn | Op, last: int | None = None) -> tuple[int | None, bool]:
    """How long a session, turn or op lasted, and whether that is only "at least" (no end recorded).
    `last`: the node's last activity when the caller has it already."""
    if node.started_at is None:
        return None, node.ended_at is None
    if node.ended_at is not None:
        return node.duration_ms, False
    if isinstance(node, Op) and node.child is None:
        return None, True  # a call under way (or cut off): nothing inside it tells how long it ran
    if last is None:
        last = last_activity(node)
    return (None if last is None else max(0, last - node.started_at)), True


def last_activity(node: Session | Turn | Op) -> int | None:
    """The newest start or end time inside a node (sub-agents included): where an unfinished node's known duration
    ends. Iterative: sub-agents nest thousands deep."""
    if isinstance(node, Session):
        return remembered(node, "last_activity", tree_counts(node), lambda: _session_last(node))
    if isinstance(node, Turn):
        key = (len(node.ops), node.session.counts.ops, node.ended_at)
        return remembered(node, "last_activity", key, lambda: _turn_last(node))
    last = newest(None, node.started_at, node.ended_at)
    return last if node.child is None else newest(last, last_activity(node.child))


def _turn_last(turn: Turn) -> int | None:
    last = newest(None, turn.started_at, turn.ended_at)
    for op in turn.ops:
        last = newest(last, op.started_at, op.ended_at)
        if op.child is not None:
            last = newest(last, last_activity(op.child))
    return last


def _session_last(session: Session) -> int | None:
    last = newest(own_last(session), session.ops_last)
    for op in walk_ops(session):
        last = newest(last, op.started_at, op.ended_at)
    return last


def own_last(session: Session) -> int | None:
    """The latest time of a session node and its turns, its ops left out (last_activity adds them; the sessions
    index reading a plain snapshot's facts adds those its walk saw)."""
    last = newest(None, session.started_at, session.ended_at)
    for turn in session.turns:
        last = newest(last, turn.started_at, turn.ended_at)
    return last


def newest(current: int | None, *times: int | None) -> int | None:
    """The latest of `current` and the times that are ints."""
    for t in times:
        if isinstance(t, int) and (current is None or t > current):
            current = t
    return current
