"""Property tests: generated valid and damaged snapshots, ledgers and live streams (helpers/strategies.py) against the model.

1. Loading anything never raises but LoadError, and every view of what loaded works (summary, text tree, search,
   logs, the captures of every op).
2. Totals and counts equal a naive recomputation from the spec (helpers/naive_model.py).
3. parse -> replay -> LiveHub gives what the file gives; session_node -> reload is stable.
4. A LiveHub fed a damaged stream never raises, and every frame is either taken or counted as rejected.

Profiles: the default is quick (whole file well under 30 s); HYPOTHESIS_PROFILE=thorough hunts for minutes.
Test bodies run with the app's recursion budget (see app_stack): Hypothesis itself raises the limit.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import tempfile
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import naive_model as naive
from helpers.strategies import (
    EVENT_TYPES, damaged_bytes, deep_chain, encode, extra_event, framed_stream, ledger_bytes, ledger_files, mutated,
    mutated_frames, mutated_ledger_bytes, session_trees, snapshot_documents, tree_of,
)
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import from_object, load, load_bytes
from tui.model.json_text import dumps
from tui.model.session_facts import shown_counts
from tui.model.logs import logs_under
from tui.model.nodes import Session
from tui.payloads.decode import decode_bytes
from tui.text.ascii_tree import render
from tui.payloads.op_captures import (
    PayloadError, capture_label, capture_message, decode_with_notes, op_captures, payload_views, save_name, usable,
)
from tui.model.search import (
    ErrorFilter, find, find_op_by_path, find_session_by_prefix, newest_op, walk_ops,
)
from tui.formats.aiagent.replay import replay_events
from tui.model.session_dicts import session_node
from tui.inputs.files import LoadError
from tui.text.summary import summarise

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.filter_too_much])
# The test run sees the same examples every time (a red CI run means the change broke something, not that the
# dice found an old bug); the thorough profile draws new ones on each run, to go looking. 10 examples (25 before
# issue 29's 4-minute suite) still draw the shapes each property is about (nesting, damage, lost frames); the bugs
# the thorough runs found are pinned one by one in test_property_regressions.py.
settings.register_profile("props-quick", max_examples=10, derandomize=True, database=None, **_COMMON)
settings.register_profile("thorough", max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "props-quick"))


# helpers -------------------------------------------------------------------------------------------------------


def app_stack(test):
    """Run the test body with the recursion budget the app has (the default limit of 1,000 frames, ~200 in use):
    Hypothesis raises the limit while it runs a test, which would hide a recursion that fails in the app."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        depth, frame = 0, sys._getframe()
        while frame is not None:
            depth, frame = depth + 1, frame.f_back
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(depth + 800)
        try:
            return test(*args, **kwargs)
        finally:
            sys.setrecursionlimit(before)

    return run



def exercise(doc) -> dict:
    """Everything a person can look at in a loaded document; returns the summary. Must never raise."""
    out = summarise(doc)
    assert orjson.loads(dumps(out)) is not None  # `dump --json` writes it (numbers past 64 bits included)
    root = doc.root
    if root is None:
        return out
    assert all(isinstance(line, str) for line in render(root))
    list(render(root, max_depth=1))
    ops = list(walk_ops(root))
    assert len(ops) == root.counts.ops
    find(root, "err")
    find(root, "a")
    keep = ErrorFilter()
    keep(root)
    newest_op(root)
    for op in ops[:40]:
        assert find_op_by_path(root, op.path) is not None
        find_session_by_prefix(root, op.path)
        keep(op)
        logs_under(op)
        for capture in op_captures(op):
            capture_label(capture)
            if not usable(capture):
                assert capture_message(capture)
                continue
            try:
                view, notes = decode_with_notes(capture, None)
            except PayloadError:
                continue
            # decode_bytes turns its own crashes into a note: such a note is a bug
            assert not any("internal decoder error" in n for n in notes), notes
            for _, lines in payload_views(capture, view):
                list(lines[:200])
                len(lines)
            save_name(op, capture, view)
    for turn in root.turns:
        logs_under(turn)
    assert len(logs_under(root)) == root.counts.logs
    return out


def frame(event: dict) -> bytes | None:
    """An event as the wire carries it (the standard library writes what is nested deeper than orjson writes);
    None when even that runs out of stack (a tree nested ~1,000 levels: it loads, but cannot be sent)."""
    try:
        return orjson.dumps(event)
    except TypeError:
        pass
    try:
        return json.dumps(event).encode()
    except RecursionError:
        return None


def load_any(data: bytes):
    """load_bytes, where LoadError (the documented failure) gives None."""
    try:
        return load_bytes(data, "generated.json")
    except LoadError as exc:
        assert str(exc) and exc.reason
        return None


