"""`/`, `n`, `N` and Escape for the line-based views (payload viewer, log pane, waterfall): one implementation.

A view mixes in LineSearch and says three things: its lines as text (`search_lines`), the line it is at
(`search_position`: a cursor or the top line) and how to bring a line into view (`search_goto`, which a wrapped view
maps to its rows). `/` asks for the text in a one-line prompt at the bottom; the first match at or after the
current line is shown; `n`/`N` go to the next/previous one (wrapping); Escape clears a finished search and only
then lets the screen go back. The finding itself is tui.model.line_search (pure, case-insensitive)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from rich.text import Text
from textual import events, on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input

from tui.model.fields import one_line
from tui.model.line_search import find_lines, step_hit

SEARCH_IN_THREAD = 100_000  # lines: past this, a find runs in a thread (600,000 short lines take ~0.1 s)
SEARCH_BINDINGS: list[BindingType] = [
    Binding("slash", "search_open", "Find", key_display="/"),
    Binding("n", "search_step(1)", "Next match", show=False),
    Binding("N", "search_step(-1)", "Previous match", key_display="N", show=False),
    Binding("escape", "search_clear", "Clear find", show=False),
]


class SearchPrompt(ModalScreen[str | None]):
    """The one-line prompt of `/`: Enter searches, Escape cancels (returns None)."""

    DEFAULT_CSS = """
    SearchPrompt {
        align: left bottom;
        background: transparent;
    }
    SearchPrompt > Input {
        width: 100%;
        margin-bottom: 1;
    }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", show=False)]

    def __init__(self, initial: str = "", placeholder: str = "find (case-insensitive), Enter to search") -> None:
        super().__init__()
        self.initial = initial
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Input(value=self.initial, placeholder=self.placeholder, id="line-search")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_key(self, event: events.Key) -> None:
        """Keys typed right after `/` reach the screen before its box is up: they go into the box, not lost (the
        box takes its own keys, so a key gets here only when it did not see it)."""
        box = self.query_one(Input)
        if event.is_printable and event.character:
            event.stop()
            box.focus()
            box.insert_text_at_cursor(event.character)
        elif event.key == "enter":
            event.stop()
            self.dismiss(box.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LineSearch(Widget):
    """The search state and keys of a line-based view (a mixin: list it before the widget class)."""

    BINDINGS = SEARCH_BINDINGS

    class Moved(Message):
        """The search moved (or found nothing, or was cleared): `text` says where it is ("" when cleared)."""

        def __init__(self, view: Widget, text: str) -> None:
            super().__init__()
            self.view = view
            self.text = text

        @property
        def control(self) -> Widget:
            return self.view

    search_query: str = ""
    search_line: int = -1  # the line of the match shown (-1: none)
    _search_cache: tuple[Sequence[object], int, str, list[int]] | None = None  # (lines, len, query, hits)

    # what a view says about itself ------------------------------------------------------------------------
    def search_lines(self) -> Sequence[object]:
        """The view's lines, as searched (each str()-able)."""
        raise NotImplementedError

    def search_position(self) -> int:
        """The line the next search starts from: the cursor's, or the first line in view."""
        return round(self.scroll_y)

    def search_goto(self, line: int) -> None:
        """Bring line `line` into view (and put a cursor there, if the view has one)."""
        self.scroll_to(y=line, animate=False, immediate=True)

    def search_report(self, text: str) -> None:
        """Show where the search is: under the view's border, and to the screen (Moved)."""
        self.border_subtitle = Text(text) if text else ""
        self.post_message(self.Moved(self, text))

    # the search -----------------------------------------------------------------------------------------------
    def _cached_hits(self, lines: Sequence[object]) -> list[int] | None:
        cached = self._search_cache
        if cached is not None and cached[0] is lines and cached[1] == len(lines) and cached[2] == self.search_query:
            return cached[3]
        return None

    def search_hits(self) -> list[int]:
        """The matching lines, found again only when the lines changed (a live log grows)."""
        lines = self.search_lines()
        hits = self._cached_hits(lines)
        if hits is None:
            hits = find_lines(lines, self.search_query)
            self._search_cache = (lines, len(lines), self.search_query, hits)
        return hits

    def _with_hits(self, then: Callable[[list[int]], None]) -> None:
        """Call `then` with the hits: now, or (lines to search past SEARCH_IN_THREAD) once a thread found them, so
        that finding in a million-line payload never stops the keys."""
        lines = self.search_lines()
        if self._cached_hits(lines) is not None or len(lines) <= SEARCH_IN_THREAD:
            then(self.search_hits())
            return
        self.search_report(f"finding {one_line(self.search_query, 40)!r} in {len(lines):,} lines…")
        self._find_in_thread(lines, self.search_query, then)

    @work(thread=True, exclusive=True, group="line-search", exit_on_error=False)
    def _find_in_thread(self, lines: Sequence[object], query: str, then: Callable[[list[int]], None]) -> None:
        hits = find_lines(lines, query)
        try:
            self.app.call_from_thread(self._found, lines, query, hits, then)
        except RuntimeError:
            pass  # the app is shutting down

    def _found(self, lines: Sequence[object], query: str, hits: list[int], then: Callable[[list[int]], None]) -> None:
        if query != self.search_query or not self.is_mounted:
            return  # another search (or none) meanwhile
        self._search_cache = (lines, len(lines), query, hits)
        then(hits)

    def search_for(self, query: str) -> None:
        """Search for `query` from the current line ("" clears)."""
        self.search_query = query
        self._search_cache = None
        self.refresh_bindings()
        if not query:
            self.clear_search()
            return
        position = self.search_position()
        self._with_hits(lambda hits: self._search_move(hits, step_hit(hits, position, 0)))

    def clear_search(self) -> bool:
        """Forget the search; False when there was none."""
        had = bool(self.search_query)
        self.search_query, self.search_line, self._search_cache = "", -1, None
        self.refresh_bindings()
        self.search_report("")
        self.refresh()
        return had

    def _search_move(self, hits: list[int], line: int | None) -> None:
        shown = one_line(self.search_query, 40)
        if line is None:
            self.search_line = -1
            self.search_report(f"no match for {shown!r} · Esc clears")
            self.refresh()
            return
        self.search_line = line
        self.search_goto(line)
        self.search_report(f"match {bisect_left(hits, line) + 1:,}/{len(hits):,} for {shown!r} · n/N next/prev · "
                           "Esc clears")
        self.refresh()

    # keys -----------------------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """n, N and Escape are the view's only while it has a search: otherwise they are the screen's (the footer
        shows the screen's `esc Back`, and Escape goes back)."""
        if action in ("search_step", "search_clear"):
            return bool(self.search_query)
        return super().check_action(action, parameters)

    def action_search_open(self) -> None:
        self.app.push_screen(SearchPrompt(self.search_query), self._prompted)

    def _prompted(self, query: str | None) -> None:
        if query is not None:
            self.search_for(query)
        self.focus()

    def action_search_step(self, step: int) -> None:
        if not self.search_query:
            raise SkipAction()  # no search here: n/N belong to the screen (the session screen's op search)
        at = self.search_line if self.search_line >= 0 else self.search_position()
        self._with_hits(lambda hits: self._search_move(hits, step_hit(hits, at, step)))

    def action_search_clear(self) -> None:
        if not self.clear_search():
            raise SkipAction()  # nothing to clear: Escape goes on to the screen (back)
