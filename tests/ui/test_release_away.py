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


def test_each_name_is_one_thread_of_its_own():
    """(tui.ui.standing_threads: one standing thread per name, so that a long job of one kind never delays
    another kind's)"""
    from tui.ui import standing_threads

    seen: dict[str, set[int]] = {"a": set(), "b": set()}
    done = {"a": threading.Event(), "b": threading.Event()}
    for name in ("a", "b", "a", "b"):
        standing_threads.run_in(f"test-{name}", lambda name=name: seen[name].add(threading.get_ident()))
    for name, event in done.items():
        standing_threads.run_in(f"test-{name}", event.set)
    assert all(event.wait(10) for event in done.values())
    assert len(seen["a"]) == 1 and len(seen["b"]) == 1 and seen["a"] != seen["b"]


def test_a_tree_of_a_few_hundred_ops_let_go_is_cut_in_the_releasing_thread(tmp_path, monkeypatch):
    """Cutting a tree of a few hundred to 2,000 ops let go by a live screen took up to 10 ms of the UI thread, in a
    live tick of a replayed session (the benchmarks' "UI-thread time per live tick" row): from RELEASE_AWAY_OPS
    (or _TURNS) on it is cut in the releasing thread; a smaller one at once, by the caller."""
    import tui.ui.live_controller as live_controller
    from helpers.apphelpers import deep_snapshot
    from tui.formats.load import load
    from tui.ui.app import MonitorApp

    cut_in: list[str] = []
    done = threading.Event()
    release_tree = live_controller.release_tree
    monkeypatch.setattr(live_controller, "release_tree",
                        lambda root: cut_in.append(threading.current_thread().name) or release_tree(root))
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    for ops in (300, 8):
        session = load(str(deep_snapshot(tmp_path / str(ops), ops=ops, depth=1))).root
        assert session is not None and (session.counts.ops >= 250) == (ops == 300)
        app.live.pinned(session).release()
    release_away(done.set)
    assert done.wait(10)
    assert sorted(cut_in) == sorted(["release-tree", threading.current_thread().name])
