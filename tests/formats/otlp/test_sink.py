"""OTLP spans and log records become live sessions of the hub: ai-agent's trace with a sub-agent, spans in any order
and batches, logs on their ops, one session with the event stream, bounded memory."""

from __future__ import annotations

import threading

import pytest
from helpers.otlpfixtures import CHILD_TXN, ROOT_TXN, ai_agent_spans, encode, hex_ids, log_body

from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.otlp.records import OtlpDecodeError
from tui.formats.otlp.sink import OtlpSink


def _shape(session) -> list:
    """Turns and ops of a built session, sub-agents nested: what the session screen shows."""
    out = []
    for t in session.turns:
        ops = []
        for o in t.ops:
            ops.append((o.kind, o.name or o.model, o.status, _shape(o.child) if o.child is not None else None))
        out.append((t.index, ops))
    return out


EXPECTED = [
    (1, [("llm", "claude", "ok", None),
         ("session", "agent__web-search", "ok", [(1, [("llm", "gpt", "ok", None), ("tool", "web__fetch", "ok", None)])])]),
    (2, [("llm", "claude", "ok", None)]),
]


def _fed(*batches, logs=()) -> tuple[LiveHub, OtlpSink]:
    hub = LiveHub()
    sink = OtlpSink(hub)
    for batch in batches:
        sink.accept("traces", encode(batch), "proto")
    for body in logs:
        sink.accept("logs", body, "proto")
    sink.drain()
    return hub, sink


def test_ai_agent_trace_with_a_sub_agent_becomes_one_nested_session_with_totals():
    spans = ai_agent_spans()
    hub, sink = _fed(spans)
    assert hub.roots() == [ROOT_TXN] and set(hub.sessions) == {ROOT_TXN, CHILD_TXN}
    session = hub.build(ROOT_TXN)
    assert _shape(session) == EXPECTED
    assert (session.agent_id, session.call_path, session.success) == ("web-research", "web-research", True)
    assert session.started_at and session.ended_at
    totals = session.totals
    assert (totals.tokensIn, totals.tokensOut, totals.tokensCacheRead, totals.tokensCacheWrite) == (2800, 340, 50, 7)
    assert (totals.toolsRun, totals.agentsRun) == (1, 2)
    child = session.turns[0].ops[1].child
    assert (child.id, child.agent_id, child.totals.tokensIn) == (CHILD_TXN, "web-search", 300)
    llm = session.turns[0].ops[0]
    assert llm.attributes["latency"] == 900 and llm.attributes["isFinalTurn"] is False
    assert sink.summary() == "otlp: 7 spans, 0 log records"


def test_a_failed_tool_is_failed_with_its_error():
    hub, _ = _fed(ai_agent_spans(fail_child_tool=True))
    tool = hub.build(ROOT_TXN).turns[0].ops[1].child.turns[0].ops[1]
    assert (tool.status, tool.error) == ("failed", "timeout")


@pytest.mark.parametrize("order", ["one by one", "reversed", "parents first"])
def test_spans_in_any_order_across_batches_give_the_same_tree(order):
    spans = ai_agent_spans()
    if order == "reversed":
        spans = spans[::-1]
    elif order == "parents first":
        spans = sorted(spans, key=lambda s: s.start_time)
    hub = LiveHub()
    sink = OtlpSink(hub)
    for span in spans:  # a drain (UI tick) after every batch of one span
        sink.accept("traces", encode([span]), "proto")
        sink.drain()
    assert hub.roots() == [ROOT_TXN]
    assert _shape(hub.build(ROOT_TXN)) == EXPECTED
    assert set(hub.sessions) == {ROOT_TXN, CHILD_TXN}  # the provisional sessions of early children are gone


def test_a_running_session_shows_its_ended_children_before_its_own_span_arrives():
    spans = ai_agent_spans()  # in the order they end: the sessions' own spans come last
    hub, _ = _fed(spans[:2])  # the sub-agent's tool and llm turn only
    [root] = hub.roots()
    assert [(t.index, [(o.kind, o.name or o.model) for o in t.ops]) for t in hub.build(root).turns] == [
        (1, [("llm", "gpt"), ("tool", "web__fetch")])]


