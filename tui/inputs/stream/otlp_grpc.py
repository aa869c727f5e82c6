"""The OTLP/gRPC receiver (otlp://): TraceService/Export and LogsService/Export on a grpcio server of its own
threads, imported only when such a URL is listened on (tui.inputs.stream.otlp_listen is the front).

The methods are served as raw bytes (no request deserializer): a body that is not protobuf reaches on_batch, whose
ValueError becomes INVALID_ARGUMENT, never a crash. The reply is an empty Export*ServiceResponse, which encodes as
zero bytes (no partial success reported). They are registered as stream-unary handlers, which receive the same
wire messages as unary ones, for two reasons: the token in the metadata is checked before the body is read, and a
message over OTLP_MAX_BODY (checked by grpc after gzip decompression: "Decompressed message larger than max") shows
up as a failed read that is counted, where a unary handler would never run.

Bounded: WORKERS threads handle calls, and a call holds one from its start until its request (one message and
the half-close) has arrived: a call whose request has not arrived REQUEST_SECONDS after it started is cancelled
(one watchdog thread for all), and one connection may have at most PEER_CALLS calls waiting for their request (more
are refused at once, RESOURCE_EXHAUSTED), so that calls held open without a half-close (4 of them took every
thread: every exporter then got DEADLINE_EXCEEDED) cannot take the handlers from the others. At most DECODERS
calls decode at once, each within the shared memory budget, charged per span before decoding (otlp_items); at most
MAX_CONCURRENT_RPCS calls are accepted at once (more get RESOURCE_EXHAUSTED from grpc); grpc's SO_REUSEPORT is
off, so that a second monitor on the same port fails to start instead of sharing the port.
Wrong tokens: a connection that presented one is refused unchecked (UNAVAILABLE, which exporters retry) while its
penalty runs (limits.AuthThrottle, keyed by the connection, not the address: every local client is 127.0.0.1 and
a guesser's penalty locked the real exporter out, 1 export in 60 got through), rather than made to wait: waiting
would hold a thread. A right token is always checked and let through.
"""

from __future__ import annotations

import heapq
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from tui.inputs.stream.access import token_matches
from tui.inputs.stream.limits import AuthThrottle, MemoryBudget
from tui.inputs.stream.otlp_items import TooManyItems, request_cost

os.environ.setdefault("GRPC_VERBOSITY", "NONE")  # grpc's C core writes its errors to stderr: the UI's terminal

import grpc  # noqa: E402

# grpc logs the exceptions of handlers (an abort is one) to "grpc._server": with no handler configured Python
# would print them over the UI.
for _name in ("grpc", "grpc._server"):
    logging.getLogger(_name).addHandler(logging.NullHandler())
    logging.getLogger(_name).propagate = False

SERVICES = {
    "opentelemetry.proto.collector.trace.v1.TraceService": "traces",
    "opentelemetry.proto.collector.logs.v1.LogsService": "logs",
}
WORKERS = 32  # call handlers: most of their time is waiting for the request's bytes ...
DECODERS = 4  # ... and at most this many of them decode at once (in on_batch)
REQUEST_SECONDS = 10.0  # a call's request must have arrived this long after the call started, or it is cancelled
PEER_CALLS = 4  # calls of one connection waiting for their request at once (an exporter makes one at a time)
MAX_CONCURRENT_RPCS = 128  # calls accepted at once, handled or waiting for a handler

Report = Callable[..., object] | None


def _bearer(metadata) -> str | None:
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, presented = value.strip().partition(" ")
            if scheme.lower() == "bearer" and presented.strip():
                return presented.strip()
            return None
    return None


def _ended(context: grpc.ServicerContext, wait: float = 0.5) -> bool:
    """Whether the call has ended (grpc cancelled it) or does so within `wait` seconds: a request grpc refused can
    end the request stream a moment before the call is marked cancelled."""
    ended = threading.Event()
    if not context.add_callback(ended.set):
        return True  # (already over)
    return ended.wait(wait)


