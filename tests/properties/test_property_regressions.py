"""Bugs the property tests (test_properties.py) found, each pinned by the plain example that showed it."""

from helpers.builders import op, session, turn
from tui.formats.load import from_object
from tui.model.search import ErrorFilter


def chain(levels: int, innermost: dict) -> dict:
    node = innermost
    for n in range(levels):
        node = session(turn(1, op("session", op_id=f"c{n}", child=node)), agent=f"level{n}", trace=f"t{n}")
    return node


def test_errors_only_filter_on_deeply_nested_sub_agents():
    # 150 nested sub-agents load fine (orjson reads 1024 levels); the filter recursed ~9 frames a level.
    root = from_object(chain(150, session(turn(1, op("tool", status="failed")), agent="deepest")), "deep").root
    keep = ErrorFilter()
    assert keep(root) is True
    assert keep(root.turns[0].ops[0]) is True
    healthy = from_object(chain(150, session(turn(1, op("tool")), agent="deepest")), "deep").root
    assert ErrorFilter()(healthy) is False


def ledger_doc(tmp_path, *lines: bytes):
    from tui.formats.load import load

    path = tmp_path / "session" / "s1.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    return load(str(path))


def test_a_repeated_turn_end_replaces_the_turn_instead_of_counting_twice(tmp_path):
    from helpers.builders import ledger_line

    llm = {"opId": "o1", "opIndex": 1, "kind": "llm", "status": "ok",
           "accounting": {"tokensIn": 10, "tokensOut": 1, "costUsd": 0.5}}
    tool = {"opId": "o2", "opIndex": 2, "kind": "tool", "status": "ok"}
    end = ledger_line("turn_end", 3, "s1", turn=1, status="ok", ops=[llm], warnings=["slow"])
    doc = ledger_doc(tmp_path, ledger_line("session_start", 1, "s1"), ledger_line("turn_start", 2, "s1", turn=1),
                     end, end)  # the same line written twice
    root = doc.root
    assert len(root.turns[0].ops) == 1
    assert root.counts.ops == 1 and root.counts.llm == 1 and root.counts.warnings == 1
    assert root.totals.tokensIn == 10 and root.totals.costUsd == 0.5
    # a turn first reported running, then ended: the last record describes it
    doc = ledger_doc(tmp_path, ledger_line("session_start", 1, "s1"), ledger_line("turn_start", 2, "s1", turn=1),
                     ledger_line("turn_end", 3, "s1", turn=1, status="running", ops=[llm]),
                     ledger_line("turn_end", 4, "s1", turn=1, status="ok", ops=[llm, tool]))
    root = doc.root
    assert [o.op_id for o in root.turns[0].ops] == ["o1", "o2"] and root.turns[0].status == "ok"
    assert root.counts.ops == 2 and root.totals.tokensIn == 10 and root.totals.toolsRun == 1


def replayed(doc, **kwargs):
    import orjson

    from tui.formats.aiagent.live.hub import LiveHub
    from tui.formats.aiagent.replay import replay_events

    hub = LiveHub()
    for _, event in replay_events(doc, **kwargs):
        hub.feed(orjson.dumps(event))
    return hub


def test_replay_of_a_tree_with_only_v2_steps_keeps_them_steps():
    steps = [{"id": "s1", "index": 1, "kind": "user", "startedAt": 1000, "endedAt": 3000,
              "ops": [op("llm", logs=[{"timestamp": 1500, "severity": "WRN", "message": "w", "path": "S1-1"}])]}]
    tree = session(steps=steps)
    del tree["turns"]
    doc = from_object({"version": 2, "opTree": tree}, "steps.json")
    hub = replayed(doc)
    built = hub.build(hub.roots()[0])
    assert built.counts.as_dict() == doc.root.counts.as_dict()
    assert built.counts.steps == 1 and built.counts.turns == 0 and built.counts.warnings == 1


def test_replay_of_a_damaged_tree_never_raises():
    tree = session(
        turn(1, op("llm", logs=True), op("tool", accounting=7), "not an op"),
        {"index": 2, "startedAt": 1000, "ops": 5},
        {"index": 3, "startedAt": 1000, "ops": [dict(op("llm"), attributes=1.5)]},
    )
    doc = from_object({"opTree": tree}, "damaged.json")
    hub = replayed(doc, max_tree_events=3)
    assert hub.malformed == 0
    assert hub.build(hub.roots()[0]).counts.as_dict() == doc.root.counts.as_dict()
    turns_not_a_list = from_object({"opTree": session(turns=7)}, "damaged.json")
    hub = replayed(turns_not_a_list)
    assert hub.build(hub.roots()[0]).problems == ["turns is number, expected an array"]


