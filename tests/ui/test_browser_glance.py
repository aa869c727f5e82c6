"""The browser at a glance (issue 14, points 5, 8 and 9) under Pilot: 80x24 column order, the summary line,
the model filter, the marked row, the sort arrow, live rows with an Events column, stale rows and Age."""

from __future__ import annotations

from helpers.apphelpers import fed, wait_for

import os
import time
from pathlib import Path

import orjson
import pytest
from textual.widgets import DataTable, Static

from helpers.browserhelpers import SIZE, cells_by_column, column_keys, ids, settle
from helpers.builders import op, session, turn, write
from helpers.scanfixtures import GOOD_A, GOOD_B, T0, make_sessions_dir, session_node
from helpers.scanfixtures import write_snapshot as write_scan_snapshot
from tui.catalog.row_facts import row_title
from tui.catalog.session_row import row_from_entry
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events
from tui.formats.load import load
from tui.model.document import Document
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


def summary(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-summary", Static).render())


def labels(screen: BrowserScreen) -> dict[str, str]:
    return {str(key.value): str(column.label) for key, column in screen.query_one(DataTable).columns.items()}


def snapshot(folder: Path, sid: str, *, model: str, prompt: str, ended: bool = True, mtime: float | None = None,
             cost: float = 0.01) -> Path:
    llm = op("llm", op_id="op-1", provider="p", model=model, started=1_000, ended=4_000,
             accounting=[{"type": "llm", "model": model, "tokens": {"inputTokens": 100, "outputTokens": 20},
                          "costUsd": cost}])
    node = session(turn(0, system=True), turn(1, llm), agent="agent-" + sid, trace=sid)
    node["turns"][1]["attributes"] = {"prompts": {"user": prompt}}
    node["startedAt"] = 1_000
    if ended:
        node.update(endedAt=5_000, success=True)
    else:
        node.pop("endedAt", None)
        node.pop("success", None)
    path = write(folder / f"{sid}.json.gz", {"version": 1, "opTree": node})
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def models_dir(tmp_path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    now = time.time()
    snapshot(folder, "s-sonnet", model="claude-sonnet-4-5", prompt="Why did claims drop?", mtime=now - 30)
    snapshot(folder, "s-gpt", model="gpt-5", prompt="Compare nginx latency", mtime=now - 20, cost=0.5)
    snapshot(folder, "s-live", model="gpt-5", prompt="Still going", ended=False, mtime=now - 10)
    snapshot(folder, "s-dead", model="qwen3:8b", prompt="Killed months ago", ended=False, mtime=now - 3 * 3600)
    return folder


async def test_80x24_keeps_status_duration_and_cost_ahead_of_title(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    for n in range(30):  # more rows than the screen holds: the vertical scrollbar shows
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        write_scan_snapshot(sessions, sid, session_node(sid, "more", f"t{n}", started=T0, duration=5), T0 / 1000)
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert column_keys(screen)[:5] == ["status", "duration", "cost", "age", "title"]
        assert column_keys(screen)[-1] == "id"
        table = screen.table
        assert table.show_vertical_scrollbar
        # the scrollbar takes the room kept for it: no column is pushed out, no horizontal scrolling
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert not table.show_horizontal_scrollbar
        good = cells_by_column(screen, GOOD_A)
        assert good["status"] == "ok" and good["cost"] == "$0.5000!" and good["title"] == "Cheapest flight to Athens"
        await pilot.resize_terminal(200, 40)
        await pilot.pause(0.2)
        assert column_keys(screen)[:3] == ["started", "agent", "title"]  # wide: the reading order again
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        assert column_keys(screen)[0] == "status"


async def test_summary_line_counts_the_rows_shown_and_follows_filter_and_changes(tmp_path):
    sessions = make_sessions_dir(tmp_path / "sessions")
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        # 7 rows: 2 ok (one a v3 ledger), 1 failed, 1 running since 2026-01-01 (stale), 3 broken files
        assert summary(screen) == "7 sessions · 1 stale · 1 failed · 3 broken · $2.5020 · 43.5k tokens"
        await pilot.press("slash", *"status:failed", "enter")
        await pilot.pause(0.3)
        assert ids(screen) == [GOOD_B]
        assert summary(screen) == "shown: 1 session · 1 failed · $0.0010 · 15 tokens"
        await pilot.press("slash", "escape")
        await pilot.pause(0.3)
        assert summary(screen).startswith("7 sessions")
        # a file rewritten (as the watcher reports it): the line follows without a rescan
        path = write_scan_snapshot(sessions, GOOD_B, session_node(GOOD_B, "bigquery", "fixed", started=T0,
                                                                 duration=10, cost=1.0), time.time())
        screen.upsert_rows([row_from_entry(path, path.stat().st_mtime, path.stat().st_size, "snapshot")])
        await settle(pilot, screen)
        assert summary(screen) == "7 sessions · 1 stale · 3 broken · $3.5010 · 43.7k tokens"


async def test_model_column_and_model_filter(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "model" in column_keys(screen)
        assert cells_by_column(screen, "s-sonnet")["model"] == "claude-sonnet-4-5"
        assert "model:" in screen.query_one("#browser-filter").placeholder
        await pilot.press("slash", *"model:gpt", "enter")
        await pilot.pause(0.3)
        assert sorted(ids(screen)) == ["s-gpt", "s-live"]
        assert summary(screen) == "shown: 2 sessions · 1 running · $0.5100 · 240 tokens"
        await pilot.press("slash", "ctrl+a", "ctrl+k", *"model:qwen", "enter")  # (Input: select all, delete)
        await pilot.pause(0.3)
        assert ids(screen) == ["s-dead"]


async def test_title_falls_back_to_the_first_user_prompt(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert cells_by_column(screen, "s-sonnet")["title"] == "Why did claims drop?"


async def test_stale_status_and_age_column(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        dead, live = cells_by_column(screen, "s-dead"), cells_by_column(screen, "s-live")
        assert dead["status"] == "○ stale" and dead["age"] == "3h"
        assert dead["duration"] == "3.0s+"  # up to its last activity, not months of a ticking clock
        assert live["status"] == "● running" and live["age"].endswith("s")
        assert labels(screen)["age"] == "Age"
        assert "1 running · 1 stale" in summary(screen)
        # the dead session's file changes again: it is running once more
        path = models_dir / "s-dead.json.gz"
        os.utime(path, None)
        screen.upsert_rows([row_from_entry(path, path.stat().st_mtime, path.stat().st_size, "snapshot")])
        await settle(pilot, screen)
        assert cells_by_column(screen, "s-dead")["status"] == "● running"
        assert "2 running" in summary(screen) and "stale" not in summary(screen)


async def test_a_running_row_turns_stale_while_on_screen(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert cells_by_column(screen, "s-live")["status"] == "● running"
        screen.stale_after_s = 11  # its file changed 10 s ago: in a second or two it has been silent too long
        assert await wait_for(pilot, lambda: cells_by_column(screen, "s-live")["status"] == "○ stale", timeout=5)
        assert "2 stale" in summary(screen)


async def test_marked_row_shows_a_glyph(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        first = ids(screen)[0]
        await pilot.press("m")
        await pilot.pause()
        assert cells_by_column(screen, first)["title"].startswith("✓ ")
        assert all(not cells_by_column(screen, sid)["title"].startswith("✓") for sid in ids(screen)[1:])
        await pilot.press("m")
        await pilot.pause()
        assert not cells_by_column(screen, first)["title"].startswith("✓")


async def test_sort_column_marked_in_its_header(models_dir):
    app = MonitorApp(sessions_dir=models_dir, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert labels(screen)["started"] == "Started ▼" and labels(screen)["agent"] == "Agent"
        await pilot.press("s")
        await pilot.pause()
        assert labels(screen)["agent"] == "Agent ▲" and labels(screen)["started"] == "Started"
        await pilot.press("S")
        await pilot.pause()
        assert labels(screen)["agent"] == "Agent ▼"


def replayed_into_a_listening_app(tmp_path: Path) -> tuple[Path, Document, list[bytes], MonitorApp]:
    """A session written to a file, the events its replay sends (encoded), and an app listening on an empty
    sessions directory."""
    source = write_snapshot(tmp_path / "src", make_tree(31, ops=30, depth=1), version=2)
    doc = load(str(source))
    events = [orjson.dumps(event) for _, event in replay_events(doc, max_tree_events=4)]
    empty = tmp_path / "sessions"
    empty.mkdir()
    return source, doc, events, MonitorApp(sessions_dir=empty, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)


async def test_live_row_keeps_its_title_and_has_an_events_column(tmp_path):
    _, doc, events, app = replayed_into_a_listening_app(tmp_path)
    async with app.run_test(size=(240, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "events" not in column_keys(screen)
        await fed(app, pilot, events)
        await pilot.pause(0.3)
        root = doc.root.trace_id
        assert "events" in column_keys(screen)
        row = cells_by_column(screen, root)
        assert not row["title"].startswith("[live")
        assert row["title"] == row_title(doc.root) != ""
        assert row["events"] == f"{len(events):,}"
        assert row["id"].startswith("live ")


async def test_a_live_row_that_brings_the_events_column_under_an_open_session_waits_for_its_return(tmp_path):
    """The browser under an open session sets its columns up when the session closes: setting them up (the whole
    table cleared and filled again) took 14 ms of a live tick of the session on screen."""
    source, doc, events, app = replayed_into_a_listening_app(tmp_path)
    async with app.run_test(size=(240, 48)) as pilot:
        browser = app.screen
        await settle(pilot, browser)
        app.open_path(str(source))
        assert await wait_for(pilot, lambda: app.screen is not browser and app.screen.is_mounted)
        await fed(app, pilot, events)
        await pilot.pause(0.3)
        assert "events" not in column_keys(browser) and browser.columns_stale
        app.pop_screen()
        assert await wait_for(pilot, lambda: "events" in column_keys(browser))
        assert not browser.columns_stale
        assert cells_by_column(browser, doc.root.trace_id)["events"] == f"{len(events):,}"
