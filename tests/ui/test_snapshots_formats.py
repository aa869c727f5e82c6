"""SVG snapshots of the Jules and Genkit session screens (pytest-textual-snapshot, 160x48)."""

from __future__ import annotations

from helpers import scenes

BIG = (160, 48)


def test_jules_session(snap_compare):
    assert snap_compare(scenes.jules_app(), terminal_size=BIG, run_before=scenes.jules_failed_command)


def test_genkit_session(snap_compare):
    assert snap_compare(scenes.genkit_app(), terminal_size=BIG, run_before=scenes.genkit_branch)
