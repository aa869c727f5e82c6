"""The selected row is always visible: after `--op`, `n`/`N` and insights jumps, the cursor row is inside the
tree's visible rows (never under the horizontal scrollbar a wide label brings up), with a margin where the tree
can scroll that far."""

from __future__ import annotations

from helpers.apphelpers import session_app, top, wait_for
from helpers.builders import op, session, turn, write
from tui.ui.widgets.op_tree import CURSOR_MARGIN

NARROW = (80, 24)


def wide_tree(tmp_path, *, after: int = 10):
    """Thirty narrow turns folded, then a turn whose op label is wider than the tree, then `after` more turns."""
    turns = [turn(i, op("tool", op_id=f"o{i}", name="t")) for i in range(1, 30)]
    turns.append(turn(30, op("tool", op_id="wide", name="wide" + "x" * 51, status="failed", error="e" * 40)))
    turns += [turn(31 + i, op("tool", op_id=f"p{i}", name="t")) for i in range(after)]
    return write(tmp_path / "wide.json.gz", session(*turns))


def cursor_row(tree) -> tuple[int, int]:
    """The cursor's row inside the visible rows, and how many rows are visible (scrollbars excluded)."""
    return tree.cursor_line - tree.scroll_offset.y, tree.scrollable_content_region.height


async def settle(pilot) -> None:
    for _ in range(4):
        await pilot.pause()


def assert_visible_with_margin(tree) -> None:
    row, height = cursor_row(tree)
    assert tree.show_horizontal_scrollbar  # the wide label is on screen: the case this is about
    assert 0 <= row < height, (row, height)
    margin = min(CURSOR_MARGIN, (height - 1) // 2)
    assert margin <= row <= height - 1 - margin, (row, height)


async def test_op_on_the_command_line_is_not_under_the_scrollbar(tmp_path):
    app = session_app(wide_tree(tmp_path), op_path="30-1", watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        tree = top(app).tree
        assert tree.cursor_node is not None and tree.cursor_node.data.path == "30-1"
        assert_visible_with_margin(tree)


async def test_the_last_row_of_the_tree_stays_above_the_scrollbar(tmp_path):
    app = session_app(wide_tree(tmp_path, after=0), op_path="30-1", watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        tree = top(app).tree
        row, height = cursor_row(tree)
        assert tree.show_horizontal_scrollbar
        assert row == height - 1  # the last line: no room for a margin below it, but visible


async def test_search_jumps_keep_the_match_visible(tmp_path):
    app = session_app(wide_tree(tmp_path), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"wide", "enter")
        await settle(pilot)
        tree = top(app).tree
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data.path == "30-1")
        await settle(pilot)
        assert_visible_with_margin(tree)
        tree.move_cursor(tree.root)
        tree.scroll_home(animate=False, immediate=True)
        await settle(pilot)
        await pilot.press("N")  # the one match again, from the top
        await settle(pilot)
        assert_visible_with_margin(tree)


async def test_an_insights_jump_keeps_the_op_visible(tmp_path):
    app = session_app(wide_tree(tmp_path), watch=False)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        screen = top(app)
        assert screen.jump_to_path("30-1")
        await settle(pilot)
        assert_visible_with_margin(screen.tree)
