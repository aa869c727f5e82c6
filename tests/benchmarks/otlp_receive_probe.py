"""How many spans a second the OTLP receivers take (not wired into run.py: a probe of the receivers alone).

The receiver runs on an asyncio loop in this process, as in the app; SENDERS processes send ready-made export
requests of BATCH spans each (the SDK exporters' default batch is 512), over one kept-alive channel/connection
each, for SECONDS. on_batch is trivial (counts the request) or, with --decode, parses the body with
opentelemetry-proto (what a sink's decode costs at least). Prints requests/s and spans/s.

    python tests/benchmarks/otlp_receive_probe.py [grpc|http] [--decode] [--senders 2] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import threading
import time

_SENDER = r"""
import sys, time, http.client
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
transport, bound, batch, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
request = ExportTraceServiceRequest()
rs = request.resource_spans.add()
rs.resource.attributes.add(key="service.name").value.string_value = "ai-agent"
spans = rs.scope_spans.add().spans
for i in range(batch):
    s = spans.add(name="llm.request", trace_id=bytes(16) + b"", span_id=(i + 1).to_bytes(8, "big"),
                  parent_span_id=(i + 100000).to_bytes(8, "big"), start_time_unix_nano=1, end_time_unix_nano=2)
    for k, v in (("ai.session.txn_id", "t%d" % (i % 50)), ("ai.llm.model", "gpt-x"), ("ai.agent.id", "main")):
        s.attributes.add(key=k).value.string_value = v
    s.attributes.add(key="ai.llm.tokens.input").value.int_value = 1234
body = request.SerializeToString()
sent = 0
end = time.monotonic() + seconds
if transport == "grpc":
    import grpc
    with grpc.insecure_channel(bound) as channel:
        call = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        while time.monotonic() < end:
            call(body, timeout=30); sent += 1
else:
    host, port = bound.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    while time.monotonic() < end:
        conn.request("POST", "/v1/traces", body=body, headers={"Content-Type": "application/x-protobuf"})
        r = conn.getresponse(); r.read(); assert r.status == 200, r.status; sent += 1
print(sent, len(body))
"""


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("transport", choices=["grpc", "http"], nargs="?", default="grpc")
    ap.add_argument("--decode", action="store_true")
    ap.add_argument("--senders", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--batch", type=int, default=512)
    args = ap.parse_args()
    from tui.inputs.stream.otlp_listen import listen_otlp

    lock = threading.Lock()
    got = {"requests": 0, "spans": 0}

    def on_batch(signal: str, body: bytes, encoding: str) -> int:
        n = args.batch
        if args.decode:
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            request = ExportTraceServiceRequest.FromString(body)
            n = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        with lock:
            got["requests"] += 1
            got["spans"] += n
        return n

    ready: asyncio.Future = asyncio.get_running_loop().create_future()

    def on_status(text: str) -> None:
        if text.startswith("listening on ") and not ready.done():
            ready.set_result(text.split("://", 1)[1].split(" ", 1)[0])

    url = "otlp://127.0.0.1:0" if args.transport == "grpc" else "otlp+http://127.0.0.1:0"
    task = asyncio.create_task(listen_otlp(url, on_batch, on_status))
    bound = await ready
    lag = []

    async def loop_lag() -> None:  # how late the loop (the UI's, in the app) answers meanwhile
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            lag.append(time.perf_counter() - t - 0.01)

    lagging = asyncio.create_task(loop_lag())
    started = time.monotonic()
    procs = [await asyncio.create_subprocess_exec(sys.executable, "-c", _SENDER, args.transport, bound,
                                                  str(args.batch), str(args.seconds), stdout=subprocess.PIPE)
             for _ in range(args.senders)]
    outs = [await p.communicate() for p in procs]
    elapsed = time.monotonic() - started
    lagging.cancel()
    task.cancel()
    sent = sum(int(o[0].split()[0]) for o in outs)
    size = int(outs[0][0].split()[1])
    lag.sort()
    p95 = lag[int(len(lag) * 0.95)] * 1000 if lag else 0.0
    print(f"{args.transport} decode={args.decode} senders={args.senders}: {got['requests']:,} of {sent:,} requests "
          f"({size:,} bytes, {args.batch} spans each) in {elapsed:.1f}s (incl. sender start-up): "
          f"{got['requests'] / args.seconds:,.0f} req/s, {got['spans'] / args.seconds:,.0f} spans/s; "
          f"loop lag p95 {p95:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
