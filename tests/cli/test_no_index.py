"""`--no-index`: the monitor runs without the sessions index (tui.catalog.index.store)."""

from __future__ import annotations

import tui.cli.run as run
from tui.catalog.index import store
from tui.cli.main import app_parser, main


def test_the_option_turns_the_index_off_for_the_process(monkeypatch, tmp_path):
    monkeypatch.setattr(store, "_enabled", True)
    seen = {}
    monkeypatch.setattr(run, "run_app", lambda args: seen.setdefault("opened", store.open_index(tmp_path)) and 0)
    assert app_parser().parse_args([]).no_index is False
    main(["--no-index"])
    assert seen["opened"] == (None, "") and not store.enabled()


def test_without_the_option_the_index_opens(monkeypatch, tmp_path):
    monkeypatch.setattr(store, "_enabled", True)
    seen = {}
    monkeypatch.setattr(run, "run_app", lambda args: seen.setdefault("opened", store.open_index(tmp_path)) and 0)
    main([])
    index, notice = seen["opened"]
    assert index is not None and notice == "" and store.enabled()
