"""OTLP request bodies for the tests: ai-agent-shaped and GenAI-shaped traces recorded with the real OpenTelemetry
Python SDK (in-memory exporter) and encoded with the OTLP exporters' own encoder, log records built with the
opentelemetry-proto classes, and hand-written OTLP/JSON.

The ai-agent trace mirrors what its code makes (src/ai-agent.ts, session-turn-runner.ts, tools/tools.ts): spans
nest by the active context, `agent.session` → `agent.llm.turn` → `agent.tool` → a sub-agent's `agent.session`.
"""

from __future__ import annotations

import json

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

T0 = 1_700_000_000_000_000_000  # ns
MS = 1_000_000
ROOT_TXN, CHILD_TXN = "root-txn-1", "child-txn-2"


class Recorder:
    """A tracer whose finished spans are kept in memory, in the order they end (as a batch exporter sends them)."""

    def __init__(self, service: str = "ai-agent") -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": service}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("ai-agent")

    def span(self, name: str, start_ms: int, attrs: dict | None = None):
        return self.tracer.start_as_current_span(name, start_time=T0 + start_ms * MS, attributes=attrs or {},
                                                 end_on_exit=False)

    def finished(self) -> list:
        return list(self.exporter.get_finished_spans())


def encode(spans: list) -> bytes:
    return encode_spans(spans).SerializeToString()


def ai_agent_spans(fail_child_tool: bool = False, suffix: str = "") -> list:
    """(`suffix`: added to the txn ids, for several sessions.) A root session (2 turns, the first an llm call then a sub-agent run through a tool) with one sub-agent
    session (one llm turn, one failed tool), as ai-agent's spans, in the order they end."""
    r = Recorder()
    root_txn, child_txn = ROOT_TXN + suffix, CHILD_TXN + suffix
    with r.span("agent.session", 0, {"ai.agent.id": "web-research", "ai.agent.call_path": "web-research",
                                     "ai.session.txn_id": root_txn, "ai.session.origin_txn_id": root_txn,
                                     "ai.session.headend_id": "cli"}) as root:
        with r.span("agent.llm.turn", 10, {"ai.llm.provider": "anthropic", "ai.llm.model": "claude",
                                           "ai.llm.is_final_turn": False}) as llm:
            llm.set_attributes({"ai.llm.latency_ms": 900, "ai.llm.prompt_tokens": 1000,
                                "ai.llm.completion_tokens": 200, "ai.llm.cache_read_tokens": 50,
                                "ai.llm.cache_write_tokens": 7, "ai.llm.stop_reason": "tool_use"})
            with r.span("agent.tool", 1000, {"ai.tool.requested_name": "agent__web-search",
                                            "ai.tool.call_path": "web-research"}) as tool:
                tool.set_attributes({"ai.tool.name": "agent__web-search", "ai.tool.provider": "agent",
                                     "ai.tool.kind": "agent"})
                with r.span("agent.session", 1010, {"ai.agent.id": "web-search",
                                                    "ai.agent.call_path": "web-research->web-search",
                                                    "ai.session.txn_id": child_txn,
                                                    "ai.session.parent_txn_id": root_txn,
                                                    "ai.session.origin_txn_id": root_txn}) as child:
                    with r.span("agent.llm.turn", 1020, {"ai.llm.provider": "openai", "ai.llm.model": "gpt"}) as c:
                        c.set_attributes({"ai.llm.prompt_tokens": 300, "ai.llm.completion_tokens": 40})
                        with r.span("agent.tool", 1500, {"ai.tool.requested_name": "web__fetch"}) as t2:
                            t2.set_attributes({"ai.tool.name": "web__fetch", "ai.tool.provider": "web",
                                               "ai.tool.kind": "mcp"})
                            if fail_child_tool:
                                t2.set_attributes({"ai.tool.status": "error"})
                                t2.add_event("tool.manage.error", {"ai.tool.name": "web__fetch",
                                                                   "ai.tool.error": "timeout"},
                                             timestamp=T0 + 1590 * MS)
                                t2.set_status(Status(StatusCode.ERROR, "timeout"))
                            else:
                                t2.set_attributes({"ai.tool.status": "success", "ai.tool.latency_ms": 90})
                            t2.end(end_time=T0 + 1600 * MS)
                        c.end(end_time=T0 + 1700 * MS)
                    child.set_attributes({"ai.agent.success": True, "ai.agent.turn_count": 1})
                    child.end(end_time=T0 + 1800 * MS)
                tool.set_attributes({"ai.tool.status": "success", "ai.tool.latency_ms": 800})
                tool.end(end_time=T0 + 1810 * MS)
            llm.end(end_time=T0 + 1820 * MS)
        with r.span("agent.llm.turn", 2000, {"ai.llm.provider": "anthropic", "ai.llm.model": "claude",
                                             "ai.llm.is_final_turn": True}) as llm2:
            llm2.set_attributes({"ai.llm.prompt_tokens": 1500, "ai.llm.completion_tokens": 100})
            llm2.end(end_time=T0 + 2500 * MS)
        root.set_attributes({"ai.agent.success": True, "ai.agent.turn_count": 2})
        root.end(end_time=T0 + 2600 * MS)
    return r.finished()


