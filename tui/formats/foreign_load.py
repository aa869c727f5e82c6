"""Documents of the other snapshot systems (Jules, Genkit) and of other agents' own session files (Codex CLI,
Gemini CLI): detection and loading, called by tui.formats.load."""

from __future__ import annotations

import re
from pathlib import Path

from tui.formats.genkit import snapshot as genkit
from tui.formats.jules import snapshot as jules
from tui.formats.aiagent.ledger import parse_records
from tui.inputs.files import LoadError, document_limit, read_source
from tui.model.document import CODEX, GEMINI_CLI, GENKIT, JULES, Document


def detect(value: object) -> str | None:
    """The foreign format of parsed JSON that is not an ai-agent snapshot, or None."""
    if genkit.looks_like_genkit(value):
        return GENKIT
    if jules.looks_like_jules(value):
        return JULES
    if isinstance(value, dict):  # a one-line session file
        return detect_lines([value])
    return None


def detect_lines(records: list) -> str | None:
    """The agent whose JSONL session file these parsed lines are (Codex CLI, Gemini CLI), or None."""
    from tui.formats.codex.rollout import looks_like_codex
    from tui.formats.gemini_cli.chat import looks_like_chat_log

    if looks_like_codex(records):
        return CODEX
    if looks_like_chat_log(records):
        return GEMINI_CLI
    return None


def from_records(fmt: str, records: list[dict], problems: list[str], path: str,
                 sessions_dir: Path | None) -> Document:
    """An agent's JSONL session file, its lines parsed (`problems`: the lines that did not parse)."""
    from tui.formats.aiagent.snapshot import build_session

    if fmt == CODEX:
        node = _codex_rollout(records, problems, path, 0)
        shape = "codex-rollout"
    else:
        node = _gemini_log(records, problems, path, 0)
        shape = "gemini-cli-jsonl"
    doc = Document(fmt, path, root=build_session(node), sessions_dir=sessions_dir, shape=shape)
    _agent_document(doc, node)
    return doc


def _codex_rollout(records: list[dict], problems: list[str], path: str, depth: int) -> dict:
    """A Codex rollout's SessionNode, its spawned threads' rollouts read below the calls that spawned them."""
    from tui.formats.codex.children import SubAgents
    from tui.formats.codex.rollout import read as read_codex

    def load(file: Path, child_depth: int) -> dict | None:
        try:
            data = read_source(str(file), document_limit())
        except (LoadError, OSError):
            return None
        child_records, child_problems, _ = parse_records(data)
        return _codex_rollout(child_records, child_problems, str(file), child_depth) if child_records else None

    return read_codex(records, problems, SubAgents(path, depth, load) if path != "-" else None)


_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
_MAX_CHILD_DEPTH = 4


def _gemini_log(records: list[dict], problems: list[str], path: str, depth: int) -> dict:
    from tui.formats.gemini_cli.chat import read as read_chat, replay

    conversation, skipped = replay(records)
    return read_chat(conversation, problems + skipped, _gemini_children(path, conversation, depth), path)


def _gemini_children(path: str, conversation: dict, depth: int):
    """Finds a Gemini CLI sub-agent's chat by its agentId: `<chats>/<session id>/<agentId>.jsonl` beside the
    file (a name that is not a plain file name is never looked up; sub-agents nest at most a few levels)."""
    session_id = conversation.get("sessionId")
    if path == "-" or depth >= _MAX_CHILD_DEPTH or not isinstance(session_id, str) or not _SAFE_ID.fullmatch(
            session_id):
        return None
    base = Path(path).parent / session_id

    def child(agent_id: str) -> dict | None:
        if not _SAFE_ID.fullmatch(agent_id):
            return None
        file = base / f"{agent_id}.jsonl"
        try:
            data = read_source(str(file), document_limit()) if file.is_file() else None
        except (LoadError, OSError):
            return None
        if data is None:
            return None
        records, problems, _ = parse_records(data)
        return _gemini_log(records, problems, path, depth + 1) if records else None

    return child


def _agent_document(doc: Document, node: dict) -> None:
    """What every agent session file's document shares: its id, its problems shown on the root, the root's
    attributes as the file's head (`agentKind`, `costRecorded: false`)."""
    assert doc.root is not None
    doc.session_id = doc.root.id
    doc.problems = list(node["attributes"].get("problems") or [])
    doc.root.problems.extend(doc.problems)
    doc.root.head = {"attributes": node["attributes"]}


def from_value(fmt: str, value: object, path: str, sessions_dir: Path | None) -> Document:
    if fmt == CODEX:
        return from_records(fmt, [value] if isinstance(value, dict) else [], [], path, sessions_dir)
    if fmt == GEMINI_CLI:
        from tui.formats.aiagent.snapshot import build_session
        from tui.formats.gemini_cli.chat import read as read_chat

        if isinstance(value, dict) and not isinstance(value.get("messages"), list):  # a JSONL log's first line
            return from_records(fmt, [value], [], path, sessions_dir)
        conversation = value if isinstance(value, dict) else {}
        node = read_chat(conversation, children=_gemini_children(path, conversation, 0), path=path)
        doc = Document(fmt, path, root=build_session(node), sessions_dir=sessions_dir, shape="gemini-cli-json")
        _agent_document(doc, node)
        return doc
    if fmt == GENKIT:
        store = genkit.from_value(value)
        if not store.snapshots:
            raise LoadError(path, "no Genkit snapshots: " + ("; ".join(store.problems[:3]) or "the array is empty"))
        return _genkit_document(store, path, sessions_dir)
    from tui.formats.jules.tree import build_tree

    if isinstance(value, list):  # activities pages saved together, or a page's activities alone
        value = jules.as_page(value)
    if not isinstance(value, dict):
        raise LoadError(path, "a Jules snapshot must be a JSON object")
    snap = jules.parse(value)
    doc = Document(JULES, path, root=build_tree(snap), sessions_dir=sessions_dir, shape="jules")
    doc.session_id = snap.id
    doc.extra = snap
    doc.problems = list(snap.problems)
    return doc


def load_dir(path: str, max_bytes: int) -> Document:
    """A directory given as PATH: a Genkit snapshot store (the only format that is a directory)."""
    store = genkit.load_dir(path, max_bytes)
    return _genkit_document(store, path, Path(path).resolve().parent)


def _genkit_document(store: genkit.GenkitStore, path: str, sessions_dir: Path | None) -> Document:
    from tui.formats.genkit.tree import build_tree

    doc = Document(GENKIT, path, root=build_tree(store), sessions_dir=sessions_dir, shape=store.shape)
    doc.session_id = store.sessions[0].session_id if len(store.sessions) == 1 else ""
    doc.extra = store
    doc.problems = list(store.problems) + [p for g in store.sessions for p in g.problems]
    return doc
