"""Follow mode keeps the newest op selected; untrusted text never styles the screen."""

from __future__ import annotations

import asyncio

from helpers.apphelpers import SIZE, session_app, top, wait_for
from helpers.builders import op, session, turn, write
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.timeline import event_times, tree_at
from tui.model.search import newest_op
from tui.ui.widgets.log_pane import LogPane

HOSTILE = "\x1b[31mred\x1b[0m \x1b]0;owned\x07 [bold magenta]not markup[/] [link=http://x]y[/link]"


async def test_follow_tracks_the_newest_op_until_a_manual_move(tmp_path):
    full = make_tree(13, ops=90, depth=1, fanout=1)
    times = event_times(full)
    path = write_snapshot(tmp_path, tree_at(full, times[len(times) // 3]), version=2, reason="subagent_finish")
    app = session_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.press("f")
        await pilot.pause()
        assert screen.follow and screen.tree.cursor_node.data is newest_op(screen.session)
        await asyncio.sleep(0.3)
        write_snapshot(tmp_path, tree_at(full, times[2 * len(times) // 3]), version=2, reason="subagent_finish")
        before = screen.session
        assert await wait_for(pilot, lambda: screen.session is not before)
        await pilot.pause(0.2)
        assert screen.follow and screen.tree.cursor_node.data is newest_op(screen.session)
        await asyncio.sleep(0.6)
        await pilot.press("up")
        await pilot.pause()
        assert not screen.follow


async def test_hostile_text_is_shown_literally(tmp_path):
    logs = [{"timestamp": 1500, "severity": "ERR", "message": HOSTILE, "path": "1-1"}]
    tree = session(turn(1, op("tool", name=HOSTILE, error=HOSTILE, logs=logs, status="failed")), sessionTitle=HOSTILE)
    app = session_app(write(tmp_path / "h.json.gz", {"version": 1, "opTree": tree}), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = top(app)
        await pilot.pause(0.3)
        root_label = screen.tree.root.label
        assert "[bold magenta]not marku" in root_label.plain and "\\x1b[31m" in root_label.plain
        assert not any("magenta" in str(span.style) for span in root_label.spans)
        op_node = screen.tree.root.children[0].children[0]
        assert "\\x1b]0;owned\\x07" in op_node.label.plain
        pane = screen.query_one(LogPane)
        strip = pane.render_line(0)
        text = "".join(segment.text for segment in strip)
        assert "[bold magenta]not markup[/]" in text and "\x1b" not in text
        assert not any(seg.style and seg.style.link for seg in strip)
        detail = str(screen.query_one("#detail-body").render())
        assert "\x1b" not in detail
