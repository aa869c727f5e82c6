"""Jules SessionSnapshot: the spec's test cases (jules-session-snapshot-spec.md section 7, cases.yaml), then the
tree the app shows, the stored-vs-recomputed checks, and hostile input.

The spec cases describe the SDK being given a session resource and its activities; here that same input is a file
(a SessionResource with `activities[]`), and the expectations are checked on what the monitor reads from it.
"""

from __future__ import annotations

import copy
import gzip
import json

import orjson
import pytest

from tui.demo.jules import make_jules_snapshot, write_jules
from tui.formats.jules import snapshot as jules
from tui.formats.load import load, load_bytes
from tui.inputs.files import LoadError
from tui.model.document import JULES
from tui.model.logs import logs_under
from tui.model.search import ErrorFilter, find
from tui.payloads.op_captures import op_captures
from tui.text.foreign_text import render
from tui.text.summary import summarise
from helpers.foreignfixtures import PAGE


def given(session: dict, activities: list | None = None) -> dict:
    """A case's `given` as a file: the session resource with its activities."""
    value = dict(session)
    if activities is not None:
        value["activities"] = activities
    return value


def doc_of(value: dict, tmp_path=None):
    return load_bytes(orjson.dumps(value), "case.json")


SESSION = {"id": "test-session", "state": "COMPLETED"}


# --- SNAP: core ------------------------------------------------------------------------------------------

def test_snap_01_all_activities_are_loaded():
    value = given({**SESSION, "createTime": "2023-01-01T09:00:00Z", "updateTime": "2023-01-01T10:00:00Z"}, [
        {"id": "act-1", "type": "planGenerated", "createTime": "2023-01-01T09:01:00Z"},
        {"id": "act-2", "type": "planApproved", "createTime": "2023-01-01T09:02:00Z"},
        {"id": "act-3", "type": "sessionCompleted", "createTime": "2023-01-01T10:00:00Z"},
    ])
    doc = doc_of(value)
    assert doc.format == JULES
    snap = doc.extra
    assert (snap.id, snap.state, len(snap.activities)) == ("test-session", "COMPLETED", 3)
    assert [op.op_id for op in doc.root.all_ops()] == ["act-1", "act-2", "act-3"]
    assert summarise(doc)["counts"]["activities"] == 3


def test_snap_02_independent_and_the_input_is_not_modified():
    value = given(SESSION, [{"id": "a1", "type": "progressUpdated", "title": "t"}])
    before = copy.deepcopy(value)
    data = orjson.dumps(value)
    a, b = load_bytes(data, "x.json"), load_bytes(data, "x.json")
    assert a is not b and a.root is not b.root and a.extra is not b.extra
    assert a.extra.activities[0] is not b.extra.activities[0]
    jules.parse(value)
    assert value == before


def test_snap_03_duration_from_create_and_update_times():
    value = given({**SESSION, "createTime": "2023-01-01T09:00:00Z", "updateTime": "2023-01-01T09:44:00Z"}, [])
    doc = doc_of(value)
    assert doc.extra.duration_ms == 2640000
    assert summarise(doc)["jules"]["durationMs"] == 2640000
    assert doc.root.duration_ms == 2640000


# --- AC: activity counts -----------------------------------------------------------------------------------

def test_ac_01_counts_map_type_to_occurrences():
    types = ["planGenerated", "planApproved", "progressUpdated", "progressUpdated", "progressUpdated",
             "sessionCompleted"]
    doc = doc_of(given(SESSION, [{"id": f"a{i}", "type": t} for i, t in enumerate(types, 1)]))
    assert doc.extra.activity_counts == {"planGenerated": 1, "planApproved": 1, "progressUpdated": 3,
                                         "sessionCompleted": 1}
    assert summarise(doc)["counts"]["byType"] == doc.extra.activity_counts


def test_ac_02_types_never_seen_are_omitted():
    doc = doc_of(given(SESSION, [{"id": "a1", "type": "planGenerated"}]))
    assert doc.extra.activity_counts == {"planGenerated": 1}
    assert len(doc.extra.activity_counts) == 1


# --- TL: timeline ------------------------------------------------------------------------------------------

