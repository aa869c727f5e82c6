"""Transports of the live event stream (formats.md section 4): one JSON event per WebSocket text frame, or one
JSON object per line on a Unix socket.

`listen(url, ...)`: the monitor is the server and producers push to it. `connect(url, ...)`: the monitor is a
client of an existing stream and reconnects forever. Both are coroutines the app runs as asyncio tasks and stops by
cancelling; neither imports textual. Frames go to `on_frame(data)`, a cheap synchronous callback (the hub's
`feed`); frames over the limit go to `on_oversized(size)` (the hub's `refuse_oversized`), other frames or clients
refused go to `on_rejected(reason, detail)` (the hub's `reject`); `on_status(text)` gets one-line state changes for
the status bar.

Listeners bind the addresses the URL's host resolves to, all of them loopback unless `allow_remote`
(access.listen_addresses). A WebSocket handshake with an `Origin` header (a web page: browsers always send
one) gets HTTP 403 unless that origin was allowed (--allow-origin). With a `token`, WebSocket clients must present
it (`Authorization: Bearer` or `?token=`) or get HTTP 401, later and later after failures (limits.AuthThrottle).
A Unix socket is created mode 0600 (only its owner can connect); a stale socket file of a dead monitor is replaced,
a live one is left alone and reported.

What clients may hold is bounded (limits): every unfinished frame or line of every client together within
a memory budget, and no client taken once fewer than FD_RESERVE descriptors would stay free. A WebSocket message is
text, whole or in any number of fragments, up to `max_frame` bytes assembled; binary messages are refused and
counted, invalid UTF-8 closes the connection (1007, as RFC 6455 says) and is counted, and permessage-deflate is not
offered (a small compressed frame could expand to the whole limit). The WebSocket listener and the message pump
are in ws_listen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import orjson

from tui.inputs import json_load
from tui.inputs.stream.access import listen_addresses, mask_token
from tui.inputs.stream.limits import MAX_FRAME_BYTES, DescriptorReserve, MemoryBudget
from tui.model.gc_pause import paused_gc_then_frozen
from tui.inputs.stream.listeners import (
    BACKLOG,
    OnFrame,
    OnOversized,
    OnRejected,
    OnStatus,
    _QUIET,
    _Clients,
    _Limits,
    _reserved,
    _ReservedSocket,
    _status,
)

READ_CHUNK = 256 * 1024
BACKOFF_START = 0.25
BACKOFF_MAX = 10.0
STEADY_SECONDS = 2.0  # a connection that lasted this long resets the reconnect delay
URL_HELP = "expected ws://HOST:PORT[/path] or unix:PATH"
LISTEN_HELP = ("expected ws://HOST:PORT[/path], unix:PATH, otlp://HOST[:PORT] (OTLP/gRPC, default port 4317) or "
               "otlp+http://HOST[:PORT] (OTLP/HTTP, default port 4318)")
OTLP_SCHEMES = {"otlp": ("grpc", 4317), "otlp+grpc": ("grpc", 4317), "otlp+http": ("http", 4318)}
UTF8_BOM = b"\xef\xbb\xbf"
UNIX_READ_LIMIT = 1024 * 1024  # the stream reader pauses the socket past twice this: lines are assembled here
FLOOD_LINES = 100  # a read of this many lines is a flood: fed with the collector paused, then frozen (read_lines)

# Shared by every listener of the process: the budget and the reserve are the app's, not one listener's.
BUDGET = MemoryBudget()
DESCRIPTORS = DescriptorReserve()

# websockets logs failed handshakes (a port scanner, a plain HTTP request) with tracebacks: not for a terminal UI.
def parse_url(url: str, usage: str = URL_HELP) -> tuple:
    """("ws", host, port, path), ("unix", path) or ("otlp", host, port, "grpc"|"http") (an OpenTelemetry receiver:
    --listen only, tui.inputs.stream.otlp_listen); ValueError naming the problem and `usage` (what the option
    takes: --listen also takes the otlp schemes) otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"empty event stream URL: {usage}")
    url = url.strip()
    if url.startswith("unix:"):
        path = url[len("unix:"):]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise ValueError(f"{url!r} names no socket path: {usage}")
        return ("unix", path)
    parts = urlsplit(url)
    if parts.scheme.lower() in OTLP_SCHEMES:
        return _parse_otlp(url, parts)
    if parts.scheme == "wss":
        raise ValueError(f"{url!r}: wss:// (TLS) is not supported; put a TLS proxy in front, or use ws://")
    if parts.scheme != "ws":
        raise ValueError(f"{url!r} is not a supported event stream URL: {usage}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r} has an invalid port: {usage}") from None
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host: {usage}")
    if port is None:
        raise ValueError(f"{url!r} names no port: {usage}")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return ("ws", parts.hostname, port, path)


