"""The app listening on `otlp://` and `otlp+http://`, fed what the real ai-agent exported (tests/fixtures/aiagent-real/
otlp/) over real sockets, one request at a time with the app applying each: the browser keeps one row for the
session whatever came first (a sub-agent before its root, the root's own span last), its header never counts the
same tokens twice, the cost stays unknown (ai-agent exports none), and with the run's snapshot in the sessions
directory the file's row, with its cost, stands for the session once it has ended."""

from __future__ import annotations

import asyncio
import shutil

from helpers.otlpreal import ROOT_TXN, SNAPSHOT, recorded, send_grpc, send_http, split
from textual.widgets import Static

from helpers.apphelpers import SIZE, live_settled, panel_text, wait_for
from helpers.browserhelpers import ids, settle
from tui.ui import live_worker
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.widgets.totals_panel import TotalsPanel

URLS = ["otlp://127.0.0.1:0", "otlp+http://127.0.0.1:0"]
TOKENS = "19.3k tokens"  # 18,874 in + 400 out, as dump --json of the same run's snapshot says


def _bound(app: MonitorApp, url: str) -> str | None:
    text = app.stream_status.get(url, "")
    return text.split("://", 1)[1].split(" ", 1)[0] if text.startswith("listening on ") else None


def _totals(app: MonitorApp) -> str:
    """The session screen's totals panel as one line of text ("" until it is up)."""
    screen = app.screen
    if not isinstance(screen, SessionScreen):
        return ""
    panels = screen.query(TotalsPanel)
    return " ".join(panel_text(panels.first()).split()) if panels else ""


def _summary(screen: BrowserScreen) -> str:
    return str(screen.query_one("#browser-summary", Static).render())


async def _feed(pilot, app: MonitorApp, send, bound: str, batches) -> list[str]:
    """Each request sent, then applied and shown before the next; the summary line after each."""
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    seen = []
    for batch in batches:
        await asyncio.to_thread(send, bound, [batch])
        assert app.live.worker.otlp_sink is not None
        await live_settled(app, pilot)
        await settle(pilot, screen)
        seen.append(_summary(screen))
    return seen


async def test_recorded_batches_over_grpc_one_row_cost_unknown_never_counted_twice(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=URLS, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, URLS[0]) and _bound(app, URLS[1]))
        seen = await _feed(pilot, app, send_grpc, _bound(app, URLS[0]), recorded())
        screen = app.screen
        assert ids(screen) == [f"live {ROOT_TXN}"]
        assert seen[-1] == f"1 session · cost unknown · {TOKENS}"
        assert all(line.startswith(("0 sessions", "1 session ")) for line in seen), seen
        app.open_path(f"live:{ROOT_TXN}")  # the session screen says so too
        assert await wait_for(pilot, lambda: "cost" in _totals(app))
        facts = _totals(app)
        assert "cost unknown" in facts and "$0.0000" not in facts, facts


async def test_split_batches_over_http_in_reverse_then_the_snapshot_row_with_its_cost(tmp_path, monkeypatch):
    """Span by span, the master's own span first and its sub-agents' last; the run's snapshot is in the sessions
    directory: the live row stands for the session while it runs, the file's (its cost $0.0630) once it ended."""
    # 23 requests, each waited for until applied: the worker's tick (and _feed's wait for it) made shorter, every
    # request still applied and shown before the next is sent (17 s at the 0.25 s tick)
    monkeypatch.setattr(live_worker, "LIVE_APPLY_SECONDS", 0.05)
    shutil.copy(SNAPSHOT, tmp_path / SNAPSHOT.name)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=URLS, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: _bound(app, URLS[0]) and _bound(app, URLS[1]))
        await settle(pilot, app.screen)
        seen = await _feed(pilot, app, send_http, _bound(app, URLS[1]), list(reversed(split(recorded()))))
        # the file's row (no "live" kind): the session ended; its Id cell says a live stream was folded into it
        assert ids(app.screen) == [f"+live {ROOT_TXN}"]
        assert seen[-1] == f"1 session · $0.0630 · {TOKENS}"
        assert all(line.startswith("1 session ") for line in seen), seen
