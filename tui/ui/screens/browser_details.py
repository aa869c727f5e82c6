"""The browser's details line: the highlighted session's full id and its file's path, which the Id and Title
columns cut short, so that `y` (copy the path) and the shell commands (`dump`, `payload --op`) have what they need
in view. A live session has no file: the line says where it comes from instead."""

from __future__ import annotations

from rich.text import Text

from tui.catalog.session_row import LIVE_PREFIX, SessionRow
from tui.model.fields import printable


def details_line(row: SessionRow | None) -> Text:
    """`<path> · id <full id>` (one line, cut with … at the end when the terminal is narrower)."""
    if row is None:
        return Text("")
    where = "live event stream (no file)" if row.key.startswith(LIVE_PREFIX) else printable(str(row.path))
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(where)  # first: what `y` copies, and its file name usually holds the id (80 columns hold both)
    line.append("  ·  id ", style="dim")
    line.append(printable(row.session_id), style="bold")
    return line


def file_path(row: SessionRow | None) -> str | None:
    """The path `y` copies: the session's file (None for a live session, which has none)."""
    if row is None or row.key.startswith(LIVE_PREFIX):
        return None
    return str(row.path)
