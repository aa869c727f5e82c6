"""The session screen is laid out again only when a size changes. Under a flood of events it was laid out ~15 times
a second (5-30 ms of the UI thread each: the "Live" benchmark's mixed load): the log pane's new lines (its scrolling
size), the totals, the live banner and the details each asked for a layout of the whole screen, and a change of the
details' height for two."""

from __future__ import annotations

import orjson

from helpers.apphelpers import SIZE, fed, wait_for
from tui.ui.app import MonitorApp
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.totals_panel import TotalsPanel

SID = "agent-layouts"


def frame(seq: int, event: dict) -> bytes:
    event["meta"] = {"sessionId": SID, "originId": SID, "agentId": "bench", "callPath": "bench", "sequence": seq}
    return orjson.dumps(event)


def tree(ops: int) -> dict:
    return {"id": SID, "traceId": SID, "agentId": "bench", "startedAt": 1_700_000_000_000, "turns": [
        {"id": "t1", "index": 1, "startedAt": 1_700_000_000_000, "ops": [
            {"opId": f"op-{n}", "kind": "llm", "startedAt": 1_700_000_000_000 + n, "status": "ok",
             "attributes": {"model": "m", "provider": "p"}, "logs": [], "accounting": []} for n in range(ops)]}]}


def log(seq: int) -> bytes:
    return frame(seq, {"type": "log", "entry": {"timestamp": 1_700_000_001_000 + seq, "severity": "VRB",
                                                "message": f"event {seq:04d}", "path": "1-1",
                                                "remoteIdentifier": "bench"}})


def accounting(seq: int) -> bytes:
    """Tokens that keep their number of digits over the test's five entries (a root label one cell wider may widen
    the tree's scrolling width: a size change)."""
    return frame(seq, {"type": "accounting", "entry": {"type": "llm", "timestamp": 1_700_000_001_000 + seq,
                                                       "provider": "p", "model": "m",
                                                       "tokens": {"inputTokens": 100, "outputTokens": 10}}})


async def test_live_batches_that_keep_every_size_do_not_lay_the_screen_out(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await fed(app, pilot, [frame(1, {"type": "turn_started", "turn": 1, "attempt": 1}),
                               frame(2, {"type": "op_tree", "tree": tree(3)}), *(log(n) for n in range(3, 60))])
        app.open_path(f"live:{SID}")
        assert await wait_for(pilot, lambda: getattr(app.screen, "live_root", None) == SID and app.screen.is_mounted)
        screen = app.screen
        logs, totals = screen.query_one(LogPane), screen.query_one(TotalsPanel)
        assert await wait_for(pilot, lambda: logs.virtual_size.height >= 57 and logs.show_vertical_scrollbar)
        await pilot.pause(1.1)  # (tui.ui.app_history: a live root's versions at most a second apart)
        await fed(app, pilot, [accounting(60)])  # a second version: the history line comes (a size change)
        assert await wait_for(pilot, lambda: screen.query_one("#history").display)
        await pilot.pause(0.3)
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        seq, lines, shown = 61, logs.virtual_size.height, str(totals.render())
        for _ in range(4):  # new log lines and tokens: new text, the same sizes
            await fed(app, pilot, [log(seq), log(seq + 1), accounting(seq + 2)])
            seq += 3
            await pilot.pause(0.1)
        assert await wait_for(pilot, lambda: logs.virtual_size.height == lines + 8)
        assert logs.scroll_y == logs.max_scroll_y, "the log pane still follows its end"
        assert logs.vertical_scrollbar.position == logs.scroll_y, "its scrollbar's thumb at the end too"
        assert str(totals.render()) != shown, "the totals took the new tokens"
        assert layouts == []


async def test_details_of_another_height_lay_the_screen_out_once(tmp_path):
    """A key that moves the cursor to a node whose details take another height needs one layout; the details'
    text asked for a second one as the first gave it its new size (its `virtual_size`, a layout reactive)."""
    from helpers.apphelpers import session_app, top
    from helpers.builders import op, session, turn, write

    long = op("tool", op_id="a", name="shell__run", **{f"field_{n:02d}": f"value {n}" for n in range(70)})
    short = op("tool", op_id="b", name="shell__ls", **{f"field_{n:02d}": f"value {n}" for n in range(18)})
    app = session_app(write(tmp_path / "s.json.gz", session(turn(1, long, short))), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        screen = top(app)
        body = screen.query_one("#detail-body")
        screen.select_op("1-2")  # (both need the details' scrollbar: it stays)
        await pilot.pause(0.3)
        screen.select_op("1-1")
        await pilot.pause(0.3)
        heights, counts = [], []
        for path in ("1-2", "1-1", "1-2"):  # the shorter, the longer, the shorter
            layouts: list[object] = []
            screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
            screen.select_op(path)
            await pilot.pause(0.2)
            screen.screen_layout_refresh_signal.unsubscribe(screen)
            heights.append(body.size.height)
            counts.append(len(layouts))
        assert counts == [1, 1, 1]
        assert heights[0] == heights[2] < heights[1] - 20 and screen.query_one("#detail").show_vertical_scrollbar
