"""issue 30, point 1: the opTree's status, failure reason, duration and cost sit in right-hand columns that never
scroll away; names are cut with `…`; `<` `>` scroll sideways; `Z` zooms the focused panel; the details show the
whole target. Asserted on the lines the tree renders (render_line) at 160x48 and 80x24."""

from __future__ import annotations

import pytest

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write

MODEL = "claude-sonnet-4-5-with-a-very-long-model-name-that-no-tree-line-can-hold-at-eighty-columns"
REASON = "rate_limited: 429 Too Many Requests"


def failing_llm(tmp_path):
    cost = [{"type": "llm", "timestamp": 1500, "tokens": {"inputTokens": 1200, "outputTokens": 300},
             "costUsd": 0.4907}]
    llm = op("llm", op_id="r1", status="failed", provider="anthropic", model=MODEL, error=REASON, accounting=cost)
    return write(tmp_path / "failing.json.gz", session(turn(1, llm, op("tool", op_id="t1", name="shell__rg"))))


def tree_lines(screen) -> list[str]:
    tree = screen.tree
    return [tree.render_line(y).text for y in range(min(tree.size.height, tree.last_line + 1))]


async def opened(pilot):
    for _ in range(4):
        await pilot.pause()
    return top(pilot.app)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_status_reason_and_cost_stay_in_view_and_names_are_cut(tmp_path, size):
    app = session_app(failing_llm(tmp_path), watch=False)
    async with app.run_test(size=size) as pilot:
        screen = await opened(pilot)
        lines = tree_lines(screen)
        width = screen.tree.scrollable_content_region.width
        root = lines[0]
        assert root.rstrip().endswith("$0.4907"), root  # the whole cost, at the right edge
        failed = next(line for line in lines if "1-1 LLM" in line)
        assert "✗ FAILED" in failed and failed.rstrip().endswith("$0.4907"), failed
        assert "…" in failed.split("✗")[0], failed  # the long name is cut, and says so
        assert len(failed) <= width
        if size[0] == 160:
            assert REASON[:20] in failed and "anthropic:claude" in failed, failed  # the reason beside the status
        await pilot.press("e")  # errors only: the failed op still says FAILED
        await pilot.pause()
        assert any("1-1 LLM" in line and "✗ FAILED" in line for line in tree_lines(screen))


async def test_sideways_scroll_keeps_the_columns_and_zoom_widens_the_tree(tmp_path):
    app = session_app(failing_llm(tmp_path), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        screen.select_op("1-1")
        await pilot.pause()
        before = next(line for line in tree_lines(screen) if "✗ FAILED" in line)
        await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign")
        await pilot.pause()
        after = next(line for line in tree_lines(screen) if "✗ FAILED" in line)
        assert "1-1 LLM" not in after and "sonnet" in after, after  # the name moved left
        assert after[after.index("✗ FAILED"):] == before[before.index("✗ FAILED"):]  # the columns stayed
        await pilot.press("less_than_sign", "less_than_sign", "less_than_sign", "less_than_sign")
        await pilot.pause()
        assert "1-1 LLM" in next(line for line in tree_lines(screen) if "✗ FAILED" in line)
        narrow = screen.tree.size.width
        await pilot.press("Z")
        await pilot.pause()
        assert screen.maximized is screen.tree and screen.tree.size.width > narrow + 20
        zoomed = next(line for line in tree_lines(screen) if "✗ FAILED" in line)
        assert "rate_limited" in zoomed, zoomed  # room for the reason
        await pilot.press("Z")
        await pilot.pause()
        assert screen.maximized is None and screen.tree.size.width == narrow


async def test_the_details_show_the_whole_target(tmp_path):
    long_name = "mcp__" + "-".join(f"segment{n}" for n in range(60)) + "__END"  # ~550 characters
    path = write(tmp_path / "long.json.gz", session(turn(1, op("tool", op_id="t1", name=long_name))))
    app = session_app(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        screen.select_op("1-1")
        await pilot.pause(0.3)
        text = "".join(str(screen.query_one("#detail-body").render()).split())
        assert long_name in text, text[:200]  # whole, up to its __END (the panel wraps it)


async def test_a_resize_measures_the_lines_again_only_when_the_columns_change(tmp_path, monkeypatch):
    """The lines' widths depend on the columns, which depend on the tree's width: a resize that keeps the width
    (the terminal's height, a banner, a horizontal scrollbar) keeps them. The check compared the Resize event's size
    (scrollbar included) with the width the lines were measured at (scrollbar excluded), so with a vertical
    scrollbar every resize measured every line of the tree again: 3,000 lines of a live trace, at each change.
    A measure draws nothing (what a line draws does not depend on it)."""
    import tui.ui.widgets.op_tree as op_tree

    from helpers.apphelpers import deep_snapshot

    app = session_app(deep_snapshot(tmp_path, ops=80), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await opened(pilot)
        screen.tree.expand_all()
        await pilot.pause()
        assert screen.tree.show_vertical_scrollbar
        remeasured: list[object] = []
        remeasure = op_tree.remeasure_tree
        monkeypatch.setattr(op_tree, "remeasure_tree", lambda tree: remeasured.append(tree) or remeasure(tree))
        await pilot.resize_terminal(160, 40)
        await opened(pilot)
        assert screen.tree.size.height < 40 and remeasured == []
        drawn: list[int] = []
        render_line = screen.tree.render_line
        screen.tree.render_line = lambda y: drawn.append(y) or render_line(y)
        await pilot.resize_terminal(100, 40)
        await opened(pilot)
        assert remeasured == [screen.tree]
        # measured, not drawn again: the lines on screen are drawn once for the new width (they were drawn three
        # times over: the resize's redraw, then before and after the measure, to compare them)
        assert 0 < len(drawn) <= screen.tree.size.height + 2, (len(drawn), screen.tree.size.height)
        columns = op_tree.columns_total(op_tree.column_widths(screen.tree.size.width))
        widest = max(op_tree.line_width(screen.tree.get_node_at_line(y).label, columns)
                     for y in range(screen.tree.last_line + 1))
        assert screen.tree.virtual_size.width >= widest


async def test_the_first_screen_draws_the_tree_lines_without_drawing_them_again_to_compare(tmp_path, monkeypatch):
    """As the session screen opens the tree's lines are measured before the layout gives the tree its width, then
    again at its first resize: that measure drew every line on screen twice more to compare them (it changes no
    line). Counted as render_line calls: the first frame, and at most the repaint a new scrolling width brings."""
    import tui.ui.widgets.op_tree as op_tree

    from helpers.apphelpers import deep_snapshot

    drawn: list[int] = []
    render_line = op_tree.OpTree.render_line
    monkeypatch.setattr(op_tree.OpTree, "render_line", lambda tree, y: drawn.append(y) or render_line(tree, y))
    app = session_app(deep_snapshot(tmp_path, ops=80), watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await opened(pilot)
        lines = min(screen.tree.size.height, screen.tree.last_line + 1)
        assert lines > 10 and len(drawn) <= 2 * lines, (len(drawn), lines)
