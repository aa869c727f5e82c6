"""One session, one row: a session with a snapshot file that also arrives live (the stream or OTLP, by the same
root id) is listed once: the live row while it runs, the file's row once it has ended (tui.catalog.row_merge)."""

from __future__ import annotations

import orjson

from helpers.apphelpers import SIZE, fed, wait_for
from helpers.browserhelpers import settle
from tui.catalog.session_row import RowKind
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.ui.app import MonitorApp


def _shown(screen) -> list[tuple[str, str]]:
    return [(screen.model.rows[key].kind, screen.model.rows[key].session_id) for key in screen.model.view]


async def test_a_session_on_file_and_live_is_one_row_live_while_running_then_the_file(tmp_path):
    full = make_tree(21, ops=30, depth=1)
    sid = full["traceId"]
    write_snapshot(tmp_path, tree_at(full, event_times(full)[len(event_times(full)) // 2]), version=2,
                   reason="subagent_finish")
    other = make_tree(22, ops=10, depth=1)
    write_snapshot(tmp_path, other, version=2)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=["unix:" + str(tmp_path / "unused.sock")], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert sorted(_shown(screen)) == sorted([(RowKind.SNAPSHOT, sid), (RowKind.SNAPSHOT, other["traceId"])])
        running = tree_at(full, event_times(full)[-3])
        await fed(app, pilot, [orjson.dumps({"type": "op_tree", "tree": running, "meta": {"sessionId": sid,
                                                                                         "sequence": 1}})])
        assert await wait_for(pilot, lambda: (RowKind.LIVE, sid) in _shown(screen))
        assert (RowKind.SNAPSHOT, sid) not in _shown(screen) and len(_shown(screen)) == 2
        await fed(app, pilot, [orjson.dumps({"type": "op_tree", "tree": full, "meta": {"sessionId": sid, "sequence": 2}})])
        assert await wait_for(pilot, lambda: (RowKind.SNAPSHOT, sid) in _shown(screen))
        assert (RowKind.LIVE, sid) not in _shown(screen) and len(_shown(screen)) == 2
        assert screen.table.row_count == 2


async def test_a_file_row_a_live_stream_was_folded_into_says_so_and_kind_live_finds_it(tmp_path):
    """Issue 30, point 7: once the live twin has ended, the file row shown in its place says `+live` in its Id
    cell, and the filter `kind:live` keeps it (the other file row is left out)."""
    from textual.widgets import Input

    from helpers.browserhelpers import cells_by_column, ids

    full = make_tree(23, ops=20, depth=1)
    sid = full["traceId"]
    write_snapshot(tmp_path, full, version=2)
    other = make_tree(24, ops=10, depth=1)
    write_snapshot(tmp_path, other, version=2)
    app = MonitorApp(sessions_dir=tmp_path, listen_urls=["unix:" + str(tmp_path / "unused.sock")], watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await settle(pilot, screen)
        assert "live" not in cells_by_column(screen, sid)["id"]
        await fed(app, pilot, [orjson.dumps({"type": "op_tree", "tree": full, "meta": {"sessionId": sid, "sequence": 1}})])
        assert await wait_for(pilot, lambda: "+live" in cells_by_column(screen, sid).get("id", ""))
        assert screen.table.row_count == 2
        screen.query_one("#browser-filter", Input).value = "kind:live"
        assert await wait_for(pilot, lambda: screen.table.row_count == 1)
        assert ids(screen)[0].endswith(sid[-4:]) or sid[:8] in ids(screen)[0]
