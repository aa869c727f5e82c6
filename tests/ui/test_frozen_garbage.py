"""Frozen garbage (tui.ui.idle_collect): cyclic garbage that existed when a heap was frozen (gc.freeze, as the OTLP
receiver and the browser's listing do) is out of every collection's reach; once the frozen count has grown by
REFREEZE_GROWTH, the next quiet moment unfreezes, collects and freezes again, and that garbage is freed.

The app runs in a process of its own: a refreeze collects, and the frozen count walks, the whole heap, and a test
worker's heap late in a run made this test cost 12 s of CPU instead of 1.6 s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

APP = r'''
import asyncio, gc, tempfile, weakref
from pathlib import Path

import tui.ui.idle_collect as idle_collect
from tui.ui.app import MonitorApp
from helpers.waiting import wait_for


class Node:
    """A cycle of these is what only a full collection frees."""

    def __init__(self):
        self.other = None


def frozen_cycles(count):
    """`count` two-node cycles, frozen (as a gc.freeze() of a live heap freezes whatever exists), then garbage."""
    held = []
    for _ in range(count):
        a, b = Node(), Node()
        a.other, b.other = b, a
        held.append(a)
    gc.freeze()
    refs = [weakref.ref(a) for a in held]
    del held, a, b
    return refs


async def main():
    idle_collect.REFREEZE_GROWTH = 1_000
    idle_collect.REFREEZE_CHECK_SECONDS = 0.05
    # watched while an OTLP receiver runs (port 0: any free one)
    app = MonitorApp(sessions_dir=Path(tempfile.mkdtemp()), watch=False, listen_urls=["otlp://127.0.0.1:0"])
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        refs = frozen_cycles(2_000)
        gc.collect()
        assert all(r() is not None for r in refs[:10]), "frozen: no ordinary collection frees them"
        assert await wait_for(pilot, lambda: all(r() is None for r in refs), timeout=10, step=0.05), "not freed"
        assert 0 < gc.get_freeze_count() < 10**9, "refrozen: the refreeze ran and is not due again"


asyncio.run(main())
print("freed")
'''


def test_frozen_garbage_is_freed_at_a_quiet_moment_once_enough_was_frozen(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]), XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, "-c", APP], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "freed", done.stderr[-3000:]
