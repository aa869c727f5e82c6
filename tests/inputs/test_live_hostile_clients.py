"""Hostile local clients and web pages against a listening monitor (issue 12, points 3, 6-8, 10, 15): web pages
refused by Origin, names that resolve to other machines, a shared memory budget for unfinished frames, a reserve
of file descriptors, slower answers to wrong tokens, every WebSocket rejection counted. Real sockets on 127.0.0.1
and in temp dirs only."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time

import orjson
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.access import listen_addresses, mask_token, origin_allowed
from tui.inputs.stream.event_stream import check_listen, connect, listen
from tui.inputs.stream.limits import DescriptorReserve, MemoryBudget

from helpers.livehelpers import ROOT, TIMEOUT, event, listening, monitor, stop
from helpers.rawclients import raw_unix, raw_ws, ws_frame, ws_header
from helpers.waiting import until

MiB = 1024 * 1024


# web pages: the Origin header -----------------------------------------------------------------------------------


async def test_a_web_page_is_refused_unless_its_origin_is_allowed():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, statuses):
        with pytest.raises(InvalidStatus) as info:
            await asyncio.wait_for(ws_connect(url, origin="http://evil.example"), TIMEOUT)
        assert info.value.response.status_code == 403
        assert b"--allow-origin" in info.value.response.body
        async with ws_connect(url) as ws:  # a producer (no Origin header) still gets in
            await ws.send(event(1))
        await until(lambda: hub.events == 1)
    assert hub.rejected["origin refused"] == 1
    assert any("refused 127.0.0.1:" in s and "evil.example" in s for s in statuses)


async def test_allowed_origins_are_exact_or_star():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject,
                         allow_origins=["http://localhost:8080"]) as (url, _):
        async with ws_connect(url, origin="http://localhost:8080") as ws:
            await ws.send(event(1))
        for other in ("http://localhost:8081", "http://localhost:8080.evil.example", "null"):
            with pytest.raises(InvalidStatus):
                await asyncio.wait_for(ws_connect(url, origin=other), TIMEOUT)
        await until(lambda: hub.events == 1)
    assert hub.rejected["origin refused"] == 3
    star = LiveHub()
    async with listening("ws://127.0.0.1:0", star, allow_origins=["*"]) as (url, _):
        async with ws_connect(url, origin="http://anything.example") as ws:
            await ws.send(event(1))
        await until(lambda: star.events == 1)
    assert origin_allowed(None, []) and not origin_allowed("http://a", []) and origin_allowed("http://a", ["*"])


def test_the_command_line_knows_allow_origin():
    r = monitor("--help")
    assert "--allow-origin ORIGIN" in r.stdout


# names resolved before binding ---------------------------------------------------------------------------------


async def test_localhost_is_resolved_and_bound():
    assert set(listen_addresses("ws://localhost:0", "localhost", 0, False)) <= {"127.0.0.1", "::1"}
    hub = LiveHub()
    async with listening("ws://localhost:0", hub) as (url, _):
        assert url.startswith(("ws://127.0.0.1:", "ws://[::1]:"))
        async with ws_connect(url) as ws:
            await ws.send(event(1))
        await until(lambda: hub.events == 1)


def test_wildcard_addresses_are_refused():
    for url in ("ws://0.0.0.0:0", "ws://[::]:0"):
        with pytest.raises(ValueError, match="--allow-remote"):
            check_listen(url)


def test_a_name_that_resolves_to_another_machine_is_refused():
    """The machine's own name, when it resolves to a LAN address (it often resolves to 127.0.1.1 instead)."""
    name = socket.gethostname()
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, 0, type=socket.SOCK_STREAM)}
    except OSError as exc:
        pytest.skip(f"{name} does not resolve here ({exc})")
    if all(a.startswith("127.") or a == "::1" for a in addresses):
        print(f"skipped: {name} resolves to loopback only ({sorted(addresses)})")
        pytest.skip(f"{name} resolves to loopback only ({sorted(addresses)})")
    with pytest.raises(ValueError, match="--allow-remote"):
        check_listen(f"ws://{name}:0")


