"""Deliberately bad stream clients for live tests: raw TCP/Unix sockets that stall, trickle or vanish mid-frame
(the websockets library would not let a test misbehave like that)."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from urllib.parse import urlsplit


def ws_frame(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    """One client-to-server WebSocket frame (masked, as RFC 6455 requires of clients)."""
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_header(size: int, opcode: int = 0x1, fin: bool = True) -> bytes:
    """The head of a client frame of `size` bytes with an all-zero mask key (valid: the payload goes as it is),
    for frames too big to mask byte by byte in Python."""
    head = bytes([(0x80 if fin else 0) | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    return head + b"\0\0\0\0"


async def raw_ws(url: str, *, handshake: bool = True, headers: str = ""):
    """(reader, writer) of a TCP connection to a ws:// URL, with the opening handshake done unless told not to."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    if handshake:
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.hostname}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      f"{headers}\r\n").encode())
        await writer.drain()
        response = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert response.startswith(b"HTTP/1.1 101"), response
    return reader, writer


async def raw_unix(path: str):
    return await asyncio.open_unix_connection(path)


async def trickle(writer: asyncio.StreamWriter, data: bytes, interval: float, progress: list[int]) -> None:
    """Write `data` one byte at a time, `interval` seconds apart; progress[0] counts the bytes written."""
    progress[:] = [0]
    for i in range(len(data)):
        writer.write(data[i:i + 1])
        progress[0] = i + 1
        await writer.drain()
        await asyncio.sleep(interval)
