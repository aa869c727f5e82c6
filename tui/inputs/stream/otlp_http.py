"""The OTLP/HTTP receiver (otlp+http://): HTTP/1.1 POST /v1/traces and /v1/logs, protobuf or JSON bodies, gzip
or not, keep-alive; tui.inputs.stream.otlp_listen is the front.

Connections are served on an asyncio loop like the WebSocket listener's (tcp_listeners: the descriptor reserve;
the shared memory budget holds each body while it is read and decoded), the loop of a thread of its own
(otlp_listen), never the UI's; bodies are decompressed and handed to on_batch in DECODERS threads. gzip is
inflated to at most max_body bytes and max_gzip_members members (a small bomb cannot grow past it: 413); a chunked
body has at most MAX_CHUNKS chunks; spans are counted and charged before decoding (otlp_items). Answers: 200 with
an empty response in the request's content type (zero bytes of protobuf, or `{}`); 204 a CORS preflight of a page
--allow-origin names (whose every answer carries Access-Control-Allow-Origin); 400 not OTLP or a length that is not
ASCII digits, 401 token, 403 a web page's Origin not allowed, 404 another path, 405 another method, 411 no length,
413 too big, 415 another content type or encoding, 503 over the memory budget. Error bodies are a google.rpc.Status,
as OTLP asks. (Our own parser, not h11: README, Access.)
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import orjson

from tui.inputs.files import LoadError, gunzip, max_gzip_members
from tui.inputs.stream.access import origin_allowed, presented_token, token_matches
from tui.inputs.stream.limits import AuthThrottle, Charge
from tui.inputs.stream.otlp_items import MAX_REQUEST_ITEMS, TooManyItems, request_cost
from tui.inputs.stream.listeners import BACKLOG, OnStatus, _Clients, _Limits, tcp_listeners

PATHS = {"/v1/traces": "traces", "/v1/logs": "logs"}
TYPES = {"application/x-protobuf": "proto", "application/json": "json"}
DECODERS = 2  # threads inflating and decoding bodies
HEAD_LIMIT = 64 * 1024  # request line and headers
IDLE_SECONDS = 120.0  # a kept-alive connection silent this long is closed
READ_SECONDS = 60.0  # a request's headers and body must arrive within this
LINGER_SECONDS = 2.0  # after refusing a request unread, its body is read and dropped for at most this long ...
LINGER_BYTES = 32 * 1024 * 1024  # ... or this many bytes
MAX_CHUNKS = 65_536  # chunks of one chunked body (an average of 256 bytes at 16 MiB): 1-byte chunks are refused
MAX_DIGITS = 18  # a Content-Length is at most this many ASCII digits (or 15 hex digits for a chunk size)
PREFLIGHT_HEADERS = "Content-Type, Content-Encoding, Authorization"  # what a page's exporter sends
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 411: "Length Required", 413: "Content Too Large",
           415: "Unsupported Media Type", 503: "Service Unavailable"}
GRPC_CODES = {400: 3, 401: 16, 403: 7, 404: 5, 405: 12, 411: 3, 413: 8, 415: 3, 503: 14}


class _TooBig(Exception):
    pass


class _OverBudget(Exception):
    pass


def content_length(text: str) -> int | None:
    """A Content-Length's value, None unless it is 1 to MAX_DIGITS ASCII digits (`str.isdigit` also takes "²",
    which int() refuses, and int() refuses 5,000 digits: both killed the connection unanswered)."""
    return int(text) if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit() else None


def chunk_size(line: bytes) -> int | None:
    """A chunk-size line's size (extensions after `;` ignored), None unless 1 to 15 hex digits (int(x, 16) also
    takes "-1", "+1", "0x1" and "1_0")."""
    text = line.split(b";", 1)[0].strip()
    if not 0 < len(text) < 16 or text.strip(b"0123456789abcdefABCDEF"):
        return None
    return int(text, 16)


def cors_headers(origin: str | None, allow_origins: tuple[str, ...]) -> str:
    """The Access-Control-Allow-Origin lines of an answer to a web page --allow-origin lets in ("" otherwise): a
    browser shows the page no answer without them."""
    if origin is None or not allow_origins or not origin_allowed(origin, allow_origins):
        return ""
    return f"Access-Control-Allow-Origin: {origin}\r\nVary: Origin\r\n"


def preflight_headers(request_headers: str) -> str:
    """The rest of a CORS preflight's answer: POST with the headers the page asked for (tokens and commas only),
    cached for 10 minutes."""
    asked = "".join(c for c in request_headers[:500] if c.isascii() and (c.isalnum() or c in "-_, "))
    return (f"Access-Control-Allow-Methods: POST, OPTIONS\r\nAccess-Control-Allow-Headers: "
            f"{asked.strip(', ') or PREFLIGHT_HEADERS}\r\nAccess-Control-Max-Age: 600\r\n")


def inflate(body: bytes | bytearray, limit: int) -> bytes | bytearray:
    """A gzip body (one member or several) inflated to at most `limit` bytes by the file reader's gunzip (linear in
    the members, at most max_gzip_members(limit) of them: 1,024 under 16 MiB): _TooBig past the limit or the
    members, ValueError when it is not gzip or is cut short. (Inflating member after member by hand copied the
    rest of the body at each one: 200,000 empty members in 4 MB took 14.7 s.)"""
    if not body:
        return b""
    try:
        return gunzip(body, "the request body", limit)
    except LoadError as exc:
        if exc.reason.startswith("decompresses past"):
            raise _TooBig(f"a gzip body inflating past {limit:,} bytes") from None
        if exc.reason.startswith("more than"):
            raise _TooBig(f"a gzip body of more than {max_gzip_members(limit):,} members") from None
        raise ValueError(exc.reason) from None


def _status_body(code: int, message: str, encoding: str) -> bytes:
    """A google.rpc.Status {code, message}, in protobuf or JSON."""
    grpc_code = GRPC_CODES.get(code, 2)
    if encoding == "json":
        return orjson.dumps({"code": grpc_code, "message": message})
    text = message.encode("utf-8", "replace")
    return bytes([0x08, grpc_code, 0x12]) + varint(len(text)) + text


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


class _Request:
    def __init__(self, method: str, target: str, version: str, headers: dict[str, str]) -> None:
        self.method, self.target, self.version, self.headers = method, target, version, headers

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        return "close" not in connection if self.version == "HTTP/1.1" else "keep-alive" in connection


def _parse_head(head: bytes) -> _Request | None:
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, version = lines[0].split(" ")
    except ValueError:
        return None
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            return None
        name = name.lower()
        value = value.strip()
        if name == "content-length" and headers.get(name, value) != value:
            return None  # two different lengths: request smuggling
        headers[name] = value if name not in headers or name == "content-length" else f"{headers[name]}, {value}"
    return _Request(method, target, version, headers)


async def serve_http(addresses: list[str], port: int, on_batch, on_status: OnStatus, limits: _Limits,
                     token: str | None, allow_origins: tuple[str, ...], max_body: int) -> None:
    """Serve until cancelled; then connections are closed and the decoding threads let go."""
    await _HttpServer(on_batch, on_status, limits, token, allow_origins, max_body).serve(addresses, port)


class _HttpServer:
    """One OTLP/HTTP receiver: its clients, its decoding threads, and how each request is answered."""

    def __init__(self, on_batch, on_status: OnStatus, limits: _Limits, token: str | None,
                 allow_origins: tuple[str, ...], max_body: int) -> None:
        self.on_batch, self.limits, self.token = on_batch, limits, token
        self.allow_origins, self.max_body = allow_origins, max_body
        self.clients = _Clients(on_status)
        self.throttle = AuthThrottle()
        self.decoders = ThreadPoolExecutor(DECODERS, thread_name_prefix="otlp-http")
        self.loop = asyncio.get_running_loop()
        self.writers: set[asyncio.StreamWriter] = set()

    def decode(self, signal: str, body: bytes | bytearray, encoding: str, gzipped: bool, charge: Charge) -> int:
        """(A decoding thread.) Inflate, count the spans on the wire and charge them (otlp_items) before anything
        is decoded: _TooBig, TooManyItems, _OverBudget or the decoder's ValueError refuse it."""
        data = inflate(body, self.max_body) if gzipped else body
        cost = request_cost(data, encoding) + (len(body) if gzipped else 0)
        if not charge.set(cost):
            raise _OverBudget(cost)
        return self.on_batch(signal, data, encoding)

    def refused(self, reason: str, who: str, detail: str) -> None:
        self.limits.refused(reason, f"{who}: {detail}")
        self.clients.report(f"refused {who} ({detail})")

    @staticmethod
    async def respond(writer: asyncio.StreamWriter, code: int, encoding: str, body: bytes | None = None, *,
                      close: bool = False, extra: str = "") -> None:
        if body is None:
            body = b"" if encoding == "proto" else b"{}"
        kind = "application/json" if encoding == "json" else "application/x-protobuf"
        writer.write((f"HTTP/1.1 {code} {REASONS.get(code, 'Error')}\r\nContent-Type: {kind}\r\n"
                      f"Content-Length: {len(body)}\r\n{extra}{'Connection: close' + chr(13) + chr(10) if close else ''}"
                      f"\r\n").encode("latin-1") + body)
        await writer.drain()

    async def fail(self, writer, code: int, encoding: str, message: str, *, close: bool = False,
                   extra: str = "") -> None:
        await self.respond(writer, code, encoding, _status_body(code, message, encoding), close=close, extra=extra)

    async def linger(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """After refusing a request whose body was not read: stop writing, and read (and drop) what the client
        is still sending for a moment, so that it gets to read the answer instead of a reset (HTTP clients send
        their whole body before they read)."""
        loop = self.loop
        with contextlib.suppress(Exception):
            if writer.can_write_eof():
                writer.write_eof()
            deadline = loop.time() + LINGER_SECONDS
            dropped = 0
            while dropped < LINGER_BYTES and loop.time() < deadline:
                chunk = await asyncio.wait_for(reader.read(256 * 1024), deadline - loop.time())
                if not chunk:
                    break
                dropped += len(chunk)

    async def read_body(self, reader: asyncio.StreamReader, request: _Request, charge: Charge) -> bytes | int:
        """The body, or the HTTP code that refuses it (the budget holds what is read)."""
        headers, max_body = request.headers, self.max_body
        chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if not chunked:
            text = headers.get("content-length")
            if text is None:
                return 411
            size = content_length(text)
            if size is None:
                return 400
            if size > max_body:
                return 413
            if not charge.set(size):
                return 503
            return await reader.readexactly(size)
        body = bytearray()  # (one buffer: a list of 1-byte chunks cost ~50 bytes of objects per body byte)
        for _ in range(MAX_CHUNKS + 1):
            length = chunk_size(await reader.readuntil(b"\r\n"))
            if length is None:
                return 400
            if length == 0:
                for _ in range(64):  # trailers (at most 64 lines: each is within HEAD_LIMIT)
                    if await reader.readuntil(b"\r\n") == b"\r\n":
                        return body
                return 400
            if len(body) + length > max_body:
                return 413
            if not charge.set(len(body) + length):
                return 503
            body += await reader.readexactly(length)
            if await reader.readexactly(2) != b"\r\n":
                return 400
        return 413  # more than MAX_CHUNKS chunks

    async def one_request(self, reader, writer, who: str, address: str, charge: Charge) -> bool | None:
        """Serve one request; False when the connection is to be closed, None when closed after a refusal of a
        request whose body was not read (linger)."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_SECONDS)
        except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError):
            return False
        except asyncio.LimitOverrunError:
            self.refused("oversized", who, f"request headers over {HEAD_LIMIT:,} bytes")
            await self.fail(writer, 413, "proto", "request headers too large", close=True)
            return None  # (the rest of the head is still coming: linger, or the client reads a reset)
        request = _parse_head(head)
        if request is None:
            self.refused("malformed otlp", who, "not an HTTP/1.1 request")
            await self.fail(writer, 400, "proto", "not an HTTP/1.1 request", close=True)
            return None
        accepted = await self.check(writer, request, who, address)
        if not isinstance(accepted, tuple):
            return accepted
        return await self.deliver(reader, writer, request, who, charge, *accepted)

    async def check(self, writer, request: _Request, who: str, address: str) -> tuple | bool | None:
        """Whatever can be refused before the body is read (endpoint, method, origin, token, types): the answer
        is sent and one_request's outcome returned, else (signal, encoding, content coding, CORS headers)."""
        headers, allow_origins = request.headers, self.allow_origins
        kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        encoding = TYPES.get(kind, "proto")
        path = urlsplit(request.target).path
        signal = PATHS.get(path)
        has_body = "content-length" in headers and headers["content-length"] != "0" or "transfer-encoding" in headers
        if signal is None:
            self.refused("malformed otlp", who, f"{request.method[:10]} {path[:100]}: no such OTLP endpoint")
            await self.fail(writer, 404, encoding, f"no OTLP endpoint at {path[:100]}; use /v1/traces or /v1/logs",
                            close=has_body)
            return None if has_body else request.keep_alive
        origin = headers.get("origin")
        cors = cors_headers(origin, allow_origins)  # (on every answer to an allowed page, refusals included)
        if request.method == "OPTIONS" and cors and "access-control-request-method" in headers:
            await self.respond(writer, 204, encoding, b"", close=has_body,
                               extra=cors + preflight_headers(headers.get("access-control-request-headers", "")))
            return None if has_body else request.keep_alive
        if request.method != "POST":
            self.refused("malformed otlp", who, f"{request.method[:10]} {path}: OTLP exports are POSTed")
            await self.fail(writer, 405, encoding, "OTLP exports are POSTed", close=has_body,
                            extra="Allow: POST, OPTIONS\r\n" if allow_origins else "Allow: POST\r\n")
            return None if has_body else request.keep_alive
        if not origin_allowed(origin, allow_origins):
            shown = repr(origin[:100]) if origin else ""
            self.refused("origin refused", who, f"a web page ({shown}) not allowed by --allow-origin")
            await self.fail(writer, 403, encoding, "web pages may not push telemetry unless the monitor runs with "
                                                   "--allow-origin ORIGIN", close=True)
            return None
        if self.token is not None:
            presented = presented_token(request.target, headers.get("authorization"))
            ok = token_matches(presented, self.token)
            if not ok:  # a failure waits its penalty, one at a time per address; the right token never waits
                async with self.throttle.turn(address):
                    self.throttle.failed(address)
                self.refused("auth refused", who, "wrong token" if presented is not None else "no token")
                await self.fail(writer, 401, encoding, "a token is required: send Authorization: Bearer TOKEN",
                                close=True, extra=cors + "WWW-Authenticate: Bearer\r\n")
                return None
        if kind not in TYPES:
            self.refused("malformed otlp", who, f"content type {kind[:60]!r}")
            await self.fail(writer, 415, "proto", "send application/x-protobuf or application/json", close=True,
                            extra=cors)
            return None
        coding = headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("identity", "gzip", ""):
            self.refused("malformed otlp", who, f"content encoding {coding[:60]!r}")
            await self.fail(writer, 415, encoding, "send gzip or identity content encoding", close=True, extra=cors)
            return None
        return signal, encoding, coding, cors

    async def deliver(self, reader, writer, request: _Request, who: str, charge: Charge, signal: str, encoding: str,
                      coding: str, cors: str) -> bool | None:
        """Read the body, decode it in a thread, answer: one_request's outcome."""
        limits, max_body = self.limits, self.max_body
        if request.headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            body = await asyncio.wait_for(self.read_body(reader, request, charge), READ_SECONDS)
        except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, asyncio.LimitOverrunError):
            charge.set(0)
            self.refused("truncated", who, "the request body was cut short")
            return False
        if isinstance(body, int):
            charge.set(0)
            await self.refuse_body(writer, body, request, who, encoding, cors)
            return None
        try:
            await self.loop.run_in_executor(self.decoders, self.decode, signal, body, encoding, coding == "gzip",
                                            charge)
        except (_TooBig, TooManyItems) as exc:
            self.refused("oversized", who, str(exc)[:200] or f"a gzip body inflating past {max_body:,} bytes")
            await self.fail(writer, 413, encoding, f"request bodies are limited to {max_body:,} bytes inflated and "
                                                   f"{MAX_REQUEST_ITEMS:,} spans or log records", close=True,
                            extra=cors)
            return False
        except _OverBudget as exc:
            limits.over_budget(who, exc.args[0])
            await self.fail(writer, 503, encoding, "the monitor is holding too much; retry later", close=True,
                            extra=cors + "Retry-After: 1\r\n")
            return False
        except Exception as exc:  # ValueError: not OTLP; anything else: a body the decoder could not take
            why = str(exc)[:200] if isinstance(exc, ValueError) else f"{type(exc).__name__}: {str(exc)[:200]}"
            self.refused("malformed otlp", who, why)
            await self.fail(writer, 400, encoding, f"not an OTLP {signal} export request: {why}", extra=cors)
            return request.keep_alive
        finally:
            charge.set(0)
        await self.respond(writer, 200, encoding, close=not request.keep_alive, extra=cors)
        return request.keep_alive

    async def refuse_body(self, writer, code: int, request: _Request, who: str, encoding: str, cors: str) -> None:
        """The answer to a body read_body refused with `code` (413, 503, 400 or 411)."""
        max_body = self.max_body
        if code == 413:
            self.refused("oversized", who, f"a request body over {max_body:,} bytes or {MAX_CHUNKS:,} chunks")
            await self.fail(writer, 413, encoding, f"request bodies are limited to {max_body:,} bytes "
                                                   f"(and {MAX_CHUNKS:,} chunks)", close=True, extra=cors)
        elif code == 503:
            self.limits.over_budget(who, content_length(request.headers.get("content-length", "")) or 0)
            await self.fail(writer, 503, encoding, "the monitor is holding too much; retry later", close=True,
                            extra=cors + "Retry-After: 1\r\n")
        else:
            self.refused("malformed otlp", who, "a bad Content-Length or chunk" if code == 400 else "no length")
            await self.fail(writer, code, encoding, "the request's length is missing or invalid", close=True,
                            extra=cors)

    async def handler(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) else "?"
        who = f"client {address}:{peer[1]}" if isinstance(peer, tuple) else "a client"
        charge = self.limits.budget.charge()  # what its request bodies hold: given back below, however it ends
        self.writers.add(writer)
        self.clients.now += 1
        try:
            while (going := await self.one_request(reader, writer, who, address, charge)):
                pass
            if going is None:
                await self.linger(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            return
        finally:
            self.clients.now -= 1
            self.writers.discard(writer)
            charge.release()
            self.limits.descriptors.leave()  # (admitted by _ReservedSocket.accept)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def serve(self, addresses: list[str], port: int) -> None:
        clients = self.clients
        sockets = tcp_listeners(addresses, port, self.limits, clients)
        servers = []
        try:
            for sock in sockets:
                servers.append(await asyncio.start_server(self.handler, sock=sock, limit=HEAD_LIMIT, backlog=BACKLOG))
            bound = sockets[0].getsockname()
            shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
            clients.where = f"otlp+http://{shown}:{bound[1]} (OTLP/HTTP)"
            clients.bound(clients.where)
            await asyncio.Future()  # until cancelled
        finally:
            for server in servers:
                server.close()
            for writer in list(self.writers):
                writer.transport.abort()
            for sock in sockets:
                sock.close()
            self.decoders.shutdown(wait=False, cancel_futures=True)
