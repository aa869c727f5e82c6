"""Events pushed to `--listen` show up as a browser row and a live session screen that follows them."""

from __future__ import annotations

import asyncio

from test_app_live_file import wait_for
from tui.app import MonitorApp
from tui.gen import make_tree, write_snapshot
from tui.model.document import load
from tui.model.summary import summarise
from tui.screens.browser import BrowserScreen
from tui.sources.replay import replay_events, send_events


async def test_replay_over_unix_socket_into_the_running_app(tmp_path):
    source = write_snapshot(tmp_path / "src", make_tree(21, ops=120, depth=2, fanout=2), version=2)
    doc = load(str(source))
    expected = summarise(doc)
    events = replay_events(doc, max_tree_events=10)
    sock = tmp_path / "m.sock"
    empty = tmp_path / "sessions"
    empty.mkdir()
    app = MonitorApp(sessions_dir=empty, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, sock.exists)
        half = len(events) // 2
        await send_events(events[:half], f"unix:{sock}", speed=0)
        root = doc.root.trace_id
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: f"live:{root}" in browser._rows)
        await pilot.pause(0.3)
        app.open_path(f"live:{root}")
        await pilot.pause()
        screen = app.screen
        assert screen.live_root == root and screen.session.status == "running"
        await send_events(events[half:], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.screen.session.status == "ok")
        session = app.screen.session
        assert session.totals.as_dict() == expected["totals"]
        assert session.counts.as_dict() == expected["counts"]
        events_seen, gaps = app.hub.counters(root)
        assert events_seen == len(events) and gaps == 0
        assert "events" in str(app.screen.query_one("#live").render())
        row = browser._rows[f"live:{root}"]
        assert row.status == "ok" and row.cost == expected["totals"]["costUsd"]