def test_tl_01_one_entry_per_activity():
    doc = doc_of(given(SESSION, [
        {"id": "a1", "type": "planGenerated", "createTime": "2023-01-01T09:00:00Z"},
        {"id": "a2", "type": "planApproved", "createTime": "2023-01-01T09:01:00Z"},
    ]))
    assert len(doc.extra.timeline) == 2
    assert summarise(doc)["jules"]["timelineLength"] == 2


def test_tl_02_entry_has_time_type_and_summary():
    doc = doc_of(given(SESSION, [{"id": "a1", "type": "planGenerated", "createTime": "2023-01-01T09:00:00Z",
                                  "plan": {"steps": ["step1", "step2", "step3"]}}]))
    assert doc.extra.timeline == [{"time": "2023-01-01T09:00:00Z", "type": "planGenerated",
                                   "summary": "Plan with 3 steps"}]
    (op,) = doc.root.all_ops()
    assert op.name == "Plan with 3 steps" and op.kind == "planGenerated"
    (entry,) = logs_under(op)
    assert "Plan with 3 steps" in entry.message and entry.ts == 1672563600000


def test_tl_03_user_message_summary_is_cut_at_100_characters():
    long = ("This is a very long message that exceeds one hundred characters and should be truncated with an "
            "ellipsis at the end to keep the summary concise")
    doc = doc_of(given(SESSION, [{"id": "a1", "type": "userMessaged", "createTime": "2023-01-01T09:00:00Z",
                                  "message": long}]))
    (entry,) = doc.extra.timeline
    assert entry["type"] == "userMessaged"
    assert len(entry["summary"]) <= 110
    assert entry["summary"] == "User: " + long[:100] + "..."


@pytest.mark.parametrize("activity, summary", [
    ({"type": "planApproved"}, "Plan approved"),
    ({"type": "progressUpdated", "title": "Running tests", "description": "d"}, "Running tests"),
    ({"type": "progressUpdated", "description": "only a description"}, "only a description"),
    ({"type": "progressUpdated"}, "Progress update"),
    ({"type": "sessionCompleted"}, "Session completed"),
    ({"type": "sessionFailed", "reason": "out of quota"}, "Failed: out of quota"),
    ({"type": "sessionFailed", "error": {"message": "boom"}}, "Failed: boom"),
    ({"type": "agentMessaged", "message": "short"}, "Agent: short"),
    ({"type": "somethingNew"}, "somethingNew"),
])
def test_tl_04_summary_rules(activity, summary):
    doc = doc_of(given(SESSION, [{"id": "a1", **activity}]))
    assert doc.extra.timeline[0]["summary"] == summary


# --- INS: insights -----------------------------------------------------------------------------------------

def test_ins_01_completion_attempts():
    types = ["sessionCompleted", "userMessaged", "sessionCompleted", "userMessaged", "sessionCompleted"]
    doc = doc_of(given(SESSION, [{"id": f"a{i}", "type": t} for i, t in enumerate(types)]))
    assert doc.extra.insights.completion_attempts == 3


def test_ins_02_plan_regenerations():
    types = ["planGenerated", "planApproved", "userMessaged", "planGenerated"]
    doc = doc_of(given(SESSION, [{"id": f"a{i}", "type": t} for i, t in enumerate(types)]))
    assert doc.extra.insights.plan_regenerations == 2


def test_ins_03_user_interventions():
    doc = doc_of(given(SESSION, [
        {"id": "a1", "type": "planGenerated"},
        {"id": "a2", "type": "userMessaged", "message": "Please fix the attribution"},
        {"id": "a3", "type": "userMessaged", "message": "Wrong user ID"},
    ]))
    assert doc.extra.insights.user_interventions == 2
    # each user message is a turn of its own, after the prompt's turn
    assert [t.title for t in doc.root.turns] == ["Turn 0 (prompt)", "Turn 1 (user)", "Turn 2 (user)"]
    assert doc.root.turns[2].prompts == {"user": "Wrong user ID"}


