"""Transports of the live event stream (formats.md section 4): one JSON event per WebSocket text frame, or one
JSON object per line on a Unix socket.

`listen(url, ...)`: the monitor is the server and producers push to it. `connect(url, ...)`: the monitor is a
client of an existing stream and reconnects forever. Both are coroutines the app runs as asyncio tasks and stops by
cancelling; neither imports textual. Frames go to `on_frame(data)`, a cheap synchronous callback (the hub's
`feed`); frames over the limit go to `on_oversized(size)` (the hub's `refuse_oversized`); `on_status(text)` gets
one-line state changes for the status bar.

Listeners bind exactly what the URL names: `ws://127.0.0.1:8765` (the README's example) accepts local clients
only, `ws://0.0.0.0:8765` every interface. A Unix socket is created mode 0600 (only its owner can connect).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
from collections.abc import Callable
from urllib.parse import urlsplit

from tui.model.live import MAX_FRAME_BYTES

OnFrame = Callable[[bytes | str], object]
OnStatus = Callable[[str], object] | None
OnOversized = Callable[[int], object] | None

READ_CHUNK = 256 * 1024
BACKOFF_START = 0.25
BACKOFF_MAX = 10.0
URL_HELP = "expected ws://HOST:PORT[/path] or unix:PATH"


def parse_url(url: str) -> tuple:
    """("ws", host, port, path) or ("unix", path); ValueError naming the problem otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"empty event stream URL: {URL_HELP}")
    url = url.strip()
    if url.startswith("unix:"):
        path = url[len("unix:"):]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise ValueError(f"{url!r} names no socket path: {URL_HELP}")
        return ("unix", path)
    parts = urlsplit(url)
    if parts.scheme == "wss":
        raise ValueError(f"{url!r}: wss:// (TLS) is not supported; put a TLS proxy in front, or use ws://")
    if parts.scheme != "ws":
        raise ValueError(f"{url!r} is not a supported event stream URL: {URL_HELP}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r} has an invalid port: {URL_HELP}") from None
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host: {URL_HELP}")
    if port is None:
        raise ValueError(f"{url!r} names no port: {URL_HELP}")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return ("ws", parts.hostname, port, path)


def _status(on_status: OnStatus, text: str) -> None:
    if on_status is not None:
        on_status(text)


# line framing (unix sockets) --------------------------------------------------------------------------------