def test_replay_of_a_tree_with_token_counts_of_wrong_types():
    from tui.formats.aiagent.snapshot_totals import compute_totals

    weird = {"type": "llm", "costUsd": 0.5, "timestamp": 1500,
             "tokens": {"inputTokens": [1], "outputTokens": "12", "cacheReadInputTokens": {"n": 1},
                        "cacheWriteInputTokens": True}}
    good = {"type": "llm", "costUsd": 0.25, "timestamp": 1600, "tokens": {"inputTokens": 3, "outputTokens": 2.0}}
    tree = session(turn(1, op("llm", accounting=[weird, good]), op("llm", started=4000, ended=4500)))
    assert compute_totals(tree)["tokensIn"] == 3 and compute_totals(tree)["tokensOut"] == 2
    doc = from_object({"opTree": tree}, "weird-tokens.json")
    hub = replayed(doc, max_tree_events=5)
    built = hub.build(hub.roots()[0])
    assert built.totals.as_dict() == doc.root.totals.as_dict()
    assert built.totals.tokensIn == 3 and built.totals.costUsd == 0.75


async def test_replay_sends_a_tree_nested_deeper_than_orjson_writes(tmp_path):
    import asyncio
    import tempfile
    from pathlib import Path

    import orjson

    from tui.formats.aiagent.replay import send_events

    deep: object = 1
    for _ in range(300):  # orjson reads 1024 levels but writes only 255
        deep = [deep]
    tree = session(turn(1, op("tool", payload=deep)))
    doc = from_object({"opTree": tree}, "deep.json")
    received: list[bytes] = []

    async def handler(reader, writer):
        received.extend(line for line in (await reader.read()).split(b"\n") if line)
        writer.close()

    with tempfile.TemporaryDirectory(prefix="aim-") as d:
        path = Path(d) / "s.sock"
        server = await asyncio.start_unix_server(handler, path=str(path))
        async with server:
            from tui.formats.aiagent.replay import replay_events

            events = replay_events(doc, max_tree_events=2)
            assert await asyncio.wait_for(send_events(events, f"unix:{path}", speed=0), 30) == len(events)
            await asyncio.sleep(0.2)
    assert len(received) == len(events)
    last = orjson.loads(received[-1])
    assert last["type"] == "op_tree" and last["tree"]["turns"][0]["ops"][0]["attributes"]["payload"] == deep


def test_session_dict_round_trip_keeps_logs_steps_turn_status_and_payload_refs(tmp_path):
    import orjson
    from helpers.builders import ledger_line

    from tui.model.session_dicts import session_node

    steps = [{"id": "s1", "index": 1, "kind": "advisors", "ops": [op("tool")]}]
    tree = session(turn(0, op("llm", logs=[{"severity": "ERR", "message": "x", "timestamp": 1}]), system=True),
                   steps=steps)
    doc = from_object({"opTree": tree}, "tree.json")
    again = from_object(orjson.loads(orjson.dumps(session_node(doc.root))), "again").root
    assert again.counts.as_dict() == doc.root.counts.as_dict()
    assert [t.title for t in again.turns] == ["Turn 0 (init)", "Step 1 (advisors)"]

    refs = [{"kind": "llm_request", "path": "payloads/s1/turn-0001/llm-0001-request.http.gz", "format": "http"}]
    failed_op = {"opId": "o1", "opIndex": 1, "kind": "llm", "status": "failed", "payloadRefs": refs}
    ledger = ledger_doc(tmp_path, ledger_line("session_start", 1, "s1"), ledger_line("turn_start", 2, "s1", turn=1),
                        ledger_line("turn_end", 3, "s1", turn=1, status="failed", ops=[failed_op]))
    first = session_node(ledger.root)
    again = from_object(orjson.loads(orjson.dumps(first)), "again").root
    assert again.turns[0].status == "failed" and again.turns[0].ops[0].payload_refs == refs
    assert session_node(again) == first


def test_a_tree_event_without_a_tree_is_refused_not_also_counted_as_received():
    from tui.formats.aiagent.live.hub import LiveHub

    hub = LiveHub()
    hub.feed(b'{"type": "op_tree", "tree": 5, "meta": {"sessionId": "a", "sequence": 1}}')
    hub.feed(b'{"type": "snapshot", "payload": {"snapshot": {"opTree": []}}, "meta": {"sessionId": "b"}}')
    assert hub.malformed == 2 and hub.events == 0
    assert hub.sessions == {} and hub.roots() == []


