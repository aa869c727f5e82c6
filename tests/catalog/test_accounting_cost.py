"""accounting.jsonl as a second source of cost (tui.catalog.index.accounting_cost): where it is found, what counts,
and that bad lines never stop the sum."""

from __future__ import annotations

import orjson
import pytest

from tui.catalog.index import accounting_cost as ac
from tui.catalog.index.stats import Group, Stats, TimeRange


def llm(ts, cost, agent="a", model="m") -> dict:
    return {"type": "llm", "timestamp": ts, "status": "ok", "latency": 1, "agentId": agent, "provider": "p",
            "model": model, "tokens": {"inputTokens": 1, "outputTokens": 1}, "costUsd": cost}


def write(path, lines) -> None:
    path.write_bytes(b"".join((x if isinstance(x, bytes) else orjson.dumps(x)) + b"\n" for x in lines))


def test_found_inside_then_beside_the_sessions_dir(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    assert ac.accounting_path(sessions) is None and ac.accounting_path(None) is None
    write(tmp_path / "accounting.jsonl", [])
    assert ac.accounting_path(sessions) == tmp_path / "accounting.jsonl"
    write(sessions / "accounting.jsonl", [])
    assert ac.accounting_path(sessions) == sessions / "accounting.jsonl"


def test_sums_llm_entries_in_range_by_day_agent_model(tmp_path):
    path = tmp_path / "accounting.jsonl"
    write(path, [llm(1_000, 1.0, "x", "m1"), llm(2_000, 2.0, "y", "m1"), llm(9_000, 4.0),
                 {"type": "tool", "timestamp": 1_500, "status": "ok", "latency": 1, "mcpServer": "s",
                  "command": "c", "charactersIn": 1, "charactersOut": 1},
                 b"{not json", b"", b"[1, 2]", llm("soon", 8.0), llm(float("inf"), 8.0), llm(True, 8.0),
                 b'{"type": "llm", "recordType": "x", "timestamp": 1500, "costUsd": 16}',
                 b"x" * (ac.MAX_LINE * 2), llm(1_500, 0.25, "x", "m2")])
    cost = ac.read_cost(path, TimeRange(since_ms=0, until_ms=5_000))
    assert cost.total == pytest.approx(3.25) and cost.entries == 3
    assert dict(cost.by["agent"]) == pytest.approx({"x": 1.25, "y": 2.0})
    assert dict(cost.by["model"]) == pytest.approx({"m1": 3.0, "m2": 0.25})
    stats = Stats(TimeRange(), by={"agent": [Group("x"), Group("z")], "headend": [Group("cli")]})
    ac.attach(stats, cost)
    assert stats.totals.accounting_cost_usd == pytest.approx(3.25)
    assert [g.accounting_cost_usd for g in stats.by["agent"]] == pytest.approx([1.25, 0.0])
    assert stats.by["headend"][0].accounting_cost_usd is None  # entries carry no headend


def test_unreadable_file_gives_nothing(tmp_path):
    assert ac.read_cost(tmp_path / "missing.jsonl", TimeRange()).total == 0.0
    assert ac.read_cost(tmp_path, TimeRange()).entries == 0  # a directory
