"""Sessions of other snapshot systems (Jules, Genkit) shown through the same Session/Turn/Op tree.

Their nodes are ordinary tree nodes, so the session screen, search, errors-only, drill-down and follow work
unchanged; what only the format knows (its facts panel, detail sections, payloads, one log line per node) is
asked of the node's `view`. A node without a view (every ai-agent node) answers None / [] everywhere here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from tui.model.nodes import Op, Session

if TYPE_CHECKING:
    from tui.model.capture import Capture
    from tui.model.logs import LogEntry


@dataclass(slots=True)
class Fact:
    label: str
    value: str
    tone: str = ""  # "" | "good" | "bad" | "warn" | "strong" | "dim"


@dataclass(slots=True)
class Facts:
    """What the side panel shows instead of token totals."""

    title: str
    cells: list[Fact]
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Section:
    """A block of the details panel: name/value fields, then an optional text block."""

    title: str
    fields: list[Fact] = field(default_factory=list)
    text: str = ""
    tone: str = ""


class FormatView(Protocol):
    def facts(self, session: Session) -> Facts: ...

    def sections(self, node: object) -> list[Section]: ...

    def captures(self, op: Op) -> list[Capture]: ...

    def logs(self, op: Op) -> list[LogEntry]: ...


class ForeignSession(Session):
    """A session (or a Genkit branch) of another format; `info` is that format's own object for it."""

    __slots__ = ("view", "info")

    def __init__(self, view: FormatView, info: object = None) -> None:
        super().__init__()
        self.view = view
        self.info = info

    def own_turns(self) -> int:
        """Its Turns (tui.model.nodes.user_turns): a Genkit store's or conversation's main-timeline turns, else
        every turn of the tree (a Jules session's turn 0 is its prompt, a real turn, not ai-agent's init turn)."""
        sessions = getattr(self.info, "sessions", None)
        if isinstance(sessions, list):
            return sum(g.turns for g in sessions)
        turns = getattr(self.info, "turns", None)
        return turns if isinstance(turns, int) and not isinstance(turns, bool) else len(self.turns)


class ForeignOp(Op):
    """A Jules activity or artifact, a Genkit snapshot or branch: `raw` is its JSON object as read."""

    __slots__ = ("view", "info")

    def __init__(self, turn, path: str, view: FormatView, info: object = None) -> None:
        super().__init__(turn, path)
        self.view = view
        self.info = info


def session_facts(s: Session) -> list[Fact]:
    """Title, times and error of a foreign session: the first lines of its details."""
    from tui.model.format import fmt_duration, fmt_ts

    facts = [Fact("title", s.title), Fact("started", fmt_ts(s.started_at)), Fact("last", fmt_ts(s.ended_at)),
             Fact("spans", fmt_duration(s.duration_ms))]
    if s.error:
        facts.append(Fact("error", s.error, "bad"))
    facts.extend(Fact("broken", p, "bad") for p in s.problems)
    return facts


def view_of(node: object) -> FormatView | None:
    return getattr(node, "view", None)


def facts_of(session: Session) -> Facts | None:
    view = view_of(session)
    return view.facts(session) if view is not None else None


def sections_of(node: object) -> list[Section]:
    view = view_of(node)
    return view.sections(node) if view is not None else []
