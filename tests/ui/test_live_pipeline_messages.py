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


async def test_under_a_live_screen_only_its_root_is_rebuilt_and_the_others_rows_come_when_it_closes(tmp_path):
    """The browser is under the live screen: the other roots' rows (a build each, 4 times a second, nobody to see
    them) wait in the worker until the screen closes; then they arrive, and the browser's cells show them."""
    docs = [load(str(write_snapshot(tmp_path / f"src{n}", make_tree(30 + n, ops=20, depth=1), version=2)))
            for n in range(2)]
    shown, other = (doc.root.trace_id for doc in docs)
    a, b = (replay_events(doc, max_tree_events=5) for doc in docs)
    sock = tmp_path / "m.sock"
    (tmp_path / "sessions").mkdir()
    seen: list = []

    def hook(message) -> None:
        if isinstance(message, LiveRowsChanged):
            seen.append(message)

    app = MonitorApp(sessions_dir=tmp_path / "sessions", listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        assert await wait_for(pilot, sock.exists)
        half = len(b) // 2
        await send_events([*a[:-1], *b[:half]], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.browser().table.row_count == 2)
        app.open_path(f"live:{shown}")
        assert await wait_for(pilot, lambda: getattr(app.screen, "live_root", None) == shown)
        since = len(seen)
        await send_events([*b[half:], a[-1]], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.live.tally.events == len(a) + len(b))
        assert await wait_for(pilot, lambda: app.live.facts(shown).events == len(a) and any(
            row.key == f"live:{shown}" and row.events == len(a) for m in seen[since:] for row in m.rows))
        await pilot.pause(0.6)  # a few batches more
        assert not any(row.key == f"live:{other}" for m in seen[since:] for row in m.rows)
        browser = app.browser()
        assert browser.rows[f"live:{other}"].events == half
        app.pop_screen()
        assert await wait_for(pilot, lambda: app.screen is browser)
        assert await wait_for(pilot, lambda: browser.rows[f"live:{other}"].events == len(b))
        assert await wait_for(pilot, lambda: browser.table.get_cell(f"live:{other}", "events").plain.startswith(
            f"{len(b):,}"))
