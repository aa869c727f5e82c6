"""`--stale-after SPAN`: when a session without an end counts as stale (tui.catalog.liveness)."""

from __future__ import annotations

import pytest

import tui.cli.run as run
from tui.catalog import liveness
from tui.cli.main import app_parser, main


def test_the_option_sets_the_process_wide_threshold(monkeypatch):
    monkeypatch.setattr(liveness, "_stale_after_s", liveness.STALE_AFTER_S)
    seen = {}
    monkeypatch.setattr(run, "run_app", lambda args: seen.setdefault("value", liveness.stale_after()) and 0)
    assert app_parser().parse_args([]).stale_after is None  # the default stays the rule's own (10 minutes)
    main(["--stale-after", "2m"])
    assert seen["value"] == 120.0 and liveness.stale_after() == 120.0


def test_a_bad_span_is_refused_with_examples(capsys):
    with pytest.raises(SystemExit):
        app_parser().parse_args(["--stale-after", "soon"])
    assert "not a time span: 'soon' (examples: 600, 90s, 10m" in capsys.readouterr().err
