"""The insights panel (`i`) and export (`x`) on the session screen, driven with keys as a user would (Pilot)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson

from helpers.apphelpers import SIZE, Notices, deep_snapshot, drill_into_first_sub_agent, session_app, top, wait_for
from tui.model.search import find_op_by_path, walk_ops
from tui.ui.screens.export import ConfirmOverwrite, ExportScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.widgets.insights_pane import InsightsPane
from tui.ui.widgets.log_pane import LogPane


async def press_until(pilot, pane: InsightsPane, wanted: str, section: str) -> None:
    """Move the cursor down with `j` to the first entry of `section` that jumps to `wanted`."""
    heading = next(i for i, row in enumerate(pane.rows) if row.kind == "heading" and row.text.startswith(section))
    target = next(i for i in pane.stops() if i > heading and pane.rows[i].path == wanted)
    for _ in range(len(pane.stops())):
        if pane.cursor == target:
            return
        await pilot.press("j")
    raise AssertionError(f"never reached {wanted} in {section}")


async def open_insights(pilot) -> tuple[SessionScreen, InsightsPane]:
    """`i` on the session on top: (that screen, its insights panel)."""
    screen = top(pilot.app)
    await pilot.pause()
    await pilot.press("i")
    await pilot.pause()
    return screen, screen.query_one(InsightsPane)


async def test_i_opens_the_panel_and_enter_jumps_to_a_failed_op(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_insights(pilot)
        assert pane.display and pane.has_focus and not screen.query_one(LogPane).display
        failed = pane.insights.failed_ops
        assert failed, "the generated session has failed ops"
        assert pane.selected.path == failed[0].path  # the cursor starts on the first failed op
        await pilot.press("enter")
        await pilot.pause(0.2)
        op = find_op_by_path(screen.session, failed[0].path)
        assert op is not None and op.failed and screen.tree.cursor_node.data is op
        assert failed[0].path in str(screen.query_one("#detail-body").render())
        tree = screen.tree
        assert tree.scroll_y <= tree.cursor_line < tree.scroll_y + tree.scrollable_content_region.height - 1


async def test_jump_to_the_slowest_op_inside_a_sub_agent(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_insights(pilot)
        slowest = pane.insights.slowest[0]
        assert slowest.duration_ms == max(op.duration_ms or 0 for op in walk_ops(screen.session)
                                          if op.kind != "session")
        await press_until(pilot, pane, slowest.path, "Slowest ops")
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert screen.tree.cursor_node.data is find_op_by_path(screen.session, slowest.path)
        assert pane.has_focus  # the panel keeps the keyboard: the next insight is one key away


async def test_J_and_K_move_between_sections(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_insights(pilot)

        def section() -> str:
            return next(pane.rows[i].text for i in range(pane.cursor, -1, -1) if pane.rows[i].kind == "heading")

        assert section().startswith("Failed ops")
        await pilot.press("J")  # no fatal logs here: straight to the slowest ops
        assert section().startswith("Slowest ops") and pane.selected.path == pane.insights.slowest[0].path
        await pilot.press("J")
        assert section().startswith("Cost and tokens by model")
        await pilot.press("K", "K")
        assert section().startswith("Failed ops")


async def test_a_jump_to_an_op_hidden_by_errors_only_shows_everything(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.pause()
        await pilot.press("e")
        await pilot.press("i")
        await pilot.pause()
        pane = screen.query_one(InsightsPane)
        ok_op = next(s for s in pane.insights.slowest if not find_op_by_path(screen.session, s.path).failed)
        await press_until(pilot, pane, ok_op.path, "Slowest ops")
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert screen.tree.keep is None
        assert screen.tree.cursor_node.data is find_op_by_path(screen.session, ok_op.path)


async def test_i_or_escape_closes_the_panel(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.pause()
        pane = screen.query_one(InsightsPane)
        await pilot.press("i")
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        assert not pane.display and screen.query_one(LogPane).display and screen.tree.has_focus
        await pilot.press("i")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not pane.display and top(app) is screen


async def test_insights_describe_the_sub_agent_in_view(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        root = top(app)
        sub = await drill_into_first_sub_agent(pilot)
        level1 = top(app)
        assert level1.session is sub.child
        await pilot.press("i")
        await pilot.pause()
        pane = level1.query_one(InsightsPane)
        assert pane.insights.session_path == sub.path
        assert all(row.path.startswith(sub.path) for row in pane.rows if row.path)
        by_agent = [u.key for u in pane.insights.by_agent]
        assert root.session.display_agent not in by_agent and sub.child.display_agent in by_agent


async def test_x_writes_a_markdown_report_of_the_session(tmp_path, monkeypatch):
    path = deep_snapshot(tmp_path / "in")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    app = session_app(path, watch=False)
    told = Notices()
    async with app.run_test(size=SIZE, message_hook=told) as pilot:
        screen = top(app)
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        field = app.screen.query_one("#export-path")
        expected = f"{screen.session.trace_id}.md"
        assert field.value == f"./{expected}"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.last_export is not None)
        assert top(app) is screen
        written = out / expected
        assert screen.last_export == str(written.resolve())
        text = written.read_text()
        assert text.startswith(f"# Session report: {screen.session.display_agent}")
        assert "## Timeline" in text and "## Errors" in text
        assert any(str(written) in n for n in told.messages())


async def test_x_json_of_a_drilled_sub_agent_to_a_typed_path(tmp_path):
    app = session_app(deep_snapshot(tmp_path / "in"), watch=False)  # (never into the sessions directory)
    async with app.run_test(size=SIZE) as pilot:
        root = top(app)
        sub = await drill_into_first_sub_agent(pilot)
        level1 = top(app)
        await pilot.press("x")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, ExportScreen) and modal.session is sub.child
        await pilot.press("shift+tab")  # to the format choice
        await pilot.press("right", "enter")  # JSON
        await pilot.pause()
        field = modal.query_one("#export-path")
        assert modal.fmt == "json" and field.value.endswith(".json")
        target = tmp_path / "sub.json"
        field.focus()
        await pilot.pause()  # (focus selects the whole value: set the folder after it)
        field.value = f"{target.parent}/"  # the folder set, the name typed (each key is a frame: ~0.1 s a letter)
        field.action_end()
        await pilot.press(*target.name)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: target.exists())
        value = orjson.loads(target.read_bytes())
        assert value["session"]["path"] == sub.path and value["session"]["agentId"] == sub.child.agent_id
        assert level1.last_export == str(target)


async def test_escape_cancels_the_export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = session_app(deep_snapshot(tmp_path / "in"), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await asyncio.sleep(0.2)
        assert top(app) is screen and screen.last_export is None
        assert list(Path(tmp_path).glob("*.md")) == []


async def open_export(pilot):
    screen = top(pilot.app)
    await pilot.pause()
    await pilot.press("x")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ExportScreen)
    return screen, pilot.app.screen


async def test_x_asks_before_overwriting_and_no_is_the_default(tmp_path, monkeypatch):
    """A trace id "README" offered ./README.md and Enter replaced the user's file without a word."""
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.chdir(out)
    app = session_app(deep_snapshot(tmp_path / "in"), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen, modal = await open_export(pilot)
        name = modal.query_one("#export-path").value.removeprefix("./")
        existing = out / name
        existing.write_text("the user's own file")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmOverwrite)
        await pilot.press("enter")  # Enter at the prompt: no
        await pilot.pause()
        await asyncio.sleep(0.2)
        assert isinstance(app.screen, ExportScreen) and existing.read_text() == "the user's own file"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("y")
        assert await wait_for(pilot, lambda: screen.last_export is not None)
        assert existing.read_text().startswith("# Session report")


