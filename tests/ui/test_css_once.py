"""The app's CSS costs what it must: each source parsed once per process (Textual re-parsed every source at each
re-parse: the preload of the other screens' CSS, each theme change, each app), and the preloaded CSS of the other
screens added without restyling the screen that is up (it names only its own screen's widgets)."""

from __future__ import annotations

import pytest
import textual.css.stylesheet as textual_stylesheet

from helpers.apphelpers import SIZE, deep_snapshot, session_app
from helpers.waiting import wait_for
from tui.ui.app import MonitorApp
from tui.ui.preload import screen_css


def count_parses(monkeypatch) -> list[str]:
    """Every CSS text Textual's parser is given from now on (the function Stylesheet._parse_rules calls)."""
    seen: list[str] = []
    parse = textual_stylesheet.parse

    def counting(scope, css, *args, **kwargs):
        seen.append(css)
        return parse(scope, css, *args, **kwargs)

    monkeypatch.setattr(textual_stylesheet, "parse", counting)
    return seen


async def preloaded(pilot) -> None:
    app = pilot.app
    assert await wait_for(pilot, lambda: all(app.stylesheet.has_source(path, "") for path in screen_css()))
    await pilot.pause(0.2)


async def test_a_second_app_and_a_theme_seen_before_parse_nothing(tmp_path, monkeypatch):
    path = deep_snapshot(tmp_path)
    async with session_app(path).run_test(size=SIZE) as pilot:  # the first: whatever this process parsed before
        await preloaded(pilot)
    seen = count_parses(monkeypatch)
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await preloaded(pilot)  # start-up, the theme, the preload: three re-parses of every source
        assert seen == []
        theme = app.theme
        app.theme = "nord" if theme != "nord" else "gruvbox"  # a theme not seen yet: its variables, parsed
        await pilot.pause()
        assert seen != []
        parsed = len(seen)
        app.theme = theme  # back: every source as it was parsed before
        await pilot.pause()
        assert len(seen) == parsed


@pytest.mark.parametrize("first", ["browser", "session"])
async def test_the_preloaded_css_changes_nothing_on_screen(tmp_path, first):
    """What `Stylesheet.update` (skipped after the preload) would change on the first screen: nothing."""
    path = deep_snapshot(tmp_path)
    app = session_app(path) if first == "session" else MonitorApp(sessions_dir=path.parent, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        if first == "browser":
            assert await wait_for(pilot, lambda: app.screen.settled)
            app.screen.set_clock(lambda: 2_000_000_000)  # (the Age column stays as it is)
        await preloaded(pilot)
        before = app.export_screenshot()
        app.stylesheet.update(app)
        await pilot.pause(0.2)
        assert app.export_screenshot() == before
