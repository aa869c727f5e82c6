"""Session files of other coding agents (Claude Code, Codex CLI, Gemini CLI, OpenCode): one table row per agent format.

tui.formats.load asks `detect` about every input that is not an ai-agent snapshot before parsing it as JSON, and
hands a match to `document`. A row's `sniff` sees the file's first bytes (at most SNIFF_BYTES) and must be cheap;
its `build` reads the whole content into a normalised Session tree (tui.model.agent_nodes) and never raises on bad
input: cut lines, unknown line types and broken values become `problems` (shown, never fatal). Where the agent's
files sit on disk is tui.inputs.agent_roots; the row kind is the location's `kind`.
"""

from __future__ import annotations

from pathlib import Path

from tui.formats.agent_format import AgentFormat, AgentRead
from tui.model.document import CODEX, GEMINI_CLI, Document

SNIFF_BYTES = 64 * 1024


def _formats() -> list[AgentFormat]:
    from tui.formats.claude_code.reader import FORMAT as CLAUDE_CODE
    from tui.formats.opencode.reader import FORMAT as OPENCODE

    return [CLAUDE_CODE, OPENCODE]  # (Codex CLI and Gemini CLI: told by tui.formats.foreign_load)


_TABLE: list[AgentFormat] | None = None


def agent_formats() -> list[AgentFormat]:
    global _TABLE
    if _TABLE is None:
        _TABLE = _formats()
    return _TABLE


def detect(data: bytes | bytearray) -> AgentFormat | None:
    """The agent format of a file's content, or None (an ai-agent file, or anything else)."""
    head = bytes(data[:SNIFF_BYTES])
    if head.lstrip()[:1] not in (b"{", b"["):
        return None
    for fmt in agent_formats():
        try:
            if fmt.sniff(head):
                return fmt
        except (ValueError, TypeError, RecursionError):
            continue
    return None


def is_agent_file(path: Path) -> bool:
    """Whether the file at `path` is another agent's session file (its head is read; False when unreadable)."""
    from tui.inputs.files import open_regular

    try:
        with open_regular(path) as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return False
    return detect(head) is not None


def by_format_id(format_id: str) -> AgentFormat | None:
    return next((f for f in agent_formats() if f.format_id == format_id), None)


# Agents whose readers are told by tui.formats.foreign_load (their lines' shapes), not by this table: their kinds
_READ_ELSEWHERE = {CODEX: "codex", GEMINI_CLI: "gemini-cli"}


def kind_of_format(format_id: str) -> str | None:
    """The row kind of a document format, when it is an agent's (tui.catalog.session_row)."""
    fmt = by_format_id(format_id)
    return fmt.kind if fmt is not None else _READ_ELSEWHERE.get(format_id)


def document(fmt: AgentFormat, data: bytes | bytearray, path: str, sessions_dir: Path | None) -> Document:
    return _document(fmt, fmt.build(bytes(data), path), path, sessions_dir)


def database_document(db_file: str, session_id: str, path: str, sessions_dir: Path | None) -> Document:
    """A session of an OpenCode database (`opencode.db`, or `opencode.db#<session id>`: tui.formats.load)."""
    from tui.formats.opencode.reader import FORMAT, build_db

    return _document(FORMAT, build_db(db_file, session_id), path, sessions_dir)


def _document(fmt: AgentFormat, read: AgentRead, path: str, sessions_dir: Path | None) -> Document:
    doc = Document(fmt.format_id, path, root=read.root, sessions_dir=sessions_dir, shape=read.shape or fmt.kind)
    doc.session_id = read.session_id
    doc.problems = list(read.problems)
    doc.extra = read.info
    return doc