async def test_x_refuses_a_symlink_and_the_sessions_directory(tmp_path, monkeypatch):
    sessions = tmp_path / "sessions"
    path = deep_snapshot(sessions)
    monkeypatch.chdir(sessions)  # the current directory is the producer's
    app = session_app(path, watch=False)
    told = Notices()
    async with app.run_test(size=SIZE, message_hook=told) as pilot:
        screen, modal = await open_export(pilot)
        field = modal.query_one("#export-path")
        assert field.value.startswith("~/")  # not offered here
        field.value = "./report.md"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        assert any("sessions directory" in n for n in told.messages())
        victim = tmp_path / "victim.txt"
        victim.write_text("keep me")
        link = tmp_path / "link.md"
        link.symlink_to(victim)
        field.value = str(link)
        await pilot.press("enter")
        await pilot.pause()
        await asyncio.sleep(0.2)
        assert isinstance(app.screen, ExportScreen) and victim.read_text() == "keep me"
        assert any("symbolic link" in n for n in told.messages())
    assert sorted(p.name for p in sessions.iterdir()) == [path.name]


async def test_the_open_panel_follows_a_rewritten_file(tmp_path):
    from tui.demo import make_tree, write_snapshot
    from tui.formats.aiagent.timeline import event_times, tree_at

    full = make_tree(11, ops=80, depth=2, fanout=1)
    early = tree_at(full, event_times(full)[len(event_times(full)) // 3])
    path = write_snapshot(tmp_path, early, version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen, pane = await open_insights(pilot)
        before = pane.insights
        await asyncio.sleep(0.3)  # let the watcher start
        write_snapshot(tmp_path, full, version=2, reason="final")
        assert await wait_for(pilot, lambda: pane.insights is not before)
        assert sum(u.calls for u in pane.insights.by_model) > sum(u.calls for u in before.by_model)
        assert pane.insights.final_report is not None and before.final_report is None


async def test_at_80x24_the_insights_hide_the_details_instead_of_leaving_a_bare_border(tmp_path):
    """Issue 14, point 8: with the insights in the lower half, an 80x24 terminal had 0 rows for the Details beside
    the Totals (a lone top border). They are hidden while the insights show, and come back with the log pane."""
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, pane = await open_insights(pilot)
        detail = screen.query_one("#detail")
        assert pane.display and not detail.display
        await pilot.press("escape")
        await pilot.pause()
        assert not pane.display and detail.display and detail.region.height >= 3


async def test_at_160x48_the_details_stay_beside_the_insights(tmp_path):
    app = session_app(deep_snapshot(tmp_path), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen, pane = await open_insights(pilot)
        assert pane.display and screen.query_one("#detail").display


async def test_the_export_dialog_marks_its_choice_without_colour_over_the_dimmed_session(tmp_path):
    """Both radio buttons draw the same dot (the choice is told by colour only): `[x]` marks the chosen format,
    and the session stays visible behind the dialog (dimmed, not blanked)."""
    app = session_app(deep_snapshot(tmp_path / "in"), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        modal = app.screen
        assert isinstance(modal, ExportScreen)
        assert modal.styles.background.a < 1  # the screen behind shows through

        def labels() -> list[str]:
            return [modal.query_one(f"#fmt-{fmt}").label.plain for fmt in ("markdown", "json")]

        assert labels() == ["[x] Markdown report", "[ ] JSON (normalised model)"]
        await pilot.press("shift+tab", "right", "enter")
        await pilot.pause()
        assert modal.fmt == "json" and labels() == ["[ ] Markdown report", "[x] JSON (normalised model)"]