def test_ins_04_failed_commands_are_bash_outputs_with_a_non_zero_exit_code():
    doc = doc_of(given(SESSION, [
        {"id": "a1", "type": "progressUpdated", "artifacts": [
            {"type": "bashOutput", "command": "npm test", "stdout": "1 failed", "stderr": "", "exitCode": 1}]},
        {"id": "a2", "type": "progressUpdated", "artifacts": [
            {"type": "bashOutput", "command": "ls", "stdout": "a b", "stderr": "", "exitCode": 0}]},
        {"id": "a3", "type": "progressUpdated", "artifacts": [  # REST shape: proto3 leaves a zero exit code out
            {"bashOutput": {"command": "make", "output": "ok"}}]},
        {"id": "a4", "type": "progressUpdated", "artifacts": [  # SDK shape of the same: the SDK copies the
            {"type": "bashOutput", "command": "make all", "stdout": "", "stderr": ""}]},  # undefined exitCode
        {"id": "a5", "type": "progressUpdated", "artifacts": [  # proto3 JSON: null is the field's default
            {"type": "bashOutput", "command": "true", "stdout": "", "stderr": "", "exitCode": None}]},
    ]))
    assert [a.id for a in doc.extra.insights.failed_commands] == ["a1"]
    assert summarise(doc)["counts"]["failedCommands"] == 1
    failed = [op for op in doc.root.all_ops() if op.failed]
    assert [(op.kind, op.name, op.error) for op in failed] == [("tool", "npm test", "exit 1")]
    # the command and its output are the op's payloads; in the log pane, an ERR line and the output under it
    request, response = op_captures(failed[0])
    assert (request.plain, response.plain) == ("npm test", "1 failed")
    assert [(e.severity, e.message) for e in logs_under(failed[0])] == [("ERR", "$ npm test  → exit 1"),
                                                                       ("VRB", "  1 failed")]
    make = next(op for op in doc.root.all_ops() if op.name == "make")
    assert make.status == "ok" and [e.severity for e in logs_under(make)] == ["INF", "VRB"]
    assert logs_under(make)[0].message == "$ make  → exit 0"
    assert summarise(doc)["jules"]["exitCodeOmitted"] == 3


# --- PR ----------------------------------------------------------------------------------------------------

def test_pr_01_pull_request_from_the_session_outputs():
    value = given({**SESSION, "outputs": [{"type": "pullRequest", "pullRequest": {
        "url": "https://github.com/owner/repo/pull/123", "title": "Fix the bug", "description": "This fixes the bug"}}]})
    pr = summarise(doc_of(value))["jules"]["pr"]
    assert pr["url"] == "https://github.com/owner/repo/pull/123" and pr["title"] == "Fix the bug"


def test_pr_02_no_pull_request():
    value = given({"id": "test-session", "state": "IN_PROGRESS", "outputs": [], "createTime": "2023-01-01T09:00:00Z",
                   "updateTime": "2023-01-01T09:05:00Z"})
    doc = doc_of(value)
    assert summarise(doc)["jules"]["pr"] is None
    assert doc.root.success is None and not doc.root.running  # snapshotted while going: no wall clock


# --- SER: serialisation ------------------------------------------------------------------------------------

def test_ser_01_plain_object_with_iso_times():
    doc = doc_of(given({**SESSION, "createTime": "2023-01-01T09:00:00Z", "updateTime": "2023-01-01T10:00:00Z"},
                       [{"id": "a1", "type": "progressUpdated"}]))
    out = summarise(doc)["jules"]
    assert out["id"] == "test-session" and out["state"] == "COMPLETED"
    assert out["createdAt"] == "2023-01-01T09:00:00.000Z" and out["updatedAt"] == "2023-01-01T10:00:00.000Z"
    assert out["insights"]["failedCommandCount"] == 0  # SER-04: the count, not the activities


def test_ser_02_output_is_json_safe(tmp_path):
    snap = make_jules_snapshot(3)
    out = summarise(load(str(write_jules(tmp_path, snap))))
    assert json.loads(json.dumps(out)) == out


def test_md_01_text_dump_has_title_insights_and_timeline():
    doc = doc_of(given({**SESSION, "title": "Fix Bug"},
                       [{"id": "a1", "type": "planGenerated"}, {"id": "a2", "type": "sessionCompleted"}]))
    text = "\n".join(render(doc))
    assert "Jules session: Fix Bug" in text
    assert "Insights: completionAttempts=1" in text
    assert "Timeline:" in text and "Session completed" in text


