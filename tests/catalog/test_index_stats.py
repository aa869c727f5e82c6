"""Stats across sessions (tui.catalog.index.stats) on real SQLite files built with the index's schema."""

from __future__ import annotations

import sqlite3
import time

import pytest

from helpers.indexdb import DAY_MS, create, insert, session
from tui.catalog.index import stats

HOUR = 3_600_000


@pytest.fixture
def conn(tmp_path):
    db = create(tmp_path / "index.db")
    yield db
    db.close()


def _noon(day: str) -> int:
    return int(time.mktime(time.strptime(day + " 12:00", "%Y-%m-%d %H:%M")) * 1000)


def test_empty_index_gives_zeros_not_errors(conn):
    result = stats.collect(conn, stats.TimeRange())
    assert result.totals.sessions == 0 and result.totals.cost_usd == 0.0
    assert all(groups == [] for groups in result.by.values())
    assert result.expensive == result.slowest == result.failing == result.failing_agents == []
    assert result.as_json()["totals"]["failure_rate"] == 0.0


def test_per_day_agent_model_headend(conn):
    insert(conn, [
        session(1, started_ms=_noon("2026-11-20"), agent="a", models="m1\nm2", headend="cli", cost_usd=1.0,
                tokens_in=10, tokens_out=1),
        session(2, started_ms=_noon("2026-11-20") + 3600_000, agent="b", models="m2", headend="api", cost_usd=2.0,
                status="failed", failed_ops=3, tokens_in=20, tokens_out=2),
        session(3, started_ms=_noon("2026-11-22"), agent="a", models="m1", headend="cli", cost_usd=None),
    ])
    result = stats.collect(conn, stats.TimeRange())
    days = {g.key: g for g in result.by["day"]}
    assert list(days) == ["2026-11-20", "2026-11-22"]  # oldest first
    assert days["2026-11-20"].sessions == 2 and days["2026-11-20"].cost_usd == pytest.approx(3.0)
    assert days["2026-11-20"].failures == 1 and days["2026-11-20"].failed_ops == 3
    assert days["2026-11-20"].tokens_in == 30 and days["2026-11-20"].tokens_out == 3
    assert days["2026-11-22"].costed == 0  # an unknown cost is not a zero one
    agents = {g.key: g for g in result.by["agent"]}
    assert agents["a"].sessions == 2 and agents["b"].failure_rate == 1.0
    assert [g.key for g in result.by["model"]] == ["m2", "m1"]  # the main model; most expensive first
    assert {g.key for g in result.by["headend"]} == {"cli", "api"}
    assert result.totals.sessions == 3 and result.totals.cost_usd == pytest.approx(3.0)


def test_children_broken_and_undated_rows_are_not_counted(conn):
    insert(conn, [
        session(1, cost_usd=1.0),
        session(2, kind="child", cost_usd=5.0),  # its cost is in its root's totals
        session(3, broken="not JSON", cost_usd=None),
        session(4, started_ms=None, cost_usd=7.0),
    ])
    assert stats.totals(conn, stats.TimeRange()).sessions == 1
    assert stats.totals(conn, stats.TimeRange()).cost_usd == pytest.approx(1.0)


def test_time_range_is_half_open(conn):
    base = 1_700_000_000_000
    insert(conn, [session(i, started_ms=base + i * DAY_MS) for i in range(5)])
    span = stats.TimeRange(since_ms=base + DAY_MS, until_ms=base + 3 * DAY_MS)
    assert stats.totals(conn, span).sessions == 2
    assert stats.totals(conn, stats.last(1.5 * 86400, now_s=(base + 4 * DAY_MS) / 1000)).sessions == 2
    assert stats.totals(conn, stats.last(None)).sessions == 5


