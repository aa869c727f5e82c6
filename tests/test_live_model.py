"""The live hub: trees replace, logs and accounting add until the next tree, sub-agents merge, gaps count."""

from builders import live_event as ev, llm_acc, op, session, turn
from tui.model.live import LiveHub


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