def test_log_records_land_on_the_ops_of_their_spans_and_name_running_sessions():
    spans = ai_agent_spans()
    by_name = {(s.name, s.attributes.get("ai.llm.model") or s.attributes.get("ai.session.txn_id")): s for s in spans}
    trace, child_llm = hex_ids(by_name["agent.llm.turn", "gpt"])
    _, root_session = hex_ids(by_name["agent.session", ROOT_TXN])
    _, child_session = hex_ids(by_name["agent.session", CHILD_TXN])
    child_meta = {"txn_id": CHILD_TXN, "parent_txn_id": ROOT_TXN, "origin_txn_id": ROOT_TXN, "agent": "web-search",
                  "call_path": "web-research->web-search"}
    logs = log_body([
        {"message": "request sent", "time_ms": 1030, "trace_id": trace, "span_id": child_llm, "turn": 1,
         "subturn": 0, "type": "llm", "direction": "request", "severity": "VRB", "remote": "openai:gpt", **child_meta},
        {"message": "child starting", "time_ms": 1011, "trace_id": trace, "span_id": child_session, "turn": 0,
         "severity": "VRB", **child_meta},
        {"message": "root settings", "time_ms": 1, "trace_id": trace, "span_id": root_session, "turn": 0,
         "severity": "VRB", "txn_id": ROOT_TXN, "agent": "web-research"},
        {"message": "untraced", "time_ms": 2, "severity": "WRN", "txn_id": ROOT_TXN, "turn": 0},
    ])
    # The running session: every span but the two sessions' own (and the tool that ran the sub-agent).
    running = [s for s in spans if s.name != "agent.session"
               and s.attributes.get("ai.tool.name") != "agent__web-search"]
    hub, sink = _fed(running, logs=[logs])
    assert ROOT_TXN in hub.roots() and CHILD_TXN in hub.sessions  # named by their records' txn ids
    assert hub.sessions[CHILD_TXN].parent_id == ROOT_TXN
    root = hub.build(ROOT_TXN)
    child = next(o.child for t in root.turns for o in t.ops if o.child is not None)
    llm = next(o for t in child.turns for o in t.ops if o.kind == "llm")
    [entry] = llm.raw["logs"]
    assert (entry["message"], entry["turn"], entry["direction"], entry["remoteIdentifier"], entry["txnId"]) == (
        "request sent", 1, "request", "openai:gpt", CHILD_TXN)
    root_logs = [e["message"] for o in root.turns[0].ops for e in o.raw["logs"]]
    assert root_logs == ["root settings", "untraced"]
    assert sink.summary() == "otlp: 4 spans, 4 log records"


def test_logs_without_traces_make_a_session_by_txn_id():
    hub = LiveHub()
    sink = OtlpSink(hub)
    sink.accept("logs", log_body([
        {"message": "turn one", "time_ms": 10, "txn_id": "solo", "agent": "neda", "turn": 1, "severity": "VRB"},
        {"message": "init", "time_ms": 5, "txn_id": "solo", "agent": "neda", "turn": 0, "severity": "VRB"},
        {"message": "child says", "time_ms": 11, "txn_id": "kid", "parent_txn_id": "solo", "turn": 1}]), "proto")
    sink.drain()
    assert hub.roots() == ["solo"] and hub.sessions["kid"].parent_id == "solo"
    session = hub.build("solo")
    assert [(t.index, [e["message"] for o in t.ops for e in o.raw["logs"]]) for t in session.turns][:2] == [
        (0, ["init"]), (1, ["turn one"])]


