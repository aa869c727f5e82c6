"""Keep my place (issue 30, point 3): the browser's sort, filter and cursor and the theme survive a restart, per
sessions directory, in a small file beside the sessions index (never in the sessions directory, never written
through a link); --sort/--filter come before the kept place, the config file's defaults after it; key bindings
by binding id."""

from __future__ import annotations

import os

from textual.widgets import DataTable, Input, Static

from tui.cli.config import parse
from tui.cli.main import app_parser
from tui.cli.run import build_app
from tui.ui.place import place_file
from tui.ui.screens.browser import BrowserScreen

from helpers.browserhelpers import ids, settle
from helpers.browserplaces import many_sessions


def header(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-header", Static).render())


def app_for(sessions, *extra: str, config: str = ""):
    import tomllib

    args = app_parser().parse_args(["--sessions-dir", str(sessions), *extra])
    args.settings = parse(tomllib.loads(config))
    return build_app(args, watch=False, keep_place=True)


async def test_sort_filter_cursor_and_theme_survive_a_restart(tmp_path):
    sessions = many_sessions(tmp_path / "sessions")
    before = sorted(os.listdir(sessions))
    app = app_for(sessions)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        await pilot.press("s", "s", "s", "s", "s", "S")  # cost, cheapest first
        await pilot.press("slash", *"agent:odd", "enter")
        await pilot.pause(0.3)
        await pilot.press(*["down"] * 25)  # past the first screenful
        await pilot.pause()
        chosen = screen.cursor_key
        app.theme = "gruvbox"
        await pilot.pause()
    assert sorted(os.listdir(sessions)) == before  # nothing written in the sessions directory
    assert place_file().is_file() and oct(place_file().stat().st_mode & 0o777) == "0o600"
    again = app_for(sessions)
    async with again.run_test(size=(80, 24)) as pilot:
        screen = again.screen
        await settle(pilot, screen)
        table = screen.query_one(DataTable)
        assert "sorted by cost ↑" in header(screen)
        assert screen.query_one("#browser-filter", Input).value == "agent:odd"
        assert len(ids(screen)) == 30
        assert screen.cursor_key == chosen and table.cursor_row == 25
        assert again.theme == "gruvbox"


async def test_command_line_then_place_then_config(tmp_path):
    sessions = many_sessions(tmp_path / "sessions", 10)
    config = 'sort = "tokens"\nfilter = "agent:even"\ntheme = "nord"\n[keys]\n"browser.cycle_sort" = "o"\n'
    app = app_for(sessions, config=config)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "sorted by tokens ↓" in header(screen) and len(ids(screen)) == 5 and app.theme == "nord"
        await pilot.press("o")  # the configured key: tokens -> cost
        await pilot.pause()
        assert "sorted by cost ↓" in header(screen)
    config = config.replace("nord", "dracula")  # a theme never chosen in the app: the config's, as it is now
    app = app_for(sessions, "--filter", "", config=config)  # the kept sort; the command line's (empty) filter
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "sorted by cost ↓" in header(screen) and len(ids(screen)) == 10
        assert app.theme == "dracula"


async def test_a_planted_link_is_replaced_not_followed(tmp_path):
    sessions = many_sessions(tmp_path / "sessions", 3)
    target = tmp_path / "victim.txt"
    target.write_text("precious")
    place_file().parent.mkdir(parents=True, exist_ok=True)
    place_file().symlink_to(target)
    app = app_for(sessions)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app.screen)
    assert target.read_text() == "precious"
    assert not place_file().is_symlink() and str(sessions.name) in place_file().read_text()
