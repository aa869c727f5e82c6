"""Snapshot history in the app: a file rewritten while open keeps its versions; `[`/`]` step, `D` compares."""

from __future__ import annotations

import asyncio

import orjson

from helpers.apphelpers import SIZE, fed, session_app, toast_texts, top, wait_for
from helpers.browserhelpers import ids, settle
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.formats.load import load
from tui.model.diff import ADDED
from tui.text.summary import summarise
from tui.ui import app_history
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.diff import DiffScreen
from tui.model.session_facts import shown_counts


def stages(seed: int, ops: int = 60):
    full = make_tree(seed, ops=ops, depth=2, fanout=1)
    times = event_times(full)
    return [tree_at(full, times[len(times) * n // 4]) for n in (1, 2, 3)] + [full]


async def rewrite(pilot, app, tmp_path, tree, expected_versions):
    write_snapshot(tmp_path, tree, version=2, reason="subagent_finish")
    key = top(app).history_key
    assert await wait_for(pilot, lambda: len(app.history.versions(key)) == expected_versions)
    await pilot.pause(0.2)


def ops_on_screen(screen) -> int:
    return screen.session.counts.ops


async def test_rewrites_become_versions_and_brackets_step_through_them(tmp_path):
    trees = stages(31)
    path = write_snapshot(tmp_path, trees[0], version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        key = screen.history_key
        counts = [ops_on_screen(screen)]
        await asyncio.sleep(0.3)  # let the watcher start
        for n, tree in enumerate(trees[1:], start=2):
            await rewrite(pilot, app, tmp_path, tree, n)
            assert await wait_for(pilot, lambda: ops_on_screen(top(app)) > counts[-1])
            counts.append(ops_on_screen(top(app)))
        # the same content written again (new bytes on disk, other envelope) is not a new version
        write_snapshot(tmp_path, trees[-1], version=2, reason="final")
        await pilot.pause(1.0)
        versions = app.history.versions(key)
        assert [v.seq for v in versions] == [1, 2, 3, 4]
        assert [v.summary.ops for v in versions] == counts
        assert not screen.query_one("#history").has_class("viewing")

        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None)
        assert screen.viewing.seq == 3 and ops_on_screen(screen) == counts[2]
        banner = str(screen.query_one("#history").render())
        assert "version 3/4" in banner and "live updates paused" in banner
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None and screen.viewing.seq == 2)
        assert ops_on_screen(screen) == counts[1] and screen.session.status == "running"

        # a live update while viewing history: the view stays, the banner counts the new version
        grown = orjson.loads(orjson.dumps(trees[-1]))
        grown["sessionTitle"] = "changed afterwards"
        await rewrite(pilot, app, tmp_path, grown, 5)
        assert screen.viewing.seq == 2 and ops_on_screen(screen) == counts[1]
        assert "2/5" in str(screen.query_one("#history").render())

        for expected in (3, 4):
            await pilot.press("right_square_bracket")
            assert await wait_for(pilot, lambda: screen.viewing is not None and screen.viewing.seq == expected)
        await pilot.press("right_square_bracket")  # past the newest recorded one: live again
        assert await wait_for(pilot, lambda: screen.viewing is None)
        assert screen.session.title == "changed afterwards" and screen.session.status == "ok"
        assert not screen.query_one("#history").has_class("viewing")


async def test_capital_d_compares_the_first_and_the_current_version(tmp_path):
    trees = stages(32)
    path = write_snapshot(tmp_path, trees[0], version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        first_ops = ops_on_screen(screen)
        await asyncio.sleep(0.3)
        await rewrite(pilot, app, tmp_path, trees[-1], 2)
        await pilot.press("D")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff is not None)
        diff_screen = app.screen
        diff = diff_screen.diff
        assert diff.before.counts["ops"] == first_ops and diff.after.status == "ok"
        added = diff.of_kind(ADDED)
        assert len(added) == diff.after.counts["ops"] - first_ops + len(diff.of_kind("removed"))
        assert diff_screen.query_one("#diff-ops").row_count == len(diff.ops)
        # pick B = A: nothing differs
        await pilot.press("up")
        await pilot.press("b")
        assert await wait_for(pilot, lambda: diff_screen.diff.ops == [])
        await pilot.press("down", "b")
        assert await wait_for(pilot, lambda: diff_screen.diff.ops != [])
        # Enter on an added op: back on the session screen, on that op
        table = diff_screen.query_one("#diff-ops")
        table.focus()
        target = diff_screen.rows[0]
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert await wait_for(pilot, lambda: getattr(screen.tree.cursor_node.data, "path", None) == target.path)


async def test_live_stream_versions(tmp_path, monkeypatch):
    doc = load(str(write_snapshot(tmp_path / "src", make_tree(33, ops=60, depth=2), version=2)))
    events = [event for _, event in replay_events(doc, max_tree_events=6)]
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        trees = [n for n, e in enumerate(events) if e["type"] == "op_tree"]
        trees = trees[:: max(1, len(trees) // 5)]  # feed the stream in ~5 batches
        await fed(app, pilot, [orjson.dumps(event) for event in events[: trees[0] + 1]])
        root = doc.root.trace_id
        app.open_path(f"live:{root}")
        await pilot.pause(0.3)
        screen = top(app)
        with monkeypatch.context() as patch:  # don't wait out the once-a-second limit
            patch.setattr(app_history, "LIVE_HISTORY_SECONDS", 0.0)
            for start, end in zip(trees, trees[1:]):
                await fed(app, pilot, [orjson.dumps(event) for event in events[start + 1: end + 1]])
                await pilot.pause(0.2)
        await fed(app, pilot, [orjson.dumps(event) for event in events[trees[-1] + 1:]])
        key = f"live:{root}"
        assert await wait_for(pilot, lambda: app.history.versions(key)[-1].summary.status == "ok")
        versions = app.history.versions(key)
        assert len(versions) >= 3 and versions[0].summary.ops < versions[-1].summary.ops
        assert await wait_for(pilot, lambda: app.history_shown.get(key) is versions[-1])
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None)
        assert screen.viewing.seq == versions[-2].seq and screen.session.counts.ops == versions[-2].summary.ops
        await pilot.press("right_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is None)
        assert shown_counts(screen.session) == summarise(doc)["counts"]


async def test_browser_mark_and_diff_two_files(tmp_path):
    one = write_snapshot(tmp_path, make_tree(41, ops=40, depth=2, agent="twin", started_at=1_700_000_000_000))
    two = write_snapshot(tmp_path, make_tree(42, ops=40, depth=2, agent="twin", started_at=1_700_000_100_000))
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        browser = app.screen
        assert isinstance(browser, BrowserScreen)
        assert await wait_for(pilot, lambda: len(browser.model.rows) == 2 and all(r.loaded for r in browser.model.rows.values()))
        await pilot.press("d")  # nothing marked yet: a hint, no diff
        await pilot.pause()
        assert app.screen is browser
        await pilot.press("m")
        marked = browser.table.shown[browser.table.cursor_row]
        await pilot.press("down", "d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        diff = app.screen.diff
        other = browser.table.shown[browser.table.cursor_row]
        assert {marked, other} == {str(one), str(two)}
        assert diff.before.label == marked.rsplit("/", 1)[-1] and diff.after.agent == "twin"
        expected = summarise(load(other))["totals"]["tokensIn"] - summarise(load(marked))["totals"]["tokensIn"]
        assert diff.totals_delta["tokensIn"] == expected
        rows = app.screen.rows
        target = next(r for r in rows if r.change != "removed")
        app.screen.query_one("#diff-ops").move_cursor(row=rows.index(target))
        app.screen.query_one("#diff-ops").focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: getattr(app.screen, "doc", None) is not None)
        screen = top(app)
        assert screen.doc.path == other
        assert await wait_for(pilot, lambda: getattr(screen.tree.cursor_node.data, "path", None) == target.path)


async def test_a_growing_v3_ledger_keeps_its_versions(tmp_path):
    from helpers.builders import ledger_line

    (tmp_path / "session").mkdir()
    path = tmp_path / "session" / "s.jsonl"

    def turn(n: int) -> bytes:
        return (ledger_line("turn_start", 2 * n, "s", turn=n) +
                ledger_line("turn_end", 2 * n + 1, "s", turn=n, status="ok",
                            ops=[{"opId": f"t{n}", "opIndex": 1, "kind": "tool"}]))

    path.write_bytes(ledger_line("session_start", 1, "s", agentId="grow") + turn(1))
    app = MonitorApp(sessions_dir=tmp_path)  # opened from the browser, which tails session/*.jsonl
    async with app.run_test(size=SIZE) as pilot:
        app.open_path(str(path))
        await pilot.pause()
        screen = top(app)
        key = screen.history_key
        assert screen.session.counts.turns == 1
        await asyncio.sleep(0.3)
        for n, expected in ((2, 2), (3, 3)):
            with path.open("ab") as f:
                f.write(turn(n))
            assert await wait_for(pilot, lambda: len(app.history.versions(key)) == expected)
            assert await wait_for(pilot, lambda: top(app).session.counts.turns == n)
        assert [v.summary.turns for v in app.history.versions(key)] == [1, 2, 3]
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None and screen.viewing.seq == 1)
        assert screen.session.counts.turns == 1 and screen.session.agent_id == "grow"


async def test_a_sub_agent_opened_from_an_old_version_stays_on_it_and_history_ends_with_the_screen(tmp_path):
    trees = stages(34)
    path = write_snapshot(tmp_path, trees[1], version=2, reason="subagent_finish")
    app = MonitorApp(sessions_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.open_path(str(path))
        await pilot.pause()
        screen = top(app)
        key = screen.history_key
        await asyncio.sleep(0.3)
        await rewrite(pilot, app, tmp_path, trees[-1], 2)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None)
        agent_op = next(op for op in screen.session.all_ops() if op.kind == "session" and op.child)
        old_child_ops = agent_op.child.counts.ops
        screen.tree.reveal(agent_op)
        await pilot.press("enter")
        await pilot.pause()
        child = top(app)
        assert child is not screen and child.viewing is screen.viewing
        assert child.session.counts.ops == old_child_ops
        assert "version 1/2" in str(child.query_one("#history").render())
        await pilot.press("right_square_bracket")  # the newest version of that sub-agent
        assert await wait_for(pilot, lambda: child.viewing is None)
        assert child.session.counts.ops >= old_child_ops and child.session.status == "ok"
        await pilot.press("escape", "escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen))
        assert await wait_for(pilot, lambda: not app.history.has(key))


async def test_capital_d_on_the_first_version_compares_it_with_the_next_not_itself(tmp_path):
    trees = stages(34)
    path = write_snapshot(tmp_path, trees[0], version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        first_ops = ops_on_screen(screen)
        await asyncio.sleep(0.3)
        await rewrite(pilot, app, tmp_path, trees[-1], 2)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None and screen.viewing.seq == 1)
        await pilot.press("D")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff is not None)
        diff = app.screen.diff
        assert diff.before.label.startswith("version 1 ") and diff.after.label.startswith("version 2 ")
        assert diff.before.counts["ops"] == first_ops and diff.ops != []


async def test_the_comparing_notice_goes_once_the_diff_is_shown(tmp_path):
    write_snapshot(tmp_path, make_tree(43, ops=40, depth=2, agent="twin", started_at=1_700_000_000_000))
    write_snapshot(tmp_path, make_tree(44, ops=40, depth=2, agent="twin", started_at=1_700_000_100_000))
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app.screen)
        assert len(ids(app.screen)) == 2
        await pilot.press("m", "down", "d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.diff is not None)
        await pilot.pause(0.2)
        assert not any("comparing" in text for text in toast_texts(app))
