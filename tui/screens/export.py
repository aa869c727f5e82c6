"""`x` on the session screen: ask for a format and a file name, then hand them back to the screen to write."""

from __future__ import annotations


from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from tui.model.export import FORMATS, default_filename
from tui.model.fields import one_line
from tui.model.nodes import Session


class ExportScreen(ModalScreen[tuple[str, str] | None]):
    """Dismisses with (format, path), or None when cancelled."""

    CSS_PATH = "export.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, session: Session, fmt: str = "markdown") -> None:
        super().__init__()
        self.session = session
        self.fmt = fmt

    def compose(self) -> ComposeResult:
        s = self.session
        where = f" (sub-agent at {s.path_prefix})" if s.parent_op is not None else ""
        with Vertical(id="export-box"):
            yield Static(Text(f"Export {one_line(s.display_agent, 50)}{where}: {s.counts.ops:,} ops"),
                         id="export-title")
            with RadioSet(id="export-format"):
                yield RadioButton("Markdown report", value=self.fmt == "markdown", id="fmt-markdown")
                yield RadioButton("JSON (normalised model)", value=self.fmt == "json", id="fmt-json")
            yield Input(value=f"./{default_filename(s, self.fmt)}", id="export-path",
                        placeholder="file to write")
            yield Static(Text("Enter writes the file · Escape cancels · Tab moves between format and file name"),
                         id="export-hint")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        fmt = "json" if event.pressed.id == "fmt-json" else "markdown"
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
        self.dismiss((self.fmt, path))

    def action_cancel(self) -> None:
        self.dismiss(None)
