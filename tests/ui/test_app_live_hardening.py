"""What a user sees of a misbehaving stream: rejection counts by reason and reorderings in the browser header and
the live panel, sessions without a tree listed, a socket that cannot be taken, a server that goes away."""

from __future__ import annotations

import asyncio
import contextlib

import orjson
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve
from websockets.exceptions import InvalidStatus

from helpers.apphelpers import Notices, wait_for
from tui.ui.app import MonitorApp
from tui.ui.live_worker import LiveWorker
from tui.ui.messages import LiveRowsChanged
from tui.ui.screens.browser import BrowserScreen


def event(seq: int, sid: str = "s1", kind: str = "log", **meta) -> bytes:
    body: dict = {"type": kind, "meta": {"sessionId": sid, "originId": sid, "sequence": seq, **meta}}
    if kind == "log":
        body["entry"] = {"timestamp": 1000 + seq, "severity": "WRN", "message": f"{sid} log {seq}"}
    else:
        body["event"] = {"type": "agent_update", "message": f"{sid} step {seq}"}
    return orjson.dumps(body)


def header(app) -> str:
    return str(app.browser().query_one("#browser-header").render())


def panel(app) -> str:
    return str(app.screen.query_one("#live").render())


async def test_rejections_and_reorderings_are_shown_in_the_header_and_the_live_panel(tmp_path):
    sock = tmp_path / "m.sock"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, sock.exists)
        _, writer = await asyncio.open_unix_connection(str(sock))
        writer.write(b"\n".join([event(1), b"{broken", b"[1]", event(1), event(3), event(2),
                                 orjson.dumps({"type": "teleport"}), event(1, "kid", parentId="nobody-yet")])
                     + b"\n")
        await writer.drain()
        assert await wait_for(pilot, lambda: "rejected:" in header(app) and "live:kid" in app.browser().model.rows)
        text = header(app)
        assert "live: 4 events" in text and "1 reordered" in text
        assert "rejected: malformed JSON ×1, not an object ×1, unknown type ×1, duplicate ×1" in text
        assert "listening on unix:" in text and "1 client connected" in text
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert "live:s1" in browser.model.rows and "live:kid" in browser.model.rows  # no tree sent: listed all the same
        assert "no tree received yet" in browser.model.rows["live:s1"].title
        browser.focus()
        await pilot.press("r")  # a rescan of the sessions directory keeps the live rows
        assert await wait_for(pilot, lambda: not browser.model.scanning)
        await pilot.pause(0.3)
        assert "live:s1" in browser.model.rows and "live:kid" in browser.model.rows
        app.open_path("live:s1")
        await pilot.pause(0.3)
        assert "3 events · 0 gaps · 1 reordered" in panel(app)
        assert "rejected: malformed JSON ×1, not an object ×1, unknown type ×1, duplicate ×1" in panel(app)
        logs = [e["message"] for t in app.screen.session.turns for o in t.ops for e in o.raw["logs"]]
        assert logs == ["s1 log 1", "s1 log 2", "s1 log 3"]
        writer.write(b"not json either\n")  # a rejection that touches no session still reaches the panel
        await writer.drain()
        assert await wait_for(pilot, lambda: "malformed JSON ×2" in panel(app))
        writer.close()


async def test_a_socket_held_by_a_live_monitor_is_reported_not_stolen(tmp_path):
    sock = tmp_path / "busy.sock"
    first = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    second = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    async with first.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, sock.exists)
        notes = Notices()
        async with second.run_test(size=(160, 48), message_hook=notes) as pilot2:
            assert await wait_for(pilot2, lambda: "not listening" in header(second))
            assert "another monitor" in header(second)
            assert any("another monitor" in n for n in notes.messages())
        _, writer = await asyncio.open_unix_connection(str(sock))  # still the first monitor's
        writer.write(event(1) + b"\n")
        await writer.drain()
        assert await wait_for(pilot, lambda: first.live.tally.events == 1)
        writer.close()


