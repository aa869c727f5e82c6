"""The browser's header lines, and its details line: the highlighted session's full id and its file's path, which
the Id and Title columns cut short, so that `y` (copy the path) and the shell commands (`dump`, `payload --op`) have
what they need in view. A live session has no file: the line says where it comes from instead."""

from __future__ import annotations

from rich.text import Text

from tui.catalog.session_row import LIVE_PREFIX, SessionRow
from tui.model.fields import printable


def header_line(text: str, demo: bool, live: str) -> Text:
    """The browser's first line: DEMO marked, the live streams' summary after it."""
    header = one_line(text)
    if demo:
        header.stylize("bold black on yellow", 0, len("DEMO"))
    if live:
        header.append("   " + live, style="bold yellow")
    return header


def one_line(text: str) -> Text:
    """A header line, cut with … (a stream's state such as `client #1 closed` wrapped it and pushed the table
    down)."""
    return Text(text, no_wrap=True, overflow="ellipsis")


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
