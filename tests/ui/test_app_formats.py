"""Jules and Genkit snapshots in the app, driven with keys as a user would (Pilot)."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import SIZE, panel_text, top, wait_for
from helpers.browserhelpers import settle
from tui.demo import make_tree, write_snapshot
from tui.demo.genkit import make_genkit_snapshots, write_genkit_dir
from tui.demo.jules import make_jules_snapshot, write_jules
from tui.formats.load import load
from tui.model.nodes import Op
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.totals_panel import TotalsPanel


def app_on(path) -> MonitorApp:
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), watch=False)


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def visible_ops(tree) -> list[Op]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        if isinstance(node.data, Op):
            out.append(node.data)
        if node.is_expanded:
            stack.extend(reversed(node.children))
    return out


async def test_jules_failed_commands_with_their_output(tmp_path):
    app = app_on(write_jules(tmp_path, make_jules_snapshot(1), gzip=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert screen.tree.border_title == "Jules activities"
        totals = screen.query_one(TotalsPanel)
        assert totals.border_title == "Jules insights"
        facts = panel_text(totals)
        assert "failed cmds" in facts and "completed" in facts and "pull request" in facts
        assert "Fix" in str(screen.tree.root.label)  # the session's title on the root
        # errors only: the two failed commands and nothing else
        await pilot.press("e")
        await pilot.pause()
        failed = visible_ops(screen.tree)
        assert [(op.kind, op.name, op.error) for op in failed] == [("tool", "npm test", "exit 1"),
                                                                   ("tool", "npm run lint", "exit 2")]
        while not isinstance(screen.tree.cursor_node.data, Op):
            await pilot.press("down")
        await pilot.pause(0.3)
        details = text_of(screen, "#detail-body")
        assert "Output (failed)" in details and "Tests:       1 failed, 57 passed" in details
        logs = screen.query_one(LogPane)
        assert logs.entries[0].severity == "ERR" and "npm test" in logs.entries[0].message
        assert any("Tests:       1 failed" in e.message for e in logs.entries[1:])
        # Enter: the whole output in the payload viewer
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and app.screen.mode == "view")
        payload = app.screen
        assert any("Expected: 90.5" in line for line in payload.current_lines)
        await pilot.press("escape")
        await pilot.pause()
        assert top(app) is screen
        # back to everything: the root's log pane is the session's timeline
        await pilot.press("e")
        screen.tree.move_cursor(screen.tree.root)
        await pilot.pause(0.3)
        messages = [e.message for e in screen.query_one(LogPane).entries]
        assert messages[0] == "[planGenerated] Plan with 4 steps" and "[sessionCompleted] Session completed" in messages


async def test_jules_search_finds_a_command(tmp_path):
    app = app_on(write_jules(tmp_path, make_jules_snapshot(2, state="failed")))
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.press("slash")
        await pilot.press(*"git push")
        await pilot.press("enter")
        await pilot.pause(0.3)
        op = screen.tree.cursor_node.data
        assert isinstance(op, Op) and op.name.startswith("git push") and op.failed
        assert "fatal: could not read Username" in text_of(screen, "#detail-body")
        assert "failed" in str(screen.tree.root.label)


async def test_genkit_directory_branch_expands_and_drills_in(tmp_path):
    folder = write_genkit_dir(tmp_path / "chat-store", make_genkit_snapshots(2))
    app = app_on(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert screen.tree.border_title == "Genkit snapshots"
        facts = panel_text(screen.query_one(TotalsPanel))
        assert "orphaned" in facts and "branches" in facts and "head" in facts
        branch = next(op for op in screen.session.all_ops() if op.kind == "branch")
        assert "3 orphaned" in branch.name
        # walk down to the branch with the keys, expand it in place
        while screen.tree.cursor_node.data is not branch:
            await pilot.press("down")
        await pilot.press("right")  # the branch's turns appear under it
        await pilot.pause()
        assert [c.data for c in screen.tree.cursor_node.children] == branch.child.turns
        assert len(branch.child.turns) == 3
        await pilot.press("down", "right")  # into its first turn, expanded
        await pilot.pause()
        orphaned = [op for op in visible_ops(screen.tree) if op.session is branch.child]
        assert len(orphaned) == 1 and "orphaned" in orphaned[0].name
        while screen.tree.cursor_node.data is not branch:
            await pilot.press("up")
        await pilot.pause(0.3)
        assert "Branch (restored away from)" in text_of(screen, "#detail-body")
        # Enter drills into the branch: a session screen of its own
        await pilot.press("enter")
        await pilot.pause()
        inner = top(app)
        assert inner is not screen and inner.session is branch.child
        assert "orphaned branch" in text_of(inner, "#crumbs")
        inner_facts = " ".join(panel_text(inner.query_one(TotalsPanel)).split())
        assert "snapshots 3" in inner_facts and "orphaned 3" in inner_facts
        await pilot.press("escape")
        await pilot.pause()
        assert top(app) is screen


async def test_genkit_snapshot_details_and_state_payload(tmp_path):
    folder = write_genkit_dir(tmp_path / "chat-store", make_genkit_snapshots(3, restore_from=None))
    app = app_on(folder)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        second = list(screen.session.all_ops())[1]
        screen.tree.reveal(second)
        await pilot.pause(0.3)
        details = text_of(screen, "#detail-body")
        assert "Genkit snapshot" in details and "State changes since the parent" in details
        assert "matches sha256(state)" in details
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PayloadScreen) and app.screen.mode == "view")
        assert any('"messages"' in line for line in app.screen.current_lines)
        await pilot.press("r")  # the parent's state
        await wait_for(pilot, lambda: app.screen.capture is not None and app.screen.capture.side == "request")
        assert app.screen.capture.note == "the parent snapshot's state"


async def test_browser_lists_a_jules_file_and_a_genkit_directory(tmp_path):
    sessions = tmp_path / "sessions"
    write_snapshot(sessions, make_tree(4, ops=10, depth=1), version=2)
    write_jules(sessions, make_jules_snapshot(1))
    write_genkit_dir(sessions / "chat-store", make_genkit_snapshots(2))
    (sessions / "payloads").mkdir()
    app = MonitorApp(sessions_dir=sessions, watch=False)
    async with app.run_test(size=(200, 40)) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        await settle(pilot, browser)
        rows = {row.kind: row for row in browser.model.rows.values()}
        assert set(rows) == {"snapshot", "jules", "genkit"}
        assert rows["genkit"].session_id == "chat-store" and rows["genkit"].turns == 5 and not rows["genkit"].broken
        assert rows["jules"].status == "ok" and rows["jules"].tokens is None
        table_ids = [str(browser.table.get_row(key)[-1]) for key in (rows["jules"].key, rows["genkit"].key)]
        assert table_ids[0].startswith("jules ") and table_ids[1] == "genkit chat-store"
        await pilot.press("slash", *"genkit", "enter")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert app.screen.doc.format == "genkit-snapshots"


async def test_a_new_snapshot_in_an_open_genkit_directory_shows_up(tmp_path):
    snaps = make_genkit_snapshots(5, restore_from=None)
    folder = write_genkit_dir(tmp_path / "store", snaps[:-1])
    app = MonitorApp(sessions_dir=tmp_path, document=load(str(folder)))
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        assert len(list(screen.session.all_ops())) == len(snaps) - 1
        await asyncio.sleep(0.4)  # the watcher is up
        write_genkit_dir(folder, snaps[-1:], session_data=False)
        assert await wait_for(pilot, lambda: len(list(top(app).session.all_ops())) == len(snaps))


async def test_jules_activities_page_shows_a_command_without_exit_code_as_succeeded(tmp_path):
    import orjson

    from helpers.foreignfixtures import PAGE

    path = tmp_path / "activities.json"
    path.write_bytes(orjson.dumps(PAGE))
    app = app_on(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert screen.tree.border_title == "Jules activities"
        facts = " ".join(panel_text(screen.query_one(TotalsPanel)).split())
        assert "failed cmds 1" in facts and "commands 2" in facts
        # the command the API wrote without exitCode: ok, exit 0, in the tree, the details and the log pane
        npm = next(op for op in screen.session.all_ops() if op.name == "npm test")
        assert not npm.failed
        while screen.tree.cursor_node.data is not npm:
            await pilot.press("down")
        await pilot.pause(0.3)
        details = text_of(screen, "#detail-body")
        assert "0 (left out: the API omits a zero exit code)" in details and "Output (failed)" not in details
        logs = screen.query_one(LogPane)
        assert logs.entries[0].severity == "INF" and logs.entries[0].message == "$ npm test  → exit 0"
        # errors only: the lint alone
        await pilot.press("e")
        await pilot.pause()
        assert [op.name for op in visible_ops(screen.tree)] == ["npm run lint"]
        await pilot.press("e")
        await pilot.pause()
        # the activity with no type: its description, in the tree and the details
        untyped = next(op for op in screen.session.all_ops() if op.op_id == "x1")
        screen.tree.reveal(untyped)
        await pilot.pause(0.3)
        assert "Cloned the repository into the VM" in text_of(screen, "#detail-body")


async def test_genkit_shipped_array_shows_its_turns_and_branch(tmp_path):
    import orjson

    from helpers.foreignfixtures import S1, S2, S4, SHIPPED

    path = tmp_path / "snapshots.json"
    path.write_bytes(orjson.dumps(SHIPPED))
    app = app_on(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = top(app)
        assert screen.tree.border_title == "Genkit snapshots"
        facts = " ".join(panel_text(screen.query_one(TotalsPanel)).split())
        assert "turns 2" in facts and "branches 1" in facts and "orphaned 2" in facts
        assert [t.label for t in screen.session.turns] == ["hi", "Tell me about channels instead."]
        branch = next(op for op in screen.session.all_ops() if op.kind == "branch")
        assert branch.child.agent_id == "orphaned branch"
        while screen.tree.cursor_node.data is not branch:
            await pilot.press("down")
        await pilot.press("right")
        await pilot.pause()
        await pilot.press("down", "right")
        await pilot.pause()
        inside = [op.op_id for op in visible_ops(screen.tree) if op.session is branch.child]
        assert inside[0] == S2
        # a snapshot's details: the messages it added, tool request and response included
        second = next(op for op in branch.child.all_ops() if op.op_id == S2)
        screen.tree.reveal(second)
        await pilot.pause(0.3)
        details = text_of(screen, "#detail-body")
        assert "tool request getWeather" in details and "tool response getWeather" in details
        assert S1 in details  # its parentId
        head = next(op for op in screen.session.all_ops() if op.op_id == S4)
        screen.tree.reveal(head)
        await pilot.pause(0.3)
        assert "Channels are typed conduits." in text_of(screen, "#detail-body")
