"""Sessions of other coding agents (Claude Code, Codex CLI, Gemini CLI) in the ai-agent tree.

Their sessions, turns and ops are ordinary tree nodes with ordinary tokens, cost and counts, so totals, the session
screen's labels and Totals panel, stats, search and `dump --json` treat them as ai-agent's. What only the agent's
file knows (the message exchange of an op, its content as log lines, its own detail fields) is asked of the op's
`view` (tui.payloads.op_captures, tui.model.logs and the details panel read it, as for Jules and Genkit ops).
A root's `raw` is `{"attributes": {...}}`: `source` (the agent kind) and `costEstimated`
(tui.model.session_facts.cost_estimated).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from tui.model.fields import one_line
from tui.model.nodes import Op, Session, Turn

if TYPE_CHECKING:
    from tui.model.capture import Capture
    from tui.model.foreign import Section
    from tui.model.logs import LogEntry


class AgentView(Protocol):
    def sections(self, node: object) -> list[Section]: ...

    def captures(self, op: Op) -> list[Capture]: ...

    def logs(self, op: Op) -> list[LogEntry]: ...

    def op_text(self, op: Op) -> str:
        """What the op answered (an assistant message's text) or returned (a tool result), searched by the
        sessions index (tui.catalog.index.row_extras.op_text); "" when none."""
        ...


class AgentOp(Op):
    """An assistant message (kind llm) or a tool call (kind tool, or session with its sub-agent): `info` is the
    reader's own object for it (the lines it came from)."""

    __slots__ = ("view", "info")

    def __init__(self, turn: Turn, path: str, view: AgentView, info: object = None) -> None:
        super().__init__(turn, path)
        self.view = view
        self.info = info


def mark_agent_tree(root: Session, source: str, estimated: bool, **more: object) -> None:
    """The attributes of an agent session's root: where it came from and whether its cost is an estimate. The
    agent kind is its `headendId` too, so that `stats --by headend` groups sessions by agent kind (and `--by
    agent` by the root's agent id, `<kind>/<project>`)."""
    root.raw = {"headendId": source, "attributes": {"source": source, "costEstimated": estimated, **more}}


def project_agent_id(kind: str, cwd: str, fallback: str = "") -> str:
    """A root's agent id: the agent kind and the project it worked in (the last part of its working directory),
    so that the browser's Agent column and `stats --by agent` tell projects apart."""
    name = cwd.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or fallback
    return f"{kind}/{name}" if name else kind


PROJECT_MAX = 160  # a project as a row and the index keep it (its end, where a path says most)


def session_project(s: Session) -> str:
    """The project a session worked in, as its reader decided from its own file and put in the root's
    `attributes.project` (Claude Code: the lines' cwd, else the project folder; Codex: session_meta's cwd; Gemini
    CLI: the projectHash, else its tmp folder; OpenCode: the project's worktree, else its projectID); "" for
    ai-agent's files, which record none. On one line, control characters escaped, at most PROJECT_MAX
    characters (a longer one keeps its end)."""
    attributes = s.field("attributes")
    value = attributes.get("project") if isinstance(attributes, dict) else None
    return project_text(value) if isinstance(value, str) else ""


def project_text(value: str) -> str:
    """A project name made safe to show and to keep: one line, escaped, its end kept (project_label)."""
    return project_label(one_line(value[-4 * PROJECT_MAX:].strip(), 4 * PROJECT_MAX), PROJECT_MAX)


def project_label(project: str, width: int) -> str:
    """A project (a path, mostly) in `width` cells: its end, which tells projects apart, after a "…"."""
    if len(project) <= width:
        return project
    return "…" + project[-(width - 1):] if width > 1 else project[:width]

