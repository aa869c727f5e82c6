"""The log pane tails like `tail -f`: at the bottom it follows new lines, scrolling up pauses, End follows again."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.model.logs import LogEntry, LogView
from tui.ui.widgets.log_pane import FOLLOWING, PAUSED, LogPane


def entries(n: int) -> LogView:
    items = [LogEntry(1_700_000_000_000 + i, "INF", f"line {i}", "1.1", None, None) for i in range(n)]
    return LogView(items, [None] * n, list(range(n)))


class PaneApp(App):
    def compose(self) -> ComposeResult:
        yield LogPane(id="logs")


def last_shown(pane: LogPane) -> int:
    return round(pane.scroll_y) + pane.scrollable_content_region.height - 1


async def test_follows_new_lines_at_the_bottom_pauses_when_scrolled_up_and_end_resumes():
    app = PaneApp()
    async with app.run_test(size=(80, 12)) as pilot:
        pane = app.query_one(LogPane)
        pane.focus()
        pane.set_entries(entries(100), scope="1.1")
        await pilot.pause()
        assert pane.following and last_shown(pane) == 99, "a new log opens at its end"
        assert FOLLOWING in str(pane.border_title)
        for n in (120, 150):  # lines arrive: the view stays at the bottom
            pane.set_entries(entries(n), scope="1.1")
            await pilot.pause()
            assert last_shown(pane) == n - 1
        await pilot.press("up", "up", "up")
        await pilot.pause()
        assert not pane.following and PAUSED in str(pane.border_title)
        top = pane.scroll_y
        pane.set_entries(entries(200), scope="1.1")  # more lines arrive while paused: the view stays
        await pilot.pause()
        assert pane.scroll_y == top and not pane.following
        await pilot.press("end")
        await pilot.pause()
        assert pane.following and last_shown(pane) == 199 and FOLLOWING in str(pane.border_title)
        pane.set_entries(entries(230), scope="1.1")
        await pilot.pause()
        assert last_shown(pane) == 229


async def test_g_pauses_G_follows_and_another_node_starts_following_again():
    app = PaneApp()
    async with app.run_test(size=(80, 12)) as pilot:
        pane = app.query_one(LogPane)
        pane.focus()
        pane.set_entries(entries(100), scope="1.1")
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        assert pane.scroll_y == 0 and not pane.following
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert pane.scroll_y == pane.scrollable_content_region.height // 2
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert pane.scroll_y == 0
        await pilot.press("G")
        await pilot.pause()
        assert pane.following and last_shown(pane) == 99
        await pilot.press("g")
        await pilot.pause()
        pane.set_entries(entries(40), scope="1.2")  # another node's log: a new tail
        await pilot.pause()
        assert pane.following and last_shown(pane) == 39


async def test_mouse_wheel_up_pauses():
    app = PaneApp()
    async with app.run_test(size=(80, 12)) as pilot:
        pane = app.query_one(LogPane)
        pane.set_entries(entries(100), scope="1.1")
        await pilot.pause()
        await pilot.scroll_up(pane) if hasattr(pilot, "scroll_up") else pane.scroll_relative(y=-3, animate=False,
                                                                                                immediate=True)
        await pilot.pause()
        assert not pane.following