async def read_lines(reader: asyncio.StreamReader, on_frame: OnFrame, on_oversized: OnOversized,
                     max_frame: int) -> None:
    """Feed every line of `reader` to on_frame until EOF; a line longer than max_frame is skipped and reported."""
    buf = bytearray()
    skipping = False
    skipped = 0

    def refuse(size: int) -> None:
        if on_oversized is not None:
            on_oversized(size)

    def emit(line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip():
            on_frame(line)

    while True:
        chunk = await reader.read(READ_CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl == -1:
                rest = len(chunk) - start
                if skipping:
                    skipped += rest
                elif rest:
                    buf += chunk[start:]
                    if len(buf) > max_frame:
                        skipping, skipped = True, len(buf)
                        buf.clear()
                break
            if skipping:
                refuse(skipped + nl - start)
                skipping = False
            elif buf:
                buf += chunk[start:nl]
                line = bytes(buf)
                buf.clear()
                if len(line) > max_frame:
                    refuse(len(line))
                else:
                    emit(line)
            elif nl - start > max_frame:
                refuse(nl - start)
            else:
                emit(chunk[start:nl])
            start = nl + 1
    if skipping:
        refuse(skipped)
    elif buf:
        emit(bytes(buf))  # the writer closed without a final newline


# listening --------------------------------------------------------------------------------------------------


async def listen(url: str, on_frame: OnFrame, on_status: OnStatus = None, *, on_oversized: OnOversized = None,
                 max_frame: int = MAX_FRAME_BYTES) -> None:
    """Accept producers on `url` (any number at once) until cancelled; each event goes to on_frame.

    on_status gets "listening on URL" once bound (with the real port when the URL says port 0), then a line per
    client that connects or leaves. Binding errors (address in use, permission) propagate as OSError.
    """
    target = parse_url(url)
    if target[0] == "ws":
        await _listen_ws(target[1], target[2], target[3], on_frame, on_status, on_oversized, max_frame)
    else:
        await _listen_unix(target[1], on_frame, on_status, on_oversized, max_frame)


def _oversized_from(exc: BaseException) -> int | None:
    """The size of the frame that made websockets close a connection with 1009, when it says so."""
    cause = exc.__cause__
    size = getattr(cause, "size", None)
    if isinstance(size, int):
        return size + (getattr(cause, "current_size", None) or 0)
    return None


def _too_big(exc: BaseException) -> bool:
    for frame in (getattr(exc, "sent", None), getattr(exc, "rcvd", None)):
        if frame is not None and getattr(frame, "code", None) == 1009:
            return True
    return False


async def _pump_ws(ws, on_frame: OnFrame, on_status: OnStatus, on_oversized: OnOversized, who: str) -> str:
    """Feed every message of a websockets connection to on_frame; returns why it ended."""
    from websockets.exceptions import ConnectionClosed

    try:
        async for message in ws:
            on_frame(message)
    except ConnectionClosed as exc:
        if _too_big(exc):
            size = _oversized_from(exc)
            if size is not None and on_oversized is not None:
                on_oversized(size)
            else:
                _status(on_status, f"{who}: refused an oversized frame (connection closed, 1009)")
            return "closed: oversized frame (1009)"
        return f"closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
    return "closed"


async def _listen_ws(host: str, port: int, path: str, on_frame: OnFrame, on_status: OnStatus,
                     on_oversized: OnOversized, max_frame: int) -> None:
    from websockets.asyncio.server import serve

    def check_path(connection, request):
        if path not in ("", "/") and request.path != path:
            return connection.respond(404, f"no event stream at {request.path}; use {path}\n")
        return None

    async def handler(ws) -> None:
        who = f"client {_peer(ws)}"
        _status(on_status, f"{who} connected")
        reason = await _pump_ws(ws, on_frame, on_status, on_oversized, who)
        _status(on_status, f"{who} {reason}")

    async with serve(handler, host, port, max_size=max_frame, process_request=check_path,
                     max_queue=64) as server:
        bound = next((s.getsockname() for s in server.sockets), (host, port))
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        _status(on_status, f"listening on ws://{shown}:{bound[1]}{path if path != '/' else ''}")
        await asyncio.Future()  # until cancelled


def _peer(ws) -> str:
    addr = getattr(ws, "remote_address", None)
    if isinstance(addr, tuple) and len(addr) >= 2:
        return f"{addr[0]}:{addr[1]}"
    return str(addr or "?")


def _remove_stale_socket(path: str) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise OSError(f"{path} exists and is not a socket: refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # nobody is listening: a leftover of a crashed monitor
        return
    finally:
        probe.close()
    raise OSError(f"{path}: another process is already listening on this socket")


async def _listen_unix(path: str, on_frame: OnFrame, on_status: OnStatus, on_oversized: OnOversized,
                       max_frame: int) -> None:
    count = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal count
        count += 1
        who = f"client #{count}"
        _status(on_status, f"{who} connected")
        try:
            await read_lines(reader, on_frame, on_oversized, max_frame)
            _status(on_status, f"{who} closed")
        except (ConnectionError, OSError) as exc:
            _status(on_status, f"{who} dropped: {exc}")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    _remove_stale_socket(path)
    old_umask = os.umask(0o177)  # no window in which another user could connect
    try:
        server = await asyncio.start_unix_server(handler, path, limit=max_frame)
    finally:
        os.umask(old_umask)
    try:
        os.chmod(path, 0o600)
        _status(on_status, f"listening on unix:{path}")
        async with server:
            await server.serve_forever()
    finally:
        server.close()
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.unlink(path)


# connecting -------------------------------------------------------------------------------------------------


async def connect(url: str, on_frame: OnFrame, on_status: OnStatus = None, *, on_oversized: OnOversized = None,
                  max_frame: int = MAX_FRAME_BYTES) -> None:
    """Subscribe to the stream at `url` and keep doing so until cancelled.

    After a failure or a disconnection it retries after 0.25 s, doubling up to 10 s; a successful connection
    resets the delay. on_status reports "connected to URL" and "disconnected from URL (why), retrying in Xs".
    """
    target = parse_url(url)
    delay = BACKOFF_START
    while True:
        connected = []

        def on_connected() -> None:
            connected.append(True)
            _status(on_status, f"connected to {url}")

        try:
            if target[0] == "ws":
                reason = await _connect_ws(url, on_frame, on_connected, on_status, on_oversized, max_frame)
            else:
                reason = await _connect_unix(target[1], on_frame, on_connected, on_oversized, max_frame)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # refused, reset, handshake rejected, DNS...: all mean "try again later"
            reason = _reason(exc)
        if connected:
            delay = BACKOFF_START
        _status(on_status, f"disconnected from {url} ({reason}), retrying in {delay:g}s")
        await asyncio.sleep(delay)
        delay = min(delay * 2, BACKOFF_MAX)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, FileNotFoundError):
        return "no such socket"
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


async def _connect_ws(url: str, on_frame: OnFrame, on_connected: Callable[[], None], on_status: OnStatus,
                      on_oversized: OnOversized, max_frame: int) -> str:
    from websockets.asyncio.client import connect as ws_connect

    async with ws_connect(url, max_size=max_frame, open_timeout=10, max_queue=64) as ws:
        on_connected()
        return await _pump_ws(ws, on_frame, on_status, on_oversized, url)


async def _connect_unix(path: str, on_frame: OnFrame, on_connected: Callable[[], None], on_oversized: OnOversized,
                        max_frame: int) -> str:
    reader, writer = await asyncio.open_unix_connection(path, limit=max_frame)
    on_connected()
    try:
        await read_lines(reader, on_frame, on_oversized, max_frame)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return "closed by the other end"
