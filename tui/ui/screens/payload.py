"""PayloadScreen: the captured request/response bytes of one op, decoded into readable views.

Opens on the response in its most readable form (SSE reassembled, JSON/HTTP pretty). Decoding runs in a thread
worker and is cached per capture, so a 50 MB payload never freezes the UI. All payload text is untrusted: it is
shown through TextLines (inert Segments) and Text objects, never through markup.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from tui.model.capture import Capture
from tui.model.fields import printable
from tui.model.format import fmt_bytes
from tui.model.nodes import Op
from tui.payloads.decode import DecodedView, PayloadError
from tui.payloads.op_captures import (
    SECTION_PREFIX, HexLines, capture_message, decode_with_notes, default_capture, op_captures, payload_views,
    save_name, usable,
)
from tui.inputs.paths import safe_resolve
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.text_lines import TextLines

COPY_LIMIT = 16 * 1024 * 1024
_HEX_LINE_BYTES = 79
_SECTION_STYLE = Style(bold=True, color="cyan")
_MESSAGE_STYLE = Style(bold=True)


@dataclass(slots=True)
class Decoded:
    """The cached outcome of decoding one capture."""

    view: DecodedView | None = None
    notes: list[str] = field(default_factory=list)
    views: dict[str, Sequence[str]] = field(default_factory=dict)
    error: str = ""


class PayloadScreen(Screen):
    """The payloads of one op. r: request/response, s: raw/sdk/payload, v: next view, h: hex, y: copy, w: save."""

    CSS_PATH = "payload.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "toggle_side", "Req/Resp"),
        Binding("s", "cycle_source", "Raw/SDK"),
        Binding("v", "cycle_view", "View"),
        Binding("h", "hex", "Hex"),
        Binding("y", "copy", "Copy"),
        Binding("w", "save", "Save"),
    ]

    def __init__(self, op: Op, sessions_dir: Path | None = None, *, name: str | None = None,
                 monitor_dir: Path | None = None) -> None:
        super().__init__(name=name)
        self.op = op
        self.sessions_dir = sessions_dir
        self.monitor_dir = monitor_dir  # the monitor's --sessions-dir (never saved into)
        try:
            self.captures: list[Capture] = op_captures(op)
        except Exception as exc:  # noqa: BLE001 - malformed input must not crash the screen
            self.captures = []
            self._find_error = f"cannot list captures: {type(exc).__name__}: {exc}"
        else:
            self._find_error = ""
        self.index: int | None = default_capture(self.captures)
        self.view_name = ""
        self._cache: dict[int, Decoded] = {}
        self._pending: set[int] = set()
        self._mode = "message"  # "message" | "decoding" | "view"

    # --- layout --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="payload-title")
        yield Static(id="payload-capture")
        yield Static(id="payload-status")
        yield TextLines(id="payload-body", line_style=self._line_style)
        yield Footer()

    def on_mount(self) -> None:
        self.body.focus()
        self._show()

    @property
    def body(self) -> TextLines:
        return self.query_one("#payload-body", TextLines)

    @property
    def capture(self) -> Capture | None:
        return self.captures[self.index] if self.index is not None else None

    @property
    def current_lines(self) -> Sequence[str]:
        return self.body.lines

    def _line_style(self, index: int, line: str) -> Style | None:
        if self._mode == "message":
            return _MESSAGE_STYLE if index == 0 else None
        if self.view_name == "text" and line.startswith(SECTION_PREFIX):
            return _SECTION_STYLE
        return None

    # --- showing -------------------------------------------------------------------------------------

    def _show(self) -> None:
        c = self.capture
        if c is None:
            self._mode = "message"
            lines = ["this op has no captured payloads"]
            if self._find_error:
                lines.append(self._find_error)
            else:
                lines += ["", f"op {self.op.path} ({self.op.kind}) has no request/response payload "
                              "and no payload refs."]
            self._render_header()
            self._set_status(self._find_error, "error" if self._find_error else "")
            self.body.set_lines(lines)
            return
        if not usable(c):
            self._mode = "message"
            self._render_header()
            self._set_status(c.note or c.state, "error")
            self.body.set_lines(capture_message(c))
            return
        entry = self._cache.get(self.index)
        if entry is None:
            self._mode = "decoding"
            self._render_header()
            self._set_status(f"decoding… ({fmt_bytes(c.size)})" if c.size is not None else "decoding…", "")
            self.body.set_lines([f"decoding… {c.side} {c.source} payload"])
            self._start_decode(self.index)
            return
        if entry.error:
            self._mode = "message"
            self._render_header()
            self._set_status(entry.error, "error")
            self.body.set_lines([f"cannot read this payload: {entry.error}"])
            return
        if self.view_name not in entry.views:
            self.view_name = next(iter(entry.views))
        self._mode = "view"
        self._render_header()
        self._set_status(" · ".join(self._status_notes(entry)), "warning")
        self.body.set_lines(entry.views[self.view_name])

    def _status_notes(self, entry: Decoded) -> list[str]:
        notes = list(entry.notes)
        c = self.capture
        for other in self.captures:
            if other is not c and c is not None and other.side == c.side and not usable(other) and other.note:
                notes.append(f"{other.source}: {other.note}")
        return notes

    def _render_header(self) -> None:
        op = self.op
        title = Text.assemble(
            ("op ", "dim"), (printable(op.path or "?"), "bold"), "  ",
            (printable(op.kind), "bold magenta"), "  ", printable(op.target or ""),
            *((("  ", ("#" + printable(op.op_id), "dim")) if op.op_id else ())),
        )
        self.query_one("#payload-title", Static).update(title)
        c = self.capture
        if c is None:
            self.query_one("#payload-capture", Static).update(Text("no captures", style="dim"))
            return
        entry = self._cache.get(self.index) if self.index is not None else None
        size = entry.view.size if entry is not None and entry.view is not None else c.size
        fmt = c.format or (entry.view.kind if entry is not None and entry.view is not None else "?")
        parts: list = [
            (c.side, "bold green" if c.side == "response" else "bold yellow"), "  ",
            (c.source, "bold"), "  ", (fmt, "cyan"), "  ", fmt_bytes(size),
            ("  [ref]" if c.state == "ref" else ""), ("  [truncated]" if c.truncated else "", "red"),
            (f"  capture {self.index + 1}/{len(self.captures)}", "dim"),
        ]
        if entry is not None and entry.views and self._mode == "view":
            parts.append(("  view ", "dim"))
            for name in entry.views:
                parts.append((f" {name} ", "reverse bold") if name == self.view_name else (f" {name} ", "dim"))
        elif self._mode == "decoding":
            parts.append(("  decoding…", "italic"))
        else:
            parts.append((f"  [{c.state}]", "red"))
        self.query_one("#payload-capture", Static).update(Text.assemble(*parts))

    def _set_status(self, message: str, severity: str) -> None:
        style = {"error": "bold red", "warning": "yellow"}.get(severity, "")
        status = self.query_one("#payload-status", Static)
        status.update(Text(printable(message), style=style))
        status.display = bool(message)

    # --- decoding ------------------------------------------------------------------------------------

    def _start_decode(self, index: int) -> None:
        if index in self._pending:
            return
        self._pending.add(index)
        self.run_worker(partial(self._decode, index), name=f"decode-{index}", group="payload-decode",
                        thread=True, exit_on_error=False)

    def _decode(self, index: int) -> tuple[int, Decoded]:
        c = self.captures[index]
        try:
            view, notes = decode_with_notes(c, self.sessions_dir)
            return index, Decoded(view, notes, dict(payload_views(c, view)))
        except PayloadError as exc:
            return index, Decoded(error=str(exc) or "payload cannot be read")
        except MemoryError:
            return index, Decoded(error="out of memory while decoding this payload")
        except Exception as exc:  # noqa: BLE001 - a viewer shows the problem instead of crashing
            return index, Decoded(error=f"decoder error: {type(exc).__name__}: {exc}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "payload-decode" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        if event.state == WorkerState.SUCCESS:
            index, entry = worker.result
        else:
            index = int(worker.name.rsplit("-", 1)[1])
            entry = Decoded(error=f"decoder error: {worker.error}")
        self._pending.discard(index)
        self._cache[index] = entry
        if index == self.index and self.is_attached:
            self._show()

    # --- actions -------------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_toggle_side(self) -> None:
        c = self.capture
        if c is None:
            self.notify("this op has no captured payloads", severity="warning")
            return
        other = "request" if c.side == "response" else "response"
        same = [i for i, o in enumerate(self.captures) if o.side == other and o.source == c.source]
        target = same[0] if same else default_capture(self.captures, other)
        if target is None:
            self.notify(f"no {other} capture for this op", severity="warning")
            return
        self.index = target
        self._show()

    def action_cycle_source(self) -> None:
        c = self.capture
        if c is None:
            self.notify("this op has no captured payloads", severity="warning")
            return
        on_side = [i for i, o in enumerate(self.captures) if o.side == c.side]
        if len(on_side) < 2:
            self.notify(f"only one {c.side} capture ({c.source})")
            return
        self.index = on_side[(on_side.index(self.index) + 1) % len(on_side)]
        self._show()

    def _views(self) -> dict[str, Sequence[str]] | None:
        entry = self._cache.get(self.index) if self.index is not None else None
        return entry.views if entry is not None and entry.views and self._mode == "view" else None

    def action_cycle_view(self) -> None:
        views = self._views()
        if views is None:
            self.notify("nothing decoded to view yet", severity="warning")
            return
        names = list(views)
        self.view_name = names[(names.index(self.view_name) + 1) % len(names)] if self.view_name in names else names[0]
        self._show()

    def action_hex(self) -> None:
        if self._views() is None:
            self.notify("nothing decoded to view yet", severity="warning")
            return
        self.view_name = "hex"
        self._show()

    def action_copy(self) -> None:
        lines = self.current_lines
        estimate = len(lines) * _HEX_LINE_BYTES if isinstance(lines, HexLines) else sum(map(len, lines))
        if estimate > COPY_LIMIT:
            self.notify(f"view too large to copy (~{fmt_bytes(estimate)}); use w to save the payload",
                        severity="warning")
            return
        text = "\n".join(lines)
        self.app.copy_to_clipboard(text)
        self.notify(f"copied {len(text.encode('utf-8', 'surrogatepass')):,} bytes")

    def action_save(self) -> None:
        c = self.capture
        entry = self._cache.get(self.index) if self.index is not None else None
        if c is None or entry is None or entry.view is None:
            self.notify("nothing decoded to save", severity="warning")
            return
        name = save_name(self.op, c, entry.view)
        try:
            path = write_new_file(save_directory(self.sessions_dir, self.monitor_dir),
                                  name, entry.view.data)
        except OSError as exc:
            self.notify(f"cannot save: {exc}", severity="error")
            return
        self.notify(f"saved {len(entry.view.data):,} bytes to {path}")


def save_directory(*sessions_dirs: Path | None) -> Path:
    """Where `w` saves: the current directory, unless that is inside a sessions directory (the monitor never
    writes there: the producer owns it), then the system's temporary directory."""
    cwd = safe_resolve(Path.cwd())
    for folder in sessions_dirs:
        if folder is not None and cwd.is_relative_to(safe_resolve(Path(folder))):
            return Path(tempfile.gettempdir())
    return cwd


def write_new_file(directory: Path, name: str, data: bytes) -> Path:
    """Write `data` to a new file in `directory`, mode 0600 (captures carry prompts, keys, customer data), never
    overwriting and never through a planted link (O_CREAT|O_EXCL|O_NOFOLLOW). In the current directory it is
    `name`, else name-1.ext, name-2.ext...; in the shared temporary directory the name gets a random part
    (mkstemp), so nobody can guess it in advance."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    if safe_resolve(directory) == safe_resolve(Path(tempfile.gettempdir())):
        fd, path = tempfile.mkstemp(dir=str(directory), prefix=f"{stem}-", suffix=f"{dot}{ext}")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return Path(path).resolve()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for n in range(10_000):
        candidate = directory / (name if n == 0 else f"{stem}-{n}{dot}{ext}")
        try:
            fd = os.open(candidate, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return candidate.resolve()
    raise OSError(f"too many files named {name} in {directory}")
