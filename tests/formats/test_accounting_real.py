"""accounting.jsonl as the real ai-agent writes it: a sub-agent's entries come again at every ancestor's flush,
as identical lines. Each entry counts once, so the ledger's totals are the snapshot's for the same run."""

from __future__ import annotations

import shutil

import orjson
import pytest

from helpers.builders import live_event as ev
from helpers.realfixtures import WHOLE_RUNS, accounting, accounting_lines, live_events, snapshot, snapshot_entries
from tui.catalog.index.accounting_cost import read_cost
from tui.catalog.index.stats import TimeRange
from tui.formats.aiagent.accounting import EntrySet, entry_identity, summarise_accounting
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import load
from tui.text.summary import summarise

TOKENS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd")


@pytest.mark.parametrize("run", WHOLE_RUNS)
def test_the_ledger_totals_are_the_snapshots(run):
    ledger = summarise(load(str(accounting(run))))
    tree = summarise(load(str(snapshot(run))))
    assert {k: ledger["totals"][k] for k in TOKENS} == {k: tree["totals"][k] for k in TOKENS}
    assert ledger["counts"]["llm"] <= tree["counts"]["llm"]  # (a killed run's running llm ops have no entry yet)


def test_what_each_file_holds_that_the_other_does_not():
    """The ledger holds what each session flushed when it ended; the snapshot, the tree when it was last written.
    Finished runs: the same entries. The killed run: the ledger holds nothing the snapshot lacks, and the snapshot
    one tool entry more (the master's call of the refuser: the master never flushed). The handoff run: the file
    lost its master, whose two entries survive only in the ledger."""
    def ids(entries):
        return {entry_identity(x) for x in entries}

    for run in ("master", "flaky"):
        assert ids(accounting_lines(run)) == ids(snapshot_entries(run))
    killed_ledger, killed_tree = ids(accounting_lines("killed")), ids(snapshot_entries("killed"))
    extra = [x for x in snapshot_entries("killed") if entry_identity(x) not in killed_ledger]
    assert killed_ledger < killed_tree and [(x["type"], x["command"]) for x in extra] == [("tool", "agent__refuser")]
    handoff_ledger, handoff_tree = ids(accounting_lines("handoff")), ids(snapshot_entries("handoff"))
    only_ledger = [x for x in accounting_lines("handoff") if entry_identity(x) not in handoff_tree]
    assert handoff_tree < handoff_ledger and {x["callPath"] for x in only_ledger} == {"handoff"}


def test_master_counts_each_entry_once():
    out = summarise(load(str(accounting("master"))))
    assert out["counts"] == {"entries": 21, "llm": 10, "tool": 11, "failed": 1, "duplicates": 42}
    # both cache fields on every entry: 128 each, counted once (10 x 128, not 2,560)
    assert out["totals"]["tokensCacheRead"] == 1280 and out["totals"]["agentsRun"] == 6


def test_identity_is_the_whole_entry_whatever_the_key_order():
    lines = accounting_lines("master")
    tool = next(x for x in lines if x["type"] == "tool" and "txnId" not in x)  # an agent__* tool entry: no ids
    reordered = [dict(reversed(list(x.items()))) for x in lines]
    other_time = dict(tool, timestamp=tool["timestamp"] + 1)  # the same call a millisecond later: another entry
    out = summarise_accounting([*lines, *reordered, tool, other_time])
    assert out.entries == 22 and out.tool == 12 and out.duplicates == 42 + 63 + 1


def test_entry_set_takes_anything():
    deep: list = []
    for _ in range(600):  # deeper than orjson writes
        deep = [deep]
    seen = EntrySet()
    assert [seen.first(x) for x in ({"a": 1}, {"a": 1}, {"b": float("nan")}, deep, deep, 2**80, 2**80)] == \
           [True, False, True, True, False, True, False]
    bounded = EntrySet(limit=1)  # past the limit a new entry is counted, not remembered
    assert [bounded.first(x) for x in ({"a": 1}, {"a": 1}, {"b": 2}, {"b": 2})] == [True, False, True, True]
    assert len(bounded) == 3 and bounded.duplicates == 1


@pytest.mark.parametrize("run", WHOLE_RUNS)
def test_stats_cost_of_the_ledger_is_the_snapshots(run):
    cost = read_cost(accounting(run), TimeRange())
    tree = summarise(load(str(snapshot(run))))
    assert round(cost.total, 4) == tree["totals"]["costUsd"]
    assert cost.entries == summarise(load(str(accounting(run))))["counts"]["llm"]


def test_a_flush_sent_again_counts_once():
    hub = LiveHub()
    entries = accounting_lines("master")
    hub.feed(ev("accounting_flush", seq=1, payload={"sessionId": "root", "entries": entries}))
    hub.feed(ev("accounting_flush", seq=2, payload={"sessionId": "root", "entries": entries[:5]}))
    assert hub.sessions["root"].status_line == "accounting flushed (21 entries)"


def test_dump_json_cli_on_the_real_ledger(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "accounting.jsonl"
    shutil.copy(accounting("master"), path)
    done = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = orjson.loads(done.stdout)
    assert out["totals"]["tokensIn"] == 18874 and out["totals"]["costUsd"] == 0.063


def test_the_real_live_stream_the_snapshot_and_the_ledger_agree():
    """The real run's events through the live hub: one root, the snapshot's totals, the deduplicated ledger's; every
    session's flush status counts its own tree's entries once, even when its flush comes again later."""
    hub = LiveHub()
    events = live_events()
    for event in events:
        hub.feed(event)
    (root,) = {hub.root_of(sid) for sid in hub.sessions}
    built = hub.build(root).totals.as_dict()
    tree = summarise(load(str(snapshot("live"))))["totals"]
    ledger = summarise(load(str(accounting("live"))))["totals"]
    assert {k: built[k] for k in TOKENS} == {k: tree[k] for k in TOKENS} == {k: ledger[k] for k in TOKENS}
    assert hub.sessions[root].status_line == "accounting flushed (21 entries)"
    flush = next(orjson.loads(e) for e in events if b'"accounting_flush"' in e and root.encode() in e)
    flush["meta"]["sequence"] += 10_000  # the same entries in a later flush of the same session
    hub.feed(orjson.dumps(flush))
    assert hub.sessions[root].status_line == "accounting flushed (21 entries)"
