"""The live hub: trees replace, logs and accounting add until the next tree, sub-agents merge, gaps count."""

import orjson

from helpers.builders import live_event as ev, llm_acc, op, session, turn
from tui.formats.aiagent.live.hub import LiveHub


def test_logs_and_accounting_add_until_the_next_tree():
    hub = LiveHub()
    tree = session(turn(1, op("llm", accounting=[llm_acc(10, 1)])), ended=None, success=None)
    hub.feed(ev("op_tree", tree=tree, seq=1))
    hub.feed(ev("log", entry={"timestamp": 5, "severity": "ERR", "message": "x", "path": "1-1"}, seq=2))
    hub.feed(ev("accounting", entry=llm_acc(5, 5, cost=0.5), seq=3))
    s = hub.build("root")
    assert s.counts.errors == 1 and s.totals.tokensIn == 15 and s.totals.costUsd == 0.5
    assert s.turns[0].ops[0].errors == 1
    final = session(turn(1, op("llm", accounting=[llm_acc(10, 1), llm_acc(5, 5, cost=0.5)],
                               logs=[{"timestamp": 5, "severity": "ERR", "message": "x", "path": "1-1"}])))
    hub.feed(ev("op_tree", tree=final, seq=4))
    s = hub.build("root")
    assert s.counts.errors == 1 and s.totals.tokensIn == 15 and s.status == "ok"


def test_gaps_malformed_and_status():
    hub = LiveHub()
    hub.feed(ev("turn_started", seq=1, turn=2, attempt=1))
    hub.feed(ev("progress", seq=5, event={"type": "tool_started", "agentId": "a", "tool": {"name": "web__fetch"}}))
    hub.feed(b"not json")
    hub.feed(b"[1]")
    hub.feed(ev("nonsense"))
    live = hub.sessions["root"]
    assert live.gaps == 3 and live.events == 2 and hub.malformed == 3
    assert "web__fetch" in live.status_line
    assert hub.counters("root") == (2, 3)


def test_sub_agent_events_merge_into_the_parent_tree():
    hub = LiveHub()
    parent = session(turn(1, op("session", status=None, ended=None, name="agent__kid")), ended=None, success=None)
    hub.feed(ev("op_tree", tree=parent))
    kid = session(turn(1, op("tool"), op("llm", accounting=[llm_acc(7, 7)])), agent="kid", trace="kid")
    hub.feed(ev("op_tree", sid="kid", parent="root", tree=kid))
    assert hub.roots() == ["root"]
    s = hub.build("root")
    child = s.turns[0].ops[0].child
    assert child is not None and child.agent_id == "kid"
    assert s.totals.tokensIn == 7 and s.totals.agentsRun == 2 and s.totals.toolsRun == 1


def test_orphan_child_before_parent_groups_under_origin():
    hub = LiveHub()
    hub.feed(ev("op_tree", sid="kid", parent="root", origin="root", tree=session(turn(1, op("tool")), agent="kid")))
    assert hub.roots() == ["root"]
    built = hub.build("root")  # a placeholder for the root, the sub-agent already under it
    assert "not seen yet" in built.title and built.counts.sessions == 2
    assert built.turns[0].ops[0].child.agent_id == "kid"


# big trees: counted at once, parsed when shown -----------------------------------------------------------


def tree_frame(tree, sid="root", seq=1, **meta_fields) -> bytes:
    """An op_tree frame as producers write it: type first, meta last."""
    return orjson.dumps({"type": "op_tree", "tree": tree,
                         "meta": {"sessionId": sid, "originId": "root", "sequence": seq, **meta_fields}})


def big_session(n_ops: int, **kw) -> dict:
    logs = [{"timestamp": 1000 + i, "severity": "INF", "message": "x" * 200, "path": "1-1"} for i in range(400)]
    return session(turn(1, *(op("llm", op_id=f"o{i}", logs=logs if i == 0 else []) for i in range(n_ops))), **kw)


