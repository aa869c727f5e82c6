"""Genkit Go session snapshots (genkit-go-session-snapshots-design.md): the chain through parentId, index and
turnIndex, event kinds, restores that orphan a branch, every input shape, and broken links."""

from __future__ import annotations

import hashlib
import json

import orjson
import pytest

from tui.demo import make_tree, write_snapshot
from tui.demo.genkit import make_genkit_snapshots, state_id, write_genkit_array, write_genkit_dir
from tui.formats.genkit import snapshot as genkit
from tui.formats.load import load, load_bytes
from tui.inputs.files import LoadError
from tui.model.document import GENKIT
from tui.model.logs import logs_under
from tui.model.search import find, walk_ops
from tui.payloads.op_captures import op_captures
from tui.text.foreign_text import render
from tui.text.summary import summarise
from helpers.foreignfixtures import M_CALL, M_HELLO, S1, S2, S3, S4, SHIPPED


def snap(sid: str, index: int, turn: int, parent: str = "", *, event=0, orphaned=False, state=None, t=0) -> dict:
    """A hand-written snapshot (independent of the generator)."""
    state = state if state is not None else {"messages": [{"role": "user", "content": [{"text": f"q{index}"}]}]}
    node = {"id": sid, "sessionId": "s1", "createdAt": f"2026-01-01T10:00:{t or index:02d}.5Z", "state": state,
            "index": index, "turnIndex": turn, "event": event}
    if parent:
        node["parentId"] = parent
    if orphaned:
        node["orphaned"] = True
    return node


def doc_of(value):
    return load_bytes(orjson.dumps(value), "snaps.json")


def ops_of(session):
    return [op for op in session.all_ops()]


def test_a_plain_chain_is_one_timeline_grouped_in_turns():
    value = [snap("a", 0, 0), snap("b", 1, 0, "a", event=1), snap("c", 2, 1, "b", event=0),
             snap("d", 3, 1, "c", event=2)]
    doc = doc_of(value)
    assert doc.format == GENKIT
    root = doc.root
    assert [t.index for t in root.turns] == [0, 1]
    assert [(op.op_id, op.kind) for op in root.all_ops()] == [
        ("a", "turnEnd"), ("b", "toolIterationEnd"), ("c", "turnEnd"), ("d", "invocationEnd")]
    out = summarise(doc)
    assert out["counts"] == {"snapshots": 4, "sessions": 1, "turns": 2, "mainTimeline": 4, "branches": 0,
                             "orphaned": 0, "events": {"turnEnd": 2, "toolIterationEnd": 1, "invocationEnd": 1}}
    assert out["genkit"]["sessions"][0]["head"] == {"id": "d", "index": 3, "turnIndex": 1}
    # an op lasts from its parent's snapshot to its own
    assert ops_of(root)[1].started_at == ops_of(root)[0].ended_at


def test_input_order_does_not_matter():
    value = [snap("c", 2, 1, "b"), snap("a", 0, 0), snap("b", 1, 0, "a")]
    assert [op.op_id for op in doc_of(value).root.all_ops()] == ["a", "b", "c"]


def test_a_restore_orphans_a_branch_shown_where_it_grew_from():
    # restore from b (index 1): c, d orphaned; the timeline continues with e, f from b
    value = [snap("a", 0, 0), snap("b", 1, 1, "a"), snap("c", 2, 2, "b", orphaned=True),
             snap("d", 3, 3, "c", orphaned=True), snap("e", 2, 2, "b", t=30), snap("f", 3, 3, "e", t=31)]
    doc = doc_of(value)
    root = doc.root
    main = [op for op in root.all_ops() if op.kind != "branch"]
    assert [op.op_id for op in main] == ["a", "b", "e", "f"]
    (branch_op,) = [op for op in root.all_ops() if op.kind == "branch"]
    assert branch_op.turn is main[1].turn and branch_op.turn.ops.index(branch_op) == 1  # right after b
    assert branch_op.child.agent_id == "orphaned branch" and "#1" in branch_op.child.title
    assert [op.op_id for op in branch_op.child.all_ops()] == ["c", "d"]
    assert branch_op.path == "1-2" and [op.path for op in branch_op.child.all_ops()] == ["1-2.2-1", "1-2.3-1"]
    assert root.max_depth == 1
    out = summarise(doc)
    assert out["counts"]["branches"] == 1 and out["counts"]["orphaned"] == 2 and out["counts"]["mainTimeline"] == 4
    assert out["genkit"]["sessions"][0]["branches"] == [
        {"from": "b", "fromIndex": 1, "snapshots": 2, "orphaned": 2, "indexes": [2, 3]}]
    # orphaned snapshots are warnings in the log pane, and searchable
    assert [(e.severity, e.message) for e in logs_under(branch_op)] == [
        ("WRN", "snapshot #2 turnEnd turn 2 c (orphaned)"), ("VRB", "  user: q2"),
        ("WRN", "snapshot #3 turnEnd turn 3 d (orphaned)"), ("VRB", "  user: q3")]
    assert [(op.kind, op.op_id) for op in find(root, "orphaned")] == [
        ("branch", ""), ("turnEnd", "c"), ("turnEnd", "d")]


