"""The corpus in the app (Pilot): the browser lists and opens the good files and marks the broken ones with their
reasons; degraded files open with the problem on the broken node or payload; hostile text never styles anything
and never reaches the screen raw."""

from __future__ import annotations

import asyncio
import gzip
import shutil

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from helpers.corpusfix import assert_inert, case_names, corpus, other_user, small_cap  # noqa: F401 - fixtures
from helpers.apphelpers import Notices, screen_lines, wait_for
from helpers.browserhelpers import settle
from helpers.payloadhelpers import settled, status, visible
from tui.formats.load import load
from tui.model.search import find_op_by_path, walk_ops
from tui.ui.app import MonitorApp
from tui.ui.screens.browser import BrowserScreen
from tui.ui.screens.payload import PayloadScreen
from tui.ui.screens.session import SessionScreen
from tui.ui.widgets.detail_panel import describe
from tui.ui.widgets.log_pane import LogPane

SIZE = (160, 48)
BROKEN = case_names("broken")


def session_app(path) -> MonitorApp:
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), watch=False)


def row_of(screen: BrowserScreen, name: str):
    return next(row for row in screen.model.rows.values() if row.path.name == name.rsplit("/", 1)[-1])


def all_tree_nodes(tree) -> list:
    """Expand everything (sub-agents inline too) and return every node."""
    return tree.expand_all()


def assert_not_styled_by_data(text: Text, where: str) -> None:
    """Rich markup in the data is shown as characters (every MARKUP keeps its tags), never made a style or link."""
    plain = text.plain
    assert plain.count("MARKUP") == plain.count("[bold magenta]MARKUP[/]"), f"{where}: markup parsed: {plain!r}"
    assert not any("link" in str(span.style) for span in text.spans), f"{where}: a link from the data"


async def test_browser_lists_good_rows_and_marks_broken_ones_with_reasons(corpus, small_cap):
    directory, cases = corpus
    with other_user():
        app = MonitorApp(sessions_dir=directory, watch=False)
        notes = Notices()
        async with app.run_test(size=SIZE, message_hook=notes) as pilot:
            screen = app.screen
            await settle(pilot, screen, timeout=60)
            table = screen.query_one(DataTable)
            for name, case in cases.items():
                if name.startswith("children/"):
                    continue
                row = row_of(screen, name)
                cells = [cell.plain for cell in table.get_row(row.key)]
                for cell in cells:
                    assert_inert(cell, name)
                if case.kind == "broken":
                    assert case.reason in row.broken, f"{name}: {row.broken!r}"
                    assert cells[3] == "BROKEN" and cells[2].startswith(row.broken[:20]), (name, cells)
                else:
                    assert not row.broken and cells[3] in ("ok", "failed", "● running"), (name, cells)
            # Enter on a broken row says why, and stays in the browser
            broken_key = row_of(screen, "not-utf8.json.gz").key
            table.move_cursor(row=table.get_row_index(broken_key))
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert isinstance(app.screen, BrowserScreen)
            assert any("cannot open" in n and "not UTF-8 text" in n for n in notes.lines()), notes.lines()
            hostile_key = next(r.key for r in screen.model.rows.values() if r.session_id.startswith("hostile-name"))
            table.move_cursor(row=table.get_row_index(hostile_key))
            await pilot.press("enter")
            await pilot.pause(0.2)
            for notice in notes.lines():
                assert_inert(notice, "notification")
            # everything else keeps working: every good, degraded, hostile and deep file opens
            for name, case in cases.items():
                if case.kind == "broken" or name.startswith("children/"):
                    continue
                table.move_cursor(row=table.get_row_index(row_of(screen, name).key))
                await pilot.press("enter")
                await pilot.pause(0.1)
                assert isinstance(app.screen, SessionScreen), name
                await pilot.press("escape")
                await pilot.pause(0.05)
                assert isinstance(app.screen, BrowserScreen), name


