"""80x24 works: the Totals panel never cuts a value, the footer always shows `? Help` and the first keys."""

from __future__ import annotations

import pytest

from helpers.apphelpers import session_app, top, wait_for
from helpers.builders import llm_acc, op, session, turn, write
from tui.ui.textual_compat import FooterKey
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.totals_panel import TotalsPanel

SIZES = [(80, 24), (160, 48)]


def costly_running(tmp_path):
    big = llm_acc(1_234_567_890, 98_765_432, cache_read=1_234_567_890, cache_write=5_555_555, cost=1234.5678)
    child = session(turn(1, op("tool", op_id="c1", status="failed"), op("tool", op_id="c2", status="failed")),
                    agent="child", trace="trace-child")
    return write(tmp_path / "costly.json.gz", session(
        turn(1, op("llm", op_id="r1", accounting=[big], provider="anthropic", model="claude"),
             op("session", op_id="r2", child=child, name="child", status=None, ended=None)),
        *[turn(i, op("tool", op_id=f"t{i}", name="t")) for i in range(2, 16)],
        ended=None, success=None))


def panel_lines(panel: TotalsPanel) -> list[str]:
    """The panel's rows as drawn inside its border and padding."""
    return [panel.render_line(y).text.rstrip() for y in range(panel.size.height)]


async def settle(pilot) -> None:
    for _ in range(4):
        await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
async def test_the_totals_panel_never_cuts_a_value(tmp_path, size):
    app = session_app(costly_running(tmp_path), watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        panel = top(app).query_one(TotalsPanel)
        lines = panel_lines(panel)
        text = "\n".join(lines)
        assert "…" not in text
        assert "$1234.5678" in text
        assert "● running" in text
        assert len(lines) <= 8  # it does not push the tree off an 80x24 screen
        if size == (160, 48):
            assert "1,234,567,890" in text  # room enough for full numbers and full labels
            assert "cache write" in text


@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_shows_help_first(tmp_path, size):
    app = session_app(costly_running(tmp_path), watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        footer = top(app).query_one(Footer)
        keys = [key for key in footer.query(FooterKey) if "-command-palette" not in key.classes]
        assert keys[0].action == "app.help"
        width = size[0]
        shown = [key for key in keys if key.region.width and key.region.right <= width]
        assert keys[0] in shown
        actions = [key.action for key in shown]
        for action in ("back", "search", "next_match", "errors_only"):
            assert action in actions, (action, actions)  # the most used keys fit even at 80 columns


def test_lay_out_never_cuts_and_drops_the_least_important_first():
    from rich.console import Console
    from rich.text import Text

    from tui.ui.widgets.totals_panel import Cell, lay_out

    cells = [Cell("tokens in", Text("1,234,567,890"), Text("1234.57M")), Cell("cost", Text("$1234.5678")),
             Cell("status", Text("● running")), Cell("cache write", Text("5,555,555"), Text("5.56M"), rank=3),
             Cell("agents", Text("33"), rank=2), Cell("tools run", Text("12"), rank=1)]
    for width in (16, 20, 28, 60):
        console = Console(width=width, record=True, color_system=None)
        console.print(lay_out(cells, width, max_rows=3))
        text = console.export_text()
        assert "…" not in text
        for value in ("$1234.5678", "● running"):  # never dropped, never cut
            assert value in text, (width, text)
        if width == 60:
            assert "cache write" in text and "1,234,567,890" in text
        if width == 16:
            assert "cW" not in text  # the least important went first


def test_the_lines_the_totals_take_are_known_without_drawing_them():
    """TotalsPanel tells SteadyStatic its height (lines_at) so that a live batch need not draw the grid twice: the
    count must be what drawing gives, or the panel would keep a stale height (or lay the screen out for nothing)."""
    from rich.console import Console
    from rich.text import Text

    from tui.ui.widgets.totals_panel import Cell, lay_out, lines_at

    cells = [Cell("tokens in", Text("1,234,567,890"), Text("1234.57M")), Cell("cost", Text("$1234.5678")),
             Cell("status", Text("● running")), Cell("cache write", Text("5,555,555"), Text("5.56M"), rank=3),
             Cell("agents", Text("33"), rank=2), Cell("tools run", Text("12"), rank=1),
             Cell("note", Text("a value longer than a narrow panel's whole width"), rank=0)]
    known = 0
    for width in range(8, 90, 3):
        for kept in (cells[:6], cells):
            shown = lay_out(kept, width)
            drawn = len(Console(width=width).render_lines(shown, pad=False))
            lines = lines_at(shown, width)
            assert lines in (None, drawn), (width, lines, drawn)
            known += lines is not None
    assert known > 30, "most layouts are counted without drawing"


@pytest.mark.parametrize("age_s, shown", [(20 * 60, "○ stale"), (0, "● running")])
async def test_the_totals_panel_says_stale_when_the_file_went_silent(tmp_path, age_s, shown):
    """Point 5 of issue 14: a session with no end whose file has not changed for 20 minutes (default threshold 10)
    is `stale` in the Totals panel, as in the browser; a fresh one is running. Both durations end with `+`."""
    import os
    import time

    path = costly_running(tmp_path)
    then = time.time() - age_s
    os.utime(path, (then, then))
    app = session_app(path, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        text = "\n".join(panel_lines(top(app).query_one(TotalsPanel)))
        assert shown in text, text
        other = "● running" if shown == "○ stale" else "○ stale"
        assert other not in text
        assert "+" in text  # the duration: still unfinished, or known so far
        # the tree's running nodes: their clock stops at the file's last change once stale (not 5,000 hours on)
        assert abs(top(app).tree.clock() - then * 1000) < 2000
        # ... and they say so: `○ stale` on the root and on its running turns, never `● running` beside it
        labels = [node.label.plain for node in [top(app).tree.root, *top(app).tree.root.children]]
        assert shown in labels[0], labels[0]
        assert not any(other in label for label in labels), labels


@pytest.mark.parametrize("silent_s, shown", [(20 * 60, "○ stale"), (0, "● running")])
async def test_a_live_root_goes_stale_when_its_stream_went_silent(tmp_path, silent_s, shown):
    """The same rule for a streamed session: its last event (the hub's wall time) is its last change."""
    import time

    from helpers.builders import live_event
    from tui.ui.app import MonitorApp

    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        tree = session(turn(1, op("tool", op_id="t1", name="t")), agent="root", trace="root", ended=None,
                       success=None)
        app.live.feed(live_event("op_tree", sid="root", seq=1, tree=tree), now=time.time() - silent_s)
        assert await wait_for(pilot, lambda: app.live.build("root") is not None)
        app.open_path("live:root")
        await settle(pilot)
        text = "\n".join(panel_lines(top(app).query_one(TotalsPanel)))
        assert shown in text, text