def test_net_01_no_activities_at_all():
    doc = doc_of(given(SESSION, []))
    assert doc.extra.activities == [] and doc.extra.activity_counts == {}
    assert [t.title for t in doc.root.turns] == ["Turn 0 (prompt)"]


# --- beyond the spec's cases -------------------------------------------------------------------------------

def test_generated_snapshot_round_trips_with_no_disagreement(tmp_path):
    snap = make_jules_snapshot(1)
    doc = load(str(write_jules(tmp_path, snap, gzip=True)))
    assert doc.format == JULES and doc.extra.mismatch == [] and doc.problems == []
    assert doc.extra.activity_counts == snap["activityCounts"]
    assert doc.extra.timeline == snap["timeline"]
    out = summarise(doc)
    assert out["counts"]["failedCommands"] == snap["insights"]["failedCommandCount"] == 2
    assert out["counts"]["commands"] == 6 and out["counts"]["patches"] == 2
    assert out["root"]["success"] is True and out["jules"]["pr"]["url"].startswith("https://github.com/")


def test_stored_views_that_disagree_are_reported():
    snap = make_jules_snapshot(2)
    snap["insights"]["failedCommandCount"] = 5
    snap["activityCounts"]["planGenerated"] = 9
    snap["durationMs"] = 1
    doc = doc_of(snap)
    mismatch = doc.extra.mismatch
    assert any("failedCommandCount: stored 5, recomputed 2" in m for m in mismatch)
    assert any("activityCounts.planGenerated: stored 9" in m for m in mismatch)
    assert any(m.startswith("durationMs") for m in mismatch)
    assert summarise(doc)["jules"]["storedMismatch"] == mismatch


def test_default_to_json_without_activities_shows_the_stored_timeline():
    snap = make_jules_snapshot(4, include_activities=False)
    doc = doc_of(snap)
    assert not doc.extra.activities_included
    ops = list(doc.root.all_ops())
    assert [op.name for op in ops] == [e["summary"] for e in snap["timeline"]]
    assert doc.extra.mismatch == []  # the counts recomputed from the timeline agree with the stored ones
    out = summarise(doc)
    assert out["counts"]["commands"] is None and out["counts"]["failedCommands"] == 2  # the stored count


def test_failed_session_and_the_errors_filter():
    doc = doc_of(make_jules_snapshot(5, state="failed"))
    root = doc.root
    assert root.status == "failed" and "authentication failed" in root.error
    keep = ErrorFilter()
    bad = [op for op in root.all_ops() if keep(op)]
    assert [op.kind for op in bad] == ["tool", "tool", "tool", "sessionFailed"]
    assert find(root, "git push")[0].failed


def test_rest_shaped_activities():
    value = {"name": "sessions/42", "state": "COMPLETED", "createTime": "2023-01-01T09:00:00Z", "activities": [
        {"name": "sessions/42/activities/x1", "createTime": "2023-01-01T09:01:00Z", "originator": "agent",
         "planGenerated": {"plan": {"id": "p", "steps": [{"id": "s", "title": "Do it"}]}}},
        {"name": "sessions/42/activities/x2", "createTime": "2023-01-01T09:02:00Z", "originator": "user",
         "userMessaged": {"userMessage": "hello"}},
        {"name": "sessions/42/activities/x3", "createTime": "2023-01-01T09:03:00Z",
         "progressUpdated": {"title": "Patching"}, "artifacts": [
             {"changeSet": {"gitPatch": {"unidiffPatch": "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"}}},
             {"media": {"data": "aGVsbG8=", "mimeType": "image/png"}}]},
    ]}
    doc = doc_of(value)
    snap = doc.extra
    assert snap.id == "42" and [a.id for a in snap.activities] == ["x1", "x2", "x3"]
    assert [e["summary"] for e in snap.timeline] == ["Plan with 1 steps", "User: hello", "Patching"]
    ops = list(doc.root.all_ops())
    assert [op.kind for op in ops] == ["planGenerated", "userMessaged", "progressUpdated", "patch", "media"]
    patch = ops[3]
    assert patch.name.startswith("1 file +1 -0") and "new.txt" in patch.name
    assert op_captures(patch)[0].plain.startswith("--- /dev/null")


