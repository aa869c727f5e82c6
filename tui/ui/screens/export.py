"""`x` on the session screen: ask for a format and a file name, then hand them back to the screen to write.

A name that already exists is overwritten only after a y at the overwrite prompt (Enter and Escape there mean no: a
trace id "README" must not silently replace ./README.md); a symbolic link, or a place inside the sessions directory
(the producer's), is refused with the reason. When the current directory is the sessions directory, the name
offered is in the home directory instead.

What is written is the version that was on screen when `x` was pressed, whole (the session screen holds its tree
until the file is written); when a newer version arrives meanwhile (`LiveTreeBuilt`, `DocumentReloaded`), the
dialog says so."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from tui.model.fields import one_line
from tui.model.nodes import Session
from tui.text.export import FORMATS, RefusedTarget, check_target, default_filename
from tui.ui.messages import DocumentReloaded, LiveTreeBuilt


CHOICES = {"markdown": "Markdown report", "json": "JSON (normalised model)"}


def _choice_label(label: str, chosen: bool) -> Text:
    """The radio buttons tell the chosen format from the other by colour only (both draw the same dot): a mark
    says it without colour (a monochrome terminal, NO_COLOR, a colour-blind reader)."""
    return Text(f"[x] {label}" if chosen else f"[ ] {label}")  # (a str would be read as markup)


class Ask(ModalScreen[bool]):
    """A yes/no question in the export dialog's box: y says yes, n and Escape no, Enter answers `enter_means`."""

    CSS_PATH = "export.tcss"
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No"),
                Binding("enter", "enter", "Answer", show=False),
                Binding("escape", "answer(False)", "No", show=False)]

    def __init__(self, question: str, enter_means: bool = False) -> None:
        super().__init__()
        self.question = question
        self.enter_means = enter_means

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(Text(self.question), id="export-confirm")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_enter(self) -> None:
        self.dismiss(self.enter_means)


class ConfirmOverwrite(Ask):
    """"PATH exists: overwrite it?" y overwrites; n, Enter and Escape keep the file."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{one_line(path, 200)} exists. Overwrite it? y = overwrite · n/Enter/Escape = no")
        self.path = path


class ExportScreen(ModalScreen[tuple[str, str, bool] | None]):
    """Dismisses with (format, path, overwrite), or None when cancelled; `overwrite` is True only when the user
    said y to replacing an existing file."""

    CSS_PATH = "export.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: Session, fmt: str = "markdown", sessions_dir: Path | None = None, *,
                 live_root: str | None = None, file_key: str | None = None) -> None:
        super().__init__()
        self.session = session
        self.fmt = fmt
        self.sessions_dir = sessions_dir
        self.live_root = live_root  # the live root, or the resolved file, whose newer versions are noted
        self.file_key = file_key
        self.newer = False

    def on_live_tree_built(self, message: LiveTreeBuilt) -> None:
        if message.root == self.live_root and message.session is not self.session.breadcrumb()[0]:
            self._note_newer()

    def on_document_reloaded(self, message: DocumentReloaded) -> None:
        if self.live_root is None and self.file_key == str(message.path):
            self._note_newer()

    def _note_newer(self) -> None:
        if not self.newer and self.is_mounted:
            self.newer = True
            self.query_one("#export-title", Static).update(Text(
                f"{self._title()} — a newer version arrived: this writes the version shown when x was pressed"))

    def _title(self) -> str:
        s = self.session
        where = f" (sub-agent at {s.path_prefix})" if s.parent_op is not None else ""
        return f"Export {one_line(s.display_agent, 50)}{where}: {s.counts.ops:,} ops"

    def _default_path(self) -> str:
        name = default_filename(self.session, self.fmt)
        if self.sessions_dir is not None:
            try:
                check_target(Path(name), sessions_dirs=(self.sessions_dir,))
            except RefusedTarget:
                return f"~/{name}"  # the current directory is the producer's: offer the home directory
            except OSError:
                pass
        return f"./{name}"

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(Text(self._title()), id="export-title")
            with RadioSet(id="export-format"):
                for fmt, label in CHOICES.items():
                    yield RadioButton(_choice_label(label, fmt == self.fmt), value=fmt == self.fmt,
                                      id=f"fmt-{fmt}")
            yield Input(value=self._default_path(), id="export-path",
                        placeholder="file to write")
            yield Static(Text("Enter writes the file · Escape cancels · Tab moves between format and file name"),
                         id="export-hint")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        fmt = "json" if event.pressed.id == "fmt-json" else "markdown"
        for choice, label in CHOICES.items():
            self.query_one(f"#fmt-{choice}", RadioButton).label = _choice_label(label, choice == fmt)
        if fmt == self.fmt:
            return
        field = self.query_one("#export-path", Input)
        old_ext, new_ext = FORMATS[self.fmt], FORMATS[fmt]
        if field.value.endswith(old_ext):
            field.value = field.value[: -len(old_ext)] + new_ext
        self.fmt = fmt

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        if not path:
            self.notify("give a file name", severity="warning")
            return
        try:
            check_target(Path(path), sessions_dirs=(self.sessions_dir,))
        except OSError as exc:
            self.notify(str(exc), title="not written", severity="error", timeout=10, markup=False)
            return
        if not os.path.lexists(os.path.expanduser(path)):
            self.dismiss((self.fmt, path, False))
            return
        fmt = self.fmt

        def answered(overwrite: bool | None) -> None:
            if overwrite:
                self.dismiss((fmt, path, True))
            else:
                self.notify(f"{path} kept: give another name", title="not written", markup=False)

        self.app.push_screen(ConfirmOverwrite(path), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)