def test_two_restores_give_nested_and_sibling_branches():
    value = make_genkit_snapshots(1, turns=4, restore_from=2)
    # restore again, from the first turn end: everything after it is orphaned once more
    first = next(s for s in value if s["turnIndex"] == 0 and s["event"] == 0)
    for s in value:
        if s["index"] > first["index"]:
            s["orphaned"] = True
    state = {"messages": [*first["state"]["messages"], {"role": "user", "content": [{"text": "again"}]}]}
    value.append({"id": state_id(state), "parentId": first["id"], "sessionId": first["sessionId"], "state": state,
                  "createdAt": "2026-05-17T07:00:00Z", "index": first["index"] + 1, "turnIndex": 1, "event": 0})
    doc = doc_of(value)
    g = doc.extra.sessions[0]
    assert g.head.state == state
    assert len(g.main.chain) == first["index"] + 2
    branches = g.branches
    assert len(branches) == 2  # the old main line, and inside it the first restore's branch
    top = [b for b in branches if b.origin.id == first["id"]]
    assert len(top) == 1 and sum(1 for _ in top[0].all_branches()) == 1
    assert doc.root.max_depth == 2
    assert summarise(doc)["maxDepth"] == 2


@pytest.mark.parametrize("event, name", [
    (0, "turnEnd"), (1, "toolIterationEnd"), (2, "invocationEnd"), ("turnEnd", "turnEnd"),
    ("SnapshotEventToolIterationEnd", "toolIterationEnd"), ("INVOCATION_END", "invocationEnd"),
    ("tool-iteration-end", "toolIterationEnd"), (7, "event7"), ("custom", "custom"), (None, "unknown"),
])
def test_event_kinds(event, name):
    node = snap("a", 0, 0, event=event)
    assert genkit.parse_snapshot(node).event == name


def test_generated_directory_skips_the_session_data_file(tmp_path):
    snaps = make_genkit_snapshots(2)
    folder = write_genkit_dir(tmp_path / "store", snaps)
    (folder / "notes.json").write_text('{"hello": "world"}')
    (folder / "broken.json").write_text('[{"id": ')
    doc = load(str(folder))
    assert doc.format == GENKIT and doc.shape == "directory"
    assert len(doc.extra.snapshots) == len(snaps) == 9
    assert any("notes.json: not a Genkit snapshot" in p for p in doc.problems)
    assert any(p.startswith("broken.json: invalid JSON") for p in doc.problems)
    assert not any("session-" in p for p in doc.problems)
    out = summarise(doc)
    assert out["counts"]["branches"] == 1 and out["counts"]["orphaned"] == 3
    assert out["genkit"]["files"] == 11
    # ids are content addresses of the state
    assert all(s.id == hashlib.sha256(orjson.dumps(s.state)).hexdigest() for s in doc.extra.snapshots)


@pytest.mark.parametrize("gz", [False, True])
def test_array_wrapper_and_single_object(tmp_path, gz):
    snaps = make_genkit_snapshots(3, restore_from=None, event_names=True)
    path = write_genkit_array(tmp_path / ("a.json.gz" if gz else "a.json"), snaps, gzip=gz)
    assert load(str(path)).extra.shape == "array"
    assert doc_of({"snapshots": snaps}).extra.shape == "wrapper"
    single = doc_of(snaps[0])
    assert single.extra.shape == "object" and [op.op_id for op in single.root.all_ops()] == [snaps[0]["id"]]


