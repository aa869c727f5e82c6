"""What the browser's `y`, `d` and Enter do with the highlighted row: kept apart from the screen, which renders the
model and forwards keys (issue 29: a thin view)."""

from __future__ import annotations

from typing import Any

from tui.model.fields import printable
from tui.ui.clipboard import copy_notice
from tui.ui.messages import CompareSessions, OpenSession
from tui.ui.screens.browser_details import file_path

BrowserScreen = Any  # (tui.ui.screens.browser.BrowserScreen: named, not imported, as it imports this module)


def copy_path(screen: BrowserScreen) -> None:
    """`y`: the highlighted session's file path to the clipboard (OSC 52), for a shell command."""
    key = screen.table.cursor_key()
    path = file_path(screen.model.rows.get(key) if key is not None else None)
    if path is None:
        screen.notify("no file to copy: " + ("a live session comes from an event stream" if key else "no session"),
                      severity="warning")
        return
    screen.app.copy_to_clipboard(path)
    screen.notify(copy_notice(f"copied the path {path}"), markup=False)


def diff_marked(screen: BrowserScreen) -> None:
    """`d`: compare the marked session with the highlighted one."""
    key = screen.table.cursor_key()
    rows = screen.model.rows
    marked = screen.model.marked if screen.model.marked in rows else None
    if marked is None or key is None or key == marked:
        screen.notify("mark a session with m, then press d on another to compare them", severity="warning")
        return
    screen.post_message(CompareSessions(str(rows[marked].path), str(rows[key].path)))


def open_row(screen: BrowserScreen, key: str) -> None:
    """Enter: open the row's session, or say why it cannot be opened."""
    row = screen.model.rows.get(key)
    if row is None:
        return
    if row.broken:
        screen.notify(f"{printable(row.session_id)}: {row.broken}", title="cannot open", severity="error",
                      markup=False)
        return
    screen.post_message(OpenSession(str(row.path)))
