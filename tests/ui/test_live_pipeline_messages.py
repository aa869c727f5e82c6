"""The live pipeline as messages (issue 29, point 1): events read from a socket are applied and built on the live
worker's thread, which posts its batches to the app; the app routes them to the screens (run_test's message_hook
sees what the app posts to them). A tree goes to the screens only once a screen shows its root."""

from __future__ import annotations

import threading

from helpers.apphelpers import SIZE, top, wait_for
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events, send_events
from tui.formats.load import load
from tui.ui.app import MonitorApp
from tui.ui.messages import LiveRowsChanged, LiveTreeBuilt


async def test_batches_reach_the_screens_as_messages_and_trees_only_for_a_shown_root(tmp_path):
    doc = load(str(write_snapshot(tmp_path / "src", make_tree(21, ops=60, depth=1), version=2)))
    events = replay_events(doc, max_tree_events=10)
    root = doc.root.trace_id
    sock = tmp_path / "m.sock"
    (tmp_path / "sessions").mkdir()
    seen: list = []

    def hook(message) -> None:
        if isinstance(message, (LiveRowsChanged, LiveTreeBuilt)):
            seen.append((message, threading.current_thread().name))

    app = MonitorApp(sessions_dir=tmp_path / "sessions", listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        assert await wait_for(pilot, sock.exists)
        half = len(events) // 2
        await send_events(events[:half], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.live.tally.events == half)
        assert await wait_for(pilot, lambda: any(isinstance(m, LiveRowsChanged) and any(
            row.key == f"live:{root}" for row in m.rows) for m, _ in seen))
        assert not any(isinstance(m, LiveTreeBuilt) for m, _ in seen)  # no screen shows it yet
        batch = next(m for m, _ in seen if isinstance(m, LiveRowsChanged) and m.rows)
        assert root in batch.builds and batch.tally.events > 0 and "live:" in batch.summary
        assert await wait_for(pilot, lambda: app.browser().table.row_count == 1)  # the browser took the row
        app.open_path(f"live:{root}")
        assert await wait_for(pilot, lambda: getattr(app.screen, "live_root", None) == root)
        await send_events(events[half:], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: top(app).session.status == "ok")
        built = [m for m, _ in seen if isinstance(m, LiveTreeBuilt)]
        assert built and {m.root for m in built} == {root}
        assert top(app).session is app.live.build(root)
        assert built[-1].facts.events == len(events) == app.live.facts(root).events
        # what the screens get is posted by the app, on the UI thread; the hub is never the UI's
        assert {name for _, name in seen} == {threading.main_thread().name}


async def test_the_app_has_no_hub_and_the_controller_no_callbacks():
    app = MonitorApp(watch=False)
    assert not hasattr(app, "hub") and not hasattr(app, "apply_live")
    import inspect

    from tui.ui.live_controller import LiveController

    assert list(inspect.signature(LiveController).parameters) == ["app", "sessions_dir", "streams"]
