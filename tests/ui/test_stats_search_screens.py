"""The Stats screen (t) and the Search screen (F) of the browser, on a real index file: Enter on a day or an agent
comes back to the browser filtered to those sessions; a search hit opens its session at the matching op."""

from __future__ import annotations

import time

import orjson
import pytest
from textual.widgets import Input

from helpers.browserhelpers import settle
from helpers.builders import llm_acc, op, session, turn, write
from helpers.indexdb import index_for, insert
from helpers.indexdb import session as row
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen, FilterInput
from tui.ui.screens.search import HitsTable, SearchScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.screens.stats import StatsScreen, StatsTable
from helpers.waiting import wait_for

SIZE = (160, 48)
HOUR_MS = 3_600_000


@pytest.fixture
def sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = tmp_path / "sessions"
    directory.mkdir()
    now = int(time.time() * 1000)
    started = {"alpha": now - HOUR_MS, "beta": now - 50 * HOUR_MS}
    for agent, at in started.items():
        tree = session(turn(0, op("system", op_id="i", name="init"), system=True),
                       turn(1, op("llm", op_id="a", accounting=[llm_acc(10, 2, cost=0.5)]),
                            op("tool", op_id="b", name=f"{agent}_lookup"),
                            op("tool", op_id="c", name="fetch", status="failed", error="connection refused")),
                       agent=agent, startedAt=at, endedAt=at + 5000, sessionTitle=f"{agent} task")
        write(directory / f"{agent}.json.gz", {"version": 1, "opTree": tree})
    conn = index_for(directory)
    # the rows the index would hold for these files (the same after the monitor indexes them itself)
    insert(conn, [row(i, path=str(directory / f"{agent}.json.gz"), session_id=agent, agent=agent, started_ms=at,
                      title=f"{agent} task", tools=f"{agent}_lookup\nfetch", errors="connection refused",
                      agents=agent, failed_ops=1, cost_usd=0.5, duration_ms=4000)
                  for i, (agent, at) in enumerate(started.items())])
    conn.close()
    return directory, started


def _day(ms: int) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(ms / 1000))


async def _stats(pilot, app) -> StatsScreen:
    await pilot.press("t")
    assert await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.stats is not None)
    return app.screen


async def test_enter_on_a_day_opens_the_browser_filtered_to_it(sessions):
    directory, started = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        await settle(pilot, browser, timeout=30)
        screen = await _stats(pilot, app)
        assert screen.stats.totals.sessions == 2
        days = screen.query_one("#stats-day", StatsTable)
        keys = [str(k.value).split("\x00")[2] for k in days.rows]
        assert keys == sorted({_day(started["beta"]), _day(started["alpha"])})
        days.focus()
        days.move_cursor(row=keys.index(_day(started["beta"])))
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is browser)
        assert browser.query_one(FilterInput).value == f"day:{_day(started['beta'])}"
        assert await wait_for(pilot, lambda: [browser.model.rows[k].agent for k in browser.model.view] == ["beta"])


async def test_enter_on_an_agent_filters_by_agent_and_range(sessions):
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        await settle(pilot, browser, timeout=30)
        screen = await _stats(pilot, app)
        await pilot.press("1")  # the last day: alpha only
        assert await wait_for(pilot, lambda: screen.stats is not None and screen.stats.totals.sessions == 1)
        agents = screen.query_one("#stats-agent", StatsTable)
        agents.focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is browser)
        assert browser.query_one(FilterInput).value == "agent:alpha since:1d"
        assert await wait_for(pilot, lambda: [browser.model.rows[k].agent for k in browser.model.view] == ["alpha"])


async def test_stats_without_an_index_say_how_to_build_it(tmp_path, monkeypatch):
    from tui.catalog.index import store

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # the browser builds the index as it lists (an empty directory's too): before `t`, or after, by timing
    monkeypatch.setattr(store, "_enabled", False)
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t")
        assert await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.problem != "")
        assert "run the monitor once" in app.screen.problem
        await pilot.press("q")
        assert isinstance(app.screen, BrowserScreen)


