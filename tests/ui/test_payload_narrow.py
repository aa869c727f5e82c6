"""The payload viewer at 80 columns (issue 14, point 8): its capture line names every view (`hex` last) on a
second line instead of cutting the list."""

from __future__ import annotations

from helpers.apphelpers import deep_snapshot, session_app, top, wait_for
from tui.model.search import walk_ops
from tui.ui.screens.payload import PayloadScreen


async def test_the_capture_line_lists_every_view_at_80_columns(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = top(app)
        llm = next(op for op in walk_ops(screen.session) if op.kind == "llm" and op.raw and "response" in op.raw)
        screen.tree.reveal(llm)
        await pilot.press("p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and app.screen.mode == "view")
        await pilot.pause()
        capture = app.screen.query_one("#payload-capture")
        shown = "\n".join(strip.text for strip in capture.render_lines(capture.region.reset_offset))
        assert "hex" in shown and "view" in shown, shown
