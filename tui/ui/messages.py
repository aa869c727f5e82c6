"""Every message of the live pipeline, in one place: what the live worker (tui.ui.live_worker) and the controller
(tui.ui.live_controller) tell the screens, and what screens ask of the app.

The live worker posts to the app (`LiveRowsChanged`, `LiveTreeBuilt`, `StreamStateChanged`, `LiveNotice`); the app
routes: it lets the controller take the new builds, then posts a copy of each message to every screen in the
stack. A screen handles those that concern it (`on_live_rows_changed`, `on_live_tree_built`,
`on_document_reloaded`, `on_history_changed`, `on_stream_state_changed`, `on_live_roots_forgotten`) and nothing
else. They do not bubble: a screen that does not handle one must not pass it
to the app. Those that come fast define `can_replace`, so that a screen which is busy (or under another) takes only
the newest of a run of them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from tui.catalog.watched_rows import WatchedRows
    from tui.catalog.session_row import SessionRow
    from tui.formats.aiagent.history import Version
    from tui.formats.aiagent.live.facts import LiveFacts, LiveTally
    from tui.model.diff import SessionDiff
    from tui.model.document import Document
    from tui.model.nodes import Session


class LiveTreeBuilt(Message, bubble=False):
    """A new build of the live root `root` (a session id of the event stream). The build is held by the controller
    while it is the newest; a screen that shows it holds it too (LiveController.hold), or the build may be emptied
    once a newer one replaces it: check `LiveController.is_current` before taking it. `facts`: what the live
    panel shows besides the tree (counters, status, output), taken with the build."""

    def __init__(self, root: str, session: Session, facts: LiveFacts) -> None:
        super().__init__()
        self.root = root
        self.session = session
        self.facts = facts

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LiveTreeBuilt) and message.root == self.root


class LiveRowsChanged(Message, bubble=False):
    """A batch of the live worker: the browser rows of the live roots built in it, `builds` (root -> (its build,
    its facts): the controller holds each as that root's newest), the roots forgotten entirely and those merged
    under another root (LiveHub.take_changes), the browser header's live line, whether the header changed, and
    the hub's counters then (`tally`).
    Not replaceable: each batch names other roots."""

    def __init__(self, rows: tuple[SessionRow, ...], builds: dict[str, tuple[Session, LiveFacts]],
                 forgotten: frozenset[str], merged: frozenset[str], summary: str, header: bool,
                 tally: LiveTally) -> None:
        super().__init__()
        self.rows = rows
        self.builds = builds
        self.forgotten = forgotten
        self.merged = merged
        self.summary = summary
        self.header = header
        self.tally = tally


class LiveNotice(Message, bubble=False):
    """Something the live worker tells the user (rejections so far, a build that failed): `options` are notify's."""

    def __init__(self, text: str, options: dict) -> None:
        super().__init__()
        self.text = text
        self.options = options


class DiffReady(Message, bubble=False):
    """The controller compared two sessions (`before`, `after`: browser rows' paths) in a worker: the app shows
    `diff`."""

    def __init__(self, before: str, after: str, diff: SessionDiff) -> None:
        super().__init__()
        self.before = before
        self.after = after
        self.diff = diff


class DocumentReloaded(Message, bubble=False):
    """The file at `path` (resolved) changed and was read again; `version` is its recorded history version (None
    when history does not record it)."""

    def __init__(self, path: Path, doc: Document, version: Version | None) -> None:
        super().__init__()
        self.path = path
        self.doc = doc
        self.version = version

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, DocumentReloaded) and message.path == self.path


class HistoryChanged(Message, bubble=False):
    """The recorded versions of the session with history key `key` changed (a version was added, or the one the
    live view shows)."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, HistoryChanged) and message.key == self.key


class StreamStateChanged(Message, bubble=False):
    """Rejections or a stream's state (listening, disconnected, reconnected) changed: every live view's banner."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StreamStateChanged)


class LiveRootsForgotten(Message, bubble=False):
    """The hub forgot these live roots entirely (the OTLP sink evicted their traces, and no event stream speaks for
    them): the browser keeps their rows only up to its bound (tui.catalog.forgotten_rows). Roots that came
    back in the same batch are not named. `merged`: roots that are now part of another root (a provisional OTLP
    session settled, a sub-agent shown alone until its parent spoke): their rows go, or the same tokens would count
    twice. Not replaceable: each message names other roots."""

    def __init__(self, roots: frozenset[str], merged: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.roots = roots
        self.merged = merged


class SessionFilesChanged(Message, bubble=False):
    """The directory watcher saw session files change: `rows` to upsert (unloaded: the browser's fill reads them),
    `removed` paths whose rows go, and `complete` when the directory came back (rows of files no longer there go).
    Made off the UI thread (tui.catalog.watched_rows); the app routes it to the browser. Not replaceable: each
    batch names other files."""

    def __init__(self, changes: WatchedRows) -> None:
        super().__init__()
        self.rows = changes.rows
        self.removed = changes.removed
        self.complete = changes.complete


class OpenSession(Message):
    """A screen asks the app to open a session (a file path, or `live:<root>`) on top, optionally at an op: `op_path`,
    or the one `locate` finds in the session once it is loaded (a search hit: tui.catalog.index.search.locate)."""

    def __init__(self, path: str, op_path: str | None = None,
                 locate: Callable[[Session], str | None] | None = None) -> None:
        super().__init__()
        self.path = path
        self.op_path = op_path
        self.locate = locate


class CompareSessions(Message):
    """A screen asks the app to compare two sessions (files or `live:<root>`) and show the diff."""

    def __init__(self, before: str, after: str) -> None:
        super().__init__()
        self.before = before
        self.after = after
