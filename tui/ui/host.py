"""What screens and mixins may ask of the MonitorApp, written down as Protocols for the type checker.

Screens cannot import `tui.ui.app` (it imports them: a cycle), so `self.app` is typed as a plain Textual `App`;
`host(self.app)` names the app-specific part they rely on, and mypy checks every use against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from tui.formats.aiagent.history import History, Version
    from tui.model.document import Document


class MonitorHost(Protocol):
    history: History
    history_shown: dict[str, Version]
    hub: Any

    def history_key(self, doc: Document, live_root: str | None) -> str | None: ...
    def history_closed(self, key: str | None) -> None: ...
    def diff_paths(self, a: str, b: str) -> None: ...
    def open_path(self, path: str, op_path: str | None = None) -> None: ...
    def closing(self) -> bool: ...


if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App

    from tui.formats.aiagent.live.hub import LiveHub

    class AppMixin(App[Any]):
        """For the type checker only: what the app mixins (HistoryRecorder, IdleCollector) use of MonitorApp."""

        hub: LiveHub
        live_pinned: dict[int, int]

        def session_screens(self) -> list[Any]: ...
        def closing(self) -> bool: ...
        def open_path(self, path: str, op_path: str | None = None) -> None: ...
        def _replace_documents(self, path: Path, doc: Document) -> None: ...

    from textual.screen import Screen

    from tui.model.nodes import Session
    from tui.ui.widgets.op_tree import OpTree

    class SessionScreenMixin(Screen[Any]):
        """For the type checker only: what HistoryView uses of the SessionScreen it is mixed into."""

        doc: Document
        session: Session
        live_root: str | None

        @property
        def tree(self) -> OpTree: ...
        def show_node(self, node: object) -> None: ...
        def replace_session(self, session: Session, doc: Document | None = None) -> None: ...
        def _status(self, message: str) -> None: ...
else:
    AppMixin = object  # at run time the mixins are plain classes; MonitorApp provides all of the above
    SessionScreenMixin = object


def host(app: object) -> MonitorHost:
    """The running MonitorApp seen through its contract (no check at run time: a cast for the type checker)."""
    return cast(MonitorHost, app)