async def test_wrong_types_open_with_broken_nodes_and_their_reasons(corpus):
    directory, cases = corpus
    app = session_app(directory / "wrong-types.json.gz")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.pause()
        nodes = all_tree_nodes(screen.tree)
        labels = {id(node.data): node.label.plain for node in nodes}
        for where, fragment in cases["wrong-types.json.gz"].problems:
            if where == "":
                target = screen.session
            elif where.startswith("turn "):
                target = screen.session.turns[int(where.split()[1])]
            else:
                target = find_op_by_path(screen.session, where.rstrip("."))  # a sub-agent shows on its op
            assert "BROKEN" in labels[id(target)], (where, labels[id(target)])
            assert fragment in describe(target).plain, (where, fragment)
        op = find_op_by_path(screen.session, "2-2")
        screen.tree.reveal(op)
        await pilot.pause(0.2)
        detail = str(screen.query_one("#detail-body", Static).render())
        assert "broken attributes is array, expected an object" in " ".join(detail.split())
        await pilot.press("e")  # errors only keeps the broken nodes
        await pilot.pause()
        assert screen.tree.cursor_node.data is op


async def payload_of(pilot, screen: SessionScreen, path: str) -> list[tuple[str, str]]:
    """(the body's visible lines, status line) of every capture of the op at `path`, then back to the session."""
    screen.tree.reveal(find_op_by_path(screen.session, path))
    await pilot.pause()
    await pilot.press("p")
    payload = await settled(pilot)
    assert isinstance(payload, PayloadScreen)
    out = []
    for index in range(len(payload.captures)):
        payload.show_capture(index)
        payload = await settled(pilot)
        out.append(("\n".join(visible(payload)), status(payload)))  # as drawn: made inert by the widget
    await pilot.press("escape")
    await pilot.pause()
    return out


async def test_bad_captures_say_why_in_the_payload_viewer(corpus, small_cap):
    """(small_cap: the payload bomb is refused past 64 MiB, as with --max-bytes 64M, instead of the 256 MiB cap:
    the same refusal, a quarter of the inflating)"""
    directory, cases = corpus
    for name in ("bad-base64.json.gz", "bad-refs.json.gz", "session/bad-children.jsonl"):
        with other_user():
            app = session_app(directory / name)
            async with app.run_test(size=SIZE) as pilot:
                screen = app.screen
                await pilot.pause()
                for where, fragment in cases[name].problems:
                    op = find_op_by_path(screen.session, where.rstrip("."))
                    if op.kind == "session":
                        continue  # sub-agents: test_bad_child_ledgers_show_on_their_ops
                    shown = await payload_of(pilot, screen, where)
                    if "sha256" in fragment:  # a warning: the payload is shown, the mismatch is said above it
                        assert any(fragment in line and "cannot read" not in body for body, line in shown), shown
                    else:
                        assert any(fragment in body + line and ("cannot read this payload" in body
                                                                or "invalid capture" in body)
                                   for body, line in shown), (name, where, shown)
                if name == "bad-refs.json.gz":
                    [(body, line)] = await payload_of(pilot, screen, "1-10")  # the good one still opens
                    assert '"answer": 42' in body and line == "", (body, line)


async def test_bad_child_ledgers_show_on_their_ops(corpus):
    directory, cases = corpus
    app = session_app(directory / "session/bad-children.jsonl")
    notes = Notices()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = app.screen
        await pilot.pause()
        labels = {id(node.data): node.label.plain for node in all_tree_nodes(screen.tree)}
        for where, fragment in cases["session/bad-children.jsonl"].problems:
            op = find_op_by_path(screen.session, where.rstrip("."))
            if op.kind != "session":
                continue
            if op.child is None:
                assert "(stored elsewhere)" in labels[id(op)]
            else:
                assert "BROKEN sub-agent" in labels[id(op)]
            assert fragment in describe(op).plain, (where, fragment)
        screen.tree.reveal(find_op_by_path(screen.session, "1-1"))
        await pilot.press("enter")
        await pilot.pause()
        assert any("stored elsewhere" in n for n in notes.lines())


