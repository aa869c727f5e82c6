"""v3 sub-agents as the producer really links them: fan-out ops, children only the session summary lists, child
ledgers without parentSessionId, v2 childSessionRef, and the fields real ledgers leave out.

Hand-written from the producer's record shapes (ai-agent src/evidence: session_start, turn_end ops[] with
childSessions[] {sessionId, originId, parentSessionId, parentOpId, ledgerPath, status, agentId?, callPath?},
session_summary {status, accounting?, childSessions[], finalReport {format, captured}}).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson

from helpers.builders import ledger_line
from tui.formats.load import load
from tui.model.insights import compute
from tui.model.nodes import Op
from tui.model.op_facts import op_facts
from tui.model.search import find_op_by_path, walk_ops
from tui.model.waterfall import Waterfall
from tui.text.ascii_tree import render
from tui.model.session_dicts import export_op
from tui.text.summary import summarise

ROOT = "aaaaaaaa-0000-0000-0000-000000000000"


def kid_id(n: int) -> str:
    return f"aaaaaaaa-0000-0000-0000-00000000000{n}"


def ref(n: int, parent_op: str = "fan", **extra) -> dict:
    """A childSessions entry as the producer writes it (agentId/callPath only when known)."""
    entry = {"sessionId": kid_id(n), "originId": ROOT, "parentSessionId": ROOT, "parentOpId": parent_op,
             "ledgerPath": f"session/{kid_id(n)}.jsonl", "status": "ok"}
    entry.update(extra)
    return entry


def write_kid(base: Path, n: int, tokens: int, *, parent: bool = True, headend: str = "sub-agent",
              cost: float | None = None) -> None:
    """A one-turn sub-agent ledger with one llm op of `tokens` tokens in (cost left out when None, as when 0)."""
    sid = kid_id(n)
    start = {"agentId": f"kid{n}", "callPath": f"cli:boss:kid{n}", "headendId": headend, "capturePayloads": True,
             "attributes": {"ledgerPath": f"session/{sid}.jsonl"}}
    if parent:
        start["parentSessionId"] = ROOT  # no parentOpId: real session_starts often lack it
    accounting = {"tokensIn": tokens, "tokensOut": 1, "tokensCacheRead": 0, "tokensCacheWrite": 0}
    if cost is not None:
        accounting["costUsd"] = cost
    (base / "session" / f"{sid}.jsonl").write_bytes(b"".join([
        ledger_line("session_start", 1, sid, ROOT, **start),
        ledger_line("turn_start", 2, sid, ROOT, turn=1),
        ledger_line("turn_end", 3, sid, ROOT, turn=1, status="ok", warnings=[], errors=[], ops=[
            {"opId": f"k{n}", "opIndex": 1, "kind": "llm", "status": "ok", "provider": "openai", "model": "gpt",
             "startedAt": "2026-05-26T11:00:02.000Z", "endedAt": "2026-05-26T11:00:03.000Z",
             "accounting": accounting}]),
        ledger_line("session_summary", 4, sid, ROOT, status="ok", finalReport={"format": "sub-agent",
                                                                              "captured": True}),
    ]))


def write_root(base: Path, ops: list[dict], summary_children: list[dict] | None = None) -> Path:
    (base / "session").mkdir(exist_ok=True)
    path = base / "session" / f"{ROOT}.jsonl"
    summary = {"status": "ok", "finalReport": {"format": "json", "captured": True}}
    if summary_children is not None:
        summary["childSessions"] = summary_children
    path.write_bytes(b"".join([
        ledger_line("session_start", 1, ROOT, agentId="boss", callPath="cli:boss", headendId="cli"),
        ledger_line("turn_start", 2, ROOT, turn=1),
        ledger_line("turn_end", 3, ROOT, turn=1, status="ok", ops=ops, warnings=[], errors=[]),  # no accounting
        ledger_line("session_summary", 4, ROOT, **summary),
    ]))
    return path


def session_op(op_id: str, index: int, children: list[dict]) -> dict:
    return {"opId": op_id, "opIndex": index, "kind": "session", "status": "ok", "name": "agent__kid",
            "startedAt": "2026-05-26T11:00:01.000Z", "endedAt": "2026-05-26T11:00:04.000Z",
            "childSessions": children}


def test_a_fan_out_op_links_every_child_into_the_tree_and_the_totals(tmp_path):
    (tmp_path / "session").mkdir()
    for n, tokens in ((1, 100), (2, 20), (3, 3)):
        write_kid(tmp_path, n, tokens, cost=0.001 * n)
    root = write_root(tmp_path, [session_op("fan", 1, [ref(1), ref(2, agentId="kid2"), ref(3)])])
    doc = load(str(root))
    ops = doc.root.turns[0].ops
    assert [op.path for op in ops] == ["1-1", "1-1#2", "1-1#3"]
    assert [op.child.id for op in ops] == [kid_id(1), kid_id(2), kid_id(3)]
    assert [(op.kind, op.op_id) for op in ops] == [("session", "fan"), ("session", "fan#2"), ("session", "fan#3")]
    assert [op.child_agent for op in ops] == ["kid1", "kid2", "kid3"]
    assert [op.name for op in ops] == ["agent__kid"] * 3  # the same tool call, whether or not an entry names an agent
    t = doc.root.totals
    assert (t.tokensIn, t.tokensOut, t.cost, t.agentsRun) == (123, 3, 0.006, 4)
    assert doc.root.counts.sessions == 4 and doc.root.max_depth == 1
    assert len(list(walk_ops(doc.root))) == doc.root.counts.ops == 6  # every node shown is counted
    assert find_op_by_path(doc.root, "1-1#3.1-1").child is None  # the third child's op, found by its path
    text = "\n".join(render(doc.root))
    assert "kid2" in text and "kid3" in text and "1-1#3" in text


def test_a_child_named_twice_is_shown_once(tmp_path):
    (tmp_path / "session").mkdir()
    write_kid(tmp_path, 1, 10)
    root = write_root(tmp_path, [session_op("fan", 1, [ref(1), ref(1)]), session_op("again", 2, [ref(1)])],
                      summary_children=[ref(1)])
    doc = load(str(root))
    assert [op.path for op in doc.root.turns[0].ops] == ["1-1", "1-2"]
    assert doc.root.totals.agentsRun == 2 and doc.root.totals.tokensIn == 10
    assert doc.root.turns[0].ops[1].child is None and doc.root.turns[0].ops[1].child_ref is None


def test_children_only_the_summary_lists_are_shown_under_their_op_or_as_orphans(tmp_path):
    (tmp_path / "session").mkdir()
    for n in (1, 2, 3, 4):
        write_kid(tmp_path, n, 10 ** (n - 1))
    ops = [session_op("fan", 1, [ref(1)]), session_op("quiet", 2, [])]
    summary = [ref(1), ref(2, "fan"), ref(3, "quiet"), ref(4, "no-such-op")]
    doc = load(str(write_root(tmp_path, ops, summary)))
    turn, orphans = doc.root.turns
    assert [(op.path, op.child.id) for op in turn.ops] == [("1-1", kid_id(1)), ("1-1#2", kid_id(2)),
                                                           ("1-2", kid_id(3))]
    assert orphans.kind == "orphans" and orphans.title == "Sub-agents not tied to an op"
    (orphan,) = orphans.ops
    assert orphan.path == "orphan-1" and orphan.child.id == kid_id(4) and orphan.name == orphan.child_agent == "kid4"
    assert orphan.started_at is not None and not orphans.running
    assert [op.path for op in orphan.child.all_ops()] == ["orphan-1.1-1"]
    assert doc.root.totals.tokensIn == 1111 and doc.root.totals.agentsRun == 5
    assert doc.root.counts.turns == 5  # the made-up turn is not a turn of the session
    out = summarise(doc)
    assert out["counts"]["sessions"] == 5 and out["counts"]["ops"] == len(list(walk_ops(doc.root)))


def test_a_child_ledger_without_parent_session_id_is_linked_through_its_parent(tmp_path):
    (tmp_path / "session").mkdir()
    write_kid(tmp_path, 1, 42, parent=False)
    doc = load(str(write_root(tmp_path, [session_op("fan", 1, [ref(1)])])))
    assert doc.root.turns[0].ops[0].child.id == kid_id(1)
    assert doc.root.totals.tokensIn == 42


def test_real_shapes_missing_fields_are_handled(tmp_path):
    """No parentOpId on session_start, no turn_end.accounting, no costUsd, entries without agentId/callPath and
    even without ledgerPath (the file is then session/<sessionId>.jsonl)."""
    (tmp_path / "session").mkdir()
    write_kid(tmp_path, 1, 5)
    write_kid(tmp_path, 2, 6)
    bare = {"sessionId": kid_id(2), "status": "ok"}
    doc = load(str(write_root(tmp_path, [session_op("fan", 1, [ref(1), bare])])))
    first, second = doc.root.turns[0].ops
    assert second.child is not None and second.child.id == kid_id(2) and second.child_agent == "kid2"
    assert doc.root.totals.costUsd == 0 and doc.root.totals.tokensIn == 11
    assert not doc.root.problems and not first.problems


def test_bad_child_entries_never_raise(tmp_path):
    (tmp_path / "session").mkdir()
    write_kid(tmp_path, 1, 5)
    entries = [ref(1), None, 7, {"ledgerPath": "../../outside.jsonl"}, {"ledgerPath": "session/\x00.jsonl"},
               {"sessionId": "a/b"}, {"ledgerPath": f"session/{ROOT}.jsonl"}]
    doc = load(str(write_root(tmp_path, [session_op("fan", 1, entries)], summary_children=[None, {"x": 1}])))
    ops = doc.root.turns[0].ops
    assert len(ops) == len(entries) and ops[0].child is not None
    problems = [op.child_ref.get("problem", "") for op in ops[1:]]
    assert "no ledgerPath" in problems[0] and "no ledgerPath" in problems[1]
    assert "escapes" in problems[2] and "NUL" in problems[3] and "no ledgerPath" in problems[4]
    assert "refers back to itself" in problems[5]
    assert len(doc.root.turns) == 1  # summary entries naming no session: nothing to show


def test_final_report_is_kept_as_an_object(tmp_path):
    (tmp_path / "session").mkdir()
    doc = load(str(write_root(tmp_path, [])))
    assert doc.root.final_report == {"format": "json", "captured": True}
    p = tmp_path / "odd.jsonl"
    p.write_bytes(ledger_line("session_start", 1, "o") + ledger_line("session_summary", 2, "o", status="ok",
                                                                       finalReport="done"))
    odd = load(str(p)).root
    assert odd.final_report is None and any("finalReport" in problem for problem in odd.problems)


def test_payload_sizes_and_ops_without_timestamps(tmp_path):
    def sized(kind: str, size: object, captured: bool = True) -> dict:
        return {"kind": kind, "format": "json", "captured": captured, "originalBytes": size}

    ops = [
        {"opId": "w", "opIndex": 1, "kind": "llm", "status": "ok", "durationMs": 1500,
         "payloadRefs": [sized("llm_request", 2000), sized("llm_response", 900), sized("sdk_request", 1800),
                         sized("sdk_response", 700), sized("reasoning_stream", 50)]},
        {"opId": "s", "opIndex": 2, "kind": "llm", "status": "ok", "startedAt": "2026-05-26T11:00:01.000Z",
         "payloadRefs": [sized("sdk_request", 10), sized("sdk_response", 20), sized("llm_request", True)]},
        {"opId": "t", "opIndex": 3, "kind": "tool", "status": "ok",
         "payloadRefs": [sized("tool_request", 30), sized("tool_response", "40"), None]},
        {"opId": "r", "opIndex": 4, "kind": "tool", "status": "running"},
        {"opId": "e", "opIndex": 5, "kind": "tool", "status": "ok", "endedAt": "2026-05-26T11:00:01.000Z"},
        {"opId": "h", "opIndex": 6, "kind": "tool", "status": "ok", "startedAt": "2026-05-26T11:00:01.000Z",
         "durationMs": 9e18},
    ]
    p = tmp_path / "sizes.jsonl"
    p.write_bytes(ledger_line("session_start", 1, "z") + ledger_line("turn_start", 2, "z", turn=1)
                  + ledger_line("turn_end", 3, "z", turn=1, status="ok", ops=ops))
    wire, sdk, tool, running, early, huge = load(str(p)).root.turns[0].ops
    assert (wire.request_bytes, wire.response_bytes) == (2000, 900)  # the wire bodies, not the SDK's too
    assert (sdk.request_bytes, sdk.response_bytes) == (10, 20)  # nothing on the wire captured: the SDK's
    assert (tool.request_bytes, tool.response_bytes) == (30, None)
    assert running.request_bytes is None and running.response_bytes is None
    end = 1_779_793_203_000  # the turn_end record's ts, 2026-05-26T11:00:03Z
    assert (wire.started_at, wire.ended_at, wire.duration_ms) == (end - 1500, end, 1500)
    assert (sdk.started_at, sdk.ended_at) == (end - 2000, end)
    assert (tool.started_at, tool.ended_at) == (end, end)
    assert running.started_at == end and running.ended_at is None and running.running
    assert early.started_at == early.ended_at == end - 2000  # never an end before the start
    assert (huge.started_at, huge.ended_at) == (end - 2000, end)  # a duration past any date: the record's time


def test_a_v2_child_session_ref_opens_the_ledger_in_the_same_sessions_directory(tmp_path):
    base = tmp_path / "sessions"
    (base / "session").mkdir(parents=True)
    write_kid(base, 1, 70, cost=0.5)
    other = tmp_path / "other"
    (other / "session").mkdir(parents=True)
    write_kid(other, 3, 1)  # a real ledger, but outside the snapshot's directory: never opened

    def op(op_id: str, ref_value: object) -> dict:
        return {"opId": op_id, "kind": "session", "startedAt": 1_779_793_201_000, "endedAt": 1_779_793_204_000,
                "status": "ok", "attributes": {"name": "agent__kid"}, "logs": [], "accounting": [],
                "childSessionRef": ref_value}

    escape = f"../other/session/{kid_id(3)}"
    tree = {"id": "snap", "traceId": ROOT, "agentId": "boss", "startedAt": 1_779_793_200_000,
            "endedAt": 1_779_793_205_000, "success": True,
            "turns": [{"id": "t1", "index": 1, "startedAt": 1_779_793_200_000, "endedAt": 1_779_793_205_000,
                       "ops": [op("a", {"sessionId": kid_id(1), "originId": ROOT, "agentId": "kid1", "status": "ok"}),
                               op("b", {"sessionId": kid_id(2), "agentId": "gone"}),
                               op("c", {"sessionId": kid_id(3), "ledgerPath": f"{escape}.jsonl"}),
                               op("d", {"sessionId": escape})]}]}
    path = base / f"{ROOT}.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps({"version": 2, "reason": "final", "opTree": tree})))
    doc = load(str(path))
    found, gone, outside_ref, sneaky = doc.root.turns[0].ops
    assert found.child is not None and found.child.id == kid_id(1) and found.child.parent_op is found
    assert [o.path for o in found.child.all_ops()] == ["1-1.1-1"]
    assert doc.root.totals.tokensIn == 70 and doc.root.totals.cost == 0.5 and doc.root.totals.agentsRun == 2
    assert doc.root.counts.sessions == 2 and doc.root.max_depth == 1
    assert gone.child is None and gone.child_ref == {"sessionId": kid_id(2), "agentId": "gone"}  # stored elsewhere
    assert outside_ref.child is None and "escapes" in outside_ref.child_ref["problem"]
    assert sneaky.child is None and "problem" not in sneaky.child_ref  # not a plain id: no file looked up
    assert "(sub-agent stored elsewhere)" in "\n".join(render(doc.root))


def test_an_op_without_any_time_is_placed_at_its_record_and_its_duration_is_unknown(tmp_path):
    """A ledger op with no startedAt, endedAt or durationMs sits at its turn_end record's time, but its duration
    is not known: dump, export and the details say `-` and `at ... (record ts)`, never a made-up 0ms."""
    ops = [{"opId": "t", "opIndex": 1, "kind": "tool", "status": "ok", "name": "read_file"},
           {"opId": "d", "opIndex": 2, "kind": "tool", "status": "ok", "name": "grep", "durationMs": 250}]
    p = tmp_path / "timeless.jsonl"
    p.write_bytes(ledger_line("session_start", 1, "z") + ledger_line("turn_start", 2, "z", turn=1)
                  + ledger_line("turn_end", 3, "z", turn=1, status="ok", ops=ops))
    doc = load(str(p))
    timeless, timed = doc.root.turns[0].ops
    end = 1_779_793_203_000  # the turn_end record's ts
    assert (timeless.started_at, timeless.ended_at) == (end, end)  # placed at the record's time
    assert timeless.duration_ms is None  # ... but how long it ran is not known
    assert timed.duration_ms == 250  # a durationMs alone is a real duration
    facts = op_facts(timeless)
    assert (facts.when, facts.when_source) == (end, "record")
    assert op_facts(timed).when_source == ""
    line = next(ln for ln in render(doc.root) if "read_file" in ln)
    assert "0ms" not in line and "(record ts)" in line
    op = export_op(timeless)
    assert op["durationMs"] is None and op["timeSource"] == "record"
    slowest = compute(doc.root).slowest  # an unknown duration is no 0ms in the insights either
    assert [s.path for s in slowest] == ["1-2"]
    wf = Waterfall(doc.root, now_ms=None)  # the waterfall draws it at the record's time, marked as guessed
    status = {row.node.path: wf.status(row) for row in wf.rows if isinstance(row.node, Op)}
    assert status == {"1-1": "inferred", "1-2": "ok"}
