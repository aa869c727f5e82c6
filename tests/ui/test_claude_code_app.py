"""Claude Code sessions in the browser: a discovered `~/.claude/projects` root lists beside the sessions directory,
its rows say their kind and an estimated cost as such, `kind:` filters them, Enter opens the tree; the sessions
index keeps their rows (and their estimated mark) for the next start."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from helpers.browserhelpers import SIZE, cells_by_column, ids, settle
from helpers.claudecodefixtures import projects_tree
from tui.catalog.index.store import open_index
from tui.catalog.index.sync import update_index
from tui.inputs.agent_roots import CLAUDE_CODE
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    return sessions, projects_tree(tmp_path)


async def test_claude_code_rows_kind_cost_filter_and_open(tmp_path):
    sessions, root = _dirs(tmp_path)
    app = MonitorApp(sessions_dir=sessions, agent_roots=((CLAUDE_CODE, root),), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await settle(pilot, screen)
        assert sorted(i.removeprefix("claude ") for i in ids(screen)) == ["sess-2x", "sidechain-1x"]
        row = cells_by_column(screen, "sess-2x")
        assert row["id"].startswith("claude ") and row["cost"].strip().startswith("~$")
        assert row["status"] == "ok" and row["title"].startswith("Survey the repo")
        assert row["kind"] == "Claude Code" and row["agent"] == "claude-code/demo"
        old = cells_by_column(screen, "sidechain-1x")
        assert old["cost"].strip() == "$0.0120"  # recorded by the file: no `~`
        screen.set_filter("kind:claude-code survey")
        await pilot.pause(0.3)
        assert [i.removeprefix("claude ") for i in ids(screen)] == ["sess-2x"]
        table = screen.query_one(DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await pilot.pause(0.5)
        assert app.screen is not screen and getattr(app.screen, "session").title.startswith("Survey the repo")


def test_index_keeps_agent_rows_and_their_estimated_mark(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sessions, root = _dirs(tmp_path)
    index, _notice, done = update_index(sessions, pool=False, roots=((CLAUDE_CODE, root),))
    assert index is not None and done.read == 2
    rows = {r["session_id"]: r for r in index.connection().execute("SELECT * FROM sessions").fetchall()}
    assert rows["sess-2x"]["kind"] == "claude-code" and rows["sess-2x"]["cost_estimated"] == 1
    assert rows["sidechain-1x"]["cost_estimated"] == 0 and rows["sess-2x"]["turns"] == 2
    again, _notice, done = update_index(sessions, pool=False, roots=((CLAUDE_CODE, root),))
    assert done.read == 0  # nothing changed: nothing read again, nothing pruned
    assert again is not None and len(again.connection().execute("SELECT path FROM sessions").fetchall()) == 2
    reopened, _ = open_index(sessions)
    assert reopened is not None
    from tui.catalog.index.search import search

    hits = search(reopened.connection(), "Survey Bash")  # the first prompt and a tool name
    assert [h.session_id for h in hits] == ["sess-2x"]


def test_summary_keeps_estimated_cost_apart_from_recorded():
    from tui.catalog.rows_summary import RowsSummary
    from tui.catalog.session_row import SessionRow

    def row(key: str, cost: float, estimated: bool) -> SessionRow:
        return SessionRow(key, Path(key), "claude-code", key, 0.0, 1, loaded=True, status="ok", cost=cost,
                          cost_estimated=estimated)

    summary = RowsSummary.of([row("a", 1.5, False), row("b", 0.25, True)])
    assert "$1.5000 + ~$0.2500 estimated" in summary.line(0.0)
    summary.remove(row("a", 1.5, False))
    assert "· ~$0.2500 estimated ·" in summary.line(0.0)


async def test_a_file_being_written_shows_running_then_updates_in_place(tmp_path):
    import json


    sessions = tmp_path / "sessions"
    sessions.mkdir()
    root = tmp_path / ".claude" / "projects"
    (root / "-w-live").mkdir(parents=True)
    live = root / "-w-live" / "live-1.jsonl"
    prompt = {"type": "user", "uuid": "u1", "sessionId": "live-1", "timestamp": "2025-12-02T10:00:00Z",
              "message": {"role": "user", "content": "keep going"}}
    live.write_text(json.dumps(prompt) + "\n")
    app = MonitorApp(sessions_dir=sessions, agent_roots=((CLAUDE_CODE, root),))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert cells_by_column(screen, "live-1")["status"].endswith("running")
        await pilot.pause(0.5)  # the watcher is armed
        answer = {"type": "assistant", "uuid": "a1", "sessionId": "live-1", "requestId": "r1",
                  "timestamp": "2025-12-02T10:00:03Z",
                  "message": {"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
                              "content": [{"type": "text", "text": "done"}],
                              "usage": {"input_tokens": 1000, "output_tokens": 200}}}
        with live.open("a") as fh:
            fh.write(json.dumps(answer) + "\n")

        async def updated() -> bool:
            await pilot.pause(0.1)
            return cells_by_column(screen, "live-1")["status"] == "ok"

        for _ in range(100):
            if await updated():
                break
        cellset = cells_by_column(screen, "live-1")
        assert cellset["status"] == "ok" and cellset["cost"].strip() == "~$0.0060"


async def test_an_open_claude_code_session_updates_as_its_file_grows(tmp_path):
    import json

    from helpers.apphelpers import session_app, top, wait_for

    path = tmp_path / "grow.jsonl"
    prompt = {"type": "user", "uuid": "u1", "sessionId": "grow", "timestamp": "2025-12-02T10:00:00Z",
              "message": {"role": "user", "content": "first prompt"}}
    path.write_text(json.dumps(prompt) + "\n")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        assert top(app).session.status == "running"
        await pilot.pause(0.5)  # the watcher is armed
        answer = {"type": "assistant", "uuid": "a1", "sessionId": "grow", "requestId": "r1",
                  "timestamp": "2025-12-02T10:00:03Z",
                  "message": {"id": "m1", "model": "claude-sonnet-4-5", "role": "assistant",
                              "content": [{"type": "text", "text": "done"}],
                              "usage": {"input_tokens": 1000, "output_tokens": 200}}}
        with path.open("a") as fh:
            fh.write(json.dumps(answer) + "\n")
        assert await wait_for(pilot, lambda: top(app).session.counts.llm == 1)
        assert top(app).session.status == "ok" and top(app).session.totals.tokensOut == 200


async def test_session_screen_totals_and_tree_say_the_cost_is_estimated():
    from helpers.apphelpers import panel_text, session_app, top
    from helpers.claudecodefixtures import FIXTURES
    from tui.ui.widgets.totals_panel import TotalsPanel

    app = session_app(FIXTURES / "projects" / "-w-demo" / "sess-2x.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        text = " ".join(panel_text(screen.query_one(TotalsPanel)).split())
        assert "~$0.0161" in text
        assert screen.session.counts.sessions == 2 and screen.session.turns[0].prompts["user"].startswith("Survey")
