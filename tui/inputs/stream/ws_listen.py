"""The WebSocket side of the event stream (formats.md section 4): a listener that refuses web pages by Origin,
slows down token guessing, refuses clients past the descriptor reserve and cuts off clients past the memory budget
(limits), and the message pump shared with `connect`, which assembles fragments itself and counts every
message it does not apply (oversized, binary, invalid UTF-8, cut short). Split from event_stream, which holds the
URLs, the Unix-socket transport and what both share; imported when a ws:// stream starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from tui.inputs.stream.listeners import (
    _QUIET,
    BACKLOG,
    OnFrame,
    OnOversized,
    OnRejected,
    OnStatus,
    _Clients,
    _Limits,
    _status,
    tcp_listeners,
)
from tui.inputs.stream.access import origin_allowed, presented_token, token_matches
from tui.inputs.stream.limits import FRAGMENT_OVERHEAD, AuthThrottle, Charge


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


def _cut_mid_frame(exc: BaseException) -> bool:
    """The peer went away inside a frame (websockets: EOFError "stream ends after N bytes, expected M")."""
    cause = exc.__cause__
    return isinstance(cause, EOFError) and "stream ends after" in str(cause)


async def _pump_ws(ws, on_frame: OnFrame, on_status: OnStatus, on_oversized: OnOversized,
                   on_rejected: OnRejected, who: str) -> str:
    """Feed every text message of a websockets connection to on_frame; returns why it ended.

    Messages are assembled here from their fragments (websockets' own assembly refuses more than 4,096 fragments
    as "too big" whatever their size); the protocol's max_size bounds the assembled size. A listener's connection
    (_BoundedConnection) is told what the assembly holds, for the memory budget."""
    from websockets.exceptions import ConnectionClosed, ConnectionClosedOK

    assembling = getattr(ws, "assembling", None)
    try:
        while True:
            parts: list[str] = []
            held = 0
            binary = 0
            async for part in ws.recv_streaming():
                if binary or isinstance(part, bytes):
                    binary += len(part)  # drained, never held
                    continue
                parts.append(part)
                held += len(part) * (1 if part.isascii() else 4) + FRAGMENT_OVERHEAD
                if assembling is not None and len(parts) > 1 and not assembling(held):
                    return ws.refused
            if assembling is not None and held:
                assembling(0)
            if binary:
                if on_rejected is not None:
                    on_rejected("binary frame", f"{who}: a binary message of {binary:,} bytes (events are text)")
                continue
            on_frame(parts[0] if len(parts) == 1 else "".join(parts))
    except ConnectionClosedOK:
        return "closed"
    except ConnectionClosed as exc:
        if getattr(ws, "refused", ""):
            return ws.refused
        if _too_big(exc):
            size = _oversized_from(exc)
            if size is not None and on_oversized is not None:
                on_oversized(size)
            else:
                _status(on_status, f"{who}: refused an oversized frame (connection closed, 1009)")
            return "closed: oversized frame (1009)"
        if _close_code(exc) == 1007:
            if on_rejected is not None:
                on_rejected("invalid UTF-8", f"{who}: a text frame that is not UTF-8 (connection closed, 1007)")
            return "closed: invalid UTF-8 (1007)"
        if _cut_mid_frame(exc):
            if on_rejected is not None:
                on_rejected("truncated", f"{who} went away in the middle of a frame")
            return "dropped in the middle of a frame"
        return f"closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"


def _close_code(exc: BaseException) -> int | None:
    sent = getattr(exc, "sent", None)
    return getattr(sent, "code", None)


def _bounded_connection(limits: _Limits, clients: _Clients):
    """websockets' ServerConnection, cutting a client off when what it holds (bytes not yet parsed into frames,
    frames not yet read, a message being assembled) would take every client's total over the memory budget, and
    giving its descriptor back to the reserve when it goes (clients past the reserve never get here: see
    event_stream._ReservedSocket)."""
    from websockets.asyncio.server import ServerConnection

    class _BoundedConnection(ServerConnection):
        refused = ""  # why the monitor cut this client off
        _admitted = False
        _assembling = 0
        _charge: Charge | None = None  # what it holds of the budget: given back when the connection is lost

        def connection_made(self, transport) -> None:
            self._charge = limits.budget.charge()
            super().connection_made(transport)
            self._admitted = True  # by _ReservedSocket.accept, which refuses past the descriptor reserve

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            super().data_received(data)
            self._check()

        def send_data(self) -> None:
            super().send_data()
            # After failing the connection (1002, 1007, 1009...) websockets waits for the client to close it, for
            # ever if the client keeps it open: the rejection would never be counted. The client broke the
            # protocol; its connection is closed as soon as the close frame is written.
            sent = self.protocol.close_sent
            if sent is not None and sent.code not in (1000, 1001) and not self.transport.is_closing():
                self.transport.close()

        def assembling(self, size: int) -> bool:
            self._assembling = size
            return self._check()

        def _check(self) -> bool:
            if self.refused:
                return False
            held = len(self.protocol.reader.buffer) + self._assembling
            queue = getattr(getattr(self.recv_messages, "frames", None), "queue", ())
            held += sum(len(frame.data) for frame in queue)
            charge = self._charge
            if charge is None or charge.set(held):
                return True
            self.refused = "disconnected: over memory budget"
            charge.release()
            limits.over_budget(f"client {_peer(self)}", held)
            self.transport.abort()
            return False

        def connection_lost(self, exc) -> None:
            super().connection_lost(exc)
            if self._charge is not None:
                self._charge.release()
            if self._admitted:
                self._admitted = False
                limits.descriptors.leave()

    return _BoundedConnection


async def _listen_ws(addresses: list[str], port: int, path: str, on_frame: OnFrame, on_status: OnStatus,
                     on_oversized: OnOversized, on_rejected: OnRejected, max_frame: int, token: str | None,
                     allow_origins: tuple[str, ...], limits: _Limits) -> None:
    from websockets.asyncio.server import serve

    clients = _Clients(on_status)
    throttle = AuthThrottle()

    async def check_request(connection, request):
        asked = urlsplit(request.path).path
        if path not in ("", "/") and asked != path:
            return connection.respond(404, f"no event stream at {asked}; use {path}\n")
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, allow_origins):
            who = _peer(connection)
            shown = repr(origin[:100])
            limits.refused("origin refused", f"{who}: a web page ({shown}) not allowed by --allow-origin")
            clients.report(f"refused {who} (origin {shown})")
            return connection.respond(403, "web pages may not push events unless the monitor runs with "
                                           "--allow-origin ORIGIN\n")
        if token is not None:
            address = _peer_host(connection)
            async with throttle.turn(address):
                presented = presented_token(request.path, request.headers.get("Authorization"))
                if token_matches(presented, token):
                    throttle.succeeded(address)
                    return None
                throttle.failed(address)
            who = _peer(connection)
            why = "wrong token" if presented is not None else "no token"
            if on_rejected is not None:
                on_rejected("auth refused", f"{who}: {why}")
            clients.report(f"refused {who} ({why})")
            return connection.respond(401, "a token is required: send Authorization: Bearer TOKEN "
                                           "or ?token=TOKEN\n")
        return None

    async def handler(ws) -> None:
        who = f"client {_peer(ws)}"
        clients.now += 1
        clients.report(f"{who} connected")
        try:
            reason = await _pump_ws(ws, on_frame, on_status, on_oversized, on_rejected, who)
        finally:
            clients.now -= 1
        clients.report(f"{who} {reason}")

    sockets = tcp_listeners(addresses, port, limits, clients)
    async with contextlib.AsyncExitStack() as servers:
        for sock in sockets:
            await servers.enter_async_context(serve(
                handler, sock=sock, max_size=max_frame, process_request=check_request, max_queue=64,
                backlog=BACKLOG, logger=_QUIET, compression=None,
                create_connection=_bounded_connection(limits, clients)))
        bound = sockets[0].getsockname()
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        clients.bound(f"ws://{shown}:{bound[1]}{path if path != '/' else ''}")
        await asyncio.Future()  # until cancelled


def _peer_host(ws) -> str:
    addr = getattr(ws, "remote_address", None)
    return str(addr[0]) if isinstance(addr, tuple) and addr else "?"


def _peer(ws) -> str:
    addr = getattr(ws, "remote_address", None)
    if isinstance(addr, tuple) and len(addr) >= 2:
        return f"{addr[0]}:{addr[1]}"
    return str(addr or "?")