def test_session_dict_keeps_the_accounting_entries_so_the_rounded_cost_survives():
    import orjson

    from helpers.builders import llm_acc
    from tui.model.session_dicts import session_node

    # in entry order these add up to 1.3907500000000002 (1.3908); summed per op first, to 1.39075 (1.3907)
    costs = [0.09386, 0.02835, 0.83577, 0.43277]
    tree = session(turn(1, op("llm", accounting=[llm_acc(1, 1, cost=c) for c in costs[:2]]),
                        op("llm", accounting=[llm_acc(1, 1, cost=c) for c in costs[2:]])))
    doc = from_object({"opTree": tree}, "cost.json")
    again = from_object(orjson.loads(orjson.dumps(session_node(doc.root))), "again").root
    assert again.totals.as_dict() == doc.root.totals.as_dict()


def test_replayed_trees_carry_totals_summed_in_the_producers_order():
    from helpers.builders import llm_acc
    from tui.formats.aiagent.snapshot_totals import compute_totals

    # depth first in op order these add up to 1.2642499999999999 (1.2642); the child's cost added after the
    # parent's last op gives 1.26425 (1.2643)
    child = session(turn(1, op("llm", accounting=[llm_acc(cost=0.4204)])), agent="kid", trace="kid")
    tree = session(turn(1, op("llm", accounting=[llm_acc(cost=0.25098)]), op("session", child=child),
                        op("llm", accounting=[llm_acc(cost=0.25018), llm_acc(cost=0.34269)])))
    assert compute_totals(tree)["costUsd"] == from_object({"opTree": tree}, "t").root.totals.cost == 1.2642


def test_a_payload_nested_too_deep_to_write_is_a_payload_error_not_a_crash():
    import sys

    import orjson
    import pytest

    from tui.formats.load import load_bytes
    from tui.payloads.op_captures import PayloadError, decode_with_notes, op_captures

    deep = b"[" * 1000 + b"]" * 1000  # orjson reads 1,024 levels but writes 255; the stdlib recurses per level
    tree = session(turn(1, op("tool", marker=1)))
    data = orjson.dumps({"opTree": tree}).replace(b'"marker":1}', b'"marker":1},"request":{"payload":' + deep + b"}")
    doc = load_bytes(data, "deep-payload.json")
    capture = op_captures(doc.root.turns[0].ops[0])[0]
    assert capture.state == "plain"
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # the default: pytest may run with more
    try:
        with pytest.raises(PayloadError, match="nested too deeply"):
            decode_with_notes(capture, None)
    finally:
        sys.setrecursionlimit(before)


def test_sse_events_nested_deeper_than_orjson_writes_still_reassemble():
    from tui.payloads.decode import decode_bytes

    deep = "[" * 300 + "]" * 300
    body = ("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            "{\"type\":\"tool_use\",\"name\":\"t\",\"input\":{\"a\":%s}}}\n\n"
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
            "\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\n\n"
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"x\":%s}}\n\n") % (deep, deep)
    view = decode_bytes(body.encode(), "sse")
    assert view.kind == "sse" and not any("internal decoder error" in n for n in view.notes)
    assert view.reassembled.text == "hello" and len(view.reassembled.errors) == 1
    assert view.reassembled.tool_calls[0].name == "t"


def test_numbers_past_64_bits_are_not_times_and_still_dump(tmp_path):
    """orjson reads 123456789012345678901234567890 as 1.2e29: int() of that made `dump --json` fail to write a
    startedAt, and two 2**64-1 token counts summed past what orjson writes."""
    import gzip
    import json
    import subprocess
    import sys

    from helpers.builders import llm_acc

    huge = 2**64 - 1
    tree = session(turn(1, op("llm", op_id="a", accounting=[llm_acc(huge, 1)]),
                        op("llm", op_id="b", accounting=[llm_acc(huge, 1)])))
    text = json.dumps({"version": 1, "reason": "final", "opTree": tree})
    text = text.replace('"startedAt": 1000, "turns"', '"startedAt": 123456789012345678901234567890, "turns"', 1)
    path = tmp_path / "s.json.gz"
    path.write_bytes(gzip.compress(text.encode()))
    root = from_object(json.loads(text.replace("123456789012345678901234567890", "1.2345678901234568e+29")),
                       "s").root
    assert root.started_at is None and any("startedAt" in p for p in root.problems)
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["root"]["startedAt"] is None
    assert out["totals"]["tokensIn"] == 2 * huge
