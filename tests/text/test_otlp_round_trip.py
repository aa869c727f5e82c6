"""The monitor's own OTLP export, sent back into the monitor, is the same session: `export --format otlp --to`
(the real CLI, a subprocess) into the real receivers (gRPC and HTTP, real sockets) and the sink, on the real
ai-agent run tests/fixtures/aiagent-real/master/. The row it makes is the snapshot file's row: title, status,
tokens, cost and turns; one row, the five sub-agents nested; the totals and counts `dump --json` gives."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from helpers.otlphelpers import receiving
from helpers.otlpreal import MASTER_SNAPSHOT, BrowserRows

from tui.catalog.session_row import fill_row, row_from_entry
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.load import load
from tui.formats.otlp.sink import OtlpSink
from tui.model.search import walk_ops
from tui.text.summary import tree_summary

ROW_FIELDS = ("session_id", "agent", "title", "status", "tokens", "cost", "turns", "duration_ms", "models")


def _export(to: str, *extra: str) -> None:
    done = subprocess.run([sys.executable, "-m", "tui", "export", str(MASTER_SNAPSHOT), "--format", "otlp", "--to", to,
                           *extra], capture_output=True, timeout=90, env=dict(os.environ))
    assert done.returncode == 0, done.stderr


def _file_row():
    st = MASTER_SNAPSHOT.stat()
    row = row_from_entry(MASTER_SNAPSHOT, st.st_mtime, st.st_size, "snapshot")
    fill_row(row)
    return row


def _facts(summary: dict) -> tuple:
    t, c, root = summary["totals"], summary["counts"], summary["root"]
    return (t["tokensIn"], t["tokensOut"], t["tokensCacheRead"], t["tokensCacheWrite"], t["costUsd"], t["agentsRun"],
            c["sessions"], c["llm"], c["failed"], summary["maxDepth"], root["traceId"], root["agentId"],
            root["callPath"], root["title"], root["success"], root["startedAt"], root["endedAt"])


@pytest.mark.parametrize("scheme", ["otlp", "otlp+http"])
async def test_export_sent_back_is_the_same_session(scheme):
    hub = LiveHub()
    sink = OtlpSink(hub)
    async with receiving(f"{scheme}://127.0.0.1:0", sink.accept) as (bound, _, rejected):
        await asyncio.to_thread(_export, f"{scheme}://{bound}")
    sink.drain(budget=30)
    rows = BrowserRows(hub)
    rows.apply()
    file_row = _file_row()
    assert list(rows.rows) == [file_row.session_id]  # one row: the sub-agents are nested in it
    live = rows.rows[file_row.session_id]
    assert [getattr(live, f) for f in ROW_FIELDS] == [getattr(file_row, f) for f in ROW_FIELDS]
    assert (live.title, live.status, live.tokens, live.cost) == ("Tell me about tides.", "ok", 19274, 0.063)
    doc = load(str(MASTER_SNAPSHOT))
    assert doc.root is not None
    assert _facts(tree_summary("otlp", hub.build(live.session_id))) == _facts(tree_summary(doc.format, doc.root))
    assert _titles(hub.build(live.session_id)) == _titles(doc.root)  # (the sub-agents': "fixture")
    assert rejected.seen == []


def _titles(session) -> list[tuple[str, str, str]]:
    """(agent, title, status) of the session and every sub-agent, in tree order."""
    out = [(session.agent_id, session.title, session.status)]
    out += [(op.child.agent_id, op.child.title, op.child.status) for op in walk_ops(session) if op.child is not None]
    return out
