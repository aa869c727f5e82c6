"""Deliberately bad servers for client tests: a real TCP listener on 127.0.0.1 whose every connection is handed to a
function in its own thread (`export --to` endpoints that redirect, drip one byte at a time or answer garbage; a
WebSocket peer that never reads or announces a huge frame). The http.server and websockets libraries would not let
a test misbehave like that."""

from __future__ import annotations

import base64
import hashlib
import socket
import struct
import threading
from collections.abc import Callable

WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class RawServer:
    """A listening socket; `handle(conn)` runs per accepted connection (its own daemon thread). `connections`
    counts them; `requests` keeps what read_request gave, for the test to look at."""

    def __init__(self, handle: Callable[[socket.socket], None]) -> None:
        self.handle = handle
        self.connections = 0
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._run, args=(conn,), daemon=True).start()

    def _run(self, conn: socket.socket) -> None:
        try:
            self.handle(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stopped.set()
        self.sock.close()


def read_request(conn: socket.socket, limit: int = 64 << 20) -> bytes:
    """One HTTP request (head and its Content-Length body) off `conn`."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < min(length, limit):
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def ws_accept(conn: socket.socket) -> bytes:
    """Read a WebSocket handshake off `conn` and answer it (101); the request's head."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return data
        data += chunk
    key = b""
    for line in data.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"sec-websocket-key":
            key = value.strip()
    accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest())
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    return data


def ws_server_header(size: int, opcode: int = 0x2) -> bytes:
    """The head of an unmasked server-to-client frame announcing `size` bytes (any size up to 2^63 - 1)."""
    return bytes([0x80 | opcode, 127]) + struct.pack("!Q", size)


def ws_client_frames(conn: socket.socket):
    """The payloads of the (masked) frames a WebSocket client sends on `conn`, until it closes."""
    data = b""

    def need(n: int) -> bool:
        nonlocal data
        while len(data) < n:
            chunk = conn.recv(65536)
            if not chunk:
                return False
            data += chunk
        return True

    while need(2):
        length, at = data[1] & 0x7F, 2
        if length == 126 and need(4):
            length, at = struct.unpack_from("!H", data, 2)[0], 4
        elif length == 127 and need(10):
            length, at = struct.unpack_from("!Q", data, 2)[0], 10
        if not need(at + 4 + length):
            return
        mask = data[at:at + 4]
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(data[at + 4:at + 4 + length]))
        opcode = data[0] & 0x0F
        data = data[at + 4 + length:]
        yield opcode, payload
