"""Issue 30 point 8: only what changed is redrawn. Over SSH every repainted line is bytes on the wire: a live
session's reload that brings mostly the same content must repaint only what reads differently, a screen covered by
an opaque one must not repaint the one on top, and a table cell given its own value again must not repaint the
table. Counted as calls of each widget's public refresh() (a call without regions repaints the whole widget), never
as time. The bytes themselves are measured by tests/benchmarks/redraw_bench.py."""

from __future__ import annotations

from helpers.apphelpers import SIZE, deep_snapshot, session_app, top
from tui.formats.load import load
from tui.ui.preload import screen_css
from tui.ui.screens.browser import BrowserScreen
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.totals_panel import TotalsPanel

from helpers.waiting import wait_for


def count_refreshes(widget) -> list[tuple]:
    """Every repainting refresh() of `widget` from now on, as the regions it named (() = the whole widget)."""
    calls: list[tuple] = []
    original = widget.refresh

    def refresh(*regions, **kwargs):
        if kwargs.get("repaint", True):  # (a layout alone repaints only if the widget moved or was resized)
            calls.append(regions)
        return original(*regions, **kwargs)

    widget.refresh = refresh
    return calls


async def test_a_reload_with_the_same_content_repaints_no_pane(tmp_path):
    """A live session's file rewritten with the same tree (a reload that changes nothing on screen), and the
    running tick's relabelling: the op tree, logs, totals, details and breadcrumb are not repainted at all."""
    path = deep_snapshot(tmp_path, ops=40, depth=2)
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await wait_for(pilot, lambda: len(screen.query_one(LogPane).entries) > 0)
        await pilot.pause(0.5)
        # (the other screens' CSS, preloaded in a thread after the first screen, restyles every widget once)
        await wait_for(pilot, lambda: all(app.stylesheet.has_source(path, "") for path in screen_css()))
        await pilot.pause(0.3)
        panes = {"tree": screen.tree, "logs": screen.query_one(LogPane), "totals": screen.query_one(TotalsPanel),
                 "details": screen.query_one("#detail-body"), "crumbs": screen.query_one("#crumbs")}
        calls = {name: count_refreshes(widget) for name, widget in panes.items()}
        for _ in range(3):
            doc = load(str(path))
            screen.replace_session(doc.root, doc)
            screen.tree.refresh_labels()
            screen.query_one(TotalsPanel).update_totals()
            await pilot.pause(0.3)  # (the log pane's update is debounced)
        assert {name: c for name, c in calls.items() if c} == {}


async def test_a_screen_under_an_open_session_is_not_drawn():
    """Textual counted the browser under an open session as visible: its live row's updates repainted the session
    screen on top. Under an opaque screen it is not current; under a translucent one (a dialog) it still is."""
    from textual.app import App
    from textual.screen import ModalScreen, Screen

    from tui.ui.textual_compat import CoveredScreensStayDark

    class Dialog(ModalScreen):
        pass

    for base in (App, CoveredScreensStayDark):
        app = base()
        async with app.run_test(size=SIZE) as pilot:
            under = app.screen
            await app.push_screen(Dialog())
            await pilot.pause()
            assert under.is_current  # seen through the dialog's background
            app.pop_screen()
            await app.push_screen(Screen())
            await pilot.pause()
            assert under.is_current == (base is App)


async def test_the_monitor_s_browser_is_not_current_under_a_session(tmp_path):
    deep_snapshot(tmp_path, ops=20, depth=1)
    from tui.ui.app import MonitorApp

    app = MonitorApp(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        await wait_for(pilot, lambda: browser.table.row_count == 1)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not browser)
        top(app)
        assert not browser.is_current


async def test_a_table_cell_repaints_alone_and_only_when_it_changes(tmp_path):
    """The browser's table: a cell given the value it shows repaints nothing; a new value repaints one line of
    one cell, not the table (DataTable.update_cell repainted every visible row)."""
    deep_snapshot(tmp_path, ops=20, depth=1, seed=1)
    deep_snapshot(tmp_path, ops=20, depth=1, seed=2)
    from tui.ui.app import MonitorApp

    app = MonitorApp(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        table = screen.table
        await wait_for(pilot, lambda: table.row_count == 2)
        await pilot.pause(0.5)
        row_key = next(iter(table.rows))
        column = table.ordered_columns[1].key
        calls = count_refreshes(table)
        table.update_cell(row_key, column, table.get_cell(row_key, column))
        assert calls == []
        table.update_cell(row_key, column, "changed")
        assert len(calls) == 1 and len(calls[0]) == 1 and calls[0][0].height == 1
        assert calls[0][0].width == table.ordered_columns[1].get_render_width(table)
        assert table.get_cell(row_key, column) == "changed"


async def test_a_resize_to_the_size_the_app_has_lays_nothing_out(tmp_path):
    """The terminal driver's first Resize repeats the size Textual started with: passed on, it laid the first
    screen out and drew it whole a second time. A same-size Resize reaches the app only; another size reaches the
    screen on top (counted as the Resize messages dispatched, never as time)."""
    from textual import events

    resizes: list[events.Resize] = []
    app = session_app(deep_snapshot(tmp_path, ops=20, depth=1))
    hook = lambda message: resizes.append(message) if isinstance(message, events.Resize) else None  # noqa: E731
    async with app.run_test(size=(100, 30), message_hook=hook) as pilot:
        screen = top(app)
        for _ in range(50):  # until a tenth of a second passes with no Resize: the first layouts have ended (on a
            resizes.clear()  # loaded machine a widget's came after two pauses and was counted as the same-size one's)
            await pilot.pause(0.1)
            if not resizes:
                break
        await pilot.resize_terminal(100, 30)
        await pilot.pause(0.1)
        assert len(resizes) == 1  # the app's own, not passed on to the screen
        await pilot.resize_terminal(90, 30)
        assert await wait_for(pilot, lambda: screen.size.width == 90)
        assert len(resizes) > 2  # the app's, the screen's and its widgets'
