"""Events pushed to `--listen` show up as a browser row and a live session screen that follows them."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import fed, wait_for
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events, send_events
from tui.formats.load import load
from tui.text.summary import summarise
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.model.session_facts import shown_counts


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
        assert await wait_for(pilot, lambda: f"live:{root}" in browser.model.rows)
        await pilot.pause(0.3)
        app.open_path(f"live:{root}")
        await pilot.pause()
        screen = app.screen
        assert screen.live_root == root and screen.session.status == "running"
        await send_events(events[half:], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.screen.session.status == "ok")
        session = app.screen.session
        assert session.totals.as_dict() == expected["totals"]
        assert shown_counts(session) == expected["counts"]
        facts = app.live.facts(root)
        assert facts.events == len(events) and facts.gaps == 0
        assert "events" in str(app.screen.query_one("#live").render())
        row = browser.model.rows[f"live:{root}"]
        assert row.status == "ok" and row.cost == expected["totals"]["costUsd"]


async def test_an_update_arriving_before_the_live_screen_mounts(tmp_path):
    doc = load(str(write_snapshot(tmp_path, make_tree(22, ops=30, depth=1), version=2)))
    events = [event for _, event in replay_events(doc, max_tree_events=4)]
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        import orjson

        first_tree = next(i for i, e in enumerate(events) if e["type"] == "op_tree")
        await fed(app, pilot, [orjson.dumps(event) for event in events[: first_tree + 1]])
        root = doc.root.trace_id
        app.open_path(f"live:{root}")
        # fed at once: the screen was pushed but has not mounted yet
        await fed(app, pilot, [orjson.dumps(event) for event in events[first_tree + 1:]])
        await pilot.pause(0.3)
        assert app.screen.session.status == "ok"
        assert shown_counts(app.screen.session) == summarise(doc)["counts"]