@pytest.mark.parametrize("name", ["hostile-text.json.gz", "session/hostile-ledger.jsonl"])
async def test_hostile_text_is_literal_everywhere_in_the_session_screen(corpus, name):
    directory, _ = corpus
    app = session_app(directory / name)
    notes = Notices()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        screen = app.screen
        await pilot.pause(0.3)
        crumbs = screen.query_one("#crumbs", Static).render()
        for node in all_tree_nodes(screen.tree):
            label = node.label
            assert_inert(label.plain, "tree label")
            assert_not_styled_by_data(label, "tree label")
            detail = describe(node.data)
            assert_inert(detail.plain, "details")
            assert_not_styled_by_data(detail, "details")
        texts = [str(crumbs), str(screen.query_one("#totals").render())]
        pane = screen.query_one(LogPane)
        screen.show_node(screen.session)
        await pilot.pause(0.3)
        assert pane.shown, "the hostile logs are listed"
        for y in range(len(pane.shown)):
            strip = pane.render_line(y)
            texts.append("".join(segment.text for segment in strip))
            assert not any(seg.style and seg.style.link for seg in strip)
        texts.append(str(pane.border_title))
        for text in texts:
            assert_inert(text, "screen text")
        assert any("[bold magenta]MARKUP[/]" in t for t in texts[2:]), "log messages shown literally"
        if name.endswith(".json.gz"):
            for op in walk_ops(screen.session):
                if op.kind == "llm":
                    shown = await payload_of(pilot, screen, op.path)
                    for body, line in shown:
                        assert_inert(body + line, "payload")
                    assert any("[bold magenta]MARKUP[/]" in body for body, _ in shown), shown
        await pilot.press("slash")
        await pilot.press(*"MARKUP")
        await pilot.press("enter")
        await pilot.pause()
        assert_inert(str(screen.query_one("#status").render()), "status line")
        for notice in notes.lines():
            assert_inert(notice, "notification")


@pytest.mark.parametrize("name", ["hostile-text.json.gz", "session/hostile-ledger.jsonl"])
async def test_hostile_text_is_inert_on_every_screen(corpus, name, tmp_path):
    """Every screen over a hostile session (tree, each op's details, waterfall, insights, export, help, search,
    a reload, the version diff and history) composes to lines without a single raw control character."""
    directory, _ = corpus
    path = tmp_path / name.rsplit("/", 1)[-1]
    shutil.copy(directory / name, path)
    app = MonitorApp(sessions_dir=tmp_path, document=load(str(path)))
    seen: list[str] = []

    def check(where: str) -> None:
        for line in screen_lines(app):
            assert_inert(line, where)
        seen.append(where)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        check("session")
        screen = app.screen
        for op in walk_ops(screen.session):
            screen.tree.reveal(op)
            await pilot.pause(0.1)
            check(f"op {op.path}")
        for keys, where in ((["w"], "waterfall"), (["escape", "i"], "insights"), (["i", "x"], "export"),
                            (["escape", "question_mark"], "help"), (["escape", "slash", *"MARKUP", "enter"], "search")):
            await pilot.press(*keys)
            await pilot.pause(0.3)
            check(where)
        await asyncio.sleep(0.3)
        data = path.read_bytes()  # a new version of the file: the history records it, the screen reloads
        shown = screen.doc
        if name.endswith(".jsonl"):
            path.write_bytes(data + data.splitlines(keepends=True)[-1].replace(b'"seq":4', b'"seq":5'))
        else:
            path.write_bytes(gzip.compress(gzip.decompress(data).replace(b'"status":"ok"', b'"status":"failed"')))
        # (waited for, not a fixed 1.5 s: the new version on screen and in the history)
        assert await wait_for(pilot, lambda: screen.doc is not shown and len(screen.history.versions()) >= 2)
        await pilot.pause(0.1)
        check("after a reload")
        for keys, where in ((["D"], "version diff"), (["escape", "left_square_bracket"], "older version")):
            await pilot.press(*keys)
            await pilot.pause(0.4)
            check(where)
    assert len(seen) > 8
