"""Streams that misbehave, over real sockets: bad frames counted by reason, clients that stall, trickle, vanish
mid-frame or arrive 150 at once, and a server that goes away under --connect. Nothing valid may be lost."""

from __future__ import annotations

import asyncio
import contextlib
import time

import orjson
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve

from helpers.livehelpers import listening, stop
from helpers.rawclients import raw_unix, raw_ws, trickle, ws_frame
from helpers.waiting import until
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.aiagent.live.merge import in_sequence_order
from tui.inputs.stream import event_stream
from tui.inputs.stream.event_stream import connect, parse_url


def event(seq: int, sid: str = "s1", kind: str = "status", **meta) -> bytes:
    body: dict = {"type": kind, "meta": {"sessionId": sid, "originId": sid, "sequence": seq, **meta}}
    if kind == "status":
        body["event"] = {"type": "agent_update", "message": f"{sid} step {seq}"}
    elif kind == "log":
        body["entry"] = {"timestamp": 1000 + seq, "severity": "WRN", "message": f"{sid} log {seq}"}
    return orjson.dumps(body)


@contextlib.asynccontextmanager
async def sender(url: str):
    """send(frame) over a ws:// or unix: connection, closed at the end."""
    if url.startswith("ws"):
        async with ws_connect(url, compression=None) as ws:
            async def send(frame):
                await ws.send(frame.decode() if isinstance(frame, bytes) else frame)
            yield send
    else:
        _, writer = await raw_unix(parse_url(url)[1])

        async def send(frame):
            writer.write((frame if isinstance(frame, bytes) else frame.encode()) + b"\n")
            await writer.drain()
        try:
            yield send
        finally:
            writer.close()
            await writer.wait_closed()


def listen_url(transport: str, sock_dir) -> str:
    return "ws://127.0.0.1:0" if transport == "ws" else f"unix:{sock_dir / 'm.sock'}"


@pytest.mark.parametrize("transport", ["ws", "unix"])
async def test_bad_frames_are_counted_by_reason_and_valid_ones_all_applied(transport, sock_dir):
    hub = LiveHub()
    async with listening(listen_url(transport, sock_dir), hub, on_rejected=hub.reject) as (url, _):
        async with sender(url) as send:
            await send(event(1))
            await send(b"{this is not json")
            await send(b"[1, 2, 3]")
            await send(b'"just a string"')
            await send(orjson.dumps({"type": "teleport", "meta": {"sessionId": "s1", "sequence": 50}}))
            await send(orjson.dumps({"type": "log", "entry": {"message": "whose?"}}))
            await send(orjson.dumps({"type": "op_tree", "meta": {"sessionId": "s1"}, "tree": "no"}))
            await send(event(1))  # duplicate
            await send(event(3, kind="log"))
            await send(event(2, kind="log"))  # out of order: applied, fills the gap
            await send(event(1, sid="ghost", kind="log", parentId="never-seen"))  # a session nobody announced
            await until(lambda: hub.events == 4)
    assert dict(hub.rejected) == {"malformed JSON": 1, "not an object": 2, "unknown type": 1, "no session id": 1,
                                  "no tree": 1, "duplicate": 1}
    s1 = hub.sessions["s1"]
    assert s1.events == 3 and s1.gaps == 0 and s1.reordered == 1 and s1.duplicates == 1
    assert [entry["message"] for entry in in_sequence_order(s1.pending_logs)] == ["s1 log 2", "s1 log 3"]
    assert "ghost" in hub.roots()  # kept and shown under its own root until its parent speaks
    ghost = hub.build("ghost")
    assert [e.get("message") for t in ghost.turns for o in t.ops for e in o.raw["logs"]] == ["ghost log 1"]


async def test_unix_crlf_bom_and_a_last_line_without_newline(sock_dir):
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 'm.sock'}", hub, on_rejected=hub.reject) as (url, _):
        _, writer = await raw_unix(parse_url(url)[1])
        writer.write(b"\xef\xbb\xbf" + event(1) + b"\r\n" + event(2) + b"\r\n\r\n" + event(3))
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        await until(lambda: hub.events == 3)
    assert not hub.rejected and hub.sessions["s1"].status_line.endswith("step 3")