def test_several_sessions_become_sub_sessions_of_a_store():
    value = make_genkit_snapshots(1, session_id="one") + make_genkit_snapshots(2, session_id="two", restore_from=None)
    doc = doc_of(value)
    root = doc.root
    assert sorted(op.name for op in root.all_ops()) == ["one", "two"]  # in the order they started
    assert all(op.kind == "session" and op.child is not None for op in root.all_ops())
    assert summarise(doc)["counts"]["sessions"] == 2
    deepest = [op for op in walk_ops(root) if op.kind == "branch"]
    one = next(op for op in root.all_ops() if op.name == "one")
    assert len(deepest) == 1 and deepest[0].path.startswith(one.path + ".")
    assert deepest[0].session.parent_op is one


def test_broken_links_are_reported_not_fatal():
    value = [snap("a", 0, 0), snap("b", 1, 0, "a"), snap("x", 5, 2, "missing-parent-id"),
             snap("c1", 2, 1, "c2"), snap("c2", 3, 1, "c1"), snap("b", 1, 0, "a"), snap("self", 9, 3, "self")]
    doc = doc_of(value)
    problems = " | ".join(doc.problems)
    assert "duplicate snapshot id" in problems
    assert "name a parent that is not in the input" in problems
    assert "cycle" in problems
    ids = {op.op_id for op in walk_ops(doc.root)}
    assert {"a", "b", "x", "c1", "c2", "self"} <= ids  # every snapshot is somewhere on screen
    detached = [t for t in doc.root.turns if t.label == "detached chain"]
    assert detached and all(op.kind == "branch" for t in detached for op in t.ops)
    "\n".join(render(doc))


@pytest.mark.parametrize("mutation", [
    lambda v: v[1].update(index="3", turnIndex=-1, event=[1], createdAt=12),
    lambda v: v[1].update(state=None, parentId=5, id=None),
    lambda v: v[2].update(orphaned="yes", sessionId=None),
    lambda v: v.append(7),
    lambda v: v.append({"sessionId": "z", "index": 1}),
    lambda v: v[0]["state"].update(messages="not a list"),
    lambda v: v[0]["state"].update(messages=[None, 3, {"role": 5, "content": "x"}, {"content": [None, {"text": 1}]}]),
    lambda v: v[0].update(state="\x1b]0;pwned\x07[bold]x[/bold]"),
])
def test_wrong_types_anywhere_never_crash(mutation):
    value = make_genkit_snapshots(4)
    mutation(value)
    doc = doc_of(value)
    json.dumps(summarise(doc))
    text = "\n".join(render(doc))
    assert "\x1b" not in text and "\x07" not in text
    for op in walk_ops(doc.root):
        logs_under(op)
        op_captures(op)
    from tui.model.foreign import facts_of, sections_of
    facts_of(doc.root)
    for op in walk_ops(doc.root):
        sections_of(op)


def test_the_state_is_the_payload_and_the_parent_state_the_request():
    value = [snap("a", 0, 0, state={"n": 1}), snap("b", 1, 0, "a", state={"n": 2, "extra": True})]
    b = list(doc_of(value).root.all_ops())[1]
    request, response = op_captures(b)
    assert request.plain == {"n": 1} and response.plain == {"n": 2, "extra": True}
    assert "+extra" in b.name and "~n" in b.name


def test_empty_or_unrelated_input_is_a_load_error(tmp_path):
    with pytest.raises(LoadError, match="top level is array"):
        load_bytes(b"[]", "x.json")
    with pytest.raises(LoadError, match="top level is array"):
        load_bytes(b"[1, 2]", "x.json")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(LoadError, match="is a directory without Genkit snapshot files"):
        load(str(empty))
    (empty / "a.json").write_text('{"x": 1}')
    with pytest.raises(LoadError, match="--sessions-dir"):
        load(str(empty))
    # a sessions directory given as PATH: refused from its first files, without reading them all
    sessions = tmp_path / "sessions"
    for seed in range(3):
        write_snapshot(sessions, make_tree(seed, ops=5, depth=0), version=2)
    with pytest.raises(LoadError, match="to browse a sessions directory use --sessions-dir"):
        load(str(sessions))
    # a Genkit directory whose only snapshot comes after other JSON files
    (empty / "b.json").write_text('{"y": 2}')
    (empty / "zz.json").write_bytes(orjson.dumps(snap("a", 0, 0)))
    doc = load(str(empty))
    assert len(doc.extra.snapshots) == 1 and len(doc.problems) == 2


