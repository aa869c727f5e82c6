"""`export --format otlp`'s spans: read back with opentelemetry-proto (OTLP/JSON with hex ids turned to base64, as
protobuf's JSON mapping wants them, and the protobuf bytes `--to` sends): counts, parent links, ids, GenAI and
ai-agent attributes, tokens, error status, running ops, messages, caps, request splitting."""

from __future__ import annotations

import base64
import json

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from helpers.builders import llm_acc, op, session, turn
from tui.demo import make_tree
from tui.formats.aiagent.snapshot import build_session
from tui.model.search import walk_ops
from tui.text.export_otlp import build
from tui.text.otlp import messages as otlp_messages
from tui.text.otlp.encode import requests, to_protobuf
from tui.text.otlp.spans import EVENTS_PER_SPAN, session_spans

UUID = "1b2ed40e-d3ad-4ccb-ac33-be0ac79d6793"


def parse_json_line(line: bytes) -> ExportTraceServiceRequest:
    """An OTLP/JSON line as protobuf: the spec's hex ids become the base64 protobuf's JSON mapping reads."""
    value = json.loads(line)
    for rs in value["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in s:
                        assert len(s[key]) == (32 if key == "traceId" else 16) and s[key] == s[key].lower()
                        s[key] = base64.b64encode(bytes.fromhex(s[key])).decode()
    msg = ExportTraceServiceRequest()
    json_format.ParseDict(value, msg)
    return msg


def spans_of(msg: ExportTraceServiceRequest) -> list:
    return [s for rs in msg.resource_spans for ss in rs.scope_spans for s in ss.spans]


def attrs(span) -> dict:
    return {kv.key: json_format.MessageToDict(kv.value) for kv in span.attributes}


def value(span, key):
    v = attrs(span).get(key)
    if v is None:
        return None
    (kind, inner), = v.items()
    return int(inner) if kind == "intValue" else inner


def small_tree(**extra):
    child = session(turn(1, op("llm", op_id="k1", accounting=[llm_acc(5, 1, cache_read=7, cache_write=2, cost=0.1)],
                               provider="openai", model="gpt", started=2000, ended=3000),
                         op("tool", op_id="k2", status="failed", name="web__fetch", error="timeout", started=3000,
                            ended=3500, logs=[{"timestamp": 3400, "severity": "ERR", "message": "fetch failed"}])),
                    agent="kid", trace="trace-kid")
    return session(turn(0, op("system", op_id="s1", label="init"), system=True),
                   turn(1, op("llm", op_id="r1", accounting=[llm_acc(10, 20)], provider="anthropic",
                              model="claude"),
                        op("session", op_id="r2", name="agent__kid", child=child)),
                   agent="boss", trace=UUID, **extra)


def test_every_session_and_op_is_a_span_with_its_parent():
    root = build_session(small_tree())
    out = build(root)
    assert len(out.requests) == 1 and out.sessions == 2
    msg = parse_json_line(out.json_lines())
    spans = spans_of(msg)
    ops = list(walk_ops(root))
    assert len(spans) == out.spans == 2 + len(ops) == 7
    by_name = {s.name: s for s in spans}
    boss, kid = by_name["invoke_agent boss"], by_name["invoke_agent kid"]
    runner = by_name["execute_tool agent__kid"]
    assert boss.parent_span_id == b"" and runner.parent_span_id == boss.span_id
    assert kid.parent_span_id == runner.span_id  # the sub-agent hangs under the op that ran it
    assert by_name["chat gpt"].parent_span_id == kid.span_id and by_name["init"].parent_span_id == boss.span_id
    assert {s.trace_id.hex() for s in spans} == {UUID.replace("-", "")}
    assert by_name["chat gpt"].kind == 3 and runner.kind == 1  # CLIENT for the model call
    assert value(boss, "gen_ai.operation.name") == "invoke_agent" and value(boss, "ai.agent.id") == "boss"
    assert value(runner, "gen_ai.tool.name") == "agent__kid" and value(runner, "ai.tool.kind") == "agent"
    assert value(by_name["chat gpt"], "ai.op.path") == "1-2.1-1" and value(by_name["chat gpt"], "ai.turn.index") == 1
    resource = {kv.key: kv.value.string_value for kv in msg.resource_spans[0].resource.attributes}
    assert resource["service.name"] == "ai-agent" and resource["aiagent_monitor.exporter.name"] == "aiagent-monitor"


def test_tokens_follow_the_semconv_and_the_producer():
    spans = {s.name: s for s in spans_of(parse_json_line(build(build_session(small_tree())).json_lines()))}
    gpt = spans["chat gpt"]
    assert value(gpt, "gen_ai.usage.input_tokens") == 5 + 7 + 2  # cache tokens included, as the semconv asks
    assert value(gpt, "gen_ai.usage.output_tokens") == 1
    assert value(gpt, "gen_ai.usage.cache_read.input_tokens") == 7
    assert value(gpt, "gen_ai.usage.cache_creation.input_tokens") == 2
    assert value(gpt, "ai.llm.prompt_tokens") == 5 and value(gpt, "ai.llm.cache_write_tokens") == 2
    assert value(gpt, "gen_ai.provider.name") == "openai" and value(gpt, "gen_ai.request.model") == "gpt"
    assert value(spans["chat claude"], "gen_ai.usage.input_tokens") == 10


def test_failures_are_error_status_with_the_message():
    tree = small_tree(success=False, error="LLM request failed: 429")
    spans = {s.name: s for s in spans_of(parse_json_line(build(build_session(tree)).json_lines()))}
    tool = spans["execute_tool web__fetch"]
    assert tool.status.code == 2 and tool.status.message == "timeout" and value(tool, "error.type") == "timeout"
    assert value(tool, "ai.tool.status") == "error"
    boss = spans["invoke_agent boss"]
    assert boss.status.code == 2 and boss.status.message == "LLM request failed: 429"
    assert value(boss, "ai.agent.success") is False and value(boss, "error.type") == "failed"
    assert spans["chat gpt"].status.code == 1
    [event] = tool.events
    assert event.name == "log" and event.time_unix_nano == 3400 * 1_000_000
    assert {kv.key: kv.value.string_value for kv in event.attributes}["message"] == "fetch failed"


def test_times_and_a_running_op_ends_at_the_latest_known_time():
    running = op("tool", op_id="x", status=None, name="slow", started=2500, ended=None,
                 logs=[{"timestamp": 4100, "severity": "VRB", "message": "still going"}])
    tree = session(turn(1, op("llm", started=1000, ended=2000, provider="p", model="m"), running),
                   agent="a", trace=UUID, ended=None, success=None)
    spans = {s.name: s for s in spans_of(parse_json_line(build(build_session(tree)).json_lines()))}
    assert spans["chat m"].start_time_unix_nano == 1000 * 10**6 and spans["chat m"].end_time_unix_nano == 2000 * 10**6
    slow = spans["execute_tool slow"]
    assert slow.end_time_unix_nano == 4100 * 10**6 and value(slow, "ai.op.running") is True
    agent = spans["invoke_agent a"]  # running too: ends with its latest child
    assert agent.end_time_unix_nano == 4100 * 10**6 and value(agent, "ai.session.running") is True
    assert all(s.end_time_unix_nano >= s.start_time_unix_nano for s in spans.values())


def test_ids_are_stable_and_a_non_uuid_trace_gets_a_hash():
    a = build(build_session(small_tree())).json_lines()
    assert a == build(build_session(small_tree())).json_lines()  # the same file exported twice: the same ids
    other = spans_of(parse_json_line(build(build_session(session(turn(1, op("llm")), trace="not-a-uuid")))
                                     .json_lines()))
    assert len({s.trace_id for s in other}) == 1 and other[0].trace_id.hex() != "0" * 32
    assert len({s.span_id for s in spans_of(parse_json_line(a))}) == 7


def test_a_generated_session_round_trips_through_protobuf():
    tree = make_tree(3, ops=40, depth=2, failed=True)
    root = build_session(tree)
    out = build(root)
    from_json = [spans_of(parse_json_line(line)) for line in out.json_lines().splitlines()]
    from_proto = []
    for body in out.protobufs():
        msg = ExportTraceServiceRequest()
        msg.ParseFromString(body)
        from_proto.append(spans_of(msg))
    assert from_json == from_proto  # the two encodings carry the same spans
    spans = [s for batch in from_proto for s in batch]
    assert len(spans) == root.counts.ops + root.counts.sessions
    ids = {s.span_id for s in spans}
    assert all(s.parent_span_id in ids for s in spans if s.parent_span_id)
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert sum(value(s, "ai.llm.prompt_tokens") for s in chats) == root.totals.tokensIn
    assert sum(value(s, "gen_ai.usage.output_tokens") for s in chats) == root.totals.tokensOut
    assert any(s.status.code == 2 for s in spans)
    with_messages = [s for s in chats if value(s, "gen_ai.input.messages")]
    assert with_messages, "the generator's captures should read as messages"
    first = json.loads(value(with_messages[0], "gen_ai.input.messages"))
    assert first[0]["role"] in ("system", "user") and first[0]["parts"][0]["type"] == "text"
    answers = [json.loads(value(s, "gen_ai.output.messages")) for s in with_messages
               if value(s, "gen_ai.output.messages")]
    assert answers and all(m["role"] == "assistant" and "finish_reason" in m for a in answers for m in a)
    calls = [p for a in answers for m in a for p in m["parts"] if p["type"] == "tool_call"]
    assert calls and all(p["name"] and isinstance(p["arguments"], (dict, str)) for p in calls)
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    linked = [s for s in tools if value(s, "gen_ai.tool.call.id")]
    asked = {(p["id"], p["name"]) for p in calls}
    assert linked and all((value(s, "gen_ai.tool.call.id"), value(s, "gen_ai.tool.name")) in asked for s in linked)


def test_messages_are_capped_dropping_the_oldest(monkeypatch):
    monkeypatch.setattr(otlp_messages, "MESSAGES_BYTES", 600)
    root = build_session(make_tree(3, ops=40, depth=1, payload_bytes=4000))
    spans = session_spans(root, messages=otlp_messages.op_messages).spans
    values = [s.attrs["gen_ai.input.messages"] for s in spans if "gen_ai.input.messages" in s.attrs]
    assert all(len(v.encode()) <= 600 for v in values)
    assert any(s.attrs.get("ai.export.input_messages_dropped") for s in spans)


def test_requests_are_split_under_the_limit_and_logs_capped():
    many_logs = [{"timestamp": 1500, "severity": "VRB", "message": "x" * 100}] * (EVENTS_PER_SPAN + 10)
    tree = session(turn(1, *[op("tool", op_id=f"t{i}", name=f"tool{i}", logs=many_logs) for i in range(20)]))
    exported = session_spans(build_session(tree))
    assert all(len(s.events) <= EVENTS_PER_SPAN for s in exported.spans)
    assert exported.spans[1].attrs["ai.export.logs_dropped"] == 10
    batches = list(requests(exported.spans, {"service.name": "ai-agent"}, "0", limit=200_000))
    assert len(batches) > 1
    for batch in batches:
        assert len(json.dumps(batch, separators=(",", ":"))) < 200_000 + 60_000  # one span may overflow alone
    body_spans = [spans_of(ExportTraceServiceRequest.FromString(to_protobuf(b))) for b in batches]
    assert sum(len(b) for b in body_spans) == len(exported.spans) == 21


def test_hostile_text_never_breaks_either_encoding():
    bad = "\ud800 lone surrogate \x1b]0;pwned\x07 " + "y" * 10_000
    tree = session(turn(1, op("tool", name=bad, status="failed", error=bad,
                              logs=[{"timestamp": "soon", "severity": bad, "message": bad}])),
                   agent=bad, trace=bad, error=bad, success=False)
    out = build(build_session(tree))
    spans = spans_of(parse_json_line(out.json_lines()))
    assert len(spans) == 2 and spans[1].status.code == 2
    assert len(spans[1].status.message) < 5000  # free text is capped
    [body] = out.protobufs()
    assert spans_of(ExportTraceServiceRequest.FromString(body))[1].name.startswith("execute_tool")


def test_endpoint_urls_and_headers():
    from tui.text.otlp.send import parse_endpoint, parse_header

    assert parse_endpoint("otlp://collector").url == "otlp://collector:4317"
    assert parse_endpoint("otlp+http://[::1]").url == "otlp+http://[::1]:4318/v1/traces"
    langfuse = parse_endpoint("otlp+https://cloud.langfuse.com/api/public/otel/v1/traces")
    assert (langfuse.tls, langfuse.port, langfuse.path) == (True, 443, "/api/public/otel/v1/traces")
    assert parse_endpoint("otlps://tempo.example:4317").tls
    for bad in ("http://x:4317", "otlp://:4317", "otlp://x:4317/v1/traces", "otlp://x:70000"):
        try:
            parse_endpoint(bad)
        except ValueError:
            continue
        raise AssertionError(bad)
    assert parse_header("Authorization=Basic cGs6c2s=") == ("Authorization", "Basic cGs6c2s=")
    assert parse_header("api_key: k") == ("api_key", "k")
    for bad in ("novalue", "=x", "a b=c", "x=line\nbreak", "x=é"):
        try:
            parse_header(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_broken_trees_still_give_valid_traces():
    tree = session(turn(1, op("llm", started=2000, ended=2500), op("tool", name="t", started=2600, ended=2700)),
                   turn(1, op("llm", started=3000, ended=3500)), trace=UUID)  # turn 1 twice: op path 1-1 twice
    del tree["startedAt"]
    spans = spans_of(parse_json_line(build(build_session(tree)).json_lines()))
    assert len({s.span_id for s in spans}) == len(spans) == 4
    assert spans[0].start_time_unix_nano == 2000 * 10**6  # no startedAt: its first op's start, not 1970


def test_jules_and_genkit_sessions_export_through_the_model(tmp_path):
    from tui.demo.genkit import make_genkit_snapshots, write_genkit_dir
    from tui.demo.jules import make_jules_snapshot, write_jules
    from tui.formats.load import load

    for path in (write_jules(tmp_path / "jules", make_jules_snapshot(1)),
                 write_genkit_dir(tmp_path / "genkit", make_genkit_snapshots(2))):
        root = load(str(path)).root
        out = build(root)
        spans = [s for line in out.json_lines().splitlines() for s in spans_of(parse_json_line(line))]
        assert len(spans) == root.counts.ops + root.counts.sessions > 5
        assert spans[0].name.startswith("invoke_agent ")
