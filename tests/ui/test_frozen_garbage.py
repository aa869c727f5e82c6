"""Frozen garbage (tui.ui.idle_collect): cyclic garbage that existed when a heap was frozen (gc.freeze, as the OTLP
receiver and the browser's listing do) is out of every collection's reach; once the frozen count has grown by
REFREEZE_GROWTH, the next quiet moment unfreezes, collects and freezes again, and that garbage is freed."""

from __future__ import annotations

import gc
import weakref

import tui.ui.idle_collect as idle_collect
from helpers.apphelpers import SIZE
from tui.ui.app import MonitorApp
from helpers.waiting import wait_for


class Node:
    """A cycle of these is what only a full collection frees."""

    def __init__(self) -> None:
        self.other: Node | None = None


def frozen_cycles(count: int) -> list[weakref.ref]:
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


async def test_frozen_garbage_is_freed_at_a_quiet_moment_once_enough_was_frozen(tmp_path, monkeypatch):
    monkeypatch.setattr(idle_collect, "REFREEZE_GROWTH", 1_000, raising=False)
    monkeypatch.setattr(idle_collect, "REFREEZE_CHECK_SECONDS", 0.25, raising=False)
    # watched while an OTLP receiver runs (port 0: any free one)
    app = MonitorApp(sessions_dir=tmp_path, watch=False, listen_urls=["otlp://127.0.0.1:0"])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            refs = frozen_cycles(2_000)
            gc.collect()
            assert all(r() is not None for r in refs[:10])  # frozen: no ordinary collection frees them
            assert await wait_for(pilot, lambda: all(r() is None for r in refs), timeout=10, step=0.05)
            assert 0 < gc.get_freeze_count() < 10**9  # refrozen: the refreeze ran and is not due again
    finally:
        gc.unfreeze()