async def test_a_localhost_name_that_resolves_to_a_lan_address_is_refused(monkeypatch):
    """`x.localhost` used to be trusted by its name. The resolver is the only thing replaced here (a test cannot
    edit /etc/hosts): it answers what a LAN's DNS could."""
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        if host == "x.localhost":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.1.10", args[0] if args else 0))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    with pytest.raises(ValueError, match=r"x\.localhost \(192\.168\.1\.10\)"):
        check_listen("ws://x.localhost:0")
    with pytest.raises(ValueError, match="--allow-remote"):
        await asyncio.wait_for(listen("ws://x.localhost:0", LiveHub().feed), TIMEOUT)


def test_a_name_that_does_not_resolve_is_refused():
    with pytest.raises(ValueError, match="cannot resolve"):
        check_listen("ws://no-such-host.invalid:0")


# the memory budget -----------------------------------------------------------------------------------------------


async def test_unfinished_websocket_frames_share_one_budget():
    hub = LiveHub()
    budget = MemoryBudget(8 * MiB)
    frame = orjson.dumps({"type": "status", "event": {"type": "agent_update", "message": "x" * (4 * MiB - 200)},
                          "meta": {"sessionId": "big", "sequence": 1}})
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject, max_frame=4 * MiB,
                         budget=budget) as (url, _):
        writers = []
        for _ in range(3):  # each holds 3 MiB of its frame: the third would take the total over 8 MiB
            reader, writer = await raw_ws(url)
            writer.write(ws_header(len(frame)) + frame[:3 * MiB])
            await writer.drain()
            writers.append((reader, writer))
            await asyncio.sleep(0.2)
        await until(lambda: hub.rejected["over memory budget"] == 1)
        assert await cut_off(writers[2][0])
        assert budget.total <= 8 * MiB
        writers[0][1].write(frame[3 * MiB:])  # the others keep going
        await writers[0][1].drain()
        await until(lambda: hub.events == 1)
        for _, writer in writers:
            writer.close()
        await until(lambda: budget.total == 0)
    assert hub.rejected["oversized"] == 0


async def cut_off(reader: asyncio.StreamReader) -> bool:
    """True once the monitor has closed (or reset) this connection."""
    try:
        return await asyncio.wait_for(reader.read(), TIMEOUT) == b""
    except ConnectionResetError:
        return True


async def test_fragments_being_assembled_count_against_the_budget():
    hub = LiveHub()
    budget = MemoryBudget(1 * MiB)
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject, budget=budget) as (url, _):
        _, writer = await raw_ws(url)
        piece = b"x" * 1000
        writer.write(ws_frame(b'{"type":"status","x":"', fin=False))
        writer.write(b"".join(ws_frame(piece, opcode=0x0, fin=False) for _ in range(2000)))  # 2 MB, never ended
        await writer.drain()
        await until(lambda: hub.rejected["over memory budget"] == 1)
        writer.close()
        await until(lambda: budget.total == 0)


async def test_unfinished_unix_lines_share_one_budget(sock_dir):
    hub = LiveHub()
    budget = MemoryBudget(8 * MiB)
    line = event(1).encode()
    async with listening(f"unix:{sock_dir / 'b.sock'}", hub, on_rejected=hub.reject, max_frame=4 * MiB,
                         budget=budget) as (url, _):
        clients = []
        for _ in range(3):
            reader, writer = await raw_unix(url.removeprefix("unix:"))
            writer.write(b"x" * (3 * MiB))  # a line that never ends
            with contextlib.suppress(ConnectionError):  # the third is cut off
                await writer.drain()
            clients.append((reader, writer))
            await asyncio.sleep(0.2)
        await until(lambda: hub.rejected["over memory budget"] == 1)
        assert budget.total <= 8 * MiB
        _, fresh = await raw_unix(url.removeprefix("unix:"))
        fresh.write(line + b"\n")
        await fresh.drain()
        await until(lambda: hub.events == 1)
        for _, writer in [*clients, (None, fresh)]:
            writer.close()
        await until(lambda: budget.total == 0)


