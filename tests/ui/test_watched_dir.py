"""Watch what you were told to watch: an explicit sessions directory, empty at start, fills as files are renamed
into it (as ai-agent writes them), with a line saying what is watched and how to stream events in; the demo's
header says DEMO and names the directory real sessions come from."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Static

from tui.cli.main import app_parser
from tui.cli.run import build_app
from tui.demo import make_tree, write_snapshot
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen

from helpers.waiting import wait_for

SIZE = (160, 48)


def text_of(screen: BrowserScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def browser_up(pilot) -> BrowserScreen:
    assert await wait_for(pilot, lambda: isinstance(pilot.app.screen, BrowserScreen) and pilot.app.screen.model.scanned)
    return pilot.app.screen


async def test_an_empty_explicit_dir_says_what_it_watches_and_fills_as_files_are_renamed_in(tmp_path):
    watched = tmp_path / "sessions"
    watched.mkdir()
    staging = tmp_path / "staging"
    app = build_app(app_parser().parse_args(["--sessions-dir", str(watched)]))
    assert isinstance(app, MonitorApp) and app.sessions_dir == watched and app.demo_for is None
    async with app.run_test(size=SIZE) as pilot:
        screen = await browser_up(pilot)
        line = text_of(screen, "#browser-note")
        assert f"watching {watched}" in line and "--listen ws://127.0.0.1:8765" in line
        assert "DEMO" not in text_of(screen, "#browser-header")
        # ai-agent's way: written under a temporary name elsewhere, renamed into the directory
        first = write_snapshot(staging, make_tree(1, ops=12, depth=0))
        os.rename(first, watched / first.name)
        assert await wait_for(pilot, lambda: screen.table.row_count == 1, timeout=15)
        # ... and under a temporary name inside it (ignored until the rename)
        second = write_snapshot(staging, make_tree(2, ops=12, depth=0))
        temp = watched / f"{second.name}.tmp-1-2"
        os.rename(second, temp)
        os.rename(temp, watched / second.name)
        assert await wait_for(pilot, lambda: screen.table.row_count == 2, timeout=15)
        assert not screen.query_one("#browser-note").display  # the watched line was for the empty list


async def test_the_demo_header_says_demo_and_names_the_real_sessions_directory(tmp_path):
    demo_dir = tmp_path / "demo" / "sessions"
    write_snapshot(demo_dir, make_tree(3, ops=12, depth=0))
    real = Path("/home/someone/.ai-agent/sessions")
    app = MonitorApp(sessions_dir=demo_dir, demo_for=real, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await browser_up(pilot)
        header = text_of(screen, "#browser-header")
        assert header.startswith("DEMO")
        assert f"real sessions come from {real}" in header
        assert await wait_for(pilot, lambda: screen.table.row_count == 1)
        assert text_of(screen, "#browser-header").startswith("DEMO")  # for as long as it runs
