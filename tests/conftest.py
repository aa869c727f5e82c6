"""Every test runs with $XDG_CACHE_HOME in a temporary directory: the sessions index of a test's directory (and of
the real app started in a terminal by a test) never lands in the user's cache."""

from __future__ import annotations

import os

import pytest

from helpers.scenelock import uses_scenes


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Groups for `--dist loadgroup` (the README's command): each file is one group, as `--dist loadfile` makes it
    (its module-scoped fixtures built once, on one worker), except the files that use the scenes, one group
    together: they take turns with the scenes (tests/ui/conftest.py), so that on two workers one waited for the
    other. Without loadgroup the marks change nothing."""
    for item in items:
        module = getattr(item, "module", None)
        group = "scenes" if module is not None and uses_scenes(module) else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True, scope="session")
def _cache_out_of_the_users_home(tmp_path_factory):
    """(and $XDG_CONFIG_HOME: the user's config.toml, tui.cli.config, must not change what a test sees)"""
    before = {name: os.environ.get(name) for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("xdg-config"))
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def _no_demo_cache_left_behind():
    """A demo app built in a test points the process's sessions-index cache at its own folder
    (tui.catalog.index.store.set_cache_dir) until its clean-up runs, which an app never started does not: the next
    test must not find its index, nor its kept place, there."""
    yield
    from tui.catalog.index.store import set_cache_dir

    set_cache_dir(None)
