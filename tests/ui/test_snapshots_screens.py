"""SVG snapshots of every screen at both fixed sizes, 160x48 and 80x24 (pytest-textual-snapshot): the views that
tests/ui/test_snapshots.py shows only large, and the screens it does not show (stats, search, export, the payload's
other views, an older version)."""

from __future__ import annotations

from helpers import scenes

BIG = (160, 48)
SMALL = (80, 24)


def test_session_errors_only_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, press=["e"], run_before=scenes.settle)


def test_drill_down_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.drill_two_levels)


def test_payload_viewer_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.open_llm_payload)


def test_payload_request(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.then_press(scenes.open_llm_payload, "r"))


def test_payload_request_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL,
                        run_before=scenes.then_press(scenes.open_llm_payload, "r"))


def test_payload_next_view(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.then_press(scenes.open_llm_payload, "v"))


def test_payload_next_view_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL,
                        run_before=scenes.then_press(scenes.open_llm_payload, "v"))


def test_payload_hex(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.then_press(scenes.open_llm_payload, "x"))


def test_payload_hex_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL,
                        run_before=scenes.then_press(scenes.open_llm_payload, "x"))


def test_help_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, press=["question_mark"], run_before=scenes.settle)


def test_waterfall_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.open_waterfall)


def test_insights_panel_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, press=["i"], run_before=scenes.settle)


def test_history_diff_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.diff_versions)


def test_older_version(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.view_older_version)


def test_older_version_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.view_older_version)


def test_export_dialog(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.open_export)


def test_export_dialog_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.open_export)


def test_stats(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=BIG, run_before=scenes.open_stats)


def test_stats_small(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=SMALL, run_before=scenes.open_stats)


def test_search(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=BIG, run_before=scenes.search_sessions)


def test_search_small(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=SMALL, run_before=scenes.search_sessions)


def test_browser_filtered(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=BIG,
                        run_before=scenes.then_press(scenes.wait_browser_loaded, "slash", *"neda", "enter"))


def test_jules_session_small(snap_compare):
    assert snap_compare(scenes.jules_app(), terminal_size=SMALL, run_before=scenes.jules_failed_command)


def test_genkit_session_small(snap_compare):
    assert snap_compare(scenes.genkit_app(), terminal_size=SMALL, run_before=scenes.genkit_branch)
