"""The stale rule (tui.catalog.liveness): a running session silent for too long is `stale`, its duration what is
known; the --stale-after syntax; ages in four characters."""

from __future__ import annotations

import pytest

from tui.catalog import liveness
from tui.catalog.liveness import (
    STALE_AFTER_S, Liveness, humanize_age, is_stale, liveness as live_state, parse_span, shown_status,
)

NOW = 1_800_000_000.0


@pytest.mark.parametrize("text, seconds", [
    ("600", 600.0), ("90s", 90.0), ("10m", 600.0), ("1.5h", 5400.0), ("2d", 172800.0), ("0", 0.0),
    (" 10M ", 600.0), ("250ms", 0.25),
])
def test_parse_span(text, seconds):
    assert parse_span(text) == seconds


@pytest.mark.parametrize("text", ["", "ten", "10 minutes", "-5m", "5x", "1e3"])
def test_parse_span_refuses_what_it_does_not_understand(text):
    with pytest.raises(ValueError, match="not a time span"):
        parse_span(text)


def test_only_a_running_session_silent_for_longer_than_the_limit_is_stale():
    assert STALE_AFTER_S == 600.0
    assert not is_stale("running", NOW - 600, NOW, 600)  # exactly the limit: still running
    assert is_stale("running", NOW - 601, NOW, 600)
    assert not is_stale("ok", NOW - 10**7, NOW, 600) and not is_stale("failed", NOW - 10**7, NOW, 600)
    assert not is_stale("running", None, NOW, 600)  # no known last change: never stale
    assert not is_stale("running", NOW - 10**7, NOW, 0)  # --stale-after 0 turns the rule off
    assert shown_status("running", NOW - 3600, NOW, 600) == "stale"
    assert shown_status("running", NOW - 5, NOW, 600) == "running"
    assert shown_status("inProgress", NOW - 10**7, NOW, 600) == "inProgress"


def test_the_process_wide_threshold(monkeypatch):
    monkeypatch.setattr(liveness, "_stale_after_s", STALE_AFTER_S)
    assert not is_stale("running", NOW - 700, NOW, 3600)
    liveness.set_stale_after(60)
    assert liveness.stale_after() == 60 and is_stale("running", NOW - 61, NOW)


@pytest.mark.parametrize("seconds, text", [
    (-30, "0s"), (0, "0s"), (12.9, "12s"), (59, "59s"), (60, "1m"), (3599, "59m"), (3600, "1h"), (86399, "23h"),
    (86400, "1d"), (217 * 86400, "217d"), (999 * 86400, "999d"), (1000 * 86400, "2y"), (10**12, "9999y"),
])
def test_humanize_age(seconds, text):
    assert humanize_age(seconds) == text
    assert len(humanize_age(seconds)) <= 5


def test_liveness_for_the_totals_panel():
    common = dict(now_s=NOW, stale_after_s=600)
    # ended: its own duration, whatever the clock says
    assert live_state("ok", 5000, last_change_s=NOW - 10**6, **common) == Liveness("ok", 5000)
    # running, recently changed: running, and the duration it was given (up to its last activity: never a clock)
    assert live_state("running", 7000, last_change_s=NOW - 5, **common) == Liveness("running", 7000)
    # running, silent for half a year: stale, and still its known duration, not 5,000 hours
    state = live_state("running", 42_000, last_change_s=NOW - 180 * 86400, **common)
    assert state == Liveness("stale", 42_000) and state.stale