"""The real handoff run's file (named after the master, holding the formatter: the producer's orchestration bug) in
the app: its browser row carries the mark and is found by the filter, and the details panel of the session it
opens says the file is not the session it is named after."""

from __future__ import annotations

import shutil

from textual.widgets import Static

from helpers.apphelpers import wait_for
from helpers.browserhelpers import cells_by_column, ids, settle
from helpers.realfixtures import HANDOFF_FILE, HANDOFF_TRACE, snapshot
from tui.formats.aiagent.file_identity import MARK
from tui.ui.app import MonitorApp
from tui.ui.screens.session import SessionScreen

MASTER_ID = HANDOFF_FILE.name.removesuffix(".json.gz")
OTHER_ID = snapshot("master").name.removesuffix(".json.gz")


async def test_the_row_of_a_misfiled_file_is_marked_and_says_so_in_details(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(HANDOFF_FILE, sessions)
    shutil.copy(snapshot("master"), sessions)
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        marked = cells_by_column(screen, MASTER_ID)
        assert marked["title"].startswith(MARK) and HANDOFF_TRACE[:8] in marked["title"]
        assert marked["agent"] == "formatter"  # never the master's name
        assert not cells_by_column(screen, OTHER_ID)["title"].startswith(MARK)
        await pilot.press("slash", *"misfiled", "enter")
        await pilot.pause(0.3)
        assert ids(screen) == [MASTER_ID]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.pause(0.3)
        details = str(app.screen.query_one("#detail-body", Static).render())
        assert f"file named after session {MASTER_ID} holds another session" in details
        assert MARK in str(app.screen.tree.root.label)
