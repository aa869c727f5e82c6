"""Who may push events: loopback unless --allow-remote, a private Unix socket that is not stolen from a live
monitor, and a token WebSocket producers must present. Real sockets on 127.0.0.1 and in temp dirs."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import subprocess
import sys

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.asyncio.server import serve
from websockets.exceptions import InvalidStatus

from tui.demo.files import write_snapshot
from tui.demo.tree import make_tree
from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs.stream.access import TOKEN_ENV, is_loopback, raise_fd_limit, token_from_env
from tui.inputs.stream.event_stream import check_listen, connect, listen

from helpers.livehelpers import ROOT, TIMEOUT, event, listening, monitor, stop
from helpers.waiting import until


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# loopback unless --allow-remote ------------------------------------------------------------------------------


def test_loopback_addresses():
    for host in ("127.0.0.1", "127.3.2.1", "localhost", "LOCALHOST", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "localhost.example.com"):
        assert not is_loopback(host), host


async def test_a_remote_address_needs_allow_remote():
    hub = LiveHub()
    with pytest.raises(ValueError, match="--allow-remote"):
        await asyncio.wait_for(listen("ws://0.0.0.0:0", hub.feed), TIMEOUT)
    with pytest.raises(ValueError, match="--allow-remote"):
        check_listen("ws://0.0.0.0:0")
    async with listening("ws://0.0.0.0:0", hub, allow_remote=True) as (url, _):
        port = url.rsplit(":", 1)[1]
        async with ws_connect(f"ws://127.0.0.1:{port}") as ws:
            await ws.send(event(1))
            await until(lambda: hub.events == 1)


def test_the_command_line_refuses_a_remote_listen_address():
    r = monitor("--listen", f"ws://0.0.0.0:{free_port()}")
    assert r.returncode == 2 and "--allow-remote" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_command_line_reports_a_port_in_use():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        r = monitor("--listen", f"ws://127.0.0.1:{busy.getsockname()[1]}")
    assert r.returncode == 2 and "cannot listen on" in r.stderr and "in use" in r.stderr


# the Unix socket ---------------------------------------------------------------------------------------------


async def test_unix_socket_is_private_whatever_the_umask(sock_dir):
    path = sock_dir / "private.sock"
    old = os.umask(0)  # a careless environment: files would be world-writable
    try:
        async with listening(f"unix:{path}", LiveHub()):
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        os.umask(old)


async def test_a_live_monitor_socket_is_not_taken_over(sock_dir):
    path = sock_dir / "busy.sock"
    first = LiveHub()
    async with listening(f"unix:{path}", first):
        with pytest.raises(OSError, match="another monitor"):
            await asyncio.wait_for(listen(f"unix:{path}", LiveHub().feed), TIMEOUT)
        with pytest.raises(OSError, match="another monitor"):
            check_listen(f"unix:{path}")
        r = await asyncio.to_thread(monitor, "--listen", f"unix:{path}")
        assert r.returncode == 2 and "another monitor" in r.stderr
        _, writer = await asyncio.open_unix_connection(str(path))  # the first monitor still has it
        writer.write(event(1).encode() + b"\n")
        await writer.drain()
        await until(lambda: first.events == 1)
        writer.close()


def test_the_command_line_refuses_a_missing_socket_directory(tmp_path):
    r = monitor("--listen", f"unix:{tmp_path / 'nowhere' / 'm.sock'}")
    assert r.returncode == 2 and "does not exist" in r.stderr


# the token ---------------------------------------------------------------------------------------------------


async def test_websocket_producers_must_present_the_token():
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0/events", hub, token="s3cret", on_rejected=hub.reject) as (url, statuses):
        for attempt, headers in ((url, None), (url, {"Authorization": "Bearer wrong"}),
                                 (url + "?token=wrong", None), (url, {"Authorization": "Basic s3cret"})):
            with pytest.raises(InvalidStatus) as info:
                await asyncio.wait_for(ws_connect(attempt, additional_headers=headers), TIMEOUT)
            assert info.value.response.status_code == 401
        async with ws_connect(url, additional_headers={"Authorization": "Bearer s3cret"}) as ws:
            await ws.send(event(1))
        async with ws_connect(url + "?token=s3cret") as ws:
            await ws.send(event(2))
        await until(lambda: hub.events == 2)
    assert hub.rejected == {"auth refused": 4} and hub.malformed == 0
    assert any("refused 127.0.0.1:" in s and "(no token)" in s for s in statuses)
    assert any("(wrong token)" in s for s in statuses)


async def test_unix_producers_need_no_token(sock_dir):
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 't.sock'}", hub, token="s3cret") as (url, _):
        _, writer = await asyncio.open_unix_connection(url.removeprefix("unix:"))
        writer.write(event(1).encode() + b"\n")
        await writer.drain()
        await until(lambda: hub.events == 1)
        writer.close()


def test_token_from_flag_or_environment(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert token_from_env(None) is None
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert token_from_env(None) == "from-env" and token_from_env("flag") == "flag"
    monkeypatch.setenv(TOKEN_ENV, "")
    assert token_from_env(None) is None


def test_the_command_line_refuses_an_empty_token():
    r = monitor("--listen", "ws://127.0.0.1:0", "--token", "")
    assert r.returncode == 2 and "--token is empty" in r.stderr


async def test_replay_sends_the_token(tmp_path):
    source = write_snapshot(tmp_path, make_tree(3, ops=8, depth=0))
    hub = LiveHub()

    async def replay(*extra: str, env: dict | None = None):
        environment = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
        environment.update(env or {})
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tui", "replay", str(source), "--to", url, "--speed", "0", *extra, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=environment)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        return proc.returncode, out.decode(), err.decode()

    async with listening("ws://127.0.0.1:0", hub, token="s3cret", on_rejected=hub.reject) as (url, _):
        code, _, err = await replay()
        assert code == 1 and "wants a token (HTTP 401)" in err
        code, out, _ = await replay("--token", "s3cret")
        assert code == 0 and out.startswith("sent ")
        sent = int(out.split()[1])
        await until(lambda: hub.events == sent)
        code, out, _ = await replay(env={TOKEN_ENV: "s3cret"})
        assert code == 0
        await until(lambda: hub.rejected["duplicate"] == sent)  # the same events again: applied once
    assert hub.rejected["auth refused"] == 1


async def test_connect_sends_the_token():
    async def guarded(connection, request):
        if request.headers.get("Authorization") != "Bearer s3cret":
            return connection.respond(401, "token please\n")
        return None

    async def push(ws):
        await ws.send(event(1))
        await ws.wait_closed()

    async with serve(push, "127.0.0.1", 0, process_request=guarded) as server:
        url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        without, statuses = LiveHub(), []
        with_token = LiveHub()
        tasks = [asyncio.create_task(connect(url, without.feed, statuses.append)),
                 asyncio.create_task(connect(url, with_token.feed, token="s3cret"))]
        try:
            await until(lambda: with_token.events == 1 and statuses)
        finally:
            for task in tasks:
                await stop(task)
    assert without.events == 0 and "HTTP 401" in statuses[0] and "--token" in statuses[0]


# many producers need many descriptors --------------------------------------------------------------------------


def test_the_open_files_limit_is_raised():
    code = ("import resource\n"
            "from tui.inputs.stream.access import raise_fd_limit\n"
            "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (min(64, hard), hard))\n"
            "before, after = raise_fd_limit(4096)\n"
            "want = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)\n"
            "assert before == min(64, hard) and after == want, (before, after)\n"
            "assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == want\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)
    assert raise_fd_limit(1)[0] == raise_fd_limit(1)[1]  # never lowers it
