"""The Search screen (`F` in the browser): full-text search across the sessions of the directory (titles, first
prompts, agents, tools, errors, answers, tool results) with SQLite FTS5 over the sessions index
(tui.catalog.index.search).

What is typed is searched as text (never FTS5 syntax), in a thread worker a moment after the last key; each hit
shows the field that matched and a snippet with the match highlighted. Enter opens the session at the matching op
(OpenSession with `locate`: the op is found in the tree once it is loaded); q comes back to the results.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from tui.catalog.index import search as fts
from tui.model.fields import one_line, printable
from tui.model.format import fmt_ts
from tui.ui.messages import OpenSession
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.motion import TableMotion

DEBOUNCE_S = 0.25
PLACEHOLDER = "search titles, prompts, answers, tool results, tools, errors · tool:NAME result:TEXT · Enter opens"


class HitsTable(TableMotion):
    """The hits, best first."""


class SearchScreen(Screen):
    CSS_PATH = "search.tcss"
    BINDINGS = [
        Binding("slash", "focus_query", "Search", key_display="/"),
        Binding("escape", "close", "Back", show=False),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "close", "Back"),
        Binding("down", "to_hits", "Hits", show=False),  # from the query box straight into the results
    ]

    def __init__(self, sessions_dir: Path | None, *, query: str = "", index_path: Path | None = None) -> None:
        super().__init__()
        self.sessions_dir = sessions_dir
        self.index_path = index_path  # None: the index of sessions_dir (tui.catalog.index.reader)
        self.initial = query
        self.hits: list[fts.Hit] = []
        self.query_used = fts.build_query("")
        self._timer: Timer | None = None
        self._asked = 0  # the newest search: an older one finishing later is not drawn
        self._shown = 0  # the search whose hits are on screen

    @property
    def settled(self) -> bool:
        """No key waits for its search and the newest search's hits are drawn (what waiting ends on)."""
        return self._timer is None and self._shown == self._asked

    def compose(self) -> ComposeResult:
        yield Input(value=self.initial, placeholder=PLACEHOLDER, id="search-query", compact=True)
        yield Static(id="search-status")
        yield HitsTable(id="search-hits", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(HitsTable)
        for label, key, width in (("started", "started", 16), ("agent", "agent", 18), ("field", "field", 7),
                                  ("title", "title", 36), ("match", "match", None)):
            table.add_column(label, key=key, width=width)
        self.query_one(Input).focus()
        self._status("type to search every session of the directory")
        if self.initial:
            self.run_search(self.initial)

    def _status(self, text: str, style: str = "dim") -> None:
        self.query_one("#search-status", Static).update(Text(printable(text), style=style))

    # ------------------------------------------------------------------------------------------- searching
    @on(Input.Changed, "#search-query")
    def _changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, partial(self.run_search, event.value))

    @on(Input.Submitted, "#search-query")
    def _submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.run_search(event.value)
        self.query_one(HitsTable).focus()

    def run_search(self, text: str) -> None:
        self._timer = None
        query = fts.build_query(text)
        self._asked += 1
        if not query:
            self._show(query, [], "", self._asked)
            return
        self.run_worker(partial(self._search, query, self._asked), name="search", group="search", thread=True,
                        exit_on_error=False)

    def _search(self, query: fts.Query, asked: int = 0) -> None:
        """In a thread: the FTS5 query on a read-only connection, then drawn on the UI thread."""
        from tui.catalog.index.reader import ask, index_file

        found: list[fts.Hit] | None = None
        if self.sessions_dir is None and self.index_path is None:
            problem = "no sessions directory: search needs one (--sessions-dir)"
        else:
            found, problem = ask(self.index_path or index_file(self.sessions_dir or Path(".")),
                                 lambda conn: fts.search(conn, query), "the sessions index cannot be searched")
        self.app.call_from_thread(self._show, query, found or [], problem, asked)

    def _show(self, query: fts.Query, hits: list[fts.Hit], problem: str, asked: int = 0) -> None:
        if asked != self._asked:
            return  # a newer search is on its way
        self.query_used, self.hits, self._shown = query, hits, asked
        table = self.query_one(HitsTable)
        table.clear()
        for i, hit in enumerate(hits):
            table.add_row(Text(fmt_ts(hit.started_ms)), Text(one_line(hit.agent, 18)), Text(hit.field),
                          Text(one_line(hit.title or hit.session_id, 36)), snippet_text(hit.snippet), key=str(i))
        if problem:
            self._status(problem, "yellow")
        elif not query:
            self._status("type to search every session of the directory")
        else:
            more = " (the best ones)" if len(hits) >= fts.LIMIT else ""
            self._status(f"{len(hits):,} session{'s' if len(hits) != 1 else ''}{more} · Enter opens at the match")

    # ------------------------------------------------------------------------------------------- opening
    @on(DataTable.RowSelected, "#search-hits")
    def _open(self, event: DataTable.RowSelected) -> None:
        index = int(str(event.row_key.value))
        if 0 <= index < len(self.hits):
            hit = self.hits[index]
            self.post_message(OpenSession(hit.path, locate=partial(_locate, hit.field, self.query_used)))

    def action_to_hits(self) -> None:
        table = self.query_one(HitsTable)
        if not table.has_focus:
            table.focus()
        else:
            table.action_cursor_down()

    def action_focus_query(self) -> None:
        self.query_one(Input).focus()

    def action_close(self) -> None:
        self.app.pop_screen()


def _locate(field: str, query: fts.Query, root) -> str | None:
    return fts.locate(root, field, query)


def snippet_text(snippet: str) -> Text:
    """A snippet with its matches highlighted (plain text: never markup)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for piece, hit in fts.segments(snippet):
        text.append(piece, style="bold reverse" if hit else "")
    return text