def _parse_otlp(url: str, parts) -> tuple:
    transport, default_port = OTLP_SCHEMES[parts.scheme.lower()]
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r} has an invalid port: {LISTEN_HELP}") from None
    if not parts.hostname:
        raise ValueError(f"{url!r} names no host: {LISTEN_HELP}")
    if parts.path not in ("", "/") or parts.query:
        raise ValueError(f"{url!r}: an OTLP receiver takes no path (it serves /v1/traces and /v1/logs, or the gRPC "
                         f"services): use {parts.scheme}://{parts.netloc}")
    return ("otlp", parts.hostname, default_port if port is None else port, transport)


def is_otlp(url: str) -> bool:
    """An OpenTelemetry receiver URL (otlp://, otlp+http://): served by otlp_listen, not by listen()."""
    return isinstance(url, str) and urlsplit(url.strip()).scheme.lower() in OTLP_SCHEMES


# line framing (unix sockets) --------------------------------------------------------------------------------


async def read_lines(reader: asyncio.StreamReader, on_frame: OnFrame, on_oversized: OnOversized,
                     max_frame: int, on_rejected: OnRejected = None,
                     hold: Callable[[int], bool] | None = None) -> str:
    """Feed every line of `reader` to on_frame until EOF; a line longer than max_frame is skipped and reported.

    CRLF endings are accepted. A last line without a newline is fed when it is a whole JSON value, and reported
    to on_rejected as "truncated" when the writer went away in the middle of it. `hold(n)` is told the bytes of
    the unfinished line held; when it answers False the line is dropped and reading stops ("over memory budget").
    Returns how the stream ended.

    The lines of a flood's read (FLOOD_LINES) are fed with the collector paused, and what they left alive is
    frozen after them (tui.model.gc_pause): what the hub keeps of an event (a log entry, an accounting entry, a
    status event) is acyclic, freed by reference counting when a newer tree replaces it, and the collector's passes
    re-scanned it again and again: a quarter of the live thread's time under the benchmark's mixed load of small
    events (tests/benchmarks/README.md, "Live"). Frozen garbage is looked for when idle (tui.ui.idle_collect)."""
    buf = bytearray()
    skipping = False
    skipped = 0
    ended = "closed"

    def refuse(size: int) -> None:
        if on_oversized is not None:
            on_oversized(size)

    def emit(line: bytes) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.strip():
            on_frame(line)

    while True:
        try:
            chunk = await reader.read(READ_CHUNK)
        except ConnectionError as exc:
            ended = f"dropped ({exc.strerror or type(exc).__name__})"
            break
        if not chunk:
            break
        lines = chunk.split(b"\n")  # (one split per read: the whole lines of a chunk cost no search each)
        rest = lines.pop()
        if lines:
            first = lines[0]
            if skipping:
                refuse(skipped + len(first))
                skipping = False
                lines[0] = b""
            elif buf:
                buf += first
                lines[0] = bytes(buf)
                buf.clear()
                if hold is not None:
                    hold(0)
            with paused_gc_then_frozen() if len(lines) >= FLOOD_LINES else contextlib.nullcontext():  # (docstring)
                for line in lines:
                    if len(line) > max_frame:
                        refuse(len(line))
                        continue
                    if line.endswith(b"\r"):
                        line = line[:-1]
                    if line and not line.isspace():
                        on_frame(line)
        if skipping:
            skipped += len(rest)
        elif rest:
            buf += rest
            if len(buf) > max_frame:
                skipping, skipped = True, len(buf)
                buf.clear()
            if hold is not None and not hold(len(buf)):
                return "over memory budget"
    if skipping:
        refuse(skipped)
    elif buf.strip():
        line = bytes(buf).rstrip(b"\r")
        if on_rejected is None or _is_json(line):
            emit(line)  # the writer closed after a whole line without a final newline
        else:
            on_rejected("truncated", f"{len(line):,} bytes of an unfinished line when the writer went away")
    return ended


def _is_json(line: bytes) -> bool:
    try:
        json_load.loads(line[3:] if line.startswith(UTF8_BOM) else line)
    except orjson.JSONDecodeError:
        return False
    return True