def test_directory_detection_is_cheap_and_exact(tmp_path):
    store = write_genkit_dir(tmp_path / "g", make_genkit_snapshots(5), gzip=True)
    assert genkit.looks_like_genkit_dir(store)
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.json").write_text('{"version": 2, "opTree": {"turns": []}}')
    assert not genkit.looks_like_genkit_dir(other)
    assert not genkit.looks_like_genkit_dir(tmp_path / "missing")
    # Go writes index and turnIndex after the state: a large state must not hide what the file is
    big = tmp_path / "big"
    big.mkdir()
    node = {"id": "a", "sessionId": "s", "createdAt": "2026-01-01T00:00:00Z", "state": {"blob": "x" * 50_000},
            "index": 0, "turnIndex": 0, "event": 0}
    (big / "a.json").write_bytes(orjson.dumps(node))
    assert genkit.looks_like_genkit_dir(big)


def test_a_snapshot_directory_is_one_row_and_its_files_report_the_directory(tmp_path):
    from watchfiles import Change

    from tui.catalog.scan import scan
    from tui.catalog.session_row import RowKind, fill_row
    from tui.inputs.watch import classify

    sessions = tmp_path / "sessions"
    store = write_genkit_dir(sessions / "chat", make_genkit_snapshots(6))
    (sessions / "payloads" / "x").mkdir(parents=True)
    (sessions / "payloads" / "x" / "a.json").write_text('{"sessionId": "s", "turnIndex": 0, "state": {}}')
    (sessions / "notes").mkdir()
    (sessions / "notes" / "a.json").write_text('{"hello": 1}')
    rows = scan(sessions)
    assert [(r.kind, r.session_id) for r in rows] == [("genkit", "chat")]
    row = fill_row(rows[0])
    assert not row.broken and row.kind == RowKind.GENKIT and row.turns == 5 and row.cost is None
    file = store / "new.json"
    batch = classify({(Change.added, str(file)), (Change.added, str(sessions / "payloads" / "x" / "b.json")),
                      (Change.added, str(store / "x.json.tmp-1-2"))}, sessions)
    assert batch.updated == {store} and not batch.removed


def test_the_log_pane_reads_as_the_conversation():
    snaps = make_genkit_snapshots(7, restore_from=None, turns=2)
    doc = doc_of(snaps)
    lines = [e.message for e in logs_under(doc.root) if e.severity == "VRB"]
    expected = [f"  {m['role']}: " for m in snaps[-1]["state"]["messages"]]
    assert [line[:len(p)] for line, p in zip(lines, expected)] == expected and len(lines) == len(expected)


def test_dump_command_on_a_directory(tmp_path):
    import subprocess
    import sys

    folder = write_genkit_dir(tmp_path / "store", make_genkit_snapshots(2))
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(folder)], capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["format"] == "genkit-snapshots"
    assert out["counts"] == {"snapshots": 9, "sessions": 1, "turns": 5, "mainTimeline": 6, "branches": 1,
                             "orphaned": 3, "events": {"turnEnd": 6, "invocationEnd": 2, "toolIterationEnd": 1}}
    text = subprocess.run([sys.executable, "-m", "tui", "dump", str(folder)], capture_output=True, timeout=60)
    assert b"branch  3 snapshots #3" in text.stdout and b"orphaned branch: restored from #2" in text.stdout


# --- the shape Genkit's Go code shipped (go/ai/x, aix.SessionSnapshot) ---------------------------------------