async def test_unix_client_leaving_mid_line_loses_only_that_line(sock_dir):
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 'm.sock'}", hub, on_rejected=hub.reject) as (url, statuses):
        path = parse_url(url)[1]
        _, other = await raw_unix(path)
        _, leaver = await raw_unix(path)
        leaver.write(event(1, "a") + b"\n" + event(2, "a") + b"\n" + event(3, "a")[:25])
        await leaver.drain()
        leaver.close()
        await leaver.wait_closed()
        await until(lambda: hub.rejected["truncated"] == 1)
        for seq in range(1, 4):
            other.write(event(seq, "b") + b"\n")
        await other.drain()
        await until(lambda: hub.sessions.get("b") is not None and hub.sessions["b"].events == 3)
        other.close()
        await other.wait_closed()
    assert hub.sessions["a"].events == 2 and dict(hub.rejected) == {"truncated": 1}
    assert "unfinished line" in hub.last_rejected


async def test_websocket_client_leaving_mid_frame_loses_only_that_frame():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, statuses):
        async with ws_connect(url) as other:
            _, leaver = await raw_ws(url)
            leaver.write(ws_frame(event(1, "a")) + ws_frame(event(2, "a")) + ws_frame(event(3, "a"))[:20])
            await leaver.drain()
            await until(lambda: hub.events == 2)
            leaver.close()
            await until(lambda: hub.rejected["truncated"] == 1)
            for seq in range(1, 4):
                await other.send(event(seq, "b").decode())
            await until(lambda: hub.events == 5)
    assert hub.sessions["a"].events == 2 and dict(hub.rejected) == {"truncated": 1}
    assert any("dropped in the middle of a frame" in s for s in statuses)


@pytest.mark.parametrize("transport", ["ws", "unix"])
async def test_idle_and_trickling_clients_do_not_hold_up_the_others(transport, sock_dir):
    """An idle client and one sending a byte every 0.1 s stay connected while a normal client's 2,000 events all
    arrive at once; the trickled event arrives too when it is complete."""
    hub = LiveHub()
    async with listening(listen_url(transport, sock_dir), hub, on_rejected=hub.reject) as (url, _):
        if transport == "ws":
            _, silent = await raw_ws(url, handshake=False)  # connected, never says a word
            _, idle = await raw_ws(url)
            _, slow = await raw_ws(url)
            slow_frame = ws_frame(event(1, "slow"))
        else:
            _, silent = await raw_unix(parse_url(url)[1])
            _, idle = await raw_unix(parse_url(url)[1])
            _, slow = await raw_unix(parse_url(url)[1])
            slow_frame = event(1, "slow") + b"\n"
        written: list[int] = []
        trickling = asyncio.create_task(trickle(slow, slow_frame, 0.1, written))
        await asyncio.sleep(0.3)  # the slow client is mid-frame
        started = time.perf_counter()
        async with sender(url) as send:
            for seq in range(1, 2001):
                await send(event(seq, "fast"))
            await until(lambda: hub.sessions.get("fast") is not None and hub.sessions["fast"].events == 2000,
                        timeout=15)
        took = time.perf_counter() - started
        assert not trickling.done() and "slow" not in hub.sessions
        trickling.cancel()
        slow.write(slow_frame[written[0]:])
        await slow.drain()
        await until(lambda: "slow" in hub.sessions)
        for writer in (silent, idle, slow):
            writer.close()
    assert took < 10, f"2,000 events took {took:.1f}s next to an idle and a slow client"
    assert hub.sessions["fast"].gaps == 0 and not hub.rejected


@pytest.mark.parametrize("transport", ["ws", "unix"])
async def test_150_clients_at_once_lose_nothing(transport, sock_dir):
    clients, per_client = 150, 100
    hub = LiveHub()
    async with listening(listen_url(transport, sock_dir), hub, on_rejected=hub.reject) as (url, statuses):
        gate = asyncio.Event()
        opened = 0

        async def producer(n: int) -> None:
            nonlocal opened
            async with sender(url) as send:
                opened += 1
                await gate.wait()  # everybody connected before anybody sends
                for seq in range(1, per_client + 1):
                    await send(event(seq, f"c{n}"))

        tasks = [asyncio.create_task(producer(n)) for n in range(clients)]
        await until(lambda: opened == clients)
        gate.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        await until(lambda: hub.events == clients * per_client, timeout=60)
    assert len(hub.sessions) == clients and not hub.rejected
    assert all(s.events == per_client and s.gaps == 0 for s in hub.sessions.values())
    assert any(f"{clients} clients connected" in s for s in statuses)


