"""Sending export requests to an OTLP endpoint: `otlp://HOST:PORT` (gRPC, default port 4317) or
`otlp+http://HOST:PORT[/PATH]` (HTTP/protobuf POST to PATH, default /v1/traces on port 4318), the URL schemes the
monitor's own `--listen` uses; `otlps://` and `otlp+https://` are the same over TLS (hosted trace stores: Langfuse,
Phoenix Cloud, Grafana Cloud), verified against the system's certificate authorities.

gRPC is one unary call to `opentelemetry.proto.collector.trace.v1.TraceService/Export` with the request's bytes as
they are (no generated stubs: the method path and raw bytes are all the wire needs); HTTP is http.client, one
POST per body, never following a redirect (it would carry the credentials elsewhere). Both send
`authorization: Bearer TOKEN` when a token is given; the timeout bounds each request as a whole. Every failure (refused, unreachable, timed out,
an error status, a rejection in the answer's partial_success) is a SendError with one line that says what happened:
the command prints it and exits 1, never a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

GRPC_METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
MAX_MESSAGE = 16 * 1024 * 1024  # what our channel accepts back (answers are tiny; requests are split below 4 MiB)


class SendError(Exception):
    """The endpoint could not be reached or refused a request (one line, for stderr)."""


_SCHEMES = {"otlp": ("grpc", False), "otlps": ("grpc", True), "otlp+http": ("http", False),
            "otlp+https": ("http", True)}


@dataclass(frozen=True, slots=True)
class Endpoint:
    transport: str  # "grpc" | "http"
    host: str
    port: int
    path: str  # HTTP only: the traces path
    tls: bool = False

    @property
    def url(self) -> str:
        scheme = {("grpc", False): "otlp", ("grpc", True): "otlps", ("http", False): "otlp+http",
                  ("http", True): "otlp+https"}[(self.transport, self.tls)]
        return f"{scheme}://{self.target}" + (self.path if self.transport == "http" else "")

    @property
    def target(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_endpoint(text: str) -> Endpoint:
    """`otlp[s]://HOST[:PORT]` or `otlp+http[s]://HOST[:PORT][/PATH]`; ValueError saying what is wrong otherwise."""
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        raise ValueError(f"{text!r}: give otlp://HOST:4317 (gRPC) or otlp+http://HOST:4318 (HTTP); otlps:// or "
                         f"otlp+https:// over TLS")
    transport, tls = _SCHEMES[scheme]
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None
    if not parts.hostname:
        raise ValueError(f"{text!r}: no host")
    if transport == "grpc":
        if parts.path not in ("", "/"):
            raise ValueError(f"{text!r}: a gRPC endpoint has no path")
        return Endpoint("grpc", parts.hostname, port or (443 if tls else 4317), "", tls)
    path = parts.path if parts.path not in ("", "/") else "/v1/traces"
    return Endpoint("http", parts.hostname, port or (443 if tls else 4318), path, tls)


def parse_header(text: str) -> tuple[str, str]:
    """`NAME=VALUE` (or `NAME: VALUE`) for --header; ValueError when there is no name."""
    sep = min((i for i in (text.find("="), text.find(":")) if i > 0), default=-1)
    name, value = (text[:sep].strip(), text[sep + 1:].strip()) if sep > 0 else ("", "")
    if not name or not (name + value).isascii() or any(c in name for c in " \t") or not value.isprintable():
        raise ValueError(f"{text!r}: give NAME=VALUE (printable ASCII)")
    return name, value


def send(endpoint: Endpoint, bodies: list[bytes], *, token: str | None, timeout: float,
         headers: Sequence[tuple[str, str]] = ()) -> int:
    """Send every body (protobuf ExportTraceServiceRequest) with `authorization: Bearer TOKEN` when a token is
    given and the extra `headers` (gRPC metadata, names lower-cased); returns the spans the endpoint said it
    rejected."""
    pairs = [("authorization", f"Bearer {token}")] if token else []
    pairs += [(name.lower(), value) for name, value in headers]
    if endpoint.transport == "grpc":
        return _send_grpc(endpoint, bodies, pairs, timeout)
    return _send_http(endpoint, bodies, pairs, timeout)


def _rejected(answer: bytes) -> int:
    """partial_success.rejected_spans of an ExportTraceServiceResponse (0 for an empty or unreadable answer)."""
    if not answer:
        return 0
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

    response = ExportTraceServiceResponse()
    try:
        response.ParseFromString(answer)
    except DecodeError:
        return 0
    return response.partial_success.rejected_spans


def _send_grpc(endpoint: Endpoint, bodies: list[bytes], pairs: list[tuple[str, str]], timeout: float) -> int:
    import grpc

    metadata = tuple(pairs) or None
    options = [("grpc.max_send_message_length", MAX_MESSAGE), ("grpc.max_receive_message_length", MAX_MESSAGE),
               ("grpc.enable_retries", 0)]
    rejected = 0
    channel = (grpc.secure_channel(endpoint.target, grpc.ssl_channel_credentials(), options=options) if endpoint.tls
               else grpc.insecure_channel(endpoint.target, options=options))
    with channel:
        call = channel.unary_unary(GRPC_METHOD, request_serializer=None, response_deserializer=None)
        for body in bodies:
            try:
                answer = call(body, timeout=timeout, metadata=metadata)
            except grpc.RpcError as exc:
                code = exc.code() if hasattr(exc, "code") else None
                detail = exc.details() if hasattr(exc, "details") else str(exc)
                name = code.name if code is not None else "ERROR"
                if code == grpc.StatusCode.UNAVAILABLE:
                    raise SendError(f"cannot reach {endpoint.url}: {detail or 'unavailable'}") from None
                if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise SendError(f"{endpoint.url} did not answer within {timeout:g}s") from None
                raise SendError(f"{endpoint.url} refused the export: {name}: {detail}") from None
            rejected += _rejected(answer if isinstance(answer, bytes) else b"")
    return rejected


def _send_http(endpoint: Endpoint, bodies: list[bytes], pairs: list[tuple[str, str]], timeout: float) -> int:
    """POST each body. A redirect is never followed (it would carry the credentials to wherever it points, and
    urllib would turn a 302 into a GET and call that a success): it fails the export, saying where it pointed."""
    headers = {"Content-Type": "application/x-protobuf", "Accept": "application/x-protobuf"}
    for name, value in pairs:
        headers[name.title()] = value  # (servers read names case-blind)
    rejected = 0
    for body in bodies:
        status, reason, kind, location, data = _post(endpoint, body, headers, timeout)
        if 300 <= status < 400:
            where = f" to {location[:200]}" if location else ""
            raise SendError(f"{endpoint.url} answered HTTP {status} (a redirect{where}): not followed, nothing was "
                            "delivered (credentials are never sent on; give --to the address it names if you trust it)")
        if not 200 <= status < 300:
            raise SendError(f"{endpoint.url} refused the export: HTTP {status} {reason[:200]}")
        if "protobuf" in kind:
            rejected += _rejected(data)
    return rejected


def _post(endpoint: Endpoint, body: bytes, headers: dict[str, str], timeout: float
          ) -> tuple[int, str, str, str, bytes]:
    """(status, reason, Content-Type, Location, body of at most MAX_MESSAGE bytes) of one POST, within `timeout`
    seconds in all: a socket timeout bounds each read, not a server that sends one byte per second, so a timer
    shuts the socket down at the deadline. http.client caps a header line (64 KiB) and the headers (100)."""
    import http.client
    import socket
    import ssl
    import threading
    import time

    deadline = time.monotonic() + timeout
    conn = (http.client.HTTPSConnection(endpoint.host, endpoint.port, timeout=timeout,
                                        context=ssl.create_default_context()) if endpoint.tls
            else http.client.HTTPConnection(endpoint.host, endpoint.port, timeout=timeout))
    finished = threading.Event()
    timer = threading.Timer(timeout, _cut, (conn, finished))  # (from before connecting: a TLS handshake too)
    timer.daemon = True
    timer.start()
    try:
        conn.request("POST", endpoint.path, body=body, headers=headers)
        answer = conn.getresponse()
        data = answer.read(MAX_MESSAGE)
        return (answer.status, str(answer.reason), answer.getheader("Content-Type") or "",
                answer.getheader("Location") or "", data)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if time.monotonic() >= deadline or isinstance(exc, (socket.timeout, TimeoutError)):
            raise SendError(f"{endpoint.url} did not answer within {timeout:g}s") from None
        raise SendError(_http_failure(endpoint, exc)) from None
    finally:
        finished.set()
        timer.cancel()
        conn.close()


def _cut(conn, finished) -> None:
    """The deadline: wake the read blocked on the connection's socket (it then sees the end of the stream); while
    the connection has no socket yet, connecting is bounded by its own timeout, and the socket is cut once made."""
    import socket

    while not finished.is_set():
        sock = conn.sock
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # (the plain socket's: TLS would say goodbye first)
            except OSError:
                pass
            return
        finished.wait(0.05)


def _http_failure(endpoint: Endpoint, exc: BaseException) -> str:
    """One line for an HTTP exchange that failed (the command makes it inert: the server's bytes may be hostile)."""
    import http.client

    if isinstance(exc, http.client.RemoteDisconnected):
        return f"{endpoint.url} closed the connection without an answer"
    if isinstance(exc, http.client.BadStatusLine):
        return f"{endpoint.url} did not answer in HTTP (its first line: {str(exc)[:80]})"
    if isinstance(exc, http.client.HTTPException):
        return f"{endpoint.url} sent an answer that cannot be read ({type(exc).__name__}: {str(exc)[:120]})"
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)[:200]
    return f"cannot reach {endpoint.url}: {reason}"
