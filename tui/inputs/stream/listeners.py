"""What both transports of the event stream share: the callbacks a listener reports through, its status line, the
limits it applies to clients (memory budget, descriptor reserve) and the TCP listening sockets that refuse a client
past the reserve. Below event_stream (URLs, Unix sockets, connect) and ws_listen (WebSocket), which both use it.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable

from tui.inputs.stream.limits import DescriptorReserve, MemoryBudget

OnFrame = Callable[[bytes | str], object]
OnStatus = Callable[[str], object] | None
OnOversized = Callable[[int], object] | None
OnRejected = Callable[[str, str], object] | None

BACKLOG = 1024  # pending connections: a burst of producers starting together must not be turned away

_QUIET = logging.getLogger("aiagent_monitor.websockets")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def _status(on_status: OnStatus, text: str) -> None:
    if on_status is not None:
        on_status(text)


class _Limits:
    """The budget and the descriptor reserve one listener applies, and how it reports a client it cut off."""

    def __init__(self, budget: MemoryBudget, descriptors: DescriptorReserve, on_rejected: OnRejected) -> None:
        self.budget = budget
        self.descriptors = descriptors
        self.on_rejected = on_rejected

    def refused(self, reason: str, detail: str) -> None:
        if self.on_rejected is not None:
            self.on_rejected(reason, detail)

    def over_budget(self, who: str, size: int) -> None:
        self.refused("over memory budget", f"{who} disconnected: {size:,} bytes of unfinished frames would take "
                                           f"all clients over {self.budget.limit:,}")


class _Clients:
    """The listener's status line: where, how many clients now, and the last thing that happened."""

    def __init__(self, on_status: OnStatus) -> None:
        self.on_status = on_status
        self.where = ""
        self.now = 0

    def bound(self, where: str) -> None:
        self.where = where
        _status(self.on_status, f"listening on {where}")

    def report(self, note: str) -> None:
        count = f"{self.now:,} client{'s' if self.now != 1 else ''} connected"
        _status(self.on_status, f"listening on {self.where} · {count} · {note}")


class _ReservedSocket(socket.socket):
    """A listening socket that refuses a client as it accepts it, when fewer than the reserve of descriptors would
    stay free: closed at once, before asyncio hands it to a protocol, so a burst of connections never piles up
    descriptors (asyncio accepts up to the backlog's worth in one go). Admitted clients are counted in
    `limits.descriptors`; whoever serves one calls its leave() when it goes."""

    limits: _Limits | None = None
    clients: _Clients | None = None

    def accept(self):
        while True:
            conn, addr = super().accept()  # BlockingIOError when nobody is waiting: asyncio stops there
            limits = self.limits
            if limits is None or limits.descriptors.admit():
                return conn, addr
            conn.close()
            who = f"{addr[0]}:{addr[1]}" if isinstance(addr, tuple) and len(addr) >= 2 else "a client"
            limits.refused("too many clients", f"{who}: fewer than {limits.descriptors.reserve} file descriptors "
                                               f"would stay free")
            if self.clients is not None:
                self.clients.report(f"refused {who} (too many clients)")


def _reserved(sock: _ReservedSocket, limits: _Limits, clients: _Clients) -> _ReservedSocket:
    sock.limits, sock.clients = limits, clients
    return sock


def tcp_listeners(addresses: list[str], port: int, limits: _Limits, clients: _Clients) -> list[_ReservedSocket]:
    """Listening sockets on every address (port 0: any free port, on the first address only: each address would
    get its own). OSError when one cannot be bound (the others are closed)."""
    made: list[_ReservedSocket] = []
    try:
        for address in addresses[:1] if port == 0 else addresses:
            family, kind, proto, _, where = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM,
                                                               flags=socket.AI_NUMERICHOST | socket.AI_PASSIVE)[0]
            sock = _reserved(_ReservedSocket(family, kind, proto), limits, clients)
            made.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(where)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except BaseException:
        for sock in made:
            sock.close()
        raise
    return made
