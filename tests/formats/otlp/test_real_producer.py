"""What the real ai-agent exported over OTLP (tests/fixtures/aiagent-real/otlp/), replayed into the real receivers
(gRPC and HTTP, real sockets) and assembled by the sink: one row per root whatever the batch order, the same facts
as `dump --json` of the same run's snapshot, and no cost made up (ai-agent exports none)."""

from __future__ import annotations

import asyncio
import functools
import itertools

import pytest
from helpers.otlphelpers import receiving
from helpers.otlpreal import (
    GRPC_PATHS, ROOT_TXN, SNAPSHOT, BrowserRows, recorded, send_grpc, send_http, split, tool_output_call,
)

from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import load
from tui.formats.otlp.sink import OtlpSink
from tui.text.summary import tree_summary



class Target:
    """The receiver's on_batch, handed to whichever sink the test feeds now (one receiver for many replays)."""

    def __init__(self) -> None:
        self.sink: OtlpSink | None = None

    def __call__(self, signal: str, body: bytes, encoding: str) -> int:
        assert self.sink is not None
        return self.sink.accept(signal, body, encoding)


async def _replay(target: Target, send, bound: str, batches) -> tuple[LiveHub, BrowserRows, int]:
    """Each batch sent and applied before the next (what the monitor shows in between counts too); the most
    tokens the rows summed up to at any point."""
    hub = LiveHub()
    target.sink = OtlpSink(hub)
    rows = BrowserRows(hub)
    most = 0
    for batch in batches:
        await asyncio.to_thread(send, bound, [batch])
        target.sink.drain(budget=30)
        rows.apply()
        most = max(most, rows.header_tokens())
    return hub, rows, most


class OneChannel:
    """send_grpc's unary Export calls (bytes as they are) on one channel for all the replays: a new channel per
    batch, 600 of them for the 120 orders, was a third of the test's time."""

    def __init__(self, bound: str) -> None:
        import grpc

        self.channel = grpc.insecure_channel(bound)

    def __call__(self, bound: str, batches: list[tuple[str, bytes]]) -> None:
        for signal, body in batches:
            self.channel.unary_unary(GRPC_PATHS[signal])(body, timeout=10)

    def close(self) -> None:
        self.channel.close()


@functools.cache
def _snapshot_facts() -> dict:
    """(read once: the same file for every order, and the tests only read the summary)"""
    doc = load(str(SNAPSHOT))
    assert doc.root is not None
    return tree_summary(doc.format, doc.root)


def _facts(summary: dict) -> tuple:
    """What OTLP can tell of a session that the snapshot tells too (ai-agent exports no turn, system or
    final-report span, and no cost)."""
    t, c = summary["totals"], summary["counts"]
    return (t["tokensIn"], t["tokensOut"], t["tokensCacheRead"], t["tokensCacheWrite"], t["agentsRun"],
            c["sessions"], c["llm"], c["failed"], summary["maxDepth"], summary["root"]["traceId"],
            summary["root"]["agentId"], summary["root"]["callPath"], summary["root"]["success"])


def _check(hub: LiveHub, rows: BrowserRows, most: int, order) -> None:
    expected = _snapshot_facts()
    assert list(rows.rows) == [ROOT_TXN], order  # one row: no sub-agent or provisional session left as a root
    row = rows.rows[ROOT_TXN]
    tokens = expected["totals"]["tokensIn"] + expected["totals"]["tokensOut"]
    assert (row.agent, row.status, row.tokens, row.turns) == ("master", "ok", tokens, 2), order
    assert row.cost is None, order  # ai-agent exports no cost: unknown, not $0.0000
    assert most == tokens, order  # never counted twice on the way
    assert _facts(tree_summary("otlp", hub.build(ROOT_TXN))) == _facts(expected), order


async def test_every_order_of_the_recorded_batches_over_grpc_gives_one_row_with_the_snapshots_facts():
    target = Target()
    batches = recorded()
    assert [signal for signal, _ in batches] == ["logs", "traces", "traces", "logs", "traces"]
    async with receiving("otlp://127.0.0.1:0", target) as (bound, _, rejected):
        send = OneChannel(bound)
        try:
            for order in itertools.permutations(range(len(batches))):
                hub, rows, most = await _replay(target, send, bound, [batches[i] for i in order])
                _check(hub, rows, most, order)
        finally:
            send.close()
    assert rejected.seen == []


async def test_the_batches_split_span_by_span_over_http_in_several_orders_give_one_row():
    target = Target()
    pieces = split(recorded())
    assert len(pieces) == 23  # 2 log requests, 21 spans
    orders = [list(range(len(pieces))), list(reversed(range(len(pieces))))]
    orders += [list(range(k, len(pieces))) + list(range(k)) for k in (3, 7, 12, 20)]  # rotations
    async with receiving("otlp+http://127.0.0.1:0", target) as (bound, _, rejected):
        for order in orders:
            hub, rows, most = await _replay(target, send_http, bound, [pieces[i] for i in order])
            _check(hub, rows, most, order)
    assert rejected.seen == []


async def test_the_root_call_path_is_the_producers_even_when_a_tool_log_record_comes_first():
    """ai-agent's tool log records carry the tool in their call_path (`master:summary`); the session span's
    `ai.agent.call_path` names the agent."""
    target = Target()
    batches = recorded()
    async with receiving("otlp://127.0.0.1:0", target) as (bound, _, _rejected):
        hub, rows, _ = await _replay(target, send_grpc, bound, [batches[3], batches[0], batches[1], batches[2]])
        assert hub.build(ROOT_TXN).call_path == "master"  # (the master's span has not come: its logs name it)
        assert list(rows.rows) == [ROOT_TXN]


async def test_a_tool_output_call_counts_as_the_snapshot_counts_it():
    """ai-agent's tree makes a `tool_output` call a session op with a child (an agent run, not a tool run); its
    span is an `agent.tool` of kind `agent` whose extraction exports nothing: a stub child stands for it."""
    target = Target()
    batches = recorded()
    batches.append(tool_output_call(batches))
    async with receiving("otlp+http://127.0.0.1:0", target) as (bound, _, rejected):
        hub, rows, _ = await _replay(target, send_http, bound, batches)
    session = hub.build(ROOT_TXN)
    expected = _snapshot_facts()["totals"]
    assert (session.totals.toolsRun, session.totals.agentsRun) == (expected["toolsRun"], expected["agentsRun"] + 1)
    op = next(o for t in session.turns for o in t.ops if o.name == "tool_output")
    assert op.kind == "session" and op.child is not None and op.status == "ok"
    assert (op.child.agent_id, op.child.call_path, op.child.running) == ("master", "master", False)
    assert list(rows.rows) == [ROOT_TXN] and rejected.seen == []