async def test_permessage_deflate_is_not_offered():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub) as (url, _):
        async with ws_connect(url) as ws:  # the client offers permessage-deflate by default
            assert ws.protocol.extensions == []
            assert "Sec-WebSocket-Extensions" not in ws.response.headers


# every rejection counted ---------------------------------------------------------------------------------------


async def test_a_65_mib_frame_is_counted_as_oversized():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, _):
        reader, writer = await raw_ws(url)
        writer.write(ws_header(65 * MiB) + b"{" * MiB)  # then keeps the connection open
        await writer.drain()
        await until(lambda: hub.oversized == 1)
        writer.close()
    assert "68,157,440 bytes" in hub.last_rejected


async def test_invalid_utf8_is_counted_and_what_came_before_is_kept():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, statuses):
        reader, writer = await raw_ws(url)
        writer.write(ws_frame(event(1).encode()) + ws_frame(b'{"type":"status","x":"\xff\xfe"}'))
        await writer.drain()
        await until(lambda: hub.rejected["invalid UTF-8"] == 1)
        assert await asyncio.wait_for(reader.read(), TIMEOUT)  # a close frame (1007), then EOF
        writer.close()
    assert hub.events == 1
    assert any("invalid UTF-8 (1007)" in s for s in statuses)


async def test_a_message_in_5000_fragments_is_assembled():
    hub = LiveHub()
    message = orjson.dumps({"type": "status", "event": {"type": "agent_update", "message": "y" * 1_000_000},
                            "meta": {"sessionId": "frag", "sequence": 1}})
    step = len(message) // 5000 + 1
    parts = [message[i:i + step] for i in range(0, len(message), step)]
    assert len(parts) > 4096  # websockets' own assembly refuses more than 4,096 fragments
    data = b"".join(ws_frame(p, opcode=0x1 if i == 0 else 0x0, fin=i == len(parts) - 1)
                    for i, p in enumerate(parts))
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, _):
        _, writer = await raw_ws(url)
        writer.write(data + ws_frame(event(2).encode()))
        await writer.drain()
        await until(lambda: hub.events == 2)
        writer.close()
    assert hub.oversized == 0 and not hub.rejected


async def test_binary_messages_are_refused_and_counted():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, on_rejected=hub.reject) as (url, _):
        async with ws_connect(url) as ws:
            await ws.send(event(1).encode())  # bytes: a binary frame
            await ws.send(event(2))  # the connection stays usable
        await until(lambda: hub.events == 1 and hub.rejected["binary frame"] == 1)
    assert hub.sessions["s1"].seen.highest == 2


# descriptors kept in reserve -----------------------------------------------------------------------------------


LOW_LIMIT_MONITOR = r"""
import asyncio, os, resource, sys
from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.event_stream import listen

async def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    hub = LiveHub()
    ready = [asyncio.Event(), asyncio.Event()]
    def status(i):
        return lambda text: ready[i].set() if text.startswith("listening on ") else None
    tasks = [asyncio.create_task(listen(sys.argv[1], hub.feed, status(0), on_rejected=hub.reject)),
             asyncio.create_task(listen(sys.argv[2], hub.feed, status(1), on_rejected=hub.reject))]
    await ready[0].wait(); await ready[1].wait()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    opened = [os.open(os.devnull, os.O_RDONLY) for _ in range(40)]  # the app still opens files ...
    import tomllib  # ... and imports modules
    for fd in opened:
        os.close(fd)
    print("ok", hub.rejected["too many clients"], hub.events, flush=True)
    for task in tasks:
        task.cancel()

asyncio.run(main())
"""


