"""Big trees nobody reads any more are cut in one releasing thread (tui.ui.live_controller.release_away), in the
order they were let go: a thread started per release made the UI thread wait for each to start."""

from __future__ import annotations

import threading
import time

from tui.ui.live_controller import release_away


def test_releases_run_in_order_in_one_thread_that_is_not_the_callers():
    ran: list[tuple[int, int]] = []
    done = threading.Event()
    for n in range(5):
        release_away(lambda n=n: ran.append((n, threading.get_ident())))
    release_away(done.set)
    assert done.wait(10)
    assert [n for n, _ in ran] == list(range(5))
    threads = {ident for _, ident in ran}
    assert len(threads) == 1 and threading.get_ident() not in threads


def test_a_failing_release_does_not_stop_the_next():
    done = threading.Event()
    release_away(lambda: 1 / 0)
    release_away(done.set)
    assert done.wait(10)
    time.sleep(0.01)
    assert sum(t.name == "release-tree" for t in threading.enumerate()) == 1