def test_stream_and_otlp_of_one_session_are_one_hub_session_and_the_stream_tree_wins():
    stream_tree = {"id": "x", "traceId": ROOT_TXN, "sessionTitle": "from the stream", "agentId": "web-research",
                   "turns": [{"index": 1, "ops": [{"opId": "a", "kind": "llm", "attributes": {"model": "m"}}]}]}
    for stream_first in (True, False):
        hub = LiveHub()
        sink = OtlpSink(hub)
        event = {"type": "op_tree", "tree": stream_tree, "meta": {"sessionId": ROOT_TXN, "sequence": 1}}
        if stream_first:
            hub.apply(event)
        sink.accept("traces", encode(ai_agent_spans()), "proto")
        sink.drain()
        if not stream_first:
            assert hub.build(ROOT_TXN).turns[0].ops[0].model == "claude"  # OTLP fills in meanwhile
            hub.apply(event)
        assert hub.roots() == [ROOT_TXN]
        session = hub.build(ROOT_TXN)
        assert session.title == "from the stream"
        assert [o.model for t in session.turns for o in t.ops][0] == "m"


def test_caps_evict_finished_traces_first_count_drops_and_forget_them_in_the_hub():
    hub = LiveHub()
    sink = OtlpSink(hub, max_spans=14, max_trace_spans=7, max_span_logs=2)
    a, b, c, d = (ai_agent_spans(suffix=f"-{n}") for n in "abcd")
    sink.accept("traces", encode(a), "proto")
    sink.accept("traces", encode(b), "proto")
    sink.drain()
    assert sink.spans_held == 14 and sink.evicted == 0
    assert {ROOT_TXN + "-a", CHILD_TXN + "-a", ROOT_TXN + "-b"} <= set(hub.sessions)
    sink.accept("traces", encode(c[:-1]), "proto")  # running: its root span has not ended yet
    sink.drain()
    assert sink.evicted == 1 and sink.spans_held == 13
    sink.accept("traces", encode(d), "proto")
    sink.drain()
    assert sink.evicted == 2 and sink.spans_held == 13  # the other finished trace went, not the running one
    running = hex_ids(c[0])[0]  # (its root session's span has not arrived: it is named by its trace)
    assert set(hub.sessions) == {running, CHILD_TXN + "-c", ROOT_TXN + "-d", CHILD_TXN + "-d"}
    assert set(hub.roots()) == {running, ROOT_TXN + "-d"}
    sink.accept("logs", log_body([{"message": str(n), "time_ms": n, "txn_id": "t"} for n in range(5)]), "proto")
    assert sink.logs_dropped == 3 and sink.logs_held == 2
    assert sink.summary() == "otlp: 27 spans, 5 log records · 2 traces evicted · 3 log records dropped"


def test_one_trace_over_its_cap_drops_and_counts_its_later_spans():
    hub = LiveHub()
    sink = OtlpSink(hub, max_trace_spans=3)
    assert sink.accept("traces", encode(ai_agent_spans()), "proto") == 3
    assert sink.spans_dropped == 4 and "4 spans dropped" in sink.summary()


def test_malformed_bodies_raise_and_are_counted():
    sink = OtlpSink(LiveHub())
    with pytest.raises(OtlpDecodeError):
        sink.accept("traces", b"\xff\xff\xff", "proto")
    with pytest.raises(OtlpDecodeError):
        sink.accept("metrics", b"", "proto")
    assert sink.rejected == 2 and "2 requests malformed" in sink.summary()


def test_accept_from_many_threads_while_draining_loses_nothing():
    hub = LiveHub()
    sink = OtlpSink(hub)
    bodies = [encode(ai_agent_spans(suffix=f"-{n}")) for n in range(20)]
    threads = [threading.Thread(target=lambda b=b: sink.accept("traces", b, "proto")) for b in bodies]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        sink.drain()
    for t in threads:
        t.join()
    while sink.pending:
        sink.drain()
    assert sink.spans_held == 140 and hub.root_count == 20


