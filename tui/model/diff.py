"""What changed between two session trees: two versions of one session, or two runs of the same agent.

Ops are matched by their path (`1-2`, `3-1.2-4` inside a sub-agent), so sub-agents are compared op by op too. A
matched op whose kind or target differs is reported as renamed (same place in the tree, a different call).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.model.nodes import Op, Session
from tui.model.search import walk_ops
from tui.model.session_facts import session_facts, shown_counts
from tui.model.totals import TOTAL_KEYS, Totals

_OP_USAGE = (("tokensIn", "tokens_in"), ("tokensOut", "tokens_out"), ("tokensCacheRead", "cache_read"),
             ("tokensCacheWrite", "cache_write"), ("costUsd", "cost"))
ADDED, REMOVED, STATUS, RENAMED, CHANGED = "added", "removed", "status", "renamed", "changed"


def op_state(op: Op) -> str:
    if op.failed:
        return "failed"
    if op.running:
        return "running"
    return op.status or "ended"


@dataclass(slots=True)
class Side:
    """One of the two trees, summarised."""

    label: str
    agent: str
    title: str
    status: str
    started_at: int | None
    duration_ms: int | None
    totals: Totals
    counts: dict
    duration_partial: bool = False  # no end: duration_ms is "at least" (up to its last activity)

    @classmethod
    def of(cls, session: Session, label: str) -> "Side":
        """The side's facts as every view computes them (tui.model.session_facts): `turns` its user turns."""
        facts = session_facts(session)
        return cls(label, session.display_agent, session.title, facts.status, session.started_at,
                   facts.duration_ms, session.totals, shown_counts(session), facts.partial)


@dataclass(slots=True)
class OpDelta:
    """An op added, removed or changed. Usage fields are after minus before (an added op: its own usage)."""

    change: str  # added | removed | status | renamed | changed
    path: str
    kind: str
    target: str
    agent: str  # the session the op belongs to
    status_before: str = ""
    status_after: str = ""
    renamed: bool = False  # same path, another kind or target (also set when the status changed too)
    target_before: str = ""
    kind_before: str = ""
    usage: dict = field(default_factory=dict)  # usage key (tokensIn, ... costUsd: _OP_USAGE) -> delta
    logs: int = 0
    duration_before: int | None = None
    duration_after: int | None = None

    def as_json(self) -> dict:
        out: dict[str, object] = {"change": self.change, "path": self.path, "kind": self.kind, "target": self.target,
               "agent": self.agent, "statusBefore": self.status_before or None,
               "statusAfter": self.status_after or None}
        if self.renamed:
            out["kindBefore"], out["targetBefore"] = self.kind_before, self.target_before
        out.update({key: round(value, 6) if key == "costUsd" else value for key, value in self.usage.items()})
        out["logs"] = self.logs
        out["durationBeforeMs"], out["durationAfterMs"] = self.duration_before, self.duration_after
        return out


@dataclass(slots=True)
class SessionDiff:
    before: Side
    after: Side
    ops: list[OpDelta]
    unchanged: int

    def of_kind(self, *changes: str) -> list[OpDelta]:
        return [d for d in self.ops if d.change in changes]

    @property
    def totals_delta(self) -> dict:
        """After minus before; cost as shown (both rounded to 4 decimals, like the totals)."""
        before, after = self.before.totals.as_dict(), self.after.totals.as_dict()
        return {key: round(after[key] - before[key], 4) if key == "costUsd" else after[key] - before[key]
                for key in TOTAL_KEYS}

    @property
    def counts_delta(self) -> dict:
        return {key: self.after.counts[key] - self.before.counts[key] for key in self.after.counts}

    @property
    def duration_delta(self) -> int | None:
        """After minus before; None when either is unknown or only "at least" (no end)."""
        before, after = self.before.duration_ms, self.after.duration_ms
        if before is None or after is None or self.before.duration_partial or self.after.duration_partial:
            return None
        return after - before

    def as_json(self) -> dict:
        return {
            "before": _side_json(self.before),
            "after": _side_json(self.after),
            "delta": {"totals": self.totals_delta, "counts": self.counts_delta, "durationMs": self.duration_delta},
            "ops": {
                "added": [d.as_json() for d in self.of_kind(ADDED)],
                "removed": [d.as_json() for d in self.of_kind(REMOVED)],
                "statusChanged": [d.as_json() for d in self.of_kind(STATUS)],
                "renamed": [d.as_json() for d in self.of_kind(RENAMED)],
                "changed": [d.as_json() for d in self.of_kind(CHANGED)],
            },
            "unchanged": self.unchanged,
        }


def _delta(a: float, b: float) -> float:
    return round(b - a, 6) if isinstance(a, float) or isinstance(b, float) else b - a


def _side_json(side: Side) -> dict:
    return {"label": side.label, "agent": side.agent, "title": side.title, "status": side.status,
            "startedAt": side.started_at, "durationMs": side.duration_ms,
            "durationPartial": side.duration_partial, "totals": side.totals.as_dict(),
            "counts": side.counts}


def _usage(op: Op) -> dict:
    return {key: getattr(op, attr) for key, attr in _OP_USAGE}


def _keyed(session: Session) -> dict[str, Op]:
    """Ops by path; a path that occurs twice (duplicate turn indexes) gets `#2`, `#3`... so nothing is lost."""
    out: dict[str, Op] = {}
    for op in walk_ops(session):
        key, n = op.path, 1
        while key in out:
            n += 1
            key = f"{op.path}#{n}"
        out[key] = op
    return out


def diff_sessions(before: Session, after: Session, *, before_label: str = "A", after_label: str = "B") -> SessionDiff:
    old, new = _keyed(before), _keyed(after)
    deltas: list[OpDelta] = []
    unchanged = 0
    for key, op in new.items():
        prev = old.get(key)
        if prev is None:
            deltas.append(OpDelta(ADDED, key, op.kind, op.target, op.session.display_agent, "", op_state(op),
                                  usage=_usage(op), logs=op.log_count, duration_after=op.duration_ms))
            continue
        delta = _compare(key, prev, op)
        if delta is None:
            unchanged += 1
        else:
            deltas.append(delta)
    for key, op in old.items():
        if key not in new:
            usage = {k: -v for k, v in _usage(op).items()}
            deltas.append(OpDelta(REMOVED, key, op.kind, op.target, op.session.display_agent, op_state(op), "",
                                  usage=usage, logs=-op.log_count, duration_before=op.duration_ms))
    return SessionDiff(Side.of(before, before_label), Side.of(after, after_label), deltas, unchanged)


def _compare(key: str, a: Op, b: Op) -> OpDelta | None:
    usage = {k: _delta(va, vb) for (k, va), vb in zip(_usage(a).items(), _usage(b).values())}
    state_a, state_b = op_state(a), op_state(b)
    renamed = a.kind != b.kind or a.target != b.target
    if state_a != state_b:
        change = STATUS
    elif renamed:
        change = RENAMED
    elif any(usage.values()) or a.log_count != b.log_count:
        change = CHANGED
    else:
        return None
    return OpDelta(change, key, b.kind, b.target, b.session.display_agent, state_a, state_b,
                   renamed=renamed, target_before=a.target, kind_before=a.kind,
                   usage=usage, logs=b.log_count - a.log_count, duration_before=a.duration_ms,
                   duration_after=b.duration_ms)