# Written by hand from the Go structs: SessionSnapshot{SnapshotID `snapshotId`, ParentID `parentId,omitempty`,
# CreatedAt `createdAt` (RFC 3339 with nanoseconds), Event `event` ("turnEnd" | "invocationEnd"), State `state`},
# SessionState{Messages `messages,omitempty`, Custom `custom,omitempty`, ...}, ai.Message{content, metadata, role}
# and its parts ({text}, {reasoning}, {toolRequest: {input, name, ref}}, {toolResponse: {name, output, ref}}).
# Invocation 1: two turns (the second calls a tool), then an invocationEnd because the flow changed its custom
# state after the last turn. After saving a snapshot, SessionRunner.maybeSnapshot writes its id into the live
# state's last message (`metadata.snapshotId`): the next snapshot carries it on that earlier message. Invocation 2 resumes from the first snapshot (WithSnapshotID): its turn gives that
# snapshot a second child, so the first invocation's later snapshots are off the line to the newest one.


def test_the_shipped_shape_opens_as_an_array_with_chain_turns_and_branch_derived():
    doc = doc_of(SHIPPED)
    assert doc.format == GENKIT and doc.extra.snapshot_shape == "shipped"
    (g,) = doc.extra.sessions
    assert g.session_id == "" and g.root_id == S1 and g.name == "conversation 0b0d5c6e"
    assert [s.id for s in g.main.chain] == [S1, S4]  # the line to the newest snapshot
    (branch,) = g.branches
    assert branch.origin.id == S1 and [s.id for s in branch.chain] == [S2, S3]
    by_id = {s.id: s for s in g.snapshots}
    assert [(by_id[i].index, by_id[i].turn_index, by_id[i].orphaned) for i in (S1, S2, S3, S4)] == [
        (0, 0, False), (1, 1, True), (2, 1, True), (3, 1, False)]
    out = summarise(doc)
    assert out["counts"] == {"snapshots": 4, "sessions": 1, "turns": 2, "mainTimeline": 2, "branches": 1,
                             "orphaned": 2, "events": {"turnEnd": 3, "invocationEnd": 1}}
    session = out["genkit"]["sessions"][0]
    assert session["head"] == {"id": S4, "index": 3, "turnIndex": 1} and session["derived"] is True
    assert session["rootSnapshotId"] == S1 and session["sessionId"] == ""
    assert out["genkit"]["snapshotShape"] == "shipped"
    assert session["branches"] == [{"from": S1, "fromIndex": 0, "snapshots": 2, "orphaned": 2, "indexes": [1, 2]}]
    # the tree: two turns on the main line, the branch right after the snapshot it grew from
    root = doc.root
    assert root.id == S1 and root.title == "hi"
    assert [[(op.kind, op.op_id) for op in t.ops] for t in root.turns] == [
        [("turnEnd", S1), ("branch", "")], [("turnEnd", S4)]]
    assert root.turns[1].prompts == {"user": "Tell me about channels instead."}
    branch_op = root.turns[0].ops[1]
    assert [[op.op_id for op in t.ops] for t in branch_op.child.turns] == [[S2, S3]]  # invocationEnd joins the turn
    assert branch_op.child.turns[0].prompts == {"user": "What's the weather in Lisbon?"}


def test_the_shipped_state_messages_are_shown_with_tool_requests_and_responses():
    from tui.model.foreign import sections_of

    doc = doc_of(SHIPPED)
    s2 = next(op for op in walk_ops(doc.root) if op.op_id == S2)
    sections = {sec.title: sec for sec in sections_of(s2)}
    added = sections["Messages added (4)"].text.splitlines()
    assert added == ["user: What's the weather in Lisbon?",
                     'model: [tool request getWeather #call-1 {"city":"Lisbon"}]',
                     'tool: [tool response getWeather #call-1 {"tempC":21}]',
                     "model: 21 °C and clear."]
    facts = {f.label: f.value for f in sections["Genkit snapshot"].fields}
    assert facts["snapshotId"] == S2 and facts["parentId"] == S1 and facts["event"] == "turnEnd"
    assert facts["orphaned"].startswith("yes") and "derived" in facts["index"] and "derived" in facts["turn"]
    assert "content id" not in facts  # a UUID, not a content address
    # the log pane reads as the conversation; reasoning kept apart from the text
    first = next(op for op in walk_ops(doc.root) if op.op_id == S1)
    assert [e.message for e in logs_under(first)] == [
        f"snapshot #0 turnEnd turn 0 {S1[:8]}", "  user: hi", "  model: [reasoning] greet back Hello! How can I help?"]
    # the state is the payload, the parent's state the request
    request, response = op_captures(s2)
    assert response.plain["messages"][3] == M_CALL and request.plain == SHIPPED[0]["state"]
    s3 = next(op for op in walk_ops(doc.root) if op.op_id == S3)
    assert "+custom" in s3.name
    # the snapshotId the runner writes into an earlier message afterwards is not a new message
    assert "Messages added" not in " ".join(sec.title for sec in sections_of(s3))