# listening --------------------------------------------------------------------------------------------------


async def listen(url: str, on_frame: OnFrame, on_status: OnStatus = None, *, on_oversized: OnOversized = None,
                 on_rejected: OnRejected = None, max_frame: int = MAX_FRAME_BYTES, token: str | None = None,
                 allow_remote: bool = False, allow_origins: list[str] | tuple[str, ...] = (),
                 budget: MemoryBudget | None = None, descriptors: DescriptorReserve | None = None) -> None:
    """Accept producers on `url` (any number at once) until cancelled; each event goes to on_frame.

    on_status gets "listening on URL" once bound (with the real port when the URL says port 0), then that line
    with the number of clients connected and the last thing that happened. A host that resolves to a non-loopback
    address without allow_remote raises ValueError; binding errors (address in use, a live socket, permission)
    raise OSError. `budget` and `descriptors` default to the process-wide BUDGET and DESCRIPTORS."""
    target = parse_url(url)
    if target[0] == "otlp":
        raise ValueError(f"{url!r}: an OTLP receiver takes batches, not frames: use otlp_listen.listen_otlp")
    limits = _Limits(budget or BUDGET, descriptors or DESCRIPTORS, on_rejected)
    if target[0] == "ws":
        from tui.inputs.stream.ws_listen import _listen_ws

        addresses = listen_addresses(url, target[1], target[2], allow_remote)
        await _listen_ws(addresses, target[2], urlsplit(target[3]).path or "/", on_frame, on_status,
                         on_oversized, on_rejected, max_frame, token, tuple(allow_origins), limits)
    else:
        await _listen_unix(target[1], on_frame, on_status, on_oversized, on_rejected, max_frame, limits)


