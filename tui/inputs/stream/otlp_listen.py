"""OpenTelemetry receivers: `--listen otlp://HOST[:4317]` (OTLP/gRPC) and `--listen otlp+http://HOST[:4318]`
(OTLP/HTTP, protobuf or JSON bodies), so that ai-agent (`--telemetry-otlp-endpoint`), any OpenTelemetry SDK or an
OpenTelemetry Collector can push spans and log records to the monitor with no bridge code.

The receivers only move bytes: each export request's body goes to `on_batch(signal, body, encoding)` ("traces" or
"logs", the raw body, "proto" or "json"), which decodes it and returns how many spans or records it took, or raises
ValueError for a body that is not OTLP (counted as "malformed otlp", answered INVALID_ARGUMENT / HTTP 400). It is
always called from a worker thread, never from the asyncio loop (the UI's): decoding 20,000 spans a second must not
take the keys' time. The same rules as the other listeners apply (access, limits): loopback unless allow_remote,
the bearer token, no web page unless its Origin is allowed (HTTP), request bodies within the shared memory budget
and OTLP_MAX_BODY (16 MiB, after decompression), refused requests counted through on_rejected.

grpc (grpcio) is imported only when an otlp:// URL is listened on: start-up without one does not pay for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from tui.inputs.stream.access import listen_addresses
from tui.inputs.stream.event_stream import BUDGET, DESCRIPTORS, parse_url
from tui.inputs.stream.limits import DescriptorReserve, MemoryBudget
from tui.inputs.stream.listeners import OnRejected, OnStatus, _Limits

OnBatch = Callable[[str, bytes, str], int]  # (signal "traces"|"logs", body, encoding "proto"|"json") -> items
OTLP_MAX_BODY = 16 * 1024 * 1024  # one export request, decompressed (the OTLP exporters' batches are far smaller)
STOP_SECONDS = 5.0  # at most this long to stop a receiver (in-flight requests cancelled, its threads joined)


def _from_any_thread(loop: asyncio.AbstractEventLoop, callback: Callable | None) -> Callable | None:
    """`callback` run on `loop` whichever thread calls it (the hub's counters belong to the loop's thread); calls
    made once the loop is closed are dropped."""
    if callback is None:
        return None

    def call(*args) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the app is gone
            loop.call_soon_threadsafe(callback, *args)
    return call


async def listen_otlp(url: str, on_batch: OnBatch, on_status: OnStatus = None, *, on_rejected: OnRejected = None,
                      token: str | None = None, allow_remote: bool = False,
                      allow_origins: list[str] | tuple[str, ...] = (), budget: MemoryBudget | None = None,
                      descriptors: DescriptorReserve | None = None, max_body: int = OTLP_MAX_BODY) -> None:
    """Receive OTLP exports on `url` until cancelled (then the server stops and its threads are joined).

    on_status gets "listening on otlp://HOST:PORT (OTLP/gRPC)" (or otlp+http://... (OTLP/HTTP)) once bound, with
    the real port when the URL says 0, then that line with the last refusal. ValueError for a refused host (not
    loopback without allow_remote); OSError when the address cannot be bound."""
    target = parse_url(url)
    if target[0] != "otlp":
        raise ValueError(f"{url!r} is not an OTLP receiver URL (otlp://HOST:PORT or otlp+http://HOST:PORT)")
    _, host, port, transport = target
    addresses = listen_addresses(url, host, port, allow_remote)
    loop = asyncio.get_running_loop()
    if transport == "http":
        from tui.inputs.stream.otlp_http import serve_http

        limits = _Limits(budget or BUDGET, descriptors or DESCRIPTORS, _from_any_thread(loop, on_rejected))
        await _in_thread(serve_http(addresses, port, on_batch, _from_any_thread(loop, on_status), limits, token,
                                    tuple(allow_origins), max_body))
        return
    from tui.inputs.stream.otlp_grpc import GrpcReceiver

    receiver = GrpcReceiver(addresses, port, on_batch, status=_from_any_thread(loop, on_status),
                            rejected=_from_any_thread(loop, on_rejected), token=token,
                            budget=budget or BUDGET, max_body=max_body)
    receiver.start()
    try:
        if on_status is not None:
            on_status(f"listening on {receiver.where} (OTLP/gRPC)")
        await asyncio.Future()  # until cancelled
    finally:
        receiver.stop(STOP_SECONDS)


async def _in_thread(serving) -> None:
    """Run the coroutine `serving` on an event loop of its own thread until cancelled (then it is cancelled and
    its thread joined), raising what it raises. The OTLP/HTTP server runs there, not on the caller's loop (the
    UI's): parsing requests, 1-byte chunks included, took the keys' time (0.6 to over 5 s a key)."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future = loop.create_future()
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task]] = []
    stopping = threading.Event()

    async def main() -> None:
        running.append((asyncio.get_running_loop(), asyncio.current_task()))  # type: ignore[arg-type]
        if stopping.is_set():
            serving.close()
        else:
            await serving

    def run() -> None:
        error: BaseException | None = None
        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's task
            error = exc
        def finish() -> None:
            if not finished.done():
                finished.set_result(error)

        with contextlib.suppress(RuntimeError):  # (the caller's loop is closed: nobody waits)
            loop.call_soon_threadsafe(finish)

    thread = threading.Thread(target=run, name="otlp-http-server", daemon=True)
    thread.start()
    try:
        error = await finished
        if error is not None:
            raise error
    finally:
        stopping.set()
        for inner, task in running:
            with contextlib.suppress(RuntimeError):  # (its loop is closed: it is over)
                inner.call_soon_threadsafe(task.cancel)
        thread.join(STOP_SECONDS)  # (a few ms: the server's listening sockets are closed when this returns)
