"""`/`, `n`, `N` in the payload viewer, the log pane and the waterfall: the first match at or after the current line
is shown, n/N go to the next/previous (wrapping), Escape clears the search first and goes back only after."""

from __future__ import annotations

import re

from textual.app import App, ComposeResult

from helpers.apphelpers import deep_snapshot, session_app, top, wait_for
from tui.model.logs import LogEntry, LogView
from tui.model.search import walk_ops
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.screens.waterfall import WaterfallScreen
from tui.ui.widgets.line_search import SearchPrompt
from tui.ui.widgets.log_pane import LogPane

NARROW = (80, 24)


def naive_hits(lines, needle: str) -> list[int]:
    return [i for i, line in enumerate(lines) if needle.lower() in str(line).lower()]


def a_word_found_twice(lines, after: int) -> str:
    """A word (letters only) of a line below `after` that is on two or more lines."""
    for line in list(lines)[after:]:
        for word in re.findall(r"[A-Za-z]{5,12}", line):
            if 2 <= len(naive_hits(lines, word)) < len(lines):
                return word
    raise AssertionError("no word repeats")


async def find(pilot, text: str) -> None:
    await pilot.press("slash")
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, SearchPrompt))
    await pilot.press(*text, "enter")
    await pilot.pause()


async def test_payload_viewer(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        screen = top(app)
        llm = next(op for op in walk_ops(screen.session) if op.kind == "llm" and op.raw and "request" in op.raw)
        screen.tree.reveal(llm)
        await pilot.press("p", "r")  # the request: long enough to scroll
        assert await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and app.screen.mode == "view"
                              and app.screen.capture.side == "request")
        payload = app.screen
        body, word = payload.body, ""
        height = body.scrollable_content_region.height
        for _ in range(10):  # an unwrapped view (one line a row; wrapped rows: test_payload_wrap_and_messages)
            if not body.wrap:  # ... long enough to scroll to a word found twice
                try:
                    word = a_word_found_twice(list(body.lines), height)
                    break
                except AssertionError:
                    pass
            await pilot.press("v")
            await pilot.pause()
        assert word, "no unwrapped view with a word found twice below the first page"
        lines = list(body.lines)
        hits = naive_hits(lines, word)
        assert payload.active_bindings["escape"].binding.action == "back", "no search: the footer says esc Back"
        await find(pilot, word)
        assert app.screen is payload and body.search_line == hits[0]
        assert payload.active_bindings["escape"].binding.action == "search_clear"
        assert body.scroll_y <= hits[0] < body.scroll_y + height
        assert f"match 1/{len(hits)}" in str(payload.query_one("#payload-status").render())
        await pilot.press("n")
        assert body.search_line == hits[1] and body.scroll_y <= hits[1] < body.scroll_y + height
        await pilot.press("N", "N")
        assert body.search_line == hits[-1], "N wraps to the last match"
        await pilot.press("escape")
        assert app.screen is payload and body.search_query == "" and body.search_line == -1
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


class PaneApp(App):
    def compose(self) -> ComposeResult:
        yield LogPane(id="logs")


def entries(n: int) -> LogView:
    items = [LogEntry(1_700_000_000_000 + i, "INF", f"line {i}", "1.1", None, None) for i in range(n)]
    return LogView(items, [None] * n, list(range(n)))


async def test_log_pane():
    app = PaneApp()
    async with app.run_test(size=NARROW) as pilot:
        pane = app.query_one(LogPane)
        pane.focus()
        pane.set_entries(entries(200), scope="1.1")
        await pilot.pause()
        await pilot.press("g")
        await find(pilot, "LINE 7")
        height = pane.scrollable_content_region.height
        assert pane.search_line == 7 and pane.scroll_y <= 7 < pane.scroll_y + height
        await pilot.press("n")
        assert pane.search_line == 70 and pane.scroll_y <= 70 < pane.scroll_y + height
        assert not pane.following, "a match above the end pauses the tail"
        await pilot.press("N", "N")
        assert pane.search_line == 79
        assert "match 11/11" in str(pane.border_subtitle)
        await pilot.press("escape")
        assert pane.search_query == "" and pane.search_line == -1


async def test_log_pane_keys_in_the_session_screen(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        screen = top(app)
        pane = screen.query_one(LogPane)
        pane.focus()
        await pilot.press("n")  # no search in the pane: n is the screen's (no op search either: a hint)
        assert app.screen is screen
        await pilot.press("slash")  # the pane's find, not the op search
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchPrompt))
        assert not screen.query_one("#search").display
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)


async def test_waterfall(tmp_path):
    app = session_app(deep_snapshot(tmp_path, ops=80), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.press("w")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        wf = app.screen
        view = wf.view
        names = [row.name for row in view.model.rows]
        word = a_word_found_twice(names, len(names) // 2)
        hits = naive_hits(names, word)
        await find(pilot, word)
        assert view.cursor == hits[0] and app.screen is wf
        await pilot.press("n")
        assert view.cursor == hits[1]
        await pilot.press("N")
        assert view.cursor == hits[0]
        await pilot.press("escape")
        assert app.screen is wf and view.search_query == ""
        await pilot.press("escape")
        assert isinstance(app.screen, SessionScreen)


async def test_a_find_in_many_lines_runs_in_a_thread(monkeypatch):
    import tui.ui.widgets.line_search as line_search

    monkeypatch.setattr(line_search, "SEARCH_IN_THREAD", 10)
    app = PaneApp()
    async with app.run_test(size=NARROW) as pilot:
        pane = app.query_one(LogPane)
        pane.focus()
        pane.set_entries(entries(200), scope="1.1")
        await pilot.pause()
        await find(pilot, "line 12")
        assert await wait_for(pilot, lambda: pane.search_line == 12)
        await pilot.press("n")
        assert await wait_for(pilot, lambda: pane.search_line == 120)
        await pilot.press("end")
        pane.set_entries(entries(300), scope="1.1")  # lines arrived: found again (in the thread too)
        await pilot.pause()
        await pilot.press("n")  # from the end: wraps to the first match
        assert await wait_for(pilot, lambda: pane.search_line == 12)