# --connect: the server goes away and comes back ----------------------------------------------------------------


async def test_connect_reports_a_server_that_goes_away_and_reconnects_when_it_returns():
    hub = LiveHub()
    statuses: list[str] = []
    sent_by_run = {1: range(1, 51), 2: range(51, 101)}
    run = 1

    async def push(ws):
        for seq in sent_by_run[run]:
            await ws.send(event(seq).decode())
        await ws.wait_closed()  # then stay connected until the server stops

    server = await serve(push, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    task = asyncio.create_task(connect(f"ws://127.0.0.1:{port}", hub.feed, statuses.append, on_rejected=hub.reject))
    try:
        await until(lambda: hub.events == 50)
        server.close()  # the server goes away
        await server.wait_closed()
        await until(lambda: sum("retrying in" in s for s in statuses) >= 3)  # tried again, and again
        run = 2
        server = await serve(push, "127.0.0.1", port)  # and comes back on the same port
        await until(lambda: hub.events == 100)
    finally:
        await stop(task)
        server.close()
        await server.wait_closed()
    assert statuses[0] == f"connected to ws://127.0.0.1:{port}"
    assert statuses[1].startswith(f"disconnected from ws://127.0.0.1:{port} (")
    delays = [s.rsplit("retrying in ", 1)[1] for s in statuses if "retrying in" in s]
    assert delays[:3] == ["0.25s", "0.5s", "1s"]
    assert statuses[-1].startswith(f"reconnected to ws://127.0.0.1:{port} after ")
    assert hub.sessions["s1"].gaps == 0 and not hub.rejected


async def test_connect_over_unix_reconnects_when_the_socket_comes_back(sock_dir):
    hub = LiveHub()
    statuses: list[str] = []
    path = sock_dir / "up.sock"
    batch = [event(seq) + b"\n" for seq in range(1, 11)]

    writers: set = set()

    async def push(reader, writer):
        writers.add(writer)
        writer.writelines(batch)
        await writer.drain()
        with contextlib.suppress(OSError):
            await reader.read()  # until the server goes away
        writers.discard(writer)

    server = await asyncio.start_unix_server(push, str(path))
    task = asyncio.create_task(connect(f"unix:{path}", hub.feed, statuses.append))
    try:
        await until(lambda: hub.events == 10)
        server.close()  # the server goes away: no more listening, its connections dropped
        for writer in list(writers):
            writer.close()
        path.unlink(missing_ok=True)
        await until(lambda: any("no such socket" in s for s in statuses))
        batch = [event(seq) + b"\n" for seq in range(11, 21)]
        server = await asyncio.start_unix_server(push, str(path))
        await until(lambda: hub.events == 20)
    finally:
        await stop(task)
        server.close()
        for writer in list(writers):
            writer.close()
    assert any(s.startswith("reconnected to unix:") for s in statuses)
    assert hub.sessions["s1"].gaps == 0


async def test_connect_backoff_is_capped(sock_dir, monkeypatch):
    monkeypatch.setattr(event_stream, "BACKOFF_START", 0.01)
    monkeypatch.setattr(event_stream, "BACKOFF_MAX", 0.04)
    statuses: list[str] = []
    task = asyncio.create_task(connect(f"unix:{sock_dir / 'nobody.sock'}", lambda frame: None, statuses.append))
    try:
        await until(lambda: len(statuses) >= 6)
    finally:
        await stop(task)
    assert [s.rsplit("retrying in ", 1)[1] for s in statuses[:6]] == ["0.01s", "0.02s", "0.04s", "0.04s", "0.04s",
                                                                      "0.04s"]
    assert statuses[0].startswith("cannot connect to unix:")