def genai_spans() -> list:
    """A GenAI-instrumented agent (another framework): invoke_agent → chat (with messages) → execute_tool → chat."""
    r = Recorder("travel-bot")
    inputs = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]
    outputs = [{"role": "assistant", "parts": [
        {"type": "reasoning", "content": "I should call the weather tool"},
        {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        "finish_reason": "tool_call"}]
    system = [{"type": "text", "content": "You are a travel assistant."}]
    with r.span("invoke_agent travel", 0, {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel",
                                           "gen_ai.provider.name": "openai"}) as agent:
        with r.span("chat gpt-4o", 10, {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                                        "gen_ai.request.model": "gpt-4o"}) as chat:
            chat.set_attributes({"gen_ai.response.model": "gpt-4o-2024", "gen_ai.usage.input_tokens": 120,
                                 "gen_ai.usage.output_tokens": 30, "gen_ai.usage.cache_read.input_tokens": 20,
                                 "gen_ai.input.messages": json.dumps(inputs),
                                 "gen_ai.output.messages": json.dumps(outputs),
                                 "gen_ai.system_instructions": json.dumps(system),
                                 "gen_ai.response.finish_reasons": ["tool_call"]})
            chat.end(end_time=T0 + 500 * MS)
        with r.span("execute_tool get_weather", 510, {"gen_ai.operation.name": "execute_tool",
                                                      "gen_ai.tool.name": "get_weather",
                                                      "gen_ai.tool.call.id": "call_1",
                                                      "gen_ai.tool.call.arguments": '{"city": "Paris"}',
                                                      "gen_ai.tool.call.result": '{"temp": 21}'}) as tool:
            tool.end(end_time=T0 + 600 * MS)
        with r.span("chat gpt-4o", 610, {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}) as c2:
            c2.set_attributes({"gen_ai.usage.input_tokens": 200, "gen_ai.usage.output_tokens": 15})
            c2.end(end_time=T0 + 900 * MS)
        agent.end(end_time=T0 + 950 * MS)
    return r.finished()


def _value(v: object) -> AnyValue:
    if isinstance(v, bool):
        return AnyValue(bool_value=v)
    if isinstance(v, int):
        return AnyValue(int_value=v)
    return AnyValue(string_value=str(v))


def log_body(records: list[dict]) -> bytes:
    """An ExportLogsServiceRequest of ai-agent-shaped records: each dict has `message`, `time_ms`, optional
    `trace_id` / `span_id` (hex) and the attributes (type, direction, turn, subturn, severity, txn_id ...)."""
    request = ExportLogsServiceRequest()
    scope = request.resource_logs.add().scope_logs.add()
    scope.scope.name = "ai-agent"
    for rec in records:
        rec = dict(rec)
        r = scope.log_records.add()
        r.body.string_value = rec.pop("message")
        r.time_unix_nano = T0 + rec.pop("time_ms") * MS
        r.severity_text = str(rec.get("severity", "VRB"))
        if "trace_id" in rec:
            r.trace_id = bytes.fromhex(rec.pop("trace_id"))
        if "span_id" in rec:
            r.span_id = bytes.fromhex(rec.pop("span_id"))
        r.attributes.extend(KeyValue(key=k, value=_value(v)) for k, v in rec.items())
    return request.SerializeToString()


def hex_ids(span) -> tuple[str, str]:
    """(trace id, span id) of an SDK span, as OTLP writes them in hex."""
    ctx = span.context
    return f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}"
