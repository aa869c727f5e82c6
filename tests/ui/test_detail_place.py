"""The Details panel keeps the place the user scrolled to while the node it shows gets a newer build (a live
change, a reload: each one scrolled it back to the top, every second of a running session), and shows another
node from its top."""

from __future__ import annotations

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write
from tui.formats.load import load
from tui.ui.widgets.detail_panel import DetailPanel


def _op_with_long_details(op_id: str) -> dict:
    return op("tool", op_id=op_id, name="shell__run", **{f"field_{n:02d}": f"value {n}" for n in range(60)})


async def test_a_newer_build_keeps_the_details_scroll_and_another_node_starts_at_the_top(tmp_path):
    first = write(tmp_path / "s.json.gz", session(turn(1, _op_with_long_details("a"), _op_with_long_details("b"))))
    grown = write(tmp_path / "grown.json.gz", session(turn(1, _op_with_long_details("a"), _op_with_long_details("b")),
                                                      turn(2, op("tool", op_id="c", name="shell__ls"))))
    app = session_app(first, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = top(app)
        screen.select_op("1-1")
        await pilot.pause()
        details = screen.query_one(DetailPanel)
        assert details.max_scroll_y > 10
        details.scroll_to(y=8, animate=False, immediate=True)
        await pilot.pause()
        assert details.scroll_y == 8
        screen.replace_document(load(str(grown)))  # the same op, a newer build
        await pilot.pause()
        assert "field_10" in str(screen.query_one("#detail-body").render())
        assert details.scroll_y == 8, "a newer build of the node shown scrolled its details back to the top"
        screen.select_op("1-2")  # another node: from its top
        await pilot.pause()
        assert details.scroll_y == 0
