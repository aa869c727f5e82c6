"""The browser on a sessions index that something else wrote into (issue 28, item 12): text in a numeric column
(the index was not STRICT) made the browser list no session at all, even after `r`. A real index file, changed
with a real SQLite connection as any tool could; the real app."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from browserhelpers import SIZE, ids, settle
from scanfixtures import GOOD_A, GOOD_B, RUNNING, make_sessions_dir
from tui.catalog.index.sync import update_index
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


@pytest.fixture
def sessions(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return make_sessions_dir(tmp_path / "sessions")


async def test_text_in_a_numeric_column_never_empties_the_browser(sessions):
    index, _, done = update_index(sessions, pool=False)
    assert index is not None and done.read > 3
    conn = sqlite3.connect(index.path)
    for column, text in (("cost_usd", "lots"), ("turns", "three"), ("started_ms", "yesterday")):
        try:
            with conn:
                conn.execute(f"UPDATE sessions SET {column} = ?", (text,))  # noqa: S608 - the test's own names
        except sqlite3.IntegrityError:
            pass  # refused by the STRICT table: what keeps every reader safe
    conn.close()
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert {GOOD_A, GOOD_B, RUNNING} <= set(ids(screen))
        await pilot.press("r")
        await settle(pilot, screen)
        assert {GOOD_A, GOOD_B, RUNNING} <= set(ids(screen))
