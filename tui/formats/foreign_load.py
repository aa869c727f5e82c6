"""Documents of the other snapshot systems (Jules, Genkit): detection and loading, called by `document`."""

from __future__ import annotations

from pathlib import Path

from tui.formats.genkit import snapshot as genkit
from tui.formats.jules import snapshot as jules
from tui.inputs.files import LoadError
from tui.model.document import GENKIT, JULES, Document


def detect(value: object) -> str | None:
    """The foreign format of parsed JSON that is not an ai-agent snapshot, or None."""
    if genkit.looks_like_genkit(value):
        return GENKIT
    if jules.looks_like_jules(value):
        return JULES
    return None


def from_value(fmt: str, value: object, path: str, sessions_dir: Path | None) -> Document:
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