def test_clients_past_the_descriptor_reserve_are_refused(sock_dir):
    port = free_port()
    sock = sock_dir / "fd.sock"
    proc = subprocess.Popen([sys.executable, "-c", LOW_LIMIT_MONITOR, f"unix:{sock}", f"ws://127.0.0.1:{port}"],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    held = []
    try:
        assert proc.stdout.readline().strip() == "ready"
        for n in range(300):  # 256 descriptors in all: a hostile client or two hundred would take every one
            s = socket.socket(socket.AF_UNIX) if n % 2 else socket.create_connection(("127.0.0.1", port))
            if n % 2:
                s.connect(str(sock))
            held.append(s)
        time.sleep(1.0)
        last = socket.socket(socket.AF_UNIX)  # a producer arriving now is refused, not the app's next open()
        last.connect(str(sock))
        held.append(last)
        try:
            last.sendall(event(1).encode() + b"\n")
        except (BrokenPipeError, ConnectionResetError):  # refused and closed before it wrote: what is checked
            pass
        time.sleep(0.5)
        out, err = proc.communicate("check\n", timeout=60)
    finally:
        for s in held:
            s.close()
        if proc.poll() is None:
            proc.kill()
    words = out.split()
    assert proc.returncode == 0 and words[0] == "ok", err[-2000:]
    assert int(words[1]) >= 300 - 256 + DescriptorReserve().reserve - 20  # refused past the reserve
    assert "Too many open files" not in err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# wrong tokens cost time; tokens are never shown -----------------------------------------------------------------


async def test_wrong_tokens_are_answered_later_and_later():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, token="s3cret", on_rejected=hub.reject) as (url, _):
        started = time.monotonic()
        for _ in range(6):  # answered after 0, 0.05, 0.1, 0.2, 0.4, 0.8 s
            with pytest.raises(InvalidStatus):
                await asyncio.wait_for(ws_connect(url + "?token=guess"), TIMEOUT)
        assert time.monotonic() - started >= 1.5
        parallel = time.monotonic()  # many connections at once do not help: answered one at a time
        results = await asyncio.gather(*(asyncio.wait_for(ws_connect(url + "?token=guess"), TIMEOUT)
                                         for _ in range(3)), return_exceptions=True)
        assert all(isinstance(r, InvalidStatus) for r in results)
        assert time.monotonic() - parallel >= 1.6 + 2.0 + 2.0 - 0.1
        async with ws_connect(url + "?token=s3cret") as ws:  # the right token still works
            await ws.send(event(1))
        await until(lambda: hub.events == 1)
    assert hub.rejected["auth refused"] == 9


def test_tokens_are_masked():
    assert mask_token("ws://h:1/p?token=s3cret") == "ws://h:1/p?token=***"
    assert mask_token("ws://h:1/p?a=1&token=s3cret&b=2") == "ws://h:1/p?a=1&token=***&b=2"
    assert mask_token("connected to ws://h:1/?TOKEN=x y") == "connected to ws://h:1/?TOKEN=*** y"
    assert mask_token("no secrets here") == "no secrets here"


async def test_a_token_in_a_connect_url_is_never_in_the_status():
    statuses: list[str] = []
    url = f"ws://127.0.0.1:{free_port()}/events?token=s3cret"  # nobody listens: "cannot connect to ..."
    task = asyncio.create_task(connect(url, LiveHub().feed, statuses.append))
    try:
        await until(lambda: statuses)
    finally:
        await stop(task)
    assert "token=***" in statuses[0] and "s3cret" not in " ".join(statuses)


async def test_the_header_never_shows_a_connect_token(tmp_path):
    from tui.ui.app import MonitorApp

    url = f"ws://127.0.0.1:{free_port()}/events?token=s3cret"
    app = MonitorApp(sessions_dir=tmp_path, connect_urls=[url], watch=False)
    async with app.run_test(size=(160, 40)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if app.stream_state() and "token=" in app.live_summary():  # (the summary is the next batch's)
                break
        summary = app.live_summary()
        assert "token=***" in summary and "s3cret" not in summary, summary


def test_allow_origin_reaches_the_app(tmp_path):
    from tui.cli.main import app_parser
    from tui.cli.run import build_app

    args = app_parser().parse_args(["--sessions-dir", str(tmp_path), "--listen", f"ws://127.0.0.1:{free_port()}",
                                    "--allow-origin", "http://localhost:8080", "--allow-origin", "*"])
    app = build_app(args, watch=False)
    assert app.allow_origins == ["http://localhost:8080", "*"]