@pytest.mark.parametrize("mutation", [
    lambda v: v.update(activities="nope"),
    lambda v: v.update(activities=[1, None, "x", []]),
    lambda v: v.update(timeline={"a": 1}),
    lambda v: v.update(activityCounts=[1], insights="x", pr=3, createdAt=12.5, updatedAt="yesterday"),
    lambda v: v["activities"][0].update(artifacts={"x": 1}),
    lambda v: v["activities"][0].update(artifacts=[None, 3, {"type": 7}, {"bashOutput": "x"}]),
    lambda v: v["activities"][0].update(plan="steps", message=["x"], createTime=None, type=None),
    lambda v: v["activities"][2].update(artifacts=[{"type": "bashOutput", "command": None, "exitCode": "1"}]),
    lambda v: v.update(title="\x1b[31m[bold]x[/bold]", prompt="\x1b]0;pwned\x07"),
])
def test_wrong_types_anywhere_never_crash(mutation):
    value = make_jules_snapshot(6)
    mutation(value)
    doc = doc_of(value)
    out = summarise(doc)
    json.dumps(out)
    text = "\n".join(render(doc))
    assert "\x1b" not in text and "\x07" not in text
    for op in doc.root.all_ops():
        logs_under(op)
        op_captures(op)


def test_broken_inputs_give_a_clear_load_error(tmp_path):
    bad = tmp_path / "jules.json.gz"
    bad.write_bytes(gzip.compress(b'{"id": "x", "timeline": [')[:-6])
    with pytest.raises(LoadError) as exc:
        load(str(bad))
    assert "gzip" in str(exc.value) and str(bad) in str(exc.value)
    with pytest.raises(LoadError, match="not an ai-agent snapshot"):
        load_bytes(b'{"hello": 1}', "x.json")


def test_a_long_command_output_is_capped_in_the_log_pane_not_in_the_payload():
    output = "".join(f"line {i}\n" for i in range(250))
    doc = doc_of(given(SESSION, [{"id": "a1", "type": "progressUpdated", "artifacts": [
        {"type": "bashOutput", "command": "make", "stdout": output, "stderr": "", "exitCode": 0}]}]))
    command = [op for op in doc.root.all_ops() if op.kind == "tool"][0]
    entries = logs_under(command)
    assert len(entries) == 1 + 200 + 1 and entries[0].severity == "INF"
    assert entries[-1].message == "  … 50 more lines (Enter: the whole output)"
    assert op_captures(command)[1].plain == output


def test_dump_command_json_and_text(tmp_path):
    import subprocess
    import sys

    path = write_jules(tmp_path, make_jules_snapshot(1), gzip=True)
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["format"] == "jules-snapshot" and out["counts"]["failedCommands"] == 2
    assert list(out)[:7] == ["format", "root", "totals", "storedTotals", "totalsMismatch", "counts", "maxDepth"]
    text = subprocess.run([sys.executable, "-m", "tui", "dump", str(path)], capture_output=True, timeout=60)
    assert b"0-7  tool  npm test" in text.stdout and b"FAILED  (exit 1)" in text.stdout


def test_replay_refuses_other_formats(tmp_path, capsys):
    from tui.cli.replay import main

    path = write_jules(tmp_path, make_jules_snapshot(1))
    assert main([str(path), "--to", f"unix:{tmp_path}/none.sock"]) == 2
    assert "not an ai-agent session" in capsys.readouterr().err


# --- the REST API as it really answers (v1alpha, proto3 JSON: zero values left out) -------------------------

# One page of `GET https://jules.googleapis.com/v1alpha/sessions/{session}/activities`, written by hand from the
# API reference (ListActivitiesResponse, Activity, Artifact): the oneof key names, `name` instead of a type, no
# `exitCode` when a command exited 0, no `artifacts` when there are none, and an activity with no type field.


