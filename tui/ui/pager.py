"""`|`: text handed to `$PAGER` (default `less`), the app suspended meanwhile (App.suspend, as ctrl+z does), so the
shell's own tools (less's search, marks, `v` to the editor) work on a payload or a session's export."""

from __future__ import annotations

import os
import subprocess

from textual.app import App, SuspendNotSupported

DEFAULT_PAGER = "less"


def pager_command() -> str:
    """`$PAGER` as the shell reads it (`less -R`, a script), else `less`."""
    return os.environ.get("PAGER", "").strip() or DEFAULT_PAGER


def open_in_pager(app: App, text: str) -> str | None:
    """Run the pager on `text` (its standard input, as git does) with the terminal handed over, and take it back
    when the pager exits. Returns None, or why it could not run (the caller says so in a notice). A headless app
    (tests) has no terminal to hand over: the pager runs all the same, its output discarded."""
    data = text.encode("utf-8", "replace")
    command = pager_command()
    try:
        if app.is_headless:
            _run(command, data, headless=True)
        else:
            with app.suspend():
                _run(command, data, headless=False)
    except SuspendNotSupported:
        return "this terminal cannot be handed to a pager (the web driver)"
    except OSError as exc:
        return f"cannot run {command!r}: {exc}"
    return None


def _run(command: str, data: bytes, *, headless: bool) -> None:
    quiet = subprocess.DEVNULL if headless else None
    try:
        # through the shell, as git and man run $PAGER: `less -R` and `most +s` are commands, not file names
        subprocess.run(command, shell=True, input=data, stdout=quiet, stderr=quiet, check=False)  # noqa: S602
    except BrokenPipeError:
        pass  # the pager quit before reading everything (q in less): nothing is wrong