def test_evicting_a_trace_keeps_a_session_the_stream_also_sent():
    hub = LiveHub()
    sink = OtlpSink(hub, max_spans=7)
    hub.apply({"type": "op_tree", "tree": {"traceId": ROOT_TXN + "-a", "turns": []},
               "meta": {"sessionId": ROOT_TXN + "-a", "sequence": 1}})
    sink.accept("traces", encode(ai_agent_spans(suffix="-a")), "proto")
    sink.drain()
    assert hub.sessions[ROOT_TXN + "-a"].otlp_tree is not None
    sink.accept("traces", encode(ai_agent_spans(suffix="-b")), "proto")
    sink.drain()
    assert sink.evicted == 1
    assert ROOT_TXN + "-a" in hub.sessions and hub.sessions[ROOT_TXN + "-a"].otlp_tree is None  # the stream's stays
    assert CHILD_TXN + "-a" not in hub.sessions  # only OTLP spoke for it: gone
    assert set(hub.roots()) == {ROOT_TXN + "-a", ROOT_TXN + "-b"}


def test_a_finished_sub_agent_under_a_tool_still_running_hangs_under_its_parent_txn():
    spans = [s for s in ai_agent_spans() if s.attributes.get("ai.tool.name") != "agent__web-search"]
    hub, _ = _fed(spans)
    assert hub.roots() == [ROOT_TXN] and set(hub.sessions) == {ROOT_TXN, CHILD_TXN}
    session = hub.build(ROOT_TXN)
    assert [[o.model for o in t.ops if o.kind == "llm"] for t in session.turns][:2] == [["claude"], ["claude"]]
    [child] = [o.child for t in session.turns for o in t.ops if o.child is not None]
    assert child.id == CHILD_TXN and child.totals.tokensIn == 300


def test_retries_of_one_turn_told_by_their_log_records_share_the_turn():
    spans = ai_agent_spans()
    llms = [s for s in spans if s.name == "agent.llm.turn" and s.attributes["ai.llm.model"] == "claude"]
    logs = log_body([{"message": f"attempt {n}", "time_ms": n, "trace_id": hex_ids(s)[0], "span_id": hex_ids(s)[1],
                      "turn": 1, "txn_id": ROOT_TXN} for n, s in enumerate(llms)])
    hub, _ = _fed(spans, logs=[logs])
    [turn] = hub.build(ROOT_TXN).turns
    assert [(o.kind, o.model or o.name) for o in turn.ops] == [
        ("llm", "claude"), ("session", "agent__web-search"), ("llm", "claude")]


def test_a_big_trace_rests_after_each_assembly_while_other_traces_go_on():
    """A big trace is assembled and built again from all its spans at each change. Back to back, that thread held
    the interpreter most of the time and the keys waited behind it: after each assembly, the big trace now rests
    as long as it took. A small trace that changes meanwhile is assembled first, and the big one still comes."""
    import time

    from helpers.otlphelpers import big_trace_bodies

    txn, bodies = big_trace_bodies(3_000, 512)  # 1,000 turns; past PREBUILD_ITEMS from its 4th batch
    hub = LiveHub()
    sink = OtlpSink(hub)
    sink.start()
    try:
        for body in bodies[:-1]:
            sink.accept("traces", body, "proto")
        deadline = time.monotonic() + 60
        while (sink.pending or hub.build(txn) is None) and time.monotonic() < deadline:
            sink.drain()
            time.sleep(0.005)
        shown = len(hub.build(txn).turns)
        assert shown < 1_000
        sink.accept("traces", bodies[-1], "proto")  # the big trace changes, then a small one arrives
        sink.accept("traces", encode(ai_agent_spans()), "proto")
        seen_with = None
        while sink.pending and time.monotonic() < deadline:
            sink.drain()
            if seen_with is None and ROOT_TXN in hub.roots():
                seen_with = len(hub.build(txn).turns)
            time.sleep(0.005)
        sink.drain()
        assert seen_with == shown  # the small trace came while the big one rested
        assert len(hub.build(txn).turns) == 1_000  # and the big one came after its rest
    finally:
        sink.stop()
