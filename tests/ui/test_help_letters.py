"""`?` says which letters mean another thing on another screen (issue 30, point 5: w waterfall/save, x export/hex,
s sort/raw-SDK, r rescan/req-resp, t stats/totals)."""

from __future__ import annotations

from helpers import scenes
from tui.ui.screens.help import HelpScreen


async def test_help_lists_the_letters_that_differ_by_screen():
    app = scenes.session_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(description for _key, description in app.screen.rows)
        for meaning in ("w waterfall (session) / save (payload)", "x export (session) / hex (payload)",
                        "s sort (browser) / raw-SDK (payload)", "r rescan (browser)", "t stats (browser)"):
            assert meaning in text, meaning
