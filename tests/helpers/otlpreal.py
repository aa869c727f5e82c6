"""What the real ai-agent exported over OTLP (tests/fixtures/aiagent-real/otlp/, see its README): the recorded
export requests in the batches the producer sent them, split further for tests that need more batches, sent to a
real receiver over gRPC or HTTP; and the rows a browser would keep of a hub fed by them.

The rows follow what the live controller and the browser do with the hub's sets after each apply (tui.ui.
live_controller.apply): roots in `changed` get a fresh row, roots in `merged` lose theirs, roots in `forgotten`
keep the last one."""

from __future__ import annotations

import http.client
from pathlib import Path

from tui.catalog.session_row import SessionRow, live_session_row
from tui.formats.aiagent.live.hub import LiveHub

REAL = Path(__file__).parents[1] / "fixtures" / "aiagent-real"
OTLP = REAL / "otlp"
SNAPSHOT = next((OTLP / "sessions").glob("*.json.gz"))
ROOT_TXN = SNAPSHOT.name.removesuffix(".json.gz")  # the master's txn id: its snapshot's name and its span's txn
MASTER_SNAPSHOT = next((REAL / "master" / "sessions").glob("*.json.gz"))
# What `dump --json` says of the recorded run's snapshot (the same numbers for MASTER_SNAPSHOT, another run)
TOKENS_IN, TOKENS_OUT, CACHE_READ, COST = 18874, 400, 1280, 0.063
SESSIONS, LLM_CALLS, FAILED = 6, 10, 1
GRPC_PATHS = {"traces": "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
              "logs": "/opentelemetry.proto.collector.logs.v1.LogsService/Export"}


def recorded() -> list[tuple[str, bytes]]:
    """(signal, protobuf body) of each export request, in the order ai-agent sent them."""
    out = []
    for path in sorted((OTLP / "batches").glob("*.pb")):
        out.append(("traces" if path.stem.endswith("traces") else "logs", path.read_bytes()))
    return out


def split(batches: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Each trace request cut into one request per span (resource and scope kept), logs as they were: the most
    batches a producer could send the same spans in, each span's parents arriving after it."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    out = []
    for signal, body in batches:
        if signal != "traces":
            out.append((signal, body))
            continue
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                for span in ss.spans:
                    one = ExportTraceServiceRequest()
                    r = one.resource_spans.add()
                    r.resource.CopyFrom(rs.resource)
                    s = r.scope_spans.add()
                    s.scope.CopyFrom(ss.scope)
                    s.spans.add().CopyFrom(span)
                    out.append(("traces", one.SerializeToString()))
    return out


def send_grpc(bound: str, batches: list[tuple[str, bytes]]) -> None:
    """Each body as one unary Export call (bytes as they are), on one channel."""
    import grpc

    with grpc.insecure_channel(bound) as channel:
        for signal, body in batches:
            channel.unary_unary(GRPC_PATHS[signal])(body, timeout=10)


def send_http(bound: str, batches: list[tuple[str, bytes]]) -> None:
    """Each body as one POST /v1/traces or /v1/logs (application/x-protobuf), on one connection."""
    host, port = bound.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        for signal, body in batches:
            conn.request("POST", f"/v1/{signal}", body=body, headers={"Content-Type": "application/x-protobuf"})
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200, (answer.status, signal)
    finally:
        conn.close()


class BrowserRows:
    """The live rows a browser keeps of `hub`, updated as the live controller would after each apply."""

    def __init__(self, hub: LiveHub) -> None:
        self.hub = hub
        self.rows: dict[str, SessionRow] = {}

    def apply(self) -> None:
        hub = self.hub
        changes = hub.take_changes()  # (forgotten roots' rows stay)
        for root in changes.merged:
            self.rows.pop(root, None)
        for root in changes.changed:
            self.rows[root] = live_session_row(root, hub.build(root), 0, 0, None)

    def header_tokens(self) -> int:
        return sum(row.tokens or 0 for row in self.rows.values())


def tool_output_call(batches: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    """One more trace request: a `tool_output` call of the master, as ai-agent's tools.ts exports it (an
    `agent.tool` span of kind `agent`, provider `tool-output`, under the LLM turn that asked for it; its extraction
    exports nothing). Made here from the recorded master's first LLM span: the recorded run made no such call."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    spans, resource = [], None
    for signal, body in batches:
        if signal == "traces":
            for rs in ExportTraceServiceRequest.FromString(body).resource_spans:
                resource = rs.resource
                spans += [span for ss in rs.scope_spans for span in ss.spans]
    master = next(s for s in spans if s.name == "agent.session" and not s.parent_span_id)
    llm = min((s for s in spans if s.name == "agent.llm.turn" and s.parent_span_id == master.span_id),
              key=lambda s: s.start_time_unix_nano)
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    if resource is not None:
        rs.resource.CopyFrom(resource)
    ss = rs.scope_spans.add()
    ss.scope.name = "ai-agent"
    span = ss.spans.add()
    span.trace_id, span.parent_span_id, span.span_id = llm.trace_id, llm.span_id, b"\x70\x75\x74\x6f\x6f\x6c\x30\x31"
    span.name, span.kind = "agent.tool", 1
    span.start_time_unix_nano = llm.end_time_unix_nano + 1_000_000
    span.end_time_unix_nano = llm.end_time_unix_nano + 9_000_000
    for key, value in (("ai.tool.requested_name", "tool_output"), ("ai.tool.call_path", "master"),
                       ("ai.tool.name", "tool_output"), ("ai.tool.provider", "tool-output"), ("ai.tool.kind", "agent"),
                       ("ai.tool.status", "success")):
        attr = span.attributes.add()
        attr.key, attr.value.string_value = key, value
    return "traces", request.SerializeToString()
