"""A Jules or Genkit session's Turns are one number everywhere: the browser row, the totals panel, the details
and both exports. ai-agent's rule (turn 0 is the producer's init turn, not counted) must not apply to them: a Jules
session's turn 0 holds its prompt and a Genkit conversation's first turnEnd is its first turn.

Inputs written by hand: a page of Jules' `GET .../activities` and Genkit's shipped snapshot shape (snapshotId,
parentId, createdAt, event turnEnd|invocationEnd, state.messages), with a branch."""

from __future__ import annotations

import json

from tui.formats.load import load
from tui.text.export_json import export
from tui.text.export_markdown import render as markdown
from tui.model.nodes import user_turns
from tui.catalog.session_row import fill_row, row_from_entry


def _msg(role: str, text: str) -> dict:
    return {"role": role, "content": [{"text": text}]}


def _genkit(path) -> None:
    first = [_msg("user", "hi"), _msg("model", "hello")]
    second = first + [_msg("user", "more"), _msg("model", "sure")]
    other = first + [_msg("user", "instead"), _msg("model", "ok")]
    snaps = [
        {"snapshotId": "s1", "parentId": None, "createdAt": "2025-11-24T05:00:00Z", "event": "turnEnd",
         "state": {"messages": first}},
        {"snapshotId": "s2", "parentId": "s1", "createdAt": "2025-11-24T05:01:00Z", "event": "turnEnd",
         "state": {"messages": second}},
        {"snapshotId": "s3", "parentId": "s2", "createdAt": "2025-11-24T05:02:00Z", "event": "invocationEnd",
         "state": {"messages": second}},
        {"snapshotId": "s4", "parentId": "s1", "createdAt": "2025-11-24T05:03:00Z", "event": "turnEnd",
         "state": {"messages": other}},  # restored from s1: s2 and s3 are orphaned
    ]
    path.write_text(json.dumps(snaps))


def _jules(path) -> None:
    page = {"activities": [
        {"name": "sessions/9/activities/a1", "id": "a1", "createTime": "2025-11-24T05:00:00Z",
         "originator": "agent", "planGenerated": {"plan": {"id": "p", "steps": [{"id": "s", "title": "x"}]}}},
        {"name": "sessions/9/activities/a2", "id": "a2", "createTime": "2025-11-24T05:01:00Z",
         "originator": "agent", "description": "only a description"},
    ], "nextPageToken": "next"}
    path.write_text(json.dumps(page))


def _turns_everywhere(path) -> set[int]:
    doc = load(str(path))
    row = fill_row(row_from_entry(path, path.stat().st_mtime, path.stat().st_size, "snapshot"))
    md = markdown(doc.root)
    line = next(ln for ln in md.splitlines() if ln.startswith("| **User turns**"))
    return {user_turns(doc.root), row.turns, export(doc.root)["session"]["userTurns"], int(line.split("|")[2])}


def test_a_genkit_conversation_counts_its_first_turn_everywhere(tmp_path):
    path = tmp_path / "genkit.json"
    _genkit(path)
    assert _turns_everywhere(path) == {2}  # the main timeline: s1's turn and s4's turn


def test_a_jules_page_counts_its_prompt_turn_everywhere(tmp_path):
    path = tmp_path / "activities.json"
    _jules(path)
    assert _turns_everywhere(path) == {1}
