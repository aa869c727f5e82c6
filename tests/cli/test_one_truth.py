"""One session, one truth: on files the real ai-agent wrote (tests/fixtures/aiagent-real), every view says the same
status, duration, turns, totals and cost as tui.model.session_facts: the browser row (from the tree and from the
sessions index's facts reader), `dump --json`, `export --format json`, the Markdown export and `diff`."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from helpers.cli_inproc import run_main
from tui.catalog.index.indexer import index_file
from tui.catalog.session_row import RowKind, fill_row, row_from_entry
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.aiagent.replay import replay_events
from tui.formats.load import load
from tui.model.session_facts import duration_text, session_facts

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "aiagent-real"
SNAPSHOTS = sorted(REAL.glob("*/sessions/*.json.gz"))


def cli(*args: str) -> bytes:
    """The command in this process (tests/helpers/cli_inproc.py; tests/cli/test_cli_*.py run each in a subprocess)."""
    result = run_main(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_fixtures_are_there():
    assert {p.parent.parent.name for p in SNAPSHOTS} >= {"master", "flaky", "killed"}


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.parent.parent.name)
def test_every_view_says_what_the_facts_say(path: Path):
    root = load(str(path)).root
    assert root is not None
    facts = session_facts(root)
    stat = path.stat()
    row = fill_row(row_from_entry(path, stat.st_mtime, stat.st_size, RowKind.SNAPSHOT))
    indexed = index_file(str(path), RowKind.SNAPSHOT)  # the sessions index: its facts reader, no tree
    for status, duration, turns, cost in ((row.status, row.duration_ms, row.turns, row.cost),
                                          (indexed["status"], indexed["duration_ms"], indexed["turns"],
                                           indexed["cost_usd"])):
        assert (status, duration, turns, cost) == (facts.status, facts.duration_ms, facts.turns, facts.cost)

    dumped = orjson.loads(cli("dump", "--json", str(path)))
    assert dumped["facts"] == facts.as_dict()
    assert dumped["counts"]["turns"] == facts.turns and dumped["counts"]["turnNodes"] == facts.turn_nodes
    assert dumped["totals"] == facts.totals.as_dict()

    exported = orjson.loads(cli("export", "--format", "json", str(path)))["session"]
    assert (exported["status"], exported["durationMs"], exported["durationPartial"], exported["userTurns"],
            exported["costUsd"], exported["counts"]["turns"]) == (
        facts.status, facts.duration_ms, facts.partial, facts.turns, facts.cost, facts.turns)

    markdown = cli("export", str(path)).decode()
    assert f"| **Duration** | {duration_text(facts.duration_ms, facts.partial)} |" in markdown
    assert f"| **User turns** | {facts.turns} |" in markdown

    diffed = orjson.loads(cli("diff", "--json", str(path), str(path)))
    before = diffed["before"]
    assert (before["status"], before["durationMs"], before["counts"]["turns"]) == (
        facts.status, facts.duration_ms, facts.turns)


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.parent.parent.name)
def test_the_live_door_gives_the_same_facts(path: Path):
    """The same session replayed as ai-agent's onEvent stream (op_tree, log, accounting events) into a live hub."""
    doc = load(str(path))
    events = replay_events(doc)
    hub = LiveHub()
    for _, event in events:
        hub.feed(orjson.dumps(event))
    [root_id] = hub.roots()
    live = session_facts(hub.build(root_id))
    want = session_facts(doc.root)
    assert (live.status, live.duration_ms, live.partial, live.turns, live.turn_nodes, live.cost, live.failed_ops) == (
        want.status, want.duration_ms, want.partial, want.turns, want.turn_nodes, want.cost, want.failed_ops)
    assert live.totals == want.totals


def test_a_killed_session_lasts_up_to_its_last_activity_not_up_to_now():
    """The real producer killed after a sub-agent finished: its last snapshot has no endedAt and no success."""
    [path] = (REAL / "killed" / "sessions").glob("*.json.gz")
    root = load(str(path)).root
    assert root is not None and root.ended_at is None
    facts = session_facts(root)
    newest_op = max(t for op in _ops(root) for t in (op.started_at, op.ended_at) if t is not None)
    assert facts.status == "running" and facts.partial
    assert facts.duration_ms == newest_op - root.started_at  # a second or so, not "start to now" (a year on)
    assert facts.duration_ms < 60_000
    text = cli("dump", str(path)).decode().splitlines()[0]
    assert f"dur={duration_text(facts.duration_ms, True)}" in text and text.count("+") >= 1


def test_a_failed_llm_op_says_why():
    """The producer writes a failed LLM op without attributes.error: its reason is its accounting entry's."""
    reasons = {}
    for run in ("master", "flaky"):
        [path] = (REAL / run / "sessions").glob("*.json.gz")
        reasons[run] = [op.error for op in _ops(load(str(path)).root) if op.failed]
        insights = orjson.loads(cli("dump", "--json", "--insights", str(path)))["insights"]
        assert [f["error"] for f in insights["failedOps"]] == reasons[run]
        assert all(re.search(re.escape(r[:30]), cli("dump", str(path)).decode()) for r in reasons[run])
    assert reasons["master"] == ["refusal:content-filter"]
    assert reasons["flaky"] and reasons["flaky"][0].startswith("400 [string_above_max_length]")


def _ops(root):
    from tui.model.search import walk_ops

    return list(walk_ops(root))
