"""PayloadScreen: the captured request/response bytes of one op, decoded into readable views.

Opens on the response in its most readable form: for an LLM call, the messages view (the request's messages and
the answer, role by role, as Langfuse shows a generation: tui/payloads/messages.py), else SSE reassembled and
JSON/HTTP pretty. Decoding runs in a thread worker and is cached per capture, so a 50 MB payload never freezes the
UI; the worker that decodes an LLM capture also decodes its other side, since the messages view needs both.
Text and messages are soft-wrapped (z toggles it per view); JSON, events, raw and hex are not, hex never.
All payload text is untrusted: it is shown through TextLines (inert Segments) and Text objects, never through
markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import cast

from rich.style import Style
from rich.text import Text
from textual import on
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
from tui.payloads.messages import Conversation, MessageLines, conversation_lines, conversation_of, is_llm_view
from tui.payloads.op_captures import (
    SECTION_PREFIX, HexLines, capture_message, capture_name, decode_with_notes, default_capture, op_captures,
    payload_views, save_name, usable,
)
from tui.inputs.write import save_directory, write_new_file
from tui.ui.clipboard import copy_notice
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.line_search import LineSearch
from tui.ui.widgets.text_lines import TextLines

COPY_LIMIT = 16 * 1024 * 1024
_HEX_LINE_BYTES = 79
_SECTION_STYLE = Style(bold=True, color="cyan")
_MESSAGE_STYLE = Style(bold=True)
_ROLE_STYLES = {
    "meta": Style(bold=True),
    "system": Style(bold=True, color="magenta"),
    "user": Style(bold=True, color="green"),
    "assistant": Style(bold=True, color="cyan"),
    "tool": Style(bold=True, color="yellow"),
}
WRAPPED_VIEWS = frozenset({"messages", "text"})  # soft-wrapped unless toggled; JSON, events, raw: not; hex: never


@dataclass(slots=True)
class Decoded:
    """The cached outcome of decoding one capture."""

    view: DecodedView | None = None
    notes: list[str] = field(default_factory=list)
    views: dict[str, Sequence[str]] = field(default_factory=dict)
    error: str = ""
    conversation: Conversation | None = None
    messages: dict[bool, MessageLines] = field(default_factory=dict)  # system expanded? -> the laid-out lines

    def set_conversation(self, conv: Conversation | None) -> None:
        """Lay out the messages view (both ways when there is a system prompt to fold) and put it first."""
        self.conversation = conv
        self.messages = {}
        if conv is None:
            self.views.pop("messages", None)
            return
        self.messages[False] = conversation_lines(conv, False)
        if conv.system_count:
            self.messages[True] = conversation_lines(conv, True)
        self.views = {"messages": self.messages[False].lines, **{k: v for k, v in self.views.items()
                                                                 if k != "messages"}}


class PayloadScreen(Screen):
    """The payloads of one op. r: request/response, s: raw/sdk/payload, v: next view, x: hex, y: copy, w: save,
    z: soft wrap on/off, Enter: expand/fold the system prompt (messages view); / n N find in the lines (TextLines),
    h/l sideways."""

    CSS_PATH = "payload.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "toggle_side", "Req/Resp"),
        Binding("s", "cycle_source", "Raw/SDK"),
        Binding("v", "cycle_view", "View"),
        Binding("x", "hex", "Hex", show=False),  # (footer: 80 columns reach Enter)
        Binding("y", "copy", "Copy", show=False),
        Binding("w", "save", "Save", show=False),
        Binding("z", "toggle_wrap", "Wrap"),
        Binding("vertical_line", "pager", "Open in $PAGER", key_display="|", show=False, id="payload.pager"),
        Binding("enter", "toggle_system", "System"),
        Binding("q", "app.close_view", "Close", show=False),
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
        self._wrap: dict[str, bool] = {}  # a view's wrap as the user toggled it (else WRAPPED_VIEWS says)
        self.system_expanded = False
        self._status_note: tuple[str, str] = ("", "")  # the status line's message and severity

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

    def action_pager(self) -> None:
        """`|`: the view on screen (as `w` would save it: the lines shown) in `$PAGER`."""
        from tui.ui.pager import open_in_pager

        problem = open_in_pager(self.app, "\n".join(self.current_lines) + "\n")
        if problem:
            self.notify(problem, severity="error", markup=False)

    @property
    def mode(self) -> str:
        """What the body shows: "message" (no payload, or one that cannot be read), "decoding" (a worker is on it)
        or "view" (the decoded capture in the current view)."""
        return self._mode

    def show_capture(self, index: int) -> None:
        """Show the capture at `index` of `captures` (as the Req/Resp and Raw/SDK keys reach them), so that a
        caller can walk every capture of the op."""
        self.index = index
        self._show()

    def _line_style(self, index: int, line: str) -> Style | None:
        if self._mode == "message":
            return _MESSAGE_STYLE if index == 0 else None
        if self.view_name == "messages":
            laid = self._message_lines()
            role = laid.heads.get(index) if laid is not None else None
            return _ROLE_STYLES.get(role) if role else None
        if self.view_name == "text" and line.startswith(SECTION_PREFIX):
            return _SECTION_STYLE
        return None

    # --- showing -------------------------------------------------------------------------------------

    def _show(self) -> None:
        c, index = self.capture, self.index
        if c is None or index is None:  # (one is None when the other is: see capture)
            self._mode = "message"
            lines = ["this op has no captured payloads"]
            if self._find_error:
                lines.append(self._find_error)
            else:
                lines += ["", f"op {self.op.path} ({self.op.kind}) has no request/response payload "
                              "and no payload refs."]
            self._render_header()
            self._set_status(self._find_error, "error" if self._find_error else "")
            self.body.set_lines(lines, wrap=True)
            return
        if not usable(c):
            self._mode = "message"
            self._render_header()
            self._set_status(c.note or c.state, "error")
            self.body.set_lines(capture_message(c), wrap=True)
            return
        entry = self._cache.get(index)
        if entry is None:
            self._mode = "decoding"
            self._render_header()
            self._set_status(f"decoding… ({fmt_bytes(c.size)})" if c.size is not None else "decoding…", "")
            self.body.set_lines([f"decoding… {c.side} {c.source} payload"], wrap=True)
            self._start_decode(index)
            return
        if entry.error:
            self._mode = "message"
            self._render_header()
            self._set_status(entry.error, "error")
            self.body.set_lines([f"cannot read this payload: {entry.error}"], wrap=True)
            return
        if self.view_name not in entry.views:
            self.view_name = next(iter(entry.views))
        self._mode = "view"
        self._render_header()
        self._set_status(" · ".join(self._status_notes(entry)), "warning")
        self.body.set_lines(self._view_lines(entry), wrap=self.wraps(self.view_name))
        self.refresh_bindings()

    def _view_lines(self, entry: Decoded) -> Sequence[str]:
        if self.view_name == "messages":
            laid = self._message_lines(entry)
            if laid is not None:
                return laid.lines
        return entry.views[self.view_name]

    def _message_lines(self, entry: Decoded | None = None) -> MessageLines | None:
        entry = entry or (self._cache.get(self.index) if self.index is not None else None)
        if entry is None or not entry.messages:
            return None
        return entry.messages.get(self.system_expanded) or entry.messages[False]

    def wraps(self, view: str) -> bool:
        """Is `view` soft-wrapped: as the user last toggled it, else text and messages are and the rest are not."""
        if view == "hex":
            return False
        return self._wrap.get(view, view in WRAPPED_VIEWS)

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
        c, index = self.capture, self.index
        if c is None or index is None:  # (one is None when the other is: see capture)
            self.query_one("#payload-capture", Static).update(Text("no captures", style="dim"))
            return
        entry = self._cache.get(index)
        size = entry.view.size if entry is not None and entry.view is not None else c.size
        fmt = c.format or (entry.view.kind if entry is not None and entry.view is not None else "?")
        name = capture_name(c)  # an sdk capture is ai-agent's own turn request / result
        parts: list = [
            (c.side, "bold green" if c.side == "response" else "bold yellow"), "  ",
            (c.source, "bold"), (f" ({name})" if name else "", "bold"), "  ", (fmt, "cyan"), "  ", fmt_bytes(size),
            ("  [ref]" if c.state == "ref" else ""), ("  [truncated]" if c.truncated else "", "red"),
            (f"  capture {index + 1}/{len(self.captures)}", "dim"),
        ]
        if entry is not None and entry.views and self._mode == "view":
            parts.append(("  wrap" if self.wraps(self.view_name) else "  nowrap", "dim"))  # before the list: narrow
            parts.append(("  view ", "dim"))
            for name in entry.views:
                parts.append((f" {name} ", "reverse bold") if name == self.view_name else (f" {name} ", "dim"))
        elif self._mode == "decoding":
            parts.append(("  decoding…", "italic"))
        else:
            parts.append((f"  [{c.state}]", "red"))
        self.query_one("#payload-capture", Static).update(Text.assemble(*parts))

    def _set_status(self, message: str, severity: str) -> None:
        self._status_note = (message, severity)  # shown again when a find (/) is cleared
        self._show_status(message, severity)

    @on(LineSearch.Moved)
    def _search_moved(self, event: LineSearch.Moved) -> None:
        """Where `/` is (match 3/17…) takes the status line while a find is on; Escape gives it back."""
        if event.text:
            self._show_status(event.text, "")
        else:
            self._show_status(*self._status_note)

    def _show_status(self, message: str, severity: str) -> None:
        style = {"error": "bold red", "warning": "yellow"}.get(severity, "")
        status = self.query_one("#payload-status", Static)
        status.update(Text(printable(message), style=style))
        status.display = bool(message)

    # --- decoding ------------------------------------------------------------------------------------

    def _start_decode(self, index: int) -> None:
        if index in self._pending:
            return
        self._pending.add(index)
        partner = self._partner(index)
        known = self._cache.get(partner) if partner is not None else None
        self.run_worker(partial(self._decode_pair, index, partner, known), name=f"decode-{index}",
                        group="payload-decode", thread=True, exit_on_error=False)

    def _partner(self, index: int) -> int | None:
        """The capture on the other side of the call (same source when there is one): the messages view shows the
        request and the answer together."""
        c = self.captures[index]
        other = "request" if c.side == "response" else "response"
        same = [i for i, o in enumerate(self.captures) if o.side == other and o.source == c.source and usable(o)]
        partner = same[0] if same else default_capture(self.captures, other)
        return partner if partner is not None and usable(self.captures[partner]) else None

    def _decode_pair(self, index: int, partner: int | None,
                     known: Decoded | None) -> tuple[int, Decoded, int | None, Decoded | None]:
        """Decode a capture; when it is an LLM request or answer, its partner too (unless `known`), and lay out
        their conversation. Runs in a thread: touches no widget and no cache."""
        entry = self._decode(index)
        if partner is None or not is_llm_view(entry.view):
            return index, entry, None, None
        other = known if known is not None else self._decode(partner)
        try:
            request, response = (entry, other) if self.captures[index].side == "request" else (other, entry)
            if request.view is None or request.view.request is None or (
                    response.view is not None and response.view.request is not None):
                # an answer alone (the text view is it), or two request-shaped bodies (a Genkit state and its
                # parent's): not one call's request and answer
                return index, entry, (partner if known is None else None), (other if known is None else None)
            conv = conversation_of(request.view, response.view)
            entry.set_conversation(conv)
            if known is None and is_llm_view(other.view):
                other.set_conversation(conv)
        except Exception as exc:  # noqa: BLE001 - the other views are still worth showing
            entry.notes.append(f"messages view unavailable: {type(exc).__name__}: {exc}")
        return index, entry, (partner if known is None else None), (other if known is None else None)

    def _decode(self, index: int) -> Decoded:
        c = self.captures[index]
        try:
            view, notes = decode_with_notes(c, self.sessions_dir)
            return Decoded(view, notes, dict(payload_views(c, view)))
        except PayloadError as exc:
            return Decoded(error=str(exc) or "payload cannot be read")
        except MemoryError:
            return Decoded(error="out of memory while decoding this payload")
        except Exception as exc:  # noqa: BLE001 - a viewer shows the problem instead of crashing
            return Decoded(error=f"decoder error: {type(exc).__name__}: {exc}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "payload-decode" or event.state not in (WorkerState.SUCCESS, WorkerState.ERROR):
            return
        partner, other = None, None
        if event.state == WorkerState.SUCCESS:
            index, entry, partner, other = cast(tuple, worker.result)  # (what _decode returned)
        else:
            index = int(worker.name.rsplit("-", 1)[1])
            entry = Decoded(error=f"decoder error: {worker.error}")
        self._pending.discard(index)
        self._cache[index] = entry
        if partner is not None and other is not None and partner not in self._cache:
            self._cache[partner] = other
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
        c, index = self.capture, self.index
        if c is None or index is None:  # (one is None when the other is: see capture)
            self.notify("this op has no captured payloads", severity="warning")
            return
        on_side = [i for i, o in enumerate(self.captures) if o.side == c.side]
        if len(on_side) < 2:
            self.notify(f"only one {c.side} capture ({c.source})")
            return
        self.index = on_side[(on_side.index(index) + 1) % len(on_side)]
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

    def action_toggle_wrap(self) -> None:
        if self._views() is None:
            self.notify("nothing decoded to view yet", severity="warning")
            return
        if self.view_name == "hex":
            self.notify("hex rows have a fixed width: they do not wrap")
            return
        self._wrap[self.view_name] = not self.wraps(self.view_name)
        self.body.set_wrap(self.wraps(self.view_name))
        self._render_header()

    def _can_fold_system(self) -> bool:
        entry = self._cache.get(self.index) if self.index is not None else None
        return self.view_name == "messages" and self._mode == "view" and entry is not None \
            and len(entry.messages) > 1

    def action_toggle_system(self) -> None:
        if not self._can_fold_system():
            self.notify("no system prompt to expand here", severity="warning")
            return
        self.system_expanded = not self.system_expanded
        laid = self._message_lines()
        if laid is None:
            return
        first = min((i for i, role in laid.heads.items() if role == "system"), default=0)
        body = self.body
        body.set_lines(laid.lines, scroll_home=False, wrap=self.wraps("messages"))
        top, row = round(body.scroll_offset.y), body.line_to_row(first)
        if not top <= row < top + body.scrollable_content_region.height:  # out of sight: bring it to the top
            body.scroll_to_line(first)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter (system prompt) is offered only where there is one to fold."""
        if action == "toggle_system":
            return self._can_fold_system()
        return True

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
        self.notify(copy_notice(f"copied {len(text.encode('utf-8', 'surrogatepass')):,} bytes"))

    def action_save(self) -> None:
        c = self.capture
        entry = self._cache.get(self.index) if self.index is not None else None
        if c is None or entry is None or entry.view is None:
            self.notify("nothing decoded to save", severity="warning")
            return
        name, data = save_name(self.op, c, entry.view), entry.view.data
        directory = save_directory(self.sessions_dir, self.monitor_dir)
        from tui.ui.screens.export import Ask

        def answered(yes: bool | None) -> None:
            if not yes:
                self.notify("not saved")
                return
            try:
                path = write_new_file(directory, name, data)
            except OSError as exc:
                self.notify(f"cannot save: {exc}", severity="error")
                return
            self.notify(f"saved {len(data):,} bytes to {path}")

        # where it goes is said before anything is written (the current directory is not where one looks)
        self.app.push_screen(Ask(f"Save {len(data):,} bytes to {directory / name} (a new name if it exists)? "
                                 f"y/Enter = save · n/Escape = no", enter_means=True), answered)