def assert_totals(got: dict, want: dict) -> None:
    """Totals equal, cost compared the way the producer stores it (4 decimals); NaN cost equals NaN."""
    for key in naive.TOTAL_KEYS:
        a, b = got[key], want[key]
        if key == "costUsd":
            b = round(b, 4)
            if isinstance(a, float) and math.isnan(a) and math.isnan(b):
                continue
        assert a == b, (key, got, want)


def naive_snapshot(tree: object) -> tuple[dict, dict, int]:
    counts, depth = naive.tree_counts(tree)
    return naive.tree_totals(tree), counts, depth


def node_counts(out: dict) -> dict:
    """The summary's counts but `turns` (the root's user turns): the node counts the naive model recomputes."""
    return {key: value for key, value in out["counts"].items() if key != "turns"}


def feed_all(hub: LiveHub, frames) -> None:
    for n, data in enumerate(frames):
        if data is not None:
            hub.feed(data, now=1000.0 + n)


def write_ledgers(base: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


# 1 + 2: snapshots ---------------------------------------------------------------------------------------------


@given(snapshot_documents())
@app_stack
def test_valid_snapshots_load_totals_and_views(doc_value):
    shape, value = doc_value
    tree = tree_of(shape, value)
    doc = load_bytes(encode(value), "valid.json")
    assert doc.shape == {"v1": "file-v1", "v2": "file-v2", "envelope": "envelope", "bare": "bare"}[shape]
    out = exercise(doc)
    totals, counts, depth = naive_snapshot(tree)
    assert_totals(out["totals"], totals)
    assert node_counts(out) == counts and out["maxDepth"] == depth
    stored = tree.get("totals")
    if stored is None:
        assert out["storedTotals"] is None and not out["totalsMismatch"]
    else:  # the strategy stores the producer's totals, or makes tokensIn and toolsRun one too high
        stale = stored["tokensIn"] != totals["tokensIn"]
        assert out["totalsMismatch"] is stale
        assert doc.root.mismatch == (["tokensIn", "toolsRun"] if stale else [])


@given(snapshot_documents().flatmap(lambda dv: mutated(dv[1])))
@app_stack
def test_mutated_snapshots_never_raise_and_totals_hold(value):
    doc = load_any(encode(value))
    if doc is None:
        return
    out = exercise(doc)
    if doc.format == "aiagent-snapshot":
        totals, counts, depth = naive_snapshot(doc.root.raw)
        assert_totals(out["totals"], totals)
        assert node_counts(out) == counts and out["maxDepth"] == depth


@given(session_trees(max_depth=1), st.integers(1, 210))
@settings(max_examples=10)
@app_stack
def test_deeply_nested_sub_agents(tree, levels):
    doc = load_any(deep_chain(tree, levels))
    if doc is None:
        return
    out = exercise(doc)
    totals, counts, depth = naive_snapshot(doc.root.raw)
    assert_totals(out["totals"], totals)
    assert node_counts(out) == counts and out["maxDepth"] == depth >= levels
    replay_events(doc, max_tree_events=3)


@given(framed_stream())
@app_stack
def test_a_streamed_response_reassembles_to_what_was_streamed(case):
    fmt, body, says = case
    view = decode_bytes(body, fmt)
    assert view.kind == fmt
    assert not [n for n in view.notes if any(w in n for w in ("error", "corrupt", "invalid", "truncated"))], view.notes
    streamed = view.reassembled
    assert streamed is not None
    calls = [(tc.name, tc.arguments) for tc in streamed.tool_calls]
    assert (streamed.text, streamed.thinking, calls) == (says["text"], says["thinking"], says["tool_calls"])


@given(framed_stream().flatmap(lambda c: st.tuples(st.sampled_from([c[0], "", "json", "text", "bogus"]),
                                                   damaged_bytes(c[1]))))
@app_stack
def test_a_damaged_capture_still_decodes_to_something(case):
    hint, data = case
    view = decode_bytes(data, hint)
    assert not any("internal decoder error" in n for n in view.notes), view.notes
    for _, lines in payload_views(None, view):
        list(lines[:500])


# 1 + 2: v3 ledgers --------------------------------------------------------------------------------------------


@given(session_trees(v2=False))
@app_stack
def test_valid_ledgers_match_the_tree_they_describe(tree):
    files = {rel: ledger_bytes(records) for rel, records in ledger_files(tree).items()}
    with tempfile.TemporaryDirectory() as d:
        base = Path(d)
        write_ledgers(base, files)
        root_path = base / f"session/{tree['traceId']}.jsonl"
        doc = load(str(root_path))
        out = exercise(doc)
        want, ops_seen = naive.ledger_totals(base, root_path)
    assert doc.format == "aiagent-ledger" and doc.problems == []
    assert_totals(out["totals"], want)
    assert out["counts"]["ops"] == ops_seen
    if "endedAt" in tree:  # a finished tree: the ledgers hold all of it (but children of non-session ops)
        from_tree = naive.tree_totals(tree)
        for key in naive.TOTAL_KEYS:
            # a sum that lands on a half of the 4th decimal may round either way, by the order of its additions
            assert math.isclose(out["totals"][key], round(from_tree[key], 4) if key == "costUsd" else from_tree[key],
                                abs_tol=1.01e-4), key
    ops = {op.op_id: op for op in walk_ops(doc.root)}
    for node_op in _tree_ops(tree):
        op = ops.get(node_op["opId"])
        if op is not None:
            assert op.started_at == node_op["startedAt"]  # ISO timestamps read back to the millisecond
            assert op.ended_at == node_op.get("endedAt")


def _tree_ops(tree: dict):
    stack = [tree]
    while stack:
        node = stack.pop()
        for turn in node.get("turns", []):
            for op in turn["ops"]:
                yield op
                if op["kind"] == "session" and isinstance(op.get("childSession"), dict):
                    stack.append(op["childSession"])


@st.composite
def damaged_ledger_sets(draw):
    tree = draw(session_trees(v2=False))
    files = ledger_files(tree)
    out = {}
    for rel, records in files.items():
        out[rel] = draw(mutated_ledger_bytes(records)) if draw(st.booleans()) else ledger_bytes(records)
    return tree["traceId"], out


@given(damaged_ledger_sets())
@app_stack
def test_mutated_ledgers_never_raise_and_totals_hold(case):
    root_id, files = case
    with tempfile.TemporaryDirectory() as d:
        base = Path(d)
        write_ledgers(base, files)
        root_path = base / f"session/{root_id}.jsonl"
        try:
            doc = load(str(root_path))
        except LoadError:
            return
        out = exercise(doc)
        if doc.format != "aiagent-ledger":
            return
        want, ops_seen = naive.ledger_totals(base, root_path)
    assert_totals(out["totals"], want)
    assert out["counts"]["ops"] == ops_seen


# 3: replay and round trips ------------------------------------------------------------------------------------


def assert_same_view(built: Session, doc) -> None:
    want = summarise(doc)
    assert built.totals.as_dict() == want["totals"]
    assert shown_counts(built) == want["counts"]
    assert built.max_depth == want["maxDepth"]
    assert built.status == doc.root.status


@given(snapshot_documents(), st.integers(1, 12))
@app_stack
def test_replay_into_a_live_hub_gives_the_loaded_tree(doc_value, max_trees):
    _, value = doc_value
    doc = load_bytes(encode(value), "valid.json")
    events = replay_events(doc, max_tree_events=max_trees)
    for _, event in events:  # trees cut at earlier instants carry the totals the producer had then
        if event["type"] == "op_tree" and event["tree"] is not doc.root.raw and event["meta"]["isMaster"]:
            totals = event["tree"]["totals"]
            assert {k: totals[k] for k in naive.TOTAL_KEYS} == naive.producer_totals(event["tree"])
    hub = LiveHub()
    feed_all(hub, (frame(event) for _, event in events))
    assert hub.malformed == 0 and hub.events == len(events)
    roots = hub.roots()
    assert roots == [doc.root.trace_id]
    assert hub.counters(roots[0]) == (len(events), 0)
    assert_same_view(hub.build(roots[0]), doc)


def loaded_ledger(tree: dict):
    """The document read back from the ledger files of `tree`, written to a temporary sessions directory."""
    files = {rel: ledger_bytes(records) for rel, records in ledger_files(tree).items()}
    with tempfile.TemporaryDirectory() as d:
        write_ledgers(Path(d), files)
        return load(str(Path(d) / f"session/{tree['traceId']}.jsonl"))


def assert_session_dict_round_trip(doc) -> None:
    first = session_node(doc.root)
    again = from_object(orjson.loads(encode(first)), "round-trip")
    assert again.root.totals.as_dict() == doc.root.totals.as_dict()
    assert again.root.counts.as_dict() == doc.root.counts.as_dict()
    assert again.root.max_depth == doc.root.max_depth
    assert session_node(again.root) == first


@given(session_trees(v2=False))
@app_stack
def test_ledger_replay_into_a_live_hub_gives_the_loaded_tree(tree):
    doc = loaded_ledger(tree)
    hub = LiveHub()
    feed_all(hub, (frame(event) for _, event in replay_events(doc, max_tree_events=5)))
    assert hub.malformed == 0
    assert_same_view(hub.build(hub.roots()[0]), doc)


@given(snapshot_documents())
@app_stack
def test_session_dict_round_trip_is_stable(doc_value):
    _, value = doc_value
    doc = load_bytes(encode(value), "valid.json")
    assert_session_dict_round_trip(doc)


@given(session_trees(v2=False))
@app_stack
def test_ledger_session_dict_round_trip_is_stable(tree):
    doc = loaded_ledger(tree)
    assert_session_dict_round_trip(doc)


@given(snapshot_documents().flatmap(lambda dv: mutated(dv[1])))
@app_stack
def test_replay_of_any_loaded_document_never_raises(value):
    doc = load_any(encode(value))
    if doc is None or doc.root is None:
        return
    events = replay_events(doc, max_tree_events=4)
    hub = LiveHub()
    feed_all(hub, (frame(event) for _, event in events))
    for root in hub.roots():
        built = hub.build(root)
        if built is not None:
            list(render(built))


# 4: damaged live streams --------------------------------------------------------------------------------------


def rejected(frame: bytes) -> bool:
    """Whether a frame must be refused, from the wire protocol (formats.md section 4): one JSON object with a known
    `type` and the session it belongs to (`meta.sessionId`, or the traceId of the tree it carries)."""
    try:
        event = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return True
    if not isinstance(event, dict) or event.get("type") not in EVENT_TYPES or isinstance(event.get("type"), bool):
        return True
    meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
    sid = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else ""
    if event["type"] in ("op_tree", "snapshot"):
        if event["type"] == "op_tree":
            tree = event.get("tree")
        else:
            payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
            snap = payload.get("snapshot") if isinstance(payload.get("snapshot"), dict) else {}
            tree = snap.get("opTree")
        if not isinstance(tree, dict):
            return True
        sid = sid or (tree.get("traceId") if isinstance(tree.get("traceId"), str) else "")
    return not sid


@st.composite
def damaged_streams(draw):
    _, value = draw(snapshot_documents())
    doc = load_bytes(encode(value), "valid.json")
    events = [event for _, event in replay_events(doc, max_tree_events=draw(st.integers(1, 6)))]
    sids = sorted({e["meta"]["sessionId"] for e in events})
    for _ in range(draw(st.integers(0, 4))):
        events.insert(draw(st.integers(0, len(events))), draw(extra_event(sids, doc.root.trace_id)))
    return draw(mutated_frames(events))


@given(damaged_streams())
@app_stack
def test_live_hub_survives_damaged_streams_and_counts_rejects(frames):
    hub = LiveHub()
    feed_all(hub, frames)
    assert hub.malformed == sum(rejected(f) for f in frames)
    # every frame is taken or refused, once (a hub that also refuses duplicates counts them apart from malformed)
    refused = sum(hub.rejected.values()) if hasattr(hub, "rejected") else hub.malformed
    assert hub.events + refused == len(frames)
    assert sum(s.events for s in hub.sessions.values()) == hub.events
    for root in hub.roots():
        hub.counters(root)
        built = hub.build(root)
        if built is not None:
            list(render(built))
            list(walk_ops(built))
            logs_under(built)


@st.composite
def lossy_streams(draw):
    """A replayed stream with some events lost, but every session's final tree kept."""
    _, value = draw(snapshot_documents())
    doc = load_bytes(encode(value), "valid.json")
    events = [event for _, event in replay_events(doc, max_tree_events=draw(st.integers(1, 6)))]
    last_of = {e["meta"]["sessionId"]: n for n, e in enumerate(events)}
    droppable = [n for n in range(len(events)) if n not in last_of.values()]
    dropped = set(draw(st.lists(st.sampled_from(droppable), unique=True))) if droppable else set()
    return doc, events, dropped


@given(lossy_streams())
@app_stack
def test_lost_events_are_counted_as_gaps_and_the_final_tree_wins(case):
    doc, events, dropped = case
    hub = LiveHub()
    feed_all(hub, (frame(e) for n, e in enumerate(events) if n not in dropped))
    first_kept: dict[str, int] = {}
    for n, e in enumerate(events):
        if n not in dropped:
            first_kept.setdefault(e["meta"]["sessionId"], n)
    lost: dict[str, int] = {}
    for n in dropped:  # a loss shows as a gap once a later event of the same session arrives (never before the first)
        sid = events[n]["meta"]["sessionId"]
        if n > first_kept[sid]:
            lost[sid] = lost.get(sid, 0) + 1
    for sid, live in hub.sessions.items():
        assert live.gaps == lost.get(sid, 0)
    assert_same_view(hub.build(hub.roots()[0]), doc)