def test_top_lists_and_failing_agents(conn):
    insert(conn, [
        session(1, cost_usd=5.0, duration_ms=10, agent="x"),
        session(2, cost_usd=1.0, duration_ms=9000, agent="y", status="failed", failed_ops=1),
        session(3, cost_usd=3.0, duration_ms=50, agent="y", status="failed", failed_ops=7),
        session(4, cost_usd=0.5, duration_ms=20, agent="z", status="failed", failed_ops=2),
        session(5, cost_usd=0.1, duration_ms=5, agent="z"), session(6, cost_usd=0.1, duration_ms=5, agent="z"),
    ])
    result = stats.collect(conn, stats.TimeRange(), limit=2)
    assert [s.session_id for s in result.expensive] == ["s1", "s3"]
    assert [s.session_id for s in result.slowest] == ["s2", "s3"]
    assert [s.session_id for s in result.failing] == ["s3", "s4"]
    assert [(g.key, g.failures) for g in result.failing_agents] == [("y", 2), ("z", 1)]
    assert result.failing_agents[1].failure_rate == pytest.approx(1 / 3)


def test_unknown_grouping_is_refused(conn):
    with pytest.raises(ValueError):
        stats.grouped(conn, stats.TimeRange(), "weekday")


def test_stats_index_is_added_and_used(conn):
    assert stats.ensure_indexes(conn)
    plan = " ".join(str(r) for r in conn.execute(
        "EXPLAIN QUERY PLAN SELECT total(cost_usd) FROM sessions WHERE " + stats.TimeRange(since_ms=1).where()[0],
        [1]))
    assert "sessions_stats" in plan


def test_read_only_database_still_answers(tmp_path):
    path = tmp_path / "index.db"
    create(path).close()
    ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert not stats.ensure_indexes(ro)
    assert stats.totals(ro, stats.TimeRange()).sessions == 0


def test_hostile_text_in_keys_is_kept_as_data(conn):
    insert(conn, [session(1, agent="[red]x\x1b[31m'; DROP TABLE sessions; --", headend="\ud800"
                          .encode("utf-8", "surrogatepass").decode("utf-8", "replace"))])
    groups = stats.grouped(conn, stats.TimeRange(), "agent")
    assert groups[0].key.startswith("[red]x\x1b")
    assert stats.totals(conn, stats.TimeRange()).sessions == 1


def test_day_bounds_cover_one_local_day():
    start, end = stats.day_bounds_ms("2026-11-20")
    assert time.strftime("%Y-%m-%d %H:%M", time.localtime(start / 1000)) == "2026-11-20 00:00"
    assert time.strftime("%Y-%m-%d %H:%M", time.localtime(end / 1000)) == "2026-11-21 00:00"
    with pytest.raises(ValueError):
        stats.day_bounds_ms("yesterday")


def test_per_day_ranges_agree_with_a_group_by(conn, monkeypatch):
    base = _noon("2026-03-01")
    insert(conn, [session(i, started_ms=base + i * 7 * HOUR, cost_usd=float(i)) for i in range(200)])
    by_ranges = [(g.key, g.sessions, g.cost_usd) for g in stats.by_day(conn, stats.TimeRange())]
    monkeypatch.setattr(stats, "MAX_DAYS", 3)  # a range this long takes the GROUP BY
    by_group = [(g.key, g.sessions, g.cost_usd) for g in stats.by_day(conn, stats.TimeRange())]
    assert by_ranges == by_group and len(by_ranges) > 50  # (March: a DST change in many zones)
    span = stats.TimeRange(since_ms=base + 10 * HOUR, until_ms=base + 30 * HOUR)
    assert sum(g.sessions for g in stats.by_day(conn, span)) == stats.totals(conn, span).sessions == 3


def test_groupings_without_the_stats_indexes(conn):
    insert(conn, [session(1, agent="a", cost_usd=1.0), session(2, agent="b", cost_usd=2.0)])
    before = [(g.key, g.sessions) for g in stats.grouped(conn, stats.TimeRange(), "agent")]
    assert stats.ensure_indexes(conn)
    assert [(g.key, g.sessions) for g in stats.grouped(conn, stats.TimeRange(), "agent")] == before == [("b", 1), ("a", 1)]