class _Deadlines:
    """Calls whose request has not arrived by their deadline are cancelled: one thread for every call (a call
    cancelled by the server ends its request stream with an RpcError in the handler waiting on it)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], object]]] = []
        self._live: set[int] = set()
        self._seq = 0
        self._wake = threading.Condition()
        self._stopping = False
        self.expired = 0
        self._thread = threading.Thread(target=self._run, name="otlp-grpc-deadlines", daemon=True)
        self._thread.start()

    def add(self, seconds: float, cancel: Callable[[], object]) -> int:
        with self._wake:
            self._seq += 1
            heapq.heappush(self._due, (time.monotonic() + seconds, self._seq, cancel))
            self._live.add(self._seq)
            self._wake.notify()
            return self._seq

    def remove(self, seq: int) -> bool:
        """Forget a deadline; False when it had already expired (its call was cancelled)."""
        with self._wake:
            if seq in self._live:
                self._live.discard(seq)
                return True
            return False

    def stop(self) -> None:
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._stopping:
                    while self._due and self._due[0][1] not in self._live:
                        heapq.heappop(self._due)
                    now = time.monotonic()
                    if self._due and self._due[0][0] <= now:
                        break
                    self._wake.wait(self._due[0][0] - now if self._due else None)
                if self._stopping:
                    return
                _, seq, cancel = heapq.heappop(self._due)
                self._live.discard(seq)
                self.expired += 1
            try:
                cancel()
            except Exception:  # noqa: BLE001, S110 - a call that ended meanwhile
                pass


class GrpcReceiver:
    """One grpc server on every address of the URL; start() binds (OSError on failure), stop() ends it all.

    `status(text)` and `rejected(reason, detail)` may be called from grpc's threads (otlp_listen makes them safe)."""

    def __init__(self, addresses: list[str], port: int, on_batch: Callable[[str, bytes, str], int], *,
                 status: Report, rejected: Report, token: str | None, budget: MemoryBudget, max_body: int,
                 throttle: AuthThrottle | None = None) -> None:
        self.addresses, self.port = addresses, port
        self.on_batch = on_batch
        self._status, self._rejected = status, rejected
        self.token = token
        self.budget = budget
        self.max_body = max_body
        self.where = ""
        self.requests = 0  # export requests applied
        self.items = 0  # ... and the spans and log records on_batch said they held
        self._throttle = throttle or AuthThrottle()
        self._lock = threading.Lock()  # the throttle's and the counters' (handlers run in several threads)
        self._busy = 0
        self._idle = threading.Condition(self._lock)
        self._executor: ThreadPoolExecutor | None = None
        self._server: grpc.Server | None = None
        self._deadlines: _Deadlines | None = None
        self._waiting: dict[str, int] = {}  # connection (grpc's peer) -> its calls waiting for their request
        self._decoding = threading.BoundedSemaphore(DECODERS)
        self.request_seconds = REQUEST_SECONDS

    # life -------------------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="otlp-grpc")
        self._deadlines = _Deadlines()
        handlers = [grpc.method_handlers_generic_handler(service, {
            "Export": grpc.stream_unary_rpc_method_handler(self._handler(signal))}) for service, signal in
            SERVICES.items()]
        server = grpc.server(self._executor, handlers=handlers, maximum_concurrent_rpcs=MAX_CONCURRENT_RPCS,
                             options=[("grpc.max_receive_message_length", self.max_body),
                                      ("grpc.so_reuseport", 0)])
        bound = 0
        try:
            for address in self.addresses[:1] if self.port == 0 else self.addresses:
                shown = f"[{address}]" if ":" in address else address
                try:
                    bound = server.add_insecure_port(f"{shown}:{bound or self.port}")
                except RuntimeError as exc:  # grpc: "Failed to bind to address ..."
                    raise OSError(f"cannot listen on {shown}:{self.port}: {exc}") from None
                if not bound:
                    raise OSError(f"cannot listen on {shown}:{self.port}")
            server.start()
        except BaseException:
            server.stop(None)
            self._executor.shutdown(wait=False)
            self._deadlines.stop()
            raise
        self._server = server
        first = self.addresses[0]
        self.where = f"otlp://{f'[{first}]' if ':' in first else first}:{bound}"

    def stop(self, timeout: float = 5.0) -> None:
        """Refuse new calls, cancel those in flight, wait (up to `timeout`) for handlers still in on_batch, and
        let the threads go."""
        server, self._server = self._server, None
        if server is not None:
            server.stop(0).wait(timeout)
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, timeout)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        if self._deadlines is not None:
            self._deadlines.stop()

    # requests ---------------------------------------------------------------------------------------------------
    def _report(self, reason: str, detail: str) -> None:
        if self._rejected is not None:
            self._rejected(reason, detail)
        if self._status is not None:
            self._status(f"listening on {self.where} (OTLP/gRPC) · refused {detail}")

    def _handler(self, signal: str):
        def export(requests, context: grpc.ServicerContext) -> bytes:
            with self._lock:
                self._busy += 1
            try:
                return self._export(signal, requests, context)
            finally:
                with self._idle:
                    self._busy -= 1
                    self._idle.notify_all()
        return export

    def _export(self, signal: str, requests, context: grpc.ServicerContext) -> bytes:
        peer = context.peer()
        who = f"{peer} ({signal})"
        if self.token is not None:
            verdict = self._authorised(peer, context)
            if verdict == "penalised":
                self._report("auth refused", f"{who}: not checked, this connection sent a wrong token moments ago")
                context.abort(grpc.StatusCode.UNAVAILABLE, "a wrong token came on this connection: retry later")
            elif verdict:
                self._report("auth refused", f"{who}: {verdict}")
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "a token is required: send the metadata "
                                                               "authorization: Bearer TOKEN")
        body, extra, late = self._request(peer, who, requests, context)
        if late:
            self._report("truncated", f"{who}: no whole request {self.request_seconds:g} s after the call started")
            return b""  # (cancelled: grpc has answered CANCELLED)
        if body is None and _ended(context):
            # grpc refused the message (over max_receive_message_length, compressed or not), or the client went
            # away in the middle of it: grpc has answered RESOURCE_EXHAUSTED / CANCELLED itself.
            self._report("oversized", f"{who}: a request over {self.max_body:,} bytes (or cut short)")
            return b""
        if body is None or extra is not None:
            self._report("malformed otlp", f"{who}: an export call carries exactly one request")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "an export call carries exactly one request")
            return b""  # (abort raises)
        with self._decoding:
            taken = self._decode(signal, body, who, context)
        with self._lock:
            self.requests += 1
            self.items += taken if isinstance(taken, int) else 0
        return b""  # an empty Export*ServiceResponse

    def _request(self, peer: str, who: str, requests, context: grpc.ServicerContext) -> tuple:
        """(the request's message or None, a second message or None, whether the deadline cancelled the call):
        waited for at most request_seconds, at most PEER_CALLS of one connection at once."""
        with self._lock:
            waiting = self._waiting.get(peer, 0)
            if waiting < PEER_CALLS:
                self._waiting[peer] = waiting + 1
        if waiting >= PEER_CALLS:
            self._report("too many clients", f"{who}: more than {PEER_CALLS} calls of one connection waiting for "
                                             "their request")
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many calls waiting on this connection")
        assert self._deadlines is not None
        deadline = self._deadlines.add(self.request_seconds, context.cancel)
        try:
            body = next(requests, None)
            extra = next(requests, None) if body is not None else None
        except grpc.RpcError:
            body = extra = None
        finally:
            on_time = self._deadlines.remove(deadline)
            with self._lock:
                left = self._waiting.pop(peer) - 1
                if left:
                    self._waiting[peer] = left
        return body, extra, not on_time

    def _decode(self, signal: str, body: bytes, who: str, context: grpc.ServicerContext) -> object:
        """on_batch, once the spans are counted on the wire and charged to the budget (otlp_items)."""
        try:
            cost = request_cost(body, "proto")
        except TooManyItems as exc:
            self._report("oversized", f"{who}: {exc}")
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except ValueError as exc:
            self._report("malformed otlp", f"{who}: {exc}")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"not an OTLP {signal} export request: {exc}")
        with self.budget.charge(cost) as charge:  # held while decoded, given back however it ends
            if not charge.ok:
                self._report("over memory budget", f"{who}: {cost:,} bytes (its body and its spans) would take the "
                                                   f"requests held over {self.budget.limit:,}")
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the monitor is holding too much; retry later")
            try:
                return self.on_batch(signal, body, "proto")
            except Exception as exc:  # ValueError: not OTLP; anything else: a body the decoder could not take
                why = str(exc)[:200] if isinstance(exc, ValueError) else f"{type(exc).__name__}: {str(exc)[:200]}"
                self._report("malformed otlp", f"{who}: {why}")
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"not an OTLP {signal} export request: {why}")
                return 0  # (abort raises)

    def _authorised(self, peer: str, context: grpc.ServicerContext) -> str:
        """Empty when the call carries the token; else why not: "no token", "wrong token", or "penalised" while the
        penalty of the last wrong token on this connection (`peer`: grpc's "ipv4:127.0.0.1:PORT") runs. A
        penalised call is refused unchecked, as UNAVAILABLE, which exporters retry; it does not lengthen the
        penalty. So guesses on one connection are checked one per penalty (up to 2 s), a guesser must open a
        connection per guess to go faster, no handler thread waits, and the exporter's own connection is never
        penalised for another client's guesses."""
        assert self.token is not None
        with self._lock:
            if self._throttle.penalised(peer):
                return "penalised"
        presented = _bearer(context.invocation_metadata())
        ok = token_matches(presented, self.token)
        with self._lock:
            if ok:
                self._throttle.succeeded(peer)
            else:
                self._throttle.failed(peer)
        return "" if ok else "no token" if presented is None else "wrong token"
