"""The browser hands a session to the shell (issue 30, point 4): the details line shows the highlighted session's
full id and path, `y` copies the path, ctrl+z is bound to suspending the process."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen

from helpers.browserhelpers import SIZE, settle
from helpers.scanfixtures import make_sessions_dir


@pytest.fixture
def sessions(tmp_path) -> Path:
    return make_sessions_dir(tmp_path / "sessions")


def details(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-details", Static).render())


async def test_details_line_and_y_copy_the_highlighted_path(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        first = details(screen)
        assert first.startswith(str(sessions)) and "  ·  id " in first
        await pilot.press("down")
        await pilot.pause()
        second = details(screen)
        assert second != first
        await pilot.press("y")
        await pilot.pause()
        path = app.clipboard
        assert Path(path).parent == sessions and Path(path).exists()
        assert Path(path).name.split(".")[0] in second  # the full id, as the file names it
    async with MonitorApp(sessions_dir=sessions).run_test(size=SIZE) as pilot:
        screen = pilot.app.screen
        await settle(pilot, screen)
        assert str(sessions) in details(screen)  # wide enough: the whole path


async def test_ctrl_z_suspends_the_process(sessions):
    app = MonitorApp(sessions_dir=sessions)
    async with app.run_test(size=SIZE):
        keys = {binding.key: binding.action for binding in app.BINDINGS}
        assert keys["ctrl+z"] == "suspend_process"
