"""`?` shows, below the keys, the legend of every symbol and abbreviation on screen; the README's section says the
same (each symbol of help_legend.LEGEND is in it)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from helpers.apphelpers import SIZE, deep_snapshot, session_app
from tui.ui.screens.help import HelpScreen
from tui.ui.screens.help_legend import LEGEND

README = Path(__file__).resolve().parents[2] / "README.md"
# Glyphs the screens draw (tui/ui, tui/text): each must be explained.
ON_SCREEN = ("◆", "●", "✗", "!", "cR", "cW", "v3", "1-2", "S0-1", "1-2.3-1", "BROKEN", "ERR", "WRN", "⚠", "›", "━",
             "█", "▒", "░", "┊", "◂", "≠", "Δ", "◀", "↓", "…", "live", "dropped by bridge",
             "○ stale", "✗N", "✓", "+", "gaps:N", "▼", "▲", "wrap", "nowrap", "▸ system", "following", "paused")


def _symbols() -> str:
    return "\n".join(symbol for _group, rows in LEGEND for symbol, _meaning in rows)


def test_every_symbol_on_screen_is_in_the_legend():
    symbols = _symbols()
    missing = [glyph for glyph in ON_SCREEN if glyph not in symbols]
    assert not missing


def test_the_readme_legend_says_the_same():
    text = README.read_text(encoding="utf-8")
    start = text.index("## What the symbols mean")
    section = text[start:text.index("\n## ", start + 1)]
    missing = [symbol for _group, rows in LEGEND for symbol, _meaning in rows if f"`{symbol}`" not in section]
    assert not missing


async def test_the_help_screen_shows_the_legend(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        legend = app.screen.query_one("#help-legend", Static)
        console = Console(width=80, record=True, file=io.StringIO())
        console.print(legend.content)
        shown = console.export_text()
        assert "What the symbols mean" in shown
        for glyph in ("◆", "● running", "✗ failed", "cR / cW", "v3", "S0-1", "1-2.3-1", "▒"):
            assert glyph in shown
        body = app.screen.query_one("#help-body")
        await pilot.press("end")  # the legend is below the keys: it scrolls into view
        await pilot.pause()
        assert body.scroll_y > 0 and legend.region.intersection(body.region).height > 0
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
