"""Issue 14, point 8: at 80x24 every screen's footer shows `? Help` first and its most used keys, none cut off.

Rarely used keys are out of the footer (show=False): they stay in `?` help and the command palette."""

from __future__ import annotations

import pytest

import scenes
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
async def test_the_footer_at_80_columns_shows_help_and_the_most_used_keys(name):
    make, open_screen, wanted = CASES[name]
    app = make()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await open_screen(pilot)
        actions = shown_actions(app)
        assert actions and actions[0] == "help", (name, actions)
        missing = [action for action in wanted if action not in actions]
        assert not missing, (name, missing, actions)
