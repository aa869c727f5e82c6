"""The OTLP/gRPC receiver (otlp://): TraceService/Export and LogsService/Export on a grpcio server of its own
threads, imported only when such a URL is listened on (tui.inputs.stream.otlp_listen is the front).

The methods are served as raw bytes (no request deserializer): a body that is not protobuf reaches on_batch, whose
ValueError becomes INVALID_ARGUMENT, never a crash. The reply is an empty Export*ServiceResponse, which encodes as
zero bytes (no partial success reported). They are registered as stream-unary handlers, which receive the same
wire messages as unary ones, for two reasons: the token in the metadata is checked before the body is read, and a
message over OTLP_MAX_BODY (checked by grpc after gzip decompression: "Decompressed message larger than max") shows
up as a failed read that is counted, where a unary handler would never run.

Bounded: WORKERS threads handle requests (each holds at most one body, within the shared memory budget, while
on_batch runs), at most MAX_CONCURRENT_RPCS calls are accepted at once (more get RESOURCE_EXHAUSTED from grpc), and
grpc's SO_REUSEPORT is off, so that a second monitor on the same port fails to start instead of sharing the port.
Wrong tokens: an address that failed is refused unchecked (UNAVAILABLE, which exporters retry) while its penalty
runs (limits.AuthThrottle), rather than made to wait: waiting would hold one of the few threads.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from tui.inputs.stream.access import token_matches
from tui.inputs.stream.limits import AuthThrottle, MemoryBudget

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
WORKERS = 4  # request handlers (decoding happens in on_batch, in these threads)
MAX_CONCURRENT_RPCS = 64  # calls accepted at once, handled or waiting for a handler

Report = Callable[..., object] | None


def _address(peer: str) -> str:
    """grpc's peer ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000") -> the host part, for the auth throttle."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:rest.find("]")]
    return rest.rpartition(":")[0] or rest


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

    # life -------------------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="otlp-grpc")
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
            verdict = self._authorised(_address(peer), context)
            if verdict == "penalised":
                self._report("auth refused", f"{who}: not checked, wrong tokens came from this address moments ago")
                context.abort(grpc.StatusCode.UNAVAILABLE, "wrong tokens came from this address: retry later")
            elif verdict:
                self._report("auth refused", f"{who}: {verdict}")
                context.abort(grpc.StatusCode.UNAUTHENTICATED, "a token is required: send the metadata "
                                                               "authorization: Bearer TOKEN")
        try:
            body = next(requests, None)
            extra = next(requests, None) if body is not None else None
        except grpc.RpcError:
            body = extra = None
        if body is None and _ended(context):
            # grpc refused the message (over max_receive_message_length, compressed or not), or the client went
            # away in the middle of it: grpc has answered RESOURCE_EXHAUSTED / CANCELLED itself.
            self._report("oversized", f"{who}: a request over {self.max_body:,} bytes (or cut short)")
            return b""
        if body is None or extra is not None:
            self._report("malformed otlp", f"{who}: an export call carries exactly one request")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "an export call carries exactly one request")
            return b""  # (abort raises)
        key = object()
        if not self.budget.hold(key, len(body)):
            self._report("over memory budget", f"{who}: {len(body):,} bytes would take the requests held over "
                                               f"{self.budget.limit:,}")
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the monitor is holding too much; retry later")
        try:
            taken = self.on_batch(signal, body, "proto")
        except Exception as exc:  # ValueError: not OTLP; anything else: a body the decoder could not take
            why = str(exc)[:200] if isinstance(exc, ValueError) else f"{type(exc).__name__}: {str(exc)[:200]}"
            self._report("malformed otlp", f"{who}: {why}")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"not an OTLP {signal} export request: {why}")
        finally:
            self.budget.release(key)
        with self._lock:
            self.requests += 1
            self.items += taken if isinstance(taken, int) else 0
        return b""  # an empty Export*ServiceResponse

    def _authorised(self, address: str, context: grpc.ServicerContext) -> str:
        """Empty when the call carries the token; else why not: "no token", "wrong token", or "penalised" while the
        penalty of the last wrong token from this address runs. A penalised call is refused unchecked, as
        UNAVAILABLE, which exporters retry (a producer with the right token on the same host gets through once
        the penalty is over); it does not lengthen the penalty. So guesses are checked one per penalty (up to 2 s),
        and no handler thread waits."""
        assert self.token is not None
        with self._lock:
            if self._throttle.penalised(address):
                return "penalised"
        presented = _bearer(context.invocation_metadata())
        ok = token_matches(presented, self.token)
        with self._lock:
            if ok:
                self._throttle.succeeded(address)
            else:
                self._throttle.failed(address)
        return "" if ok else "no token" if presented is None else "wrong token"
