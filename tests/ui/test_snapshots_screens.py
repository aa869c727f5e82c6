"""SVG snapshots of every screen at both fixed sizes, 160x48 and 80x24 (pytest-textual-snapshot): the views that
tests/ui/test_snapshots.py shows only large, and the screens it does not show (stats, search, the export dialog,
the payload's other views, an older version, a filtered browser)."""

from __future__ import annotations

import pytest

from helpers import scenes

BIG = (160, 48)
SMALL = (80, 24)

# name: (the app, what runs before the shot, keys pressed before it, sizes)
SCENES = {
    "session_errors_only": (scenes.session_app, scenes.settle, ["e"], [SMALL]),
    "drill_down": (scenes.session_app, scenes.drill_two_levels, [], [SMALL]),
    "payload_viewer": (scenes.session_app, scenes.open_llm_payload, [], [SMALL]),
    "payload_request": (scenes.session_app, scenes.then_press(scenes.open_llm_payload, "r"), [], [BIG, SMALL]),
    "payload_next_view": (scenes.session_app, scenes.then_press(scenes.open_llm_payload, "v"), [], [BIG, SMALL]),
    "payload_hex": (scenes.session_app, scenes.then_press(scenes.open_llm_payload, "x"), [], [BIG, SMALL]),
    "help": (scenes.session_app, scenes.settle, ["question_mark"], [SMALL]),
    "waterfall": (scenes.session_app, scenes.open_waterfall, [], [SMALL]),
    "insights_panel": (scenes.session_app, scenes.settle, ["i"], [SMALL]),
    "history_diff": (scenes.session_app, scenes.diff_versions, [], [SMALL]),
    "older_version": (scenes.session_app, scenes.view_older_version, [], [BIG, SMALL]),
    "export_dialog": (scenes.session_app, scenes.open_export, [], [BIG, SMALL]),
    "stats": (scenes.browser_app, scenes.open_stats, [], [BIG, SMALL]),
    "search": (scenes.browser_app, scenes.search_sessions, [], [BIG, SMALL]),
    "browser_filtered": (scenes.browser_app, scenes.then_press(scenes.wait_browser_loaded, "slash", *"neda", "enter"),
                         [], [BIG]),
    "jules_session": (scenes.jules_app, scenes.jules_failed_command, [], [SMALL]),
    "genkit_session": (scenes.genkit_app, scenes.genkit_branch, [], [SMALL]),
    "claude_code_messages": (scenes.claude_code_app, scenes.open_claude_code_call, [], [BIG, SMALL]),
}
CASES = [pytest.param(name, size, id=f"{name}-{size[0]}x{size[1]}")
         for name, (_, _, _, sizes) in SCENES.items() for size in sizes]


@pytest.mark.parametrize(("name", "size"), CASES)
def test_screen(snap_compare, name, size):
    app, run_before, press, _ = SCENES[name]
    assert snap_compare(app(), terminal_size=size, press=press, run_before=run_before)