def test_an_activities_page_opens_as_a_session_of_its_activities():
    doc = doc_of(PAGE)
    assert doc.format == JULES
    snap = doc.extra
    assert snap.shape == "activitiesPage" and snap.id == "1234567" and snap.next_page_token.startswith("CiAK")
    assert snap.state == "" and snap.title == "" and snap.stored_counts is None
    assert [a.type for a in snap.activities] == ["planGenerated", "planApproved", "progressUpdated",
                                                 "progressUpdated", "activity", "progressUpdated",
                                                 "sessionCompleted"]
    ops = list(doc.root.all_ops())
    assert [(op.kind, op.name) for op in ops] == [
        ("planGenerated", "Plan with 2 steps"), ("planApproved", "Plan approved"),
        ("progressUpdated", "Running the tests"), ("tool", "npm test"), ("progressUpdated", "Linting"),
        ("tool", "npm run lint"), ("activity", "Cloned the repository into the VM"),
        ("progressUpdated", "Progress update"), ("patch", "1 file +1 -1  x.ts"),
        ("sessionCompleted", "Session completed")]
    # the command without exitCode succeeded; only the lint failed
    assert [(op.name, op.error) for op in ops if op.failed] == [("npm run lint", "exit 1")]
    assert [a.id for a in snap.insights.failed_commands] == ["pu2"]
    assert doc.root.title == "Plan generated"  # no title or prompt: the first description
    out = summarise(doc)
    assert out["counts"]["failedCommands"] == 1 and out["counts"]["commands"] == 2
    assert out["jules"]["shape"] == "activitiesPage" and out["jules"]["nextPageToken"] == PAGE["nextPageToken"]
    assert out["jules"]["exitCodeOmitted"] == 1 and out["jules"]["insights"]["failedCommandCount"] == 1
    text = "\n".join(render(doc))
    assert "one page of GET .../activities" in text and "nextPageToken=CiAK" in text
    assert "1 command without exitCode" in text


def test_an_activity_without_a_type_shows_its_description_and_originator():
    from tui.model.foreign import sections_of

    doc = doc_of(PAGE)
    op = next(op for op in doc.root.all_ops() if op.op_id == "x1")
    assert op.kind == "activity" and op.name == "Cloned the repository into the VM" and op.provider == "agent"
    assert not op.failed and not op.problems
    (entry,) = logs_under(op)
    assert entry.message == "[activity] Cloned the repository into the VM"
    sections = {s.title: s for s in sections_of(op)}
    assert sections["Description"].text == "Cloned the repository into the VM"
    facts = {f.label: f.value for f in sections["Jules activity"].fields}
    assert facts["originator"] == "agent" and "no type field" in facts["type"]
    # with neither a type nor a description: its originator, never an empty name
    bare = doc_of({"activities": [{"name": "sessions/9/activities/z", "createTime": "2025-10-01T09:00:00Z",
                                   "originator": "system"}]})
    assert [op.name for op in bare.root.all_ops()] == ["system activity"]


def test_rest_progress_keeps_its_own_description_apart_from_the_activity_description():
    from tui.model.foreign import sections_of

    doc = doc_of(PAGE)
    op = next(op for op in doc.root.all_ops() if op.op_id == "pu1" and op.kind == "progressUpdated")
    activity = op.info
    assert activity.description == "npm test in the repo root" and activity.activity_description == "Ran the tests"
    text = " ".join(f.value for s in sections_of(op) for f in s.fields) + " ".join(s.text for s in sections_of(op))
    assert "Ran the tests" in text and "npm test in the repo root" in text