def test_the_shipped_shape_opens_as_a_directory_of_snapshot_files(tmp_path):
    folder = tmp_path / "flow-store"
    folder.mkdir()
    for node in SHIPPED:
        (folder / f"{node['snapshotId']}.json").write_bytes(orjson.dumps(node))
    assert genkit.looks_like_genkit_dir(folder)
    doc = load(str(folder))
    assert doc.format == GENKIT and doc.shape == "directory" and doc.problems == []
    out = summarise(doc)
    assert out["counts"]["branches"] == 1 and out["counts"]["turns"] == 2 and out["counts"]["orphaned"] == 2
    # a state larger than the detection's head: snapshotId and createdAt come first in Go's field order
    big = tmp_path / "big"
    big.mkdir()
    node = {"snapshotId": S1, "createdAt": "2026-04-21T09:45:28Z", "event": "turnEnd",
            "state": {"messages": [{"content": [{"text": "x" * 50_000}], "role": "user"}]}}
    (big / "a.json").write_bytes(orjson.dumps(node))
    assert genkit.looks_like_genkit_dir(big)


def test_separate_shipped_conversations_are_separate_sessions():
    other = [{"snapshotId": "f1", "createdAt": "2026-04-22T08:00:00Z", "event": "turnEnd",
              "state": {"messages": [{"content": [{"text": "second chat"}], "role": "user"}]}},
             {"snapshotId": "f2", "parentId": "f1", "createdAt": "2026-04-22T08:00:05Z", "event": "invocationEnd",
              "state": {"messages": [{"content": [{"text": "second chat"}], "role": "user"}], "custom": {"n": 1}}}]
    doc = doc_of(SHIPPED + other)
    assert [g.name for g in doc.extra.sessions] == ["conversation 0b0d5c6e", "conversation f1"]
    assert [op.name for op in doc.root.all_ops()] == ["conversation 0b0d5c6e", "conversation f1"]
    second = doc.extra.sessions[1]
    assert [(s.index, s.turn_index, s.orphaned) for s in second.snapshots] == [(0, 0, False), (1, 0, False)]
    assert summarise(doc)["counts"]["sessions"] == 2 and summarise(doc)["counts"]["branches"] == 1


def test_an_invocation_end_on_its_own_closes_a_turn_and_an_error_status_fails_the_snapshot():
    value = [{"snapshotId": "a", "createdAt": "2026-04-21T10:00:00Z", "event": "invocationEnd", "state": {}},
             {"snapshotId": "b", "parentId": "a", "createdAt": "2026-04-21T10:01:00Z", "event": "turnEnd",
              "state": {"messages": [{"content": [{"text": "q"}], "role": "user"}]}},
             {"snapshotId": "c", "parentId": "b", "createdAt": "2026-04-21T10:02:00Z", "event": "invocationEnd",
              "status": "error", "error": "model quota exhausted", "state": {}}]
    doc = doc_of(value)
    assert [s.turn_index for s in doc.extra.sessions[0].main.chain] == [0, 1, 1]
    failed = [op for op in doc.root.all_ops() if op.failed]
    assert [(op.op_id, op.error) for op in failed] == [("c", "model quota exhausted")]
    assert logs_under(failed[0])[0].severity == "ERR"


def test_a_session_flow_output_is_not_a_snapshot():
    # SessionFlowOutput {artifacts, message, snapshotId, state}: a snapshotId and a state but no createdAt
    with pytest.raises(LoadError):
        load_bytes(orjson.dumps({"snapshotId": S1, "state": {"messages": []}, "message": M_HELLO}), "out.json")
    assert not genkit.looks_like_genkit([{"snapshotId": S1, "state": {}}])