async def test_refused_producers_are_counted_on_screen(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=["ws://127.0.0.1:0"], watch=False, token="s3cret")
    async with app.run_test(size=(160, 48)) as pilot:
        assert await wait_for(pilot, lambda: "listening on ws://" in header(app))
        url = header(app).split("listening on ", 1)[1].split()[0]
        try:
            await ws_connect(url)
        except InvalidStatus as exc:
            assert exc.response.status_code == 401
        async with ws_connect(url, additional_headers={"Authorization": "Bearer s3cret"}) as ws:
            await ws.send(event(1).decode())
        assert await wait_for(pilot, lambda: "auth refused ×1" in header(app) and app.live.tally.events == 1)


async def test_a_server_that_goes_away_is_shown_and_reconnected(tmp_path):
    async def push(ws):
        await ws.send(event(1 if run == 1 else 2).decode())
        await ws.wait_closed()

    run = 1
    server = await serve(push, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    app = MonitorApp(sessions_dir=tmp_path, connect_urls=[f"ws://127.0.0.1:{port}"], watch=False)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            assert await wait_for(pilot, lambda: app.live.tally.events == 1 and "connected to" in header(app))
            app.open_path("live:s1")
            await pilot.pause(0.3)
            server.close()
            await server.wait_closed()
            assert await wait_for(pilot, lambda: "retrying in" in panel(app))  # the live panel on screen says so
            assert f"disconnected from ws://127.0.0.1:{port}" in panel(app)
            assert "retrying in" not in header(app)  # (the browser under the session waits: not redrawn unseen)
            await pilot.press("escape")  # and the browser's header, once it is back
            assert await wait_for(pilot, lambda: "retrying in" in header(app))
            assert f"disconnected from ws://127.0.0.1:{port}" in header(app)
            app.open_path("live:s1")
            await pilot.pause(0.3)
            run = 2
            server = await serve(push, "127.0.0.1", port)
            assert await wait_for(pilot, lambda: app.live.tally.events == 2, timeout=15)
            assert await wait_for(pilot, lambda: "reconnected to" in panel(app))
            await pilot.press("escape")
            assert await wait_for(pilot, lambda: "reconnected to" in header(app))
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()


async def test_a_live_tick_during_shutdown_touches_no_screen(tmp_path):
    """CI once failed here: events arrived just before quitting, and the next live tick ran while Textual was
    taking the browser's widgets down ("No nodes match '#browser-table'")."""
    sock = tmp_path / "m.sock"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    ticks_during_prune: list[str] = []
    batches: list = []
    worker = LiveWorker(batches.append, set(), streams=True)  # a batch like the app's worker posts
    worker.hub.feed(event(2, sid="s1"))
    worker.apply()
    batch = next(m for m in batches if isinstance(m, LiveRowsChanged))
    table = []

    def tick_once_the_browser_is_down(message) -> None:
        """run_test's message_hook sees every message the app's nodes take during shutdown too: the first one
        after the browser's table left the DOM gets a live tick, as one queued just before quitting would."""
        if table and not table[0].is_attached and not ticks_during_prune:
            ticks_during_prune.append("tick")
            app.on_live_rows_changed(batch)  # raised NoMatches before the app checked that it was closing
            ticks_during_prune.append("ticked")

    async with app.run_test(size=(160, 48), message_hook=tick_once_the_browser_is_down) as pilot:
        assert await wait_for(pilot, sock.exists)
        assert isinstance(app.screen, BrowserScreen)
        table.append(app.screen.table)
        _, writer = await asyncio.open_unix_connection(str(sock))
        writer.write(event(1) + b"\n")
        await writer.drain()
        assert await wait_for(pilot, lambda: app.live.tally.events == 1)
        writer.close()
    assert ticks_during_prune == ["tick", "ticked"]