def check_listen(url: str, *, allow_remote: bool = False) -> None:
    """What can be known before the UI starts: ValueError for a refused host, OSError for a port in use, a live
    or foreign file at a socket path, a missing directory. (listen() repeats these checks: a race stays safe.)"""
    target = parse_url(url)
    if target[0] in ("ws", "otlp"):
        listen_addresses(url, target[1], target[2], allow_remote)
        if target[2] == 0:
            return
        for family, kind, proto, _, addr in socket.getaddrinfo(target[1], target[2], type=socket.SOCK_STREAM,
                                                               flags=socket.AI_PASSIVE):
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    probe.bind(addr)
                except OSError as exc:
                    raise OSError(f"cannot listen on {url}: {exc.strerror or exc}") from None
        return
    path = target[1]
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise OSError(f"cannot listen on {url}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OSError(f"cannot listen on {url}: no permission to create a socket in {directory}")
    try:
        _socket_in_use(path)
    except OSError as exc:
        raise OSError(f"cannot listen on {url}: {exc}") from None


def _socket_in_use(path: str) -> bool:
    """False when nothing is at `path` or a dead monitor left its socket there; OSError when something lives there
    (another monitor listening) or the file is not a socket."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(mode):
        raise OSError(f"{path} exists and is not a socket: refusing to replace it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        return True  # nobody is listening: a leftover of a crashed monitor
    except OSError:
        pass  # a full backlog or no permission: something is there, leave it alone
    finally:
        probe.close()
    raise OSError(f"{path}: another monitor (or another program) is listening on this socket; stop it, or "
                  f"choose another path")


def _remove_stale_socket(path: str) -> None:
    if _socket_in_use(path):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


async def _listen_unix(path: str, on_frame: OnFrame, on_status: OnStatus, on_oversized: OnOversized,
                       on_rejected: OnRejected, max_frame: int, limits: _Limits) -> None:
    clients = _Clients(on_status)
    count = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal count
        count += 1
        who = f"client #{count}"  # (admitted by _ReservedSocket.accept: it leaves below)
        charge = limits.budget.charge()  # given back below, however the client ends

        def hold(size: int) -> bool:
            if charge.set(size):
                return True
            limits.over_budget(who, size)
            return False

        clients.now += 1
        clients.report(f"{who} connected")
        ended = "closed"
        try:
            ended = await read_lines(reader, on_frame, on_oversized, max_frame, on_rejected, hold)
        except OSError as exc:
            ended = f"dropped: {exc}"
        except asyncio.CancelledError:
            # The listener is stopping. Ending quietly: Python 3.11's stream callback logs a traceback for a
            # cancelled client task.
            return
        finally:
            clients.now -= 1
            charge.release()
            limits.descriptors.leave()
            if ended == "over memory budget":
                writer.transport.abort()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        clients.report(f"{who} {ended}")

    _remove_stale_socket(path)
    sock = _reserved(_ReservedSocket(socket.AF_UNIX, socket.SOCK_STREAM), limits, clients)
    old_umask = os.umask(0o177)  # no window in which another user could connect
    try:
        sock.bind(path)
        server = await asyncio.start_unix_server(handler, sock=sock, limit=UNIX_READ_LIMIT, backlog=BACKLOG)
    except BaseException:
        sock.close()
        raise
    finally:
        os.umask(old_umask)
    try:
        os.chmod(path, 0o600)
        clients.bound(f"unix:{path}")
        async with server:
            await server.serve_forever()
    finally:
        server.close()
        with contextlib.suppress(OSError):
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.unlink(path)


# connecting -------------------------------------------------------------------------------------------------


async def connect(url: str, on_frame: OnFrame, on_status: OnStatus = None, *, on_oversized: OnOversized = None,
                  on_rejected: OnRejected = None, max_frame: int = MAX_FRAME_BYTES,
                  token: str | None = None) -> None:
    """Subscribe to the stream at `url` and keep doing so until cancelled.

    After a failure or a disconnection it retries after 0.25 s, doubling up to 10 s; a connection that lasted
    STEADY_SECONDS resets the delay. on_status reports "connected to URL", "cannot connect to URL (why), retrying
    in Xs", "disconnected from URL (why), retrying in Xs" and "reconnected to URL after Xs". A `token` is sent to
    ws:// servers as `Authorization: Bearer TOKEN`. A `?token=` in the URL is shown as `token=***`.
    """
    target = parse_url(url)
    if target[0] == "otlp":
        raise ValueError(f"{url!r}: an OTLP URL can only be listened on (--listen), not connected to")
    shown = mask_token(url)
    delay = BACKOFF_START
    ever_connected = False
    down_since = time.monotonic()
    while True:
        connected_at: list[float] = []

        def on_connected() -> None:
            now = time.monotonic()
            connected_at.append(now)
            if ever_connected:
                _status(on_status, f"reconnected to {shown} after {now - down_since:.1f}s")
            else:
                _status(on_status, f"connected to {shown}")

        try:
            if target[0] == "ws":
                reason = await _connect_ws(url, on_frame, on_connected, on_status, on_oversized, on_rejected,
                                           max_frame, token)
            else:
                reason = await _connect_unix(target[1], on_frame, on_connected, on_oversized, on_rejected,
                                             max_frame)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # refused, reset, handshake rejected, DNS...: all mean "try again later"
            reason = mask_token(_reason(exc))
        if connected_at:
            ever_connected = True
            down_since = time.monotonic()
            if down_since - connected_at[0] >= STEADY_SECONDS:
                delay = BACKOFF_START
            _status(on_status, f"disconnected from {shown} ({reason}), retrying in {delay:g}s")
        elif ever_connected:
            _status(on_status, f"disconnected from {shown} ({reason}), retrying in {delay:g}s")
        else:
            _status(on_status, f"cannot connect to {shown} ({reason}), retrying in {delay:g}s")
        await asyncio.sleep(delay)
        delay = min(delay * 2, BACKOFF_MAX)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, FileNotFoundError):
        return "no such socket"
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status == 401:
        return "HTTP 401: the server wants a token (--token or $AIAGENT_MONITOR_TOKEN)"
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


async def _connect_ws(url: str, on_frame: OnFrame, on_connected: Callable[[], None], on_status: OnStatus,
                      on_oversized: OnOversized, on_rejected: OnRejected, max_frame: int, token: str | None) -> str:
    from websockets.asyncio.client import connect as ws_connect

    from tui.inputs.stream.ws_listen import _pump_ws

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with ws_connect(url, max_size=max_frame, open_timeout=10, max_queue=64, additional_headers=headers,
                          logger=_QUIET, compression=None) as ws:
        on_connected()
        return await _pump_ws(ws, on_frame, on_status, on_oversized, on_rejected, mask_token(url))


async def _connect_unix(path: str, on_frame: OnFrame, on_connected: Callable[[], None], on_oversized: OnOversized,
                        on_rejected: OnRejected, max_frame: int) -> str:
    reader, writer = await asyncio.open_unix_connection(path, limit=UNIX_READ_LIMIT)
    on_connected()
    try:
        ended = await read_lines(reader, on_frame, on_oversized, max_frame, on_rejected)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return "closed by the other end" if ended == "closed" else ended
