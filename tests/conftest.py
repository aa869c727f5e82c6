"""Every test runs with $XDG_CACHE_HOME in a temporary directory: the sessions index of a test's directory (and of
the real app started in a terminal by a test) never lands in the user's cache."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

from helpers import demo_memo
from helpers.scenelock import uses_scenes


def _bytecode_in_a_private_cache() -> str | None:
    """Compiled bytecode kept in one private temporary directory for the whole run (the pytest process, its
    workers, and every `python -m tui` a test starts), never in the checkout. With PYTHONDONTWRITEBYTECODE set (as
    on the CI's machines) each of the ~300 programs the suite starts compiled the app anew (~0.4 s each) and each
    worker re-rewrote every test module: ~10% of the suite's time. The directory is made once, by the first
    process, and handed down through the environment (mkdtemp: private, not a name another user can plant)."""
    made = None
    cache = os.environ.get("AIAGENT_MONITOR_TEST_PYCACHE")
    if not cache or not os.path.isdir(cache):
        cache = made = tempfile.mkdtemp(prefix="aiagent-monitor-pyc-")
        os.environ["AIAGENT_MONITOR_TEST_PYCACHE"] = cache
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = cache
    sys.dont_write_bytecode = False
    sys.pycache_prefix = cache
    return made


_PYCACHE_MADE_HERE = _bytecode_in_a_private_cache()

demo_memo.install()  # the demo generator's trees made once per process (tests/helpers/demo_memo.py)


def pytest_unconfigure(config):
    """The process that made the bytecode cache (pytest's main process) removes it when the run ends."""
    if _PYCACHE_MADE_HERE:
        shutil.rmtree(_PYCACHE_MADE_HERE, ignore_errors=True)


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
