"""What the browser's `y`, `d` and Enter do with the highlighted row: kept apart from the screen, which renders the
model and forwards keys (issue 29: a thin view)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.app import App
from textual.message import Message

from tui.catalog.browser_model import BrowserModel
from tui.model.fields import printable
from tui.ui.clipboard import copy_notice
from tui.ui.messages import CompareSessions, OpenSession
from tui.ui.screens.browser_details import file_path
from tui.ui.screens.browser_table import SessionTable


class BrowserView(Protocol):
    """What the actions read and call on the browser (tui.ui.screens.browser.BrowserScreen, which imports this
    module): its model, its table, and the screen's own notify, post_message and app."""

    model: BrowserModel

    @property
    def table(self) -> SessionTable: ...
    @property
    def app(self) -> App[Any]: ...
    @property
    def notify(self) -> Callable[..., None]: ...
    @property
    def post_message(self) -> Callable[[Message], bool]: ...


def copy_path(screen: BrowserView) -> None:
    """`y`: the highlighted session's file path to the clipboard (OSC 52), for a shell command."""
    key = screen.table.cursor_key()
    path = file_path(screen.model.rows.get(key) if key is not None else None)
    if path is None:
        screen.notify("no file to copy: " + ("a live session comes from an event stream" if key else "no session"),
                      severity="warning")
        return
    screen.app.copy_to_clipboard(path)
    screen.notify(copy_notice(f"copied the path {path}"), markup=False)


def diff_marked(screen: BrowserView) -> None:
    """`d`: compare the marked session with the highlighted one."""
    key = screen.table.cursor_key()
    rows = screen.model.rows
    marked = screen.model.marked if screen.model.marked in rows else None
    if marked is None or key is None or key == marked:
        screen.notify("mark a session with m, then press d on another to compare them", severity="warning")
        return
    screen.post_message(CompareSessions(str(rows[marked].path), str(rows[key].path)))


def open_row(screen: BrowserView, key: str) -> None:
    """Enter: open the row's session, or say why it cannot be opened."""
    row = screen.model.rows.get(key)
    if row is None:
        return
    if row.broken:
        screen.notify(f"{printable(row.session_id)}: {row.broken}", title="cannot open", severity="error",
                      markup=False)
        return
    screen.post_message(OpenSession(str(row.path)))
