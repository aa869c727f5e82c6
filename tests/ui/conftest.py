"""Tests of tui/ui/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""

import pytest


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    """The sessions index goes to $XDG_CACHE_HOME: a fresh one per test, never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
