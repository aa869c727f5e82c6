"""Shared helpers of the OTLP receiver tests: a real decoding callback (opentelemetry-proto's messages, the way a
sink would read a body) that counts spans and log records, and a receiver run as a task on an ephemeral port."""

from __future__ import annotations

import asyncio
import contextlib
import threading

import orjson

from tui.inputs.stream.limits import DescriptorReserve, MemoryBudget
from tui.inputs.stream.otlp_http import varint
from tui.inputs.stream.otlp_listen import listen_otlp

TIMEOUT = 30


class Counting:
    """on_batch for the receivers: decodes each body for real and counts what it holds (thread-safe); remembers
    the threads it ran in and the span names, to show nothing was lost."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans = 0
        self.logs = 0
        self.requests = 0
        self.names: list[str] = []
        self.threads: set[str] = set()
        self.encodings: set[str] = set()

    def __call__(self, signal: str, body: bytes, encoding: str) -> int:
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

        names: list[str] = []
        if encoding == "json":
            try:
                doc = orjson.loads(body)
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"not JSON: {exc}") from None
            if not isinstance(doc, dict):
                raise ValueError("not an object")
            if signal == "traces":
                names = [span.get("name", "") for rs in doc.get("resourceSpans", ()) for ss in rs.get("scopeSpans", ())
                         for span in ss.get("spans", ())]
            else:
                names = ["log" for rl in doc.get("resourceLogs", ()) for sl in rl.get("scopeLogs", ())
                         for _ in sl.get("logRecords", ())]
        else:
            try:
                if signal == "traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    names = [span.name for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
                else:
                    logs = ExportLogsServiceRequest.FromString(body)
                    names = ["log" for rl in logs.resource_logs for sl in rl.scope_logs for _ in sl.log_records]
            except DecodeError as exc:
                raise ValueError(f"not protobuf: {exc}") from None
        with self.lock:
            self.requests += 1
            self.encodings.add(encoding)
            self.threads.add(threading.current_thread().name)
            if signal == "traces":
                self.spans += len(names)
                self.names.extend(names)
            else:
                self.logs += len(names)
        return len(names)


class Rejections:
    """on_rejected: (reason, detail) pairs, as the hub would count them."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def __call__(self, reason: str, detail: str) -> None:
        self.seen.append((reason, detail))

    def reasons(self) -> list[str]:
        return [reason for reason, _ in self.seen]


@contextlib.asynccontextmanager
async def receiving(url: str, on_batch, **kwargs):
    """Run listen_otlp() as a task; yields (host:port it bound, statuses, rejections); always cancels it."""
    statuses: list[str] = []
    rejected = kwargs.pop("on_rejected", None) or Rejections()
    ready = asyncio.Event()

    def on_status(text: str) -> None:
        statuses.append(text)
        if text.startswith("listening on "):
            ready.set()

    kwargs.setdefault("budget", MemoryBudget())
    kwargs.setdefault("descriptors", DescriptorReserve())
    task = asyncio.create_task(listen_otlp(url, on_batch, on_status, on_rejected=rejected, **kwargs))
    try:
        done, _ = await asyncio.wait({task, asyncio.ensure_future(ready.wait())}, timeout=TIMEOUT,
                                     return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()  # raises why it could not listen
        line = next(s for s in statuses if s.startswith("listening on "))
        bound = line.removeprefix("listening on ").split(" ", 1)[0].split("://", 1)[1]
        yield bound, statuses, rejected
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def empty_spans_body(count: int) -> bytes:
    """An ExportTraceServiceRequest of `count` empty spans (2 bytes each on the wire), written directly: building
    100,000 spans with the protobuf classes takes longer than the test."""
    scope = b"\x12\x00" * count  # ScopeSpans.spans (field 2), each empty
    resource = b"\x12" + varint(len(scope)) + scope  # ResourceSpans.scope_spans (field 2)
    return b"\x0a" + varint(len(resource)) + resource  # ExportTraceServiceRequest.resource_spans (field 1)


async def raw_http(bound: str, data: bytes) -> bytes:
    """Send raw bytes to an HTTP receiver and read until it closes the connection (or TIMEOUT)."""
    host, port = bound.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), TIMEOUT)
    finally:
        writer.close()


def chunked(body: bytes, size: int) -> bytes:
    """`body` as a chunked transfer encoding of chunks of `size` bytes."""
    parts = [b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size)]
    return b"".join(parts) + b"0\r\n\r\n"


def big_trace_bodies(total: int, batch: int = 512) -> tuple[str, list[bytes]]:
    """One ai-agent session of `total` spans (its agent.session span first, then per turn an agent.llm.turn span
    and two agent.tool spans below it), as serialized ExportTraceServiceRequests of `batch` spans each; returns
    (its txn id, the bodies)."""
    import os

    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

    def kv(key: str, value: object) -> KeyValue:
        if isinstance(value, int):
            return KeyValue(key=key, value=AnyValue(int_value=value))
        return KeyValue(key=key, value=AnyValue(string_value=str(value)))

    trace, root, txn = os.urandom(16), os.urandom(8), "big-trace-txn"
    t0 = 1_700_000_000_000_000_000
    spans: list[dict] = [dict(span_id=root, name="agent.session", start_time_unix_nano=t0,
                              end_time_unix_nano=t0 + total * 10_000_000,
                              attributes=[kv("ai.agent.id", "big"), kv("ai.session.txn_id", txn)])]
    turn = 0
    while len(spans) < total:
        turn += 1
        t = t0 + turn * 30_000_000
        llm = os.urandom(8)
        spans.append(dict(span_id=llm, parent_span_id=root, name="agent.llm.turn", start_time_unix_nano=t,
                          end_time_unix_nano=t + 20_000_000,
                          attributes=[kv("ai.llm.model", "m"), kv("ai.llm.prompt_tokens", 100),
                                      kv("ai.llm.completion_tokens", 10)]))
        for k in range(2):
            spans.append(dict(span_id=os.urandom(8), parent_span_id=llm, name="agent.tool",
                              start_time_unix_nano=t + (k + 1) * 5_000_000, end_time_unix_nano=t + (k + 2) * 5_000_000,
                              attributes=[kv("ai.tool.name", f"tool{k}"), kv("ai.tool.status", "success")]))
    bodies = []
    for i in range(0, total, batch):
        request = ExportTraceServiceRequest()
        out = request.resource_spans.add().scope_spans.add().spans
        for span in spans[i:i + batch]:
            out.add(trace_id=trace, **span)
        bodies.append(request.SerializeToString())
    return txn, bodies
