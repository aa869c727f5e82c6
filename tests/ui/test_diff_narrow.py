"""The diff at 80 columns (issue 14, point 8): the Totals and the Ops took turns instead of sharing a width where
the op names were cut to two letters; `t` swaps them. At 160 columns they stay side by side."""

from __future__ import annotations

from helpers.apphelpers import wait_for
from tui.demo import make_tree, write_snapshot
from tui.ui.app import MonitorApp
from tui.ui.screens.diff import MIN_OP_WIDTH, DiffScreen


async def open_diff(pilot, app, tmp_path):
    one = write_snapshot(tmp_path, make_tree(41, ops=60, depth=2, agent="twin", started_at=1_700_000_000_000))
    two = write_snapshot(tmp_path, make_tree(42, ops=60, depth=2, agent="twin", started_at=1_700_000_100_000))
    app.live.diff_paths(str(one), str(two))
    assert await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.rows)
    await pilot.pause()
    return app.screen


def op_column_visible(diff: DiffScreen) -> int:
    """How many cells of the Op column are on screen (inside the table's visible region)."""
    ops = diff.query_one("#diff-ops")
    column = ops.columns["op"]
    start = sum(c.get_render_width(ops) for c in list(ops.columns.values())[:list(ops.columns).index("op")])
    visible = ops.scrollable_content_region.width
    return max(0, min(start + column.get_render_width(ops), visible) - start)


async def test_at_80_columns_the_ops_fill_the_width_and_t_swaps_in_the_totals(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        diff = await open_diff(pilot, app, tmp_path)
        ops, totals = diff.query_one("#diff-ops"), diff.query_one("#diff-totals")
        assert ops.display and not totals.display
        assert op_column_visible(diff) >= MIN_OP_WIDTH, "the op names are readable"
        await pilot.press("t")
        await pilot.pause()
        assert totals.display and not ops.display
        assert totals.region.width >= 70
        await pilot.press("t")
        await pilot.pause()
        assert ops.display and not totals.display


async def test_at_160_columns_totals_and_ops_stay_side_by_side(tmp_path):
    app = MonitorApp(sessions_dir=tmp_path, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        diff = await open_diff(pilot, app, tmp_path)
        assert diff.query_one("#diff-ops").display and diff.query_one("#diff-totals").display
        assert op_column_visible(diff) >= MIN_OP_WIDTH
