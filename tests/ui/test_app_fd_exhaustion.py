"""Out of file descriptors (local clients holding connections, issue 12): a key press must not crash the app by
importing a module then (an import opens its file). The modules keys need are imported after the first screen."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import resource
import sys

import pytest

from helpers.apphelpers import session_app, top, wait_for
from tui.demo import make_tree, write_snapshot
from tui.model.search import walk_ops

KEYS_THAT_IMPORTED = ("p", "escape", "w", "escape", "i", "i", "x", "escape", "question_mark", "escape", "D",
                      "escape", "y")


@contextlib.contextmanager
def descriptors_exhausted(headroom: int = 0):
    """Lower the soft RLIMIT_NOFILE near what is open, then open files until EMFILE; all given back after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    in_use = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 64
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, in_use + 64), hard))
    held = []
    try:
        while True:
            try:
                held.append(os.open(os.devnull, os.O_RDONLY))
            except OSError as exc:
                assert exc.errno == errno.EMFILE
                break
        for _ in range(headroom):
            os.close(held.pop())
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE")
async def test_keys_that_imported_lazily_work_with_no_descriptor_left(tmp_path):
    tree = make_tree(7, ops=40, depth=2, fanout=2)
    path = write_snapshot(tmp_path, tree, version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = top(app)
        await asyncio.sleep(0.3)  # let the watcher start
        write_snapshot(tmp_path, {**tree, "sessionTitle": "changed"}, version=2, reason="subagent_finish")
        assert await wait_for(pilot, lambda: len(app.history.versions(screen.history_key)) >= 2, timeout=20)
        await pilot.pause(0.5)  # the modules keys need are imported once the first screen is up
        screen.tree.reveal(next(op for op in walk_ops(screen.session) if op.kind == "llm"))
        await pilot.pause()
        shown = set()
        with descriptors_exhausted():
            for key in KEYS_THAT_IMPORTED:
                await pilot.press(key)
                await pilot.pause()
                shown.add(type(app.screen).__name__)
            assert app.is_running and app.return_code is None
        assert {"PayloadScreen", "WaterfallScreen", "ExportScreen", "HelpScreen", "DiffScreen"} <= shown
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert screen in app.screen_stack