@pytest.mark.parametrize("mutation", [
    lambda v: v[1].update(snapshotId=None, parentId=7, createdAt="soon"),
    lambda v: v[2].update(event=3, state="x", status=["error"], error={"m": 1}),
    lambda v: v[0]["state"].update(messages=[{"content": [None, {"toolRequest": "x"}, {"media": {"url": 5}},
                                                          {"data": {"a": 1}}, {"custom": None}]}]),
    lambda v: v.append({"snapshotId": S2, "parentId": S1, "createdAt": "2026-04-21T17:00:00Z", "event": "turnEnd"}),
    lambda v: v[0].update(parentId=S4),  # a cycle
])
def test_shipped_shape_with_wrong_values_never_crashes(mutation):
    from tui.model.foreign import facts_of, sections_of

    value = json.loads(json.dumps(SHIPPED))
    mutation(value)
    doc = doc_of(value)
    json.dumps(summarise(doc))
    "\n".join(render(doc))
    facts_of(doc.root)
    for op in walk_ops(doc.root):
        logs_under(op)
        op_captures(op)
        sections_of(op)


def test_dump_of_the_shipped_shape(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "snapshots.json"
    path.write_bytes(orjson.dumps(SHIPPED))
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["format"] == "genkit-snapshots" and out["counts"]["turns"] == 2 and out["counts"]["branches"] == 1
    text = subprocess.run([sys.executable, "-m", "tui", "dump", str(path)], capture_output=True, timeout=60)
    assert text.returncode == 0, text.stderr
    out_text = text.stdout.decode()
    assert "shipped shape" in out_text and "session conversation 0b0d5c6e: 4 snapshots" in out_text
    assert "branch  2 snapshots #1–#2, 2 orphaned" in out_text


def test_export_of_the_shipped_shape_keeps_every_snapshot():
    from tui.text.export import render as export

    doc = doc_of(SHIPPED)
    out = orjson.loads(export(doc.root, "json", source="s.json", source_format=doc.format))
    ids = []
    stack = [out["session"]]
    while stack:
        session = stack.pop()
        for turn in session["turns"]:
            for op in turn["ops"]:
                ids.append(op.get("opId"))
                if op.get("childSession"):
                    stack.append(op["childSession"])
    assert {S1, S2, S3, S4} <= set(ids)
    assert out["session"]["title"] == "hi"


def test_the_generator_writes_the_shipped_shape_too(tmp_path):
    from tui.demo.genkit import make_genkit_shipped

    snaps = make_genkit_shipped(3)
    assert all(set(s) <= {"snapshotId", "parentId", "createdAt", "event", "state"} for s in snaps)
    assert {s["event"] for s in snaps} == {"turnEnd", "invocationEnd"}
    # the runner tags the last message with the snapshot's id after saving: later states carry it
    assert any(m.get("metadata", {}).get("snapshotId") == snaps[0]["snapshotId"]
               for m in snaps[1]["state"]["messages"])
    assert "metadata" not in snaps[0]["state"]["messages"][-1]
    doc = doc_of(snaps)
    assert doc.extra.snapshot_shape == "shipped" and doc.problems == []
    assert summarise(doc)["counts"] == {"snapshots": 6, "sessions": 1, "turns": 3, "mainTimeline": 3,
                                        "branches": 1, "orphaned": 3, "events": {"turnEnd": 5, "invocationEnd": 1}}
    # every turn's prompt is its own question, not the whole history
    assert [t.prompts["user"] for t in doc.root.turns] == [
        "Convert 250 USD to EUR.", "Actually, tell me about channels instead.", "When should I close a channel?"]
    folder = write_genkit_dir(tmp_path / "flow", snaps, session_data=False)
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{s['snapshotId']}.json" for s in snaps)
    assert summarise(load(str(folder)))["counts"] == summarise(doc)["counts"]


def test_a_shipped_shape_directory_is_one_browser_row(tmp_path):
    from tui.catalog.scan import scan
    from tui.catalog.session_row import fill_row

    sessions = tmp_path / "sessions"
    folder = sessions / "flow"
    folder.mkdir(parents=True)
    for node in SHIPPED:
        (folder / f"{node['snapshotId']}.json").write_bytes(orjson.dumps(node))
    rows = scan(sessions)
    assert [(r.kind, r.session_id) for r in rows] == [("genkit", "flow")]
    row = fill_row(rows[0])
    assert not row.broken and row.turns == 2