def test_the_sdk_counting_a_left_out_exit_code_as_failed_is_explained_not_a_mismatch():
    # toJSON({include: [...]}) of a session whose API answer left exit code 0 out: the SDK's BashArtifact has
    # exitCode undefined (JSON.stringify drops it) and computeInsights counts it (undefined !== 0)
    value = {"id": "77", "state": "completed", "createdAt": "2025-10-01T09:00:00.000Z",
             "updatedAt": "2025-10-01T09:10:00.000Z", "durationMs": 600000, "prompt": "p", "title": "t",
             "activities": [
                 {"name": "sessions/77/activities/a", "id": "a", "type": "progressUpdated", "title": "Build",
                  "createTime": "2025-10-01T09:01:00Z", "originator": "agent", "artifacts": [
                      {"type": "bashOutput", "command": "make", "stdout": "ok", "stderr": ""}]},
                 {"name": "sessions/77/activities/b", "id": "b", "type": "sessionCompleted",
                  "createTime": "2025-10-01T09:09:00Z", "originator": "system", "artifacts": []}],
             "activityCounts": {"progressUpdated": 1, "sessionCompleted": 1},
             "timeline": [{"time": "2025-10-01T09:01:00Z", "type": "progressUpdated", "summary": "Build"},
                          {"time": "2025-10-01T09:09:00Z", "type": "sessionCompleted",
                           "summary": "Session completed"}],
             "insights": {"completionAttempts": 1, "planRegenerations": 0, "userInterventions": 0,
                          "failedCommandCount": 1}}
    doc = doc_of(value)
    snap = doc.extra
    assert snap.mismatch == [] and len(snap.notes) == 1 and "exitCode" in snap.notes[0]
    assert summarise(doc)["counts"]["failedCommands"] == 0 and summarise(doc)["jules"]["notes"] == snap.notes
    assert not any(op.failed for op in doc.root.all_ops())
    assert "note: insights.failedCommandCount: stored 1, recomputed 0" in "\n".join(render(doc))
    # a stored count that no reading explains is still a mismatch
    value["insights"]["failedCommandCount"] = 3
    assert any("failedCommandCount: stored 3" in m for m in doc_of(value).extra.mismatch)


@pytest.mark.parametrize("value", [
    {"activities": []},
    {"activities": [], "nextPageToken": "x"},
    {"activities": [{"name": "sessions/1/activities/a"}]},
    {"activities": [{"createTime": "2025-10-01T09:00:00Z", "description": "d"}]},
])
def test_page_shapes_with_almost_nothing_in_them_open(value):
    doc = doc_of(value)
    assert doc.format == JULES and doc.extra.shape == "activitiesPage"
    json.dumps(summarise(doc))
    "\n".join(render(doc))


def test_other_objects_with_activities_are_not_taken_for_a_page():
    with pytest.raises(LoadError):
        load_bytes(orjson.dumps({"activities": [{"hello": 1}], "other": 2}), "x.json")
    with pytest.raises(LoadError):
        load_bytes(orjson.dumps({"activities": "x"}), "x.json")


