"""Where you were in a session: reopening it (the same file or live stream, the same drill-down) puts the cursor and
the expanded nodes back, for as long as the app runs.

One small store per app (forgotten with it), filled when a session screen is left and read when one opens. It
holds TreeState objects (tui.ui.widgets.op_tree): node keys by op path, so a file that grew meanwhile still maps."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from pathlib import Path

from textual.app import App

from tui.inputs.paths import safe_resolve
from tui.model.document import Document
from tui.model.nodes import Session
from tui.ui.widgets.tree_state import TreeState

REMEMBERED = 200  # views kept; the least recently left goes first

ViewKey = tuple[str, str]


def view_key(doc: Document, session: Session, live_root: str | None) -> ViewKey | None:
    """The file (resolved) or live root, and the drill-down; None for stdin (nothing to reopen)."""
    if live_root is not None:
        return ("live:" + live_root, session.path_prefix)
    if doc.path in ("", "-"):
        return None
    try:
        where = str(safe_resolve(Path(doc.path)))
    except (OSError, ValueError, RuntimeError):
        where = doc.path
    return (where, session.path_prefix)


class ViewMemory:
    """The TreeState last left for each view key (bounded, least recently used goes)."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self.limit = limit
        self._states: OrderedDict[ViewKey, TreeState] = OrderedDict()

    def save(self, key: ViewKey | None, state: TreeState) -> None:
        if key is None:
            return
        self._states[key] = state
        self._states.move_to_end(key)
        while len(self._states) > self.limit:
            self._states.popitem(last=False)

    def recall(self, key: ViewKey | None) -> TreeState | None:
        return self._states.get(key) if key is not None else None

    def __len__(self) -> int:
        return len(self._states)


_MEMORIES: weakref.WeakKeyDictionary[App, ViewMemory] = weakref.WeakKeyDictionary()


def memory_of(app: App) -> ViewMemory:
    """The app's store (made on first use)."""
    memory = _MEMORIES.get(app)
    if memory is None:
        memory = _MEMORIES[app] = ViewMemory()
    return memory
