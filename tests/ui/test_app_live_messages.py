"""The live pipeline as the screens see it (tui.ui.live_controller posting tui.ui.messages): a drilled-in sub-agent
of a stream follows it, an export of a changing session is whole, a live update while an older version is shown
leaves it there, `o` from the waterfall selects the op of the tree on screen, and any move ends follow mode."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import orjson

from helpers.apphelpers import SIZE, Notices, fed, top, wait_for
from tui.formats.aiagent.live.facts import LiveFacts
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.replay import replay_events, send_events
from tui.formats.load import load
from tui.model.search import find_op_by_path, walk_ops
from tui.ui import app_history
from tui.ui.app import MonitorApp
from tui.ui.messages import DocumentReloaded, HistoryChanged, LiveTreeBuilt, StreamStateChanged
from tui.ui.screens.export import ExportScreen
from tui.ui.screens.waterfall import WaterfallScreen


def stream(tmp_path, seed: int = 21):
    """A finished session with sub-agents, as the (timestamp, event) pairs of the stream that made it (made once
    per process: every test only reads them, serialising each event it sends)."""
    return _stream(seed)


@functools.cache
def _stream(seed: int):
    with tempfile.TemporaryDirectory() as folder:
        doc = load(str(write_snapshot(Path(folder), make_tree(seed, ops=120, depth=2, fanout=2), version=2)))
        return doc.root.trace_id, tuple(replay_events(doc, max_tree_events=40))


async def feed(app: MonitorApp, pilot, events) -> None:
    await fed(app, pilot, [orjson.dumps(event) for _, event in events])


def errors(notes: Notices) -> list[str]:
    return notes.messages("error")


async def open_live(app: MonitorApp, pilot, root: str) -> None:
    app.open_path(f"live:{root}")
    assert await wait_for(pilot, lambda: getattr(app.screen, "live_root", None) == root and app.screen.is_mounted)
    await pilot.pause()


async def test_a_drilled_in_sub_agent_of_a_stream_follows_it_to_the_end(tmp_path):
    root, events = stream(tmp_path)
    sock = tmp_path / "m.sock"
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, sock.exists)
        await send_events(events[:100], f"unix:{sock}", speed=0)
        assert await wait_for(pilot, lambda: app.live.tally.events == 100)
        await open_live(app, pilot, root)
        screen = top(app)
        sub = find_op_by_path(screen.session, "2-2")
        assert sub is not None and sub.child is not None and sub.child.status == "running"
        screen.tree.reveal(sub)
        await pilot.pause()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: top(app) is not screen)
        drilled = top(app)
        assert drilled.session.path_prefix == "2-2" and drilled.session.status == "running"
        await send_events(events[100:], f"unix:{sock}", speed=0)
        # on main the sub-agent kept "running" forever: its screen had no live root and got no update
        assert await wait_for(pilot, lambda: top(app).session.status != "running", timeout=20)
        assert top(app) is drilled and drilled.session.path_prefix == "2-2"
        assert "events" in str(drilled.query_one("#live").render())


async def test_export_of_a_changing_session_is_the_version_on_screen_whole(tmp_path):
    root, events = stream(tmp_path)
    (tmp_path / "sessions").mkdir()  # (exports never go into the sessions directory)
    app = MonitorApp(sessions_dir=tmp_path / "sessions", listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    target = tmp_path / "out" / "report.md"
    target.parent.mkdir()
    notes = Notices()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await feed(app, pilot, events[:300])
        await open_live(app, pilot, root)
        screen = top(app)
        shown = screen.session
        ops = shown.counts.ops
        models = {op.model for op in walk_ops(shown) if op.model}
        assert ops and models
        await pilot.press("x")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        for start in range(300, len(events), 60):  # the session keeps changing under the dialog
            await feed(app, pilot, events[start:start + 60])
            await pilot.pause(0.05)
        assert await wait_for(pilot, lambda: screen.session is not shown)
        app.screen.query_one("#export-path").value = str(target)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: screen.last_export is not None, timeout=20), (
            notes.messages(), app.screen)
        text = target.read_text()
        # on main the tree under the dialog was released by the next build: "Models | none", "(no turns)"
        assert "(no turns)" not in text and "| none" not in text
        assert all(model in text for model in models)
        assert f"{ops:,}" in text or str(ops) in text
        assert not errors(notes)


async def test_a_live_update_while_an_older_version_is_shown_keeps_it(tmp_path, monkeypatch):
    root, events = stream(tmp_path)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    notes = Notices()
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await feed(app, pilot, events[:200])
        await open_live(app, pilot, root)
        screen = top(app)
        key = screen.history_key
        with monkeypatch.context() as patch:  # don't wait out the once-a-second limit
            patch.setattr(app_history, "LIVE_HISTORY_SECONDS", 0.0)
            await feed(app, pilot, events[200:300])
            assert await wait_for(pilot, lambda: len(app.history.versions(key)) >= 2)
        await pilot.press("left_square_bracket")
        assert await wait_for(pilot, lambda: screen.viewing is not None)
        viewing, shown = screen.viewing, screen.session
        for start in range(300, len(events), 50):
            await feed(app, pilot, events[start:start + 50])
            await pilot.pause(0.05)
        await pilot.pause(0.3)
        assert not errors(notes), errors(notes)
        assert screen.viewing is viewing and screen.session is shown and shown.turns
        assert screen.doc.root is app.live.build(root)  # the newest build waits behind it, for `]`
        for _ in range(len(app.history.versions(key))):
            await pilot.press("right_square_bracket")
            await pilot.pause(0.2)
        assert await wait_for(pilot, lambda: screen.viewing is None and screen.session is app.live.build(root))


async def test_o_from_the_waterfall_selects_the_op_of_the_tree_on_screen(tmp_path):
    root, events = stream(tmp_path)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, pilot, events[:200])
        await open_live(app, pilot, root)
        screen = top(app)
        await pilot.press("w")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        waterfall = app.screen
        view = waterfall.view
        index = next(i for i, row in enumerate(view.model.rows) if getattr(row.node, "path", "") == "1-2")
        view.cursor = index
        await pilot.pause()
        path = view.row.node.path
        expected = app.live.tally.frames + 60
        for _, event in events[200:260]:  # a newer build is on its way ...
            app.live.feed(orjson.dumps(event))
        await pilot.press("o")  # ... and `o` comes before the waterfall or the tree has drawn it
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert await wait_for(pilot, lambda: app.live.tally.frames == expected)
        await pilot.pause(0.3)
        cursor = screen.tree.cursor_node
        current = find_op_by_path(screen.session, path)
        assert screen.session is app.live.build(root)
        assert current is not None and cursor is not None and cursor.data is current, (
            cursor.data if cursor else None)


async def test_any_move_turns_follow_off_while_updates_arrive(tmp_path):
    root, events = stream(tmp_path)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, pilot, events[:150])
        await open_live(app, pilot, root)
        screen = top(app)
        await pilot.press("f")
        assert screen.follow
        start = 150
        for n in range(12):  # rebuilt ten times a second, as a busy stream does
            await feed(app, pilot, events[start:start + 8])
            start += 8
            if n == 4:
                await pilot.press("up")
            await pilot.pause(0.1)
        # on main the move fell in the half second after a rebuild that counted as "not a user move"
        assert not screen.follow
        assert "follow: off" in str(screen.query_one("#status").render())


async def test_the_controller_tells_the_screens_by_message(tmp_path, monkeypatch):
    """The flow as messages (run_test's message_hook sees every one delivered): a new build reaches the session
    screen and the waterfall over it (which no longer polls the screen under it), a new version is announced."""
    root, events = stream(tmp_path)
    seen: list[str] = []

    def hook(message) -> None:
        if isinstance(message, (LiveTreeBuilt, HistoryChanged, StreamStateChanged)):
            seen.append(type(message).__name__)

    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await feed(app, pilot, events[:200])
        await open_live(app, pilot, root)
        screen = top(app)
        await pilot.press("w")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        waterfall = app.screen
        before = waterfall.session
        seen.clear()
        with monkeypatch.context() as patch:  # don't wait out the once-a-second limit
            patch.setattr(app_history, "LIVE_HISTORY_SECONDS", 0.0)
            await feed(app, pilot, events[200:300])
            assert await wait_for(pilot, lambda: waterfall.session is not before)
            assert waterfall.session is app.live.build(root) and screen.session is app.live.build(root)
            assert await wait_for(pilot, lambda: "HistoryChanged" in seen)
        assert "LiveTreeBuilt" in seen


def test_fast_messages_replace_their_own_kind_only():
    a, b, facts = object(), object(), LiveFacts()
    assert LiveTreeBuilt("r", a, facts).can_replace(LiveTreeBuilt("r", b, facts))
    assert not LiveTreeBuilt("r", a, facts).can_replace(LiveTreeBuilt("other", b, facts))
    assert DocumentReloaded(Path("/x"), a, None).can_replace(DocumentReloaded(Path("/x"), b, None))
    assert not DocumentReloaded(Path("/x"), a, None).can_replace(DocumentReloaded(Path("/y"), b, None))
    assert HistoryChanged("k").can_replace(HistoryChanged("k")) and not HistoryChanged("k").can_replace(
        HistoryChanged("j"))
    assert StreamStateChanged().can_replace(StreamStateChanged())
    assert not LiveTreeBuilt("r", a, facts).bubble and not HistoryChanged("k").bubble


async def test_a_build_is_released_once_nothing_shows_it(tmp_path):
    """A resent tree is cyclic: each older build is emptied as soon as no screen, waterfall or export holds it
    (a 50,000-op tree resent every second otherwise grew the app past 4 GB)."""
    root, events = stream(tmp_path)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=[f"unix:{tmp_path / 's.sock'}"], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, pilot, events[:200])
        await open_live(app, pilot, root)
        screen = top(app)
        first = screen.session
        await pilot.press("w")
        assert await wait_for(pilot, lambda: isinstance(app.screen, WaterfallScreen))
        waterfall = app.screen
        await feed(app, pilot, events[200:260])
        second = app.live.build(root)
        assert await wait_for(pilot, lambda: screen.session is second and waterfall.session is second)
        assert first.turns == [] and first.raw is None  # nothing held it any more
        await feed(app, pilot, events[260:320])
        assert await wait_for(pilot, lambda: waterfall.session is app.live.build(root))
        assert second.turns == [] and second.raw is None
        newest = app.live.build(root)
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert newest.turns and newest.raw is not None  # the screen and the controller still hold it