def test_big_tree_frames_are_parsed_only_when_shown():
    first = tree_frame(big_session(3, ended=None, success=None), seq=1)
    broken = first.replace(b'"tree":{', b'"tree":{#', 1)  # not JSON, but its type and meta read fine
    hub = LiveHub()
    hub.feed(first)
    hub.feed(broken.replace(b'"sequence":1', b'"sequence":2'))
    assert hub.events == 2 and hub.malformed == 0  # counted, not parsed: a newer tree comes before it is shown
    hub.feed(tree_frame(big_session(5, ended=None, success=None), seq=3))
    assert hub.build("root").counts.ops == 5 and hub.malformed == 0
    hub.feed(ev("log", seq=4, entry={"timestamp": 5, "severity": "ERR", "message": "after", "path": "1-1"}))
    hub.feed(broken.replace(b'"sequence":1', b'"sequence":5'))
    s = hub.build("root")
    assert hub.malformed == 1 and "malformed JSON" in hub.last_rejected  # reported when it would have been shown
    # A broken frame is not an event: not counted, its sequence number free, the log before it kept.
    assert s.counts.ops == 5 and hub.counters("root") == (4, 0) and s.counts.errors == 1
    hub.feed(tree_frame(big_session(7), seq=6))
    assert hub.build("root").status == "ok" and hub.build("root").counts.ops == 7


def test_tree_frame_meta_is_read_only_from_the_top_level_last_key():
    from tui.formats.aiagent.live.frames import tree_frame_meta as _tree_frame_meta

    tree = session(turn(1, op("llm", meta={"sessionId": "inner"})))
    assert _tree_frame_meta(tree_frame(tree, sid="s1"))["sessionId"] == "s1"
    assert _tree_frame_meta(tree_frame(tree, sid="s1").decode())["sessionId"] == "s1"  # WebSocket text
    spaced = orjson.loads(tree_frame(tree, sid="s1"))
    import json

    assert _tree_frame_meta(json.dumps(spaced))["sessionId"] == "s1"
    meta_first = orjson.dumps({"type": "op_tree", "meta": {"sessionId": "s1"}, "tree": tree})
    assert _tree_frame_meta(meta_first) is None  # the last "meta" is inside the tree: parsed whole instead
    nested = orjson.dumps({"type": "op_tree", "tree": tree, "meta": {"sessionId": "s1", "x": {"meta": {}}}})
    assert _tree_frame_meta(nested) is None
    assert _tree_frame_meta(orjson.dumps({"type": "log", "meta": {"sessionId": "s1"}})) is None
    assert _tree_frame_meta(orjson.dumps({"type": "op_tree", "tree": tree, "meta": {"sequence": 1}})) is None
    assert _tree_frame_meta(tree_frame(tree)[:-1]) is None  # cut short


def test_refused_and_cut_off_clients_are_not_malformed_frames():
    """Origin refusals, descriptor refusals and memory-budget cut-offs are clients refused, not broken frames."""
    hub = LiveHub()
    for reason in ("origin refused", "too many clients", "over memory budget", "auth refused", "duplicate"):
        hub.reject(reason, "x")
    assert hub.malformed == 0
    hub.reject("binary frame", "x")
    assert hub.malformed == 1
    assert hub.rejection_summary().index("binary frame") < hub.rejection_summary().index("origin refused")


def test_a_live_log_of_a_step_op_lands_on_it_by_its_S_path():
    """v2 step ops are `S<step>-<op>` (capital S, as the producer writes log paths): a log sent after the tree
    finds its step op instead of staying an orphan."""
    hub = LiveHub()
    tree = session(steps=[{"id": "s0", "index": 0, "kind": "internal", "ops": [op("llm")]}], ended=None, success=None)
    hub.feed(ev("op_tree", tree=tree, seq=1))
    hub.feed(ev("log", entry={"timestamp": 5, "severity": "ERR", "message": "x", "path": "S0-1"}, seq=2))
    s = hub.build("root")
    assert s.turns[0].ops[0].path == "S0-1" and s.turns[0].ops[0].errors == 1


def test_a_big_tree_is_frozen_out_of_the_collectors_reach_once_parsed_and_built():
    """A tree frame of a megabyte or more, parsed and built, is millions of containers: left in the youngest
    generation, the next young collection scanned them all (0.2-0.33 s with the interpreter held: the UI's longest
    stalls while a 20,000-op session replays). They are frozen now, as the OTLP sink's big traces are."""
    import gc

    from tui.demo import make_tree

    tree = make_tree(3, ops=2_500, depth=1, running=True)
    frame = ev("op_tree", tree=tree, seq=1)
    assert len(frame) >= 1 << 20
    hub = LiveHub()
    gc.collect()
    gc.unfreeze()
    try:
        hub.feed(frame)
        root = hub.roots()[0]
        built = hub.build(root)
        assert built.counts.ops >= 2_000
        frozen = gc.get_freeze_count()
        assert frozen >= built.counts.ops * 5, f"{frozen:,} objects frozen for {built.counts.ops:,} ops"
    finally:
        gc.unfreeze()
