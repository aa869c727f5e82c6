"""The browser's header is one line at any width, cut with `…` (issue 30, point 7: at 160 columns a stream's
state, `client #1 closed`, wrapped it and pushed the table down)."""

from __future__ import annotations

import pytest

from helpers.apphelpers import wait_for
from tui.ui.app import MonitorApp


@pytest.mark.parametrize("width", [80, 160])
async def test_the_header_stays_one_line_with_a_long_stream_state(tmp_path, width):
    sock = tmp_path / ("s" * 60 + ".sock")
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=(width, 24)) as pilot:
        app.stream_status["client"] = "client #1 closed · " + "a long reason " * 12
        header = app.screen.query_one("#browser-header")
        assert await wait_for(pilot, lambda: "listening" in str(header.render()))
        await pilot.pause(0.5)
        assert header.region.height == 1
        table_top = app.screen.query_one("#browser-filter").region.y
        assert table_top == header.region.bottom