def test_dump_of_an_activities_page(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "activities.json"
    path.write_bytes(orjson.dumps(PAGE))
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["format"] == "jules-snapshot" and out["counts"]["failedCommands"] == 1
    assert out["jules"]["shape"] == "activitiesPage" and out["jules"]["id"] == "1234567"
    text = subprocess.run([sys.executable, "-m", "tui", "dump", str(path)], capture_output=True, timeout=60)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.decode().splitlines()
    npm = next(line for line in lines if "tool  npm test" in line)
    assert "FAILED" not in npm
    lint = next(line for line in lines if "tool  npm run lint" in line)
    assert "FAILED  (exit 1)" in lint
    assert any("activity  Cloned the repository into the VM" in line for line in lines)


def test_export_of_an_activities_page_lists_only_the_command_that_failed():
    from tui.text.export import render as export

    doc = doc_of(PAGE)
    text = export(doc.root, "markdown", source="activities.json", source_format=doc.format).decode()
    failed = text.split("### Failed ops (1)", 1)[1].split("###", 1)[0]
    assert "npm run lint" in failed and "exit 1" in failed and "npm test |" not in failed
    out = orjson.loads(export(doc.root, "json", source="activities.json", source_format=doc.format))
    ops = [op for turn in out["session"]["turns"] for op in turn["ops"]]
    assert [(op["name"], op["status"]) for op in ops if op["kind"] == "tool"] == [("npm test", "ok"),
                                                                                 ("npm run lint", "failed")]


def test_the_generator_writes_the_rest_api_shapes_too():
    from tui.demo.jules import make_jules_activities_page

    page = make_jules_activities_page(1, page_size=10)
    assert set(page) == {"activities", "nextPageToken"} and len(page["activities"]) == 10
    bash = [art["bashOutput"] for a in page["activities"] for art in a.get("artifacts", []) if "bashOutput" in art]
    assert bash and all("exitCode" not in b or b["exitCode"] != 0 for b in bash)  # zeros left out
    assert any("exitCode" not in b for b in bash) and any(b.get("exitCode") for b in bash)
    assert not any(a.get("artifacts") == [] for a in page["activities"])
    assert any(not ({"type"} | set(jules.ACTIVITY_TYPES)) & set(a) for a in page["activities"])  # an untyped one
    doc = doc_of(page)
    assert doc.extra.shape == "activitiesPage" and doc.problems == [] and doc.extra.mismatch == []
    failed = [op.name for op in doc.root.all_ops() if op.failed]
    assert failed == ["npm test"]  # the first ten activities: only the reproduction run failed
    full = doc_of(make_jules_activities_page(1))
    assert "nextPageToken" not in full.extra.raw
    assert [op.name for op in full.root.all_ops() if op.failed] == ["npm test", "npm run lint"]
    # the SDK's snapshot of such answers: exit code 0 left out, and counted as failed by the SDK itself
    sdk = make_jules_snapshot(1, api_zero_values=True)
    doc = doc_of(sdk)
    assert sdk["insights"]["failedCommandCount"] == 4 and summarise(doc)["counts"]["failedCommands"] == 2
    assert doc.extra.mismatch == [] and len(doc.extra.notes) == 1


def test_pages_saved_together_and_bare_activities_open_too():
    first = {"activities": PAGE["activities"][:3], "nextPageToken": "p2"}
    second = {"activities": PAGE["activities"][3:]}
    doc = doc_of([first, second])
    assert doc.format == JULES and doc.extra.shape == "activitiesPage" and doc.extra.next_page_token == ""
    assert len(doc.extra.activities) == 7 and summarise(doc)["counts"]["failedCommands"] == 1
    assert doc_of([first]).extra.next_page_token == "p2"
    bare = doc_of(PAGE["activities"])
    assert bare.extra.shape == "activitiesPage" and bare.extra.id == "1234567" and len(bare.extra.activities) == 7
    with pytest.raises(LoadError):
        load_bytes(orjson.dumps([{"hello": 1}]), "x.json")


def test_a_session_resource_with_its_zero_values_left_out_opens():
    # GET v1alpha/sessions/{id} early on: no outputs yet (an empty list is left out), state STATE_UNSPECIFIED
    # (the enum's zero) left out too, no title
    value = {"name": "sessions/31415", "id": "31415", "prompt": "Add a dark theme",
             "sourceContext": {"source": "sources/github/acme/shop",
                               "githubRepoContext": {"startingBranch": "main"}},
             "createTime": "2025-10-01T09:00:00Z", "updateTime": "2025-10-01T09:00:01Z"}
    doc = doc_of(value)
    assert doc.format == JULES and doc.extra.shape == "session" and doc.extra.state == ""
    assert doc.root.title == "Add a dark theme" and doc.extra.activities == []
    out = summarise(doc)
    assert out["jules"]["state"] is None and out["counts"]["failedCommands"] == 0
    "\n".join(render(doc))


def test_dump_names_an_activities_page_as_the_browser_does():
    """A page has no session title: the dump's heading uses the tree's title (the first description here), as the
    browser row and `dump --json` do, instead of "(untitled)"."""
    page = {"activities": [{"name": "sessions/1/activities/a", "id": "a", "createTime": "2025-10-01T10:00:00Z",
                            "originator": "agent", "description": "Cloned the repository"}]}
    doc = load_bytes(orjson.dumps(page), "page.json")
    assert next(iter(render(doc))) == f"Jules session: {doc.root.title}" and "Cloned the repository" in doc.root.title


def test_a_time_no_calendar_names_is_left_blank_not_none():
    """A createTime/updateTime number as_ms accepts but no calendar names (-1e14 ms: before year 1) was None in
    the session's facts, which the totals panel cannot draw (mypy's check_untyped_defs found it)."""
    doc = doc_of(given({**SESSION, "createTime": -10**14, "updateTime": -10**14}, []))
    values = [fact.value for section in doc.root.view.sections(doc.root) for fact in section.fields]
    assert values and all(isinstance(value, str) for value in values)
    assert "created=-" in "\n".join(render(doc))
