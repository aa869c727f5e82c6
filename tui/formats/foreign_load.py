"""Documents of the other snapshot systems (Jules, Genkit) and of other agents' own session files (Codex CLI,
Gemini CLI): detection and loading, called by tui.formats.load."""

from __future__ import annotations

from pathlib import Path

from tui.formats.genkit import snapshot as genkit
from tui.formats.jules import snapshot as jules
from tui.inputs.files import LoadError
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
        from tui.formats.codex.rollout import read as read_codex

        node = read_codex(records, problems)
        shape = "codex-rollout"
    else:
        from tui.formats.gemini_cli.chat import read as read_chat, replay

        conversation, skipped = replay(records)
        node = read_chat(conversation, problems + skipped)
        shape = "gemini-cli-jsonl"
    doc = Document(fmt, path, root=build_session(node), sessions_dir=sessions_dir, shape=shape)
    _agent_document(doc, node)
    return doc


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
        node = read_chat(value if isinstance(value, dict) else {})
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
