"""The browser on hostile index data (issue 28, items 6 and 12): text in a numeric column (the index was not
STRICT) made the browser list no session at all, even after `r`; one file with absurd numbers (2^63 tokens) failed
the index's batch write and the browser dropped the index for every session. A real index file, changed with a
real SQLite connection as any tool could; real files; the real app."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from helpers.browserhelpers import SIZE, cells_by_column, ids, settle
from helpers.scanfixtures import GOOD_A, GOOD_B, RUNNING, make_sessions_dir
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


@pytest.mark.parametrize("what", ["tokens-2^63", "cost-inf"])
async def test_absurd_numbers_show_as_suspect_and_keep_the_index(tmp_path, monkeypatch, what):
    from helpers.absurdfixtures import absurd_sessions
    from tui.catalog.index.store import open_index

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions = tmp_path / "absurd"
    absurd = absurd_sessions(sessions, what)
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert len(ids(screen)) == 4
        sid = absurd.name.removesuffix(".json.gz")
        shown = cells_by_column(screen, sid)
        assert shown["cost"].endswith("?") and not re.search(r"\d{16,}", " ".join(shown.values())), shown
    index, _ = open_index(sessions)
    assert index is not None and index.count() == 4  # the fill wrote every row, the absurd one included
    assert index.connection().execute("SELECT count(*) FROM sessions WHERE suspect != ''").fetchone()[0] == 1
