"""The record an agent session reader hands over, and its table row (tui.formats.agents): apart from the table so
that the readers (tui.formats.claude_code, ...) import it without importing the table that imports them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tui.model.nodes import Session


@dataclass(slots=True)
class AgentRead:
    """What a reader made of one file: the tree, and what it had to skip or could not read."""

    root: Session
    problems: list[str] = field(default_factory=list)
    session_id: str = ""
    shape: str = ""  # e.g. "claude-code 2.0.76"
    info: object = None  # the reader's own object, kept as Document.extra


@dataclass(frozen=True, slots=True)
class AgentFormat:
    format_id: str  # Document.format ("claude-code-jsonl")
    kind: str  # the row kind, tui.inputs.agent_roots.AgentLocation.kind ("claude-code")
    label: str  # "Claude Code"
    sniff: Callable[[bytes], bool]  # the file's first bytes look like this agent's
    build: Callable[[bytes, str], AgentRead]  # content, path -> the tree (path: sibling files, e.g. sub-agents)
