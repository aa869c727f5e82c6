"""Tests of tui/ui/ (shared helpers live in tests/helpers/, on the path through pyproject's pythonpath)."""

import pytest

from helpers.scenelock import uses_scenes


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory, monkeypatch):
    """The sessions index goes to $XDG_CACHE_HOME: a fresh one per test, never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def _scenes_one_at_a_time(request):
    """The scenes (tests/helpers/scenes.py) are written at fixed paths, as those paths are on screen in the
    snapshots: tests run in parallel processes (pytest-xdist) take turns with them, or one rewrites a scene while
    another's app reads it."""
    if not uses_scenes(request.module):
        yield
        return
    import fcntl

    with open("/tmp/aiagent-monitor-scenes.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