@pytest.mark.parametrize("query, field, op_path", [("alpha_look", "tools", "1-2"), ("refused", "errors", "1-3"),
                                                   ("alpha task", "title", "1-1")])
async def test_a_search_hit_opens_its_session_at_the_matching_op(sessions, query, field, op_path):
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        await settle(pilot, browser, timeout=30)
        await pilot.press("F")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        for key in query:
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: search.hits and search.hits[0].session_id == "alpha")
        assert search.hits[0].field == field
        assert search.query_one(HitsTable).has_focus
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        tree = app.screen.tree
        assert await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data is not None
                              and getattr(tree.cursor_node.data, "path", None) == op_path)
        await pilot.press("q")
        assert app.screen is search


async def test_search_text_with_fts_syntax_is_no_error(sessions):
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("F")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        await pilot.press(*'"unbalanced AND (NEAR *')
        assert search.query_one(Input).value == '"unbalanced AND (NEAR *'
        assert not search.settled  # (a search waits for the typing to pause)
        assert await wait_for(pilot, lambda: search.settled)
        status = str(search.query_one("#search-status").render())
        assert "0 sessions" in status


async def test_enter_on_a_top_session_opens_it_and_c_adds_the_accounting_cost(sessions):
    directory, started = sessions
    entry = {"type": "llm", "timestamp": started["alpha"], "status": "ok", "latency": 1, "agentId": "alpha",
             "provider": "p", "model": "m", "tokens": {"inputTokens": 1, "outputTokens": 1}, "costUsd": 4.25}
    (directory / "accounting.jsonl").write_bytes(orjson.dumps(entry) + b"\n")
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app.screen, timeout=30)
        screen = await _stats(pilot, app)
        await pilot.press("c")
        assert await wait_for(pilot, lambda: screen.stats is not None
                              and screen.stats.totals.accounting_cost_usd == pytest.approx(4.25))
        assert "accounting.jsonl $4.2500" in str(screen.query_one("#stats-header").render())
        slow = screen.query_one("#stats-top-slowest", StatsTable)
        assert slow.row_count == 2
        slow.focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.press("q")
        assert app.screen is screen


async def test_down_from_the_query_box_goes_into_the_hits(sessions):
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app.screen, timeout=30)
        await pilot.press("F")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        for key in "alpha":
            await pilot.press(key)
        assert await wait_for(pilot, lambda: bool(search.hits))
        assert not search.query_one(HitsTable).has_focus
        await pilot.press("down")
        assert search.query_one(HitsTable).has_focus


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_at_80_columns_every_column_shows_and_the_bars_can_be_read(sessions, size):
    """The tables are sized to the screen: nothing is cut off to the right (no horizontal scrolling), the cost
    bars keep some width and the titles of the top sessions show."""
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app.screen, timeout=30)
        screen = await _stats(pilot, app)
        await pilot.press("a")
        assert await wait_for(pilot, lambda: screen.stats is not None and screen.stats.totals.sessions == 2)
        await pilot.pause()
        for table in screen.query(StatsTable):
            if table.display:
                assert table.virtual_size.width <= table.size.width, table.id
        days = screen.query_one("#stats-day", StatsTable)
        assert days.columns["bar"].width >= 6
        top = screen.query_one("#stats-top-expensive", StatsTable)
        assert list(top.columns.values())[-1].width >= 20


async def test_the_stats_screen_has_a_by_kind_table(sessions):
    directory, _ = sessions
    app = MonitorApp(sessions_dir=directory, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app.screen, timeout=30)
        screen = await _stats(pilot, app)
        assert "by kind" in str(screen.query_one("#title-stats-kind").render())
        kinds = screen.query_one("#stats-kind", StatsTable)
        assert [str(k.value).split("\x00")[2] for k in kinds.rows] == ["ai-agent"]
        assert [g.sessions for g in screen.stats.by["kind"]] == [2]
