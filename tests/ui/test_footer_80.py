"""Issue 14, point 8: at 80x24 every screen's footer shows `? Help` first and its most used keys, none cut off.

Rarely used keys are out of the footer (show=False): they stay in `?` help and the command palette."""

from __future__ import annotations

import pytest

from helpers import scenes
from tui.ui.textual_compat import FooterKey
from tui.ui.widgets.footer import Footer

WIDTH, HEIGHT = 80, 24


async def _nothing(pilot) -> None:
    await pilot.pause(0.3)


# (screen, how to open it, the actions its footer must show in 80 columns)
CASES = {
    "browser": (scenes.browser_app, scenes.wait_browser_loaded, ("focus_filter", "cycle_sort", "reverse_sort", "close_view")),
    "session": (scenes.session_app, _nothing,
                ("back", "search", "next_match", "errors_only", "waterfall", "insights")),
    "payload": (scenes.session_app, scenes.open_llm_payload,
                ("back", "search_open", "toggle_side", "cycle_view", "toggle_wrap", "toggle_system")),
    "waterfall": (scenes.session_app, scenes.open_waterfall, ("back", "zoom(0.5)", "zoom(2.0)", "open")),
    "history": (scenes.session_app, scenes.view_older_version, ("back", "search", "next_match", "errors_only")),
    "diff": (scenes.session_app, scenes.diff_versions, ("back",)),
}


def shown_actions(app) -> list[str]:
    """The footer's keys drawn in full left of the `^p palette` key (docked right, it covers what runs under it)."""
    footer = app.screen.query_one(Footer)
    keys = [key for key in footer.query(FooterKey) if "-command-palette" not in key.classes]
    palette = [key.region.x for key in footer.query(FooterKey) if "-command-palette" in key.classes]
    limit = min(palette + [WIDTH])
    return [key.action.removeprefix("app.") for key in keys if key.region.width and key.region.right <= limit]


@pytest.mark.parametrize("name", list(CASES))
async def test_the_footer_at_80_columns_shows_help_and_the_most_used_keys_and_cuts_none(name):
    """Help first and the most used keys; and (browser, session, waterfall) no key cut: a footer wider than the
    terminal was cut mid-key (a stray `i` after the palette key) and lost its quit key: now only keys that fit are
    composed, quit always among them. (One app per screen for both checks: they were two tests opening the same
    screen at the same size.)"""
    make, open_screen, wanted = CASES[name]
    app = make()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await open_screen(pilot)
        actions = shown_actions(app)
        assert actions and actions[0] == "help", ("help is not first", name, actions)
        missing = [action for action in wanted if action not in actions]
        assert not missing, ("most used keys missing", name, missing, actions)
        if name not in ("browser", "session", "waterfall"):
            return
        await pilot.pause(0.2)
        keys = list(app.screen.query_one(Footer).query(FooterKey))
        assert all(key.region.width and key.region.right <= WIDTH for key in keys), \
            ("a key is cut", name, [(key.action, key.region) for key in keys])
        drawn = shown_actions(app)
        assert len(drawn) == len([k for k in keys if "-command-palette" not in k.classes]), \
            ("a composed key is not drawn in full", name, drawn)
        if name != "waterfall":
            assert "close_view" in drawn, ("quit is not shown", name, drawn)


WIDE = {"browser": ("search_sessions", "mark", "diff_marked", "copy_path"),
        "session": ("payload", "export", "copy", "follow")}


@pytest.mark.parametrize("name", list(WIDE))
async def test_at_160_columns_the_screens_own_keys_are_in_the_footer(name):
    """F, m/d and y in the browser, p, x, y and f on a session: in the footer where they apply, not only in `?`."""
    make, open_screen, _ = CASES[name]
    app = make()
    async with app.run_test(size=(160, 48)) as pilot:
        await open_screen(pilot)
        await pilot.pause(0.2)
        actions = [key.action.removeprefix("app.") for key in app.screen.query_one(Footer).query(FooterKey)
                   if key.region.width and key.region.right <= 160]
        missing = [action for action in WIDE[name] if action not in actions]
        assert not missing, (missing, actions)


async def test_the_footer_keeps_its_keys_when_the_bindings_read_the_same():
    """Textual recomposes the footer each time it is told the bindings changed (a screen pushed, the focus moved):
    several times as a screen opens, each removing, making, styling and laying out a dozen keys (30-80 ms). Keys
    that read the same are kept; keys that differ are made again."""
    app = scenes.session_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause(0.3)
        footer = app.screen.query_one(Footer)
        keys = list(footer.query(FooterKey))
        assert keys
        app.screen.refresh_bindings()  # (what a move of the focus or a screen pushed or popped does)
        await pilot.pause(0.2)
        assert list(footer.query(FooterKey)) == keys, "the same keys were removed and made again"
        await pilot.resize_terminal(40, HEIGHT)  # fewer keys fit: another set
        await pilot.pause(0.3)
        narrow = list(footer.query(FooterKey))
        assert narrow != keys and len(narrow) < len(keys)
        assert all(key.region.right <= 40 for key in narrow if key.region.width)


async def test_the_footer_makes_no_keys_when_its_bindings_are_those_shown():
    """Told the bindings changed when they did not (most times as a screen opens), the footer does not even make the
    keys to compare them (a dozen widgets: ~4 ms each time, ~2,900 times in the test suite)."""
    app = scenes.session_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause(0.3)
        footer = app.screen.query_one(Footer)
        made: list[int] = []
        compose = footer.compose

        def counting():
            made.append(1)
            return compose()

        footer.compose = counting  # type: ignore[method-assign]
        app.screen.refresh_bindings()
        await pilot.pause(0.2)
        assert made == [] and list(footer.query(FooterKey))
        await pilot.press("e")  # errors only: a binding's label or state changes, the keys are made again
        await pilot.pause(0.2)
        await pilot.resize_terminal(60, HEIGHT)
        await pilot.pause(0.3)
        assert made and all(key.region.right <= 60 for key in footer.query(FooterKey) if key.region.width)
