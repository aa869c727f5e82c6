"""tui.model.session_facts: the one place a session's status, duration, turns and cost are derived."""

from __future__ import annotations

from helpers.builders import llm_acc, op, session, turn
from tui.formats.aiagent.snapshot import build_session
from tui.model.session_facts import duration_text, node_duration, session_facts, shown_counts


def test_an_ended_session_lasted_from_its_start_to_its_end():
    facts = session_facts(build_session(session(turn(1, op("llm")), ended=5000)))
    assert (facts.status, facts.duration_ms, facts.partial, facts.duration_text) == ("ok", 4000, False, "4.0s")


def test_a_session_without_an_end_lasted_up_to_its_newest_time_inside_never_up_to_now():
    child = session(turn(1, op("llm", started=1500, ended=None, status=None)), agent="kid", ended=None, success=None)
    child["startedAt"] = 1200
    s = build_session(session(turn(1, op("llm", started=1000, ended=2500),
                                   op("session", started=2600, ended=None, status=None, child=child)),
                              ended=None, success=None))
    facts = session_facts(s)
    assert (facts.status, facts.duration_ms, facts.partial) == ("running", 2000, True)  # its turn ends at 3000
    assert facts.duration_text == "2.0s+"
    sub_op = s.turns[0].ops[1]
    assert node_duration(sub_op) == (400, True)  # up to the sub-agent's newest time (its turn record ends at 3000)
    assert node_duration(s.turns[0].ops[0]) == (1500, False)
    assert node_duration(sub_op.child.turns[0].ops[0]) == (None, True)  # a call under way: unknown, not "now"
    assert duration_text(None, True) == "-"


def test_a_stub_child_inside_an_op_that_ended_is_not_running():
    """The producer's `tool_output` with a bad handle: `{"id": "...-stub", "turns": []}` under an op that ended."""
    stub = {"id": "call-1-stub", "turns": [], "steps": []}
    s = build_session(session(turn(1, op("session", name="tool_output", child=stub))))
    child = s.turns[0].ops[0].child
    assert child is not None and not child.running and child.status == "ok"
    assert s.status == "ok" and session_facts(child).status == "ok"
    running = build_session(session(turn(1, op("session", status=None, ended=None, child=dict(stub))),
                                     ended=None, success=None))
    assert running.turns[0].ops[0].child.running  # its op still going: it may be too


def test_turns_mean_user_turns_and_the_turn_records_have_their_own_name():
    child = session(turn(0, system=True), turn(1, op("llm")), turn(2, op("llm")), agent="kid")
    s = build_session(session(turn(0, op("system"), system=True), turn(1, op("session", child=child)),
                              turn(2, op("llm", accounting=[llm_acc(10, 5, cost=0.25)]))))
    facts = session_facts(s)
    assert (facts.turns, facts.turn_nodes) == (2, 6)
    counts = shown_counts(s)
    assert (counts["turns"], counts["turnNodes"]) == (2, 6)
    assert facts.cost == 0.25


def test_cost_is_unknown_when_the_path_records_none():
    # (ai-agent's OpenTelemetry export: no cost attribute; tui.formats.otlp.assemble marks the tree)
    s = build_session(session(turn(1, op("llm", accounting=[llm_acc(10, 5)])), attributes={"costUnknown": True}))
    assert session_facts(s).cost is None and session_facts(s).as_dict()["costUsd"] is None


def test_a_running_sessions_whole_tree_is_walked_once_per_build_and_read_ahead_off_the_ui(monkeypatch):
    """The labels, totals and details of a running session are made again at each live change and every second,
    each walking every op for its last activity: now the walk's answer is kept with the build (read_ahead: the
    live worker's thread walks it), and the answers are those of a walk done afresh."""
    from tui.demo import make_tree
    from tui.model import session_facts as facts

    raw = make_tree(4, ops=300, depth=2, fanout=2, running=True)
    fresh = build_session(raw)
    expected = (facts.last_activity(fresh), [facts.last_activity(t) for t in fresh.turns], facts.cost_unknown(fresh))
    shown = build_session(raw)
    assert shown.ended_at is None
    walks: list = []
    real = facts.walk_ops
    monkeypatch.setattr(facts, "walk_ops", lambda s: walks.append(s) or real(s))
    facts.read_ahead(shown)
    assert walks and walks[0] is shown  # the root's walk is done ahead
    counted = []
    for _ in range(5):  # what the screen asks at each change and each second
        facts.session_facts(shown)
        facts.node_duration(shown)
        [facts.node_duration(t) for t in shown.turns]
        counted.append(len(walks))
    assert counted[1:] == counted[:1] * 4, "walked again for the same build"
    got = (facts.last_activity(shown), [facts.last_activity(t) for t in shown.turns], facts.cost_unknown(shown))
    assert got == expected
