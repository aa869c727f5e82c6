"""What a live view shows of a root besides its tree: counters, the newest status, streamed output, the final
report and the clock. Taken by the live worker (the only thread that touches the hub) with each build, so that a
screen reads a frozen copy and never the hub's sessions while they change."""

from __future__ import annotations

from dataclasses import dataclass

from tui.formats.aiagent.live.session import LiveSession


@dataclass(frozen=True, slots=True)
class LiveFacts:
    events: int = 0  # events and OTLP records over the root and its sub-agents
    gaps: int = 0
    reordered: int = 0
    dropped_logs: int = 0
    status: str = ""  # the root's status line (else the first sub-agent's that has one)
    output: str = ""  # the newest streamed output (or thinking) of the family, its last 300 characters
    final_report: dict | None = None  # the root's own
    updated: float | None = None  # wall time of the root's last event (None before any)
    last_ts: int = 0  # the family's newest timestamp (ms), and when it arrived (wall s): the clock
    last_wall: float = 0.0

    def clock(self, wall_now: float) -> int:
        return live_clock(self.last_ts, self.last_wall, wall_now)


@dataclass(frozen=True, slots=True)
class LiveTally:
    """The hub's counters as of a batch: events applied, frames rejected (every reason) and those broken, sessions
    and roots. `frames`: every frame taken so far, applied or not (what a sender can check its count against)."""

    events: int = 0
    rejected: int = 0
    malformed: int = 0
    sessions: int = 0
    roots: int = 0
    rejections: str = ""  # "malformed JSON ×3, duplicate ×1" (LiveHub.rejection_summary)
    gaps: int = 0  # sequence numbers missing over every session (events lost, or still on their way)

    @property
    def frames(self) -> int:
        return self.events + self.rejected


def live_clock(last_ts: int, last_wall: float, wall_now: float) -> int:
    """"Now" for a live root in the session's own time: its newest timestamp, moved on by the wall time since.

    A replay of an old session then shows running durations as they were, not months long."""
    if not last_ts:
        return int(wall_now * 1000)
    estimate = last_ts + max(0.0, wall_now - last_wall) * 1000
    return int(min(estimate, max(wall_now * 1000, last_ts)))


def facts_of(family: list[LiveSession], root: str) -> LiveFacts:
    """The facts of a root from its family (the root and its sub-agents: LiveHub.descendants)."""
    own = next((s for s in family if s.session_id == root), None)
    stamped = [s for s in family if s.last_ts]
    newest = max(stamped, key=lambda s: s.last_ts) if stamped else None
    status = own.status_line if own is not None else ""
    status = status or next((s.status_line for s in family if s.status_line), "")
    output = next((s.output or s.thinking for s in family if s.output or s.thinking), "")
    return LiveFacts(
        events=sum(s.events + s.otlp_records for s in family), gaps=sum(s.gaps for s in family),
        reordered=sum(s.reordered for s in family), dropped_logs=sum(s.dropped_logs for s in family),
        status=status, output=output[-300:],
        final_report=own.final_report if own is not None else None,
        updated=own.updated if own is not None else None,
        last_ts=newest.last_ts if newest else 0, last_wall=newest.last_wall if newest else 0.0)
