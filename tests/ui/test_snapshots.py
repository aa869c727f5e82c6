"""SVG snapshots of every screen at fixed terminal sizes (pytest-textual-snapshot)."""

from __future__ import annotations

from helpers import scenes

BIG = (160, 48)
SMALL = (80, 24)


def test_browser(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=BIG, run_before=scenes.wait_browser_loaded)


def test_browser_small(snap_compare):
    assert snap_compare(scenes.browser_app(), terminal_size=SMALL, run_before=scenes.wait_browser_loaded)


def test_session(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.settle)


def test_session_small(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=SMALL, run_before=scenes.settle)


def test_session_errors_only(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, press=["e"], run_before=scenes.settle)


def test_drill_down(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.drill_two_levels)


def test_payload_viewer(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.open_llm_payload)


def test_help(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, press=["question_mark"], run_before=scenes.settle)


def test_waterfall(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.open_waterfall)


def test_insights_panel(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, press=["i"], run_before=scenes.settle)


def test_history_diff(snap_compare):
    assert snap_compare(scenes.session_app(), terminal_size=BIG, run_before=scenes.diff_versions)
