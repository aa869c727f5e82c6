"""issue 28 item 13: a newer build that only adds turns at the end of a big session lists only the new turns'
lines (the tree listed all of its ~16,000 lines again at each change of a growing trace: 20-50 ms a change), and
the lines are exactly those a tree built afresh from the same build has (the turn that was last gets its `├`)."""

from __future__ import annotations

import pytest

from helpers.apphelpers import session_app, top
from helpers.builders import op, session, turn, write
from tui.formats.load import load
from tui.model.nodes import node_key


def turns(n: int, last_ops: int = 2) -> list[dict]:
    return [turn(i, *[op("tool", op_id=f"t{i}-{j}", name=f"shell__t{i}_{j}") for j in range(last_ops if i == n else 2)])
            for i in range(1, n + 1)]


def counted_measures(tree, counter: list) -> None:
    """Every line the tree measures (one per line listed) goes to `counter`."""
    real = type(tree).label_widths

    def label_widths():
        measure = real(tree)
        return lambda node: counter.append(node) or measure(node)
    tree.label_widths = label_widths


def lines_of(tree) -> list:
    return [(node_key(n.data), n.is_expanded) for n in map(tree.get_node_at_line, range(tree.last_line + 1))]


def shown(tree) -> tuple:
    """The line list, the scroll size and what the tree draws."""
    return lines_of(tree), tree.virtual_size, tree.visible_strips()


@pytest.mark.parametrize("expand_last, grown_turns", [(False, turns(304)), (True, turns(304)),
                                                     (True, turns(300, last_ops=5))])
async def test_nodes_added_at_the_end_list_only_their_lines(tmp_path, expand_last, grown_turns):
    """4 turns added at the end (the last turn collapsed or expanded), or 3 ops added to the expanded last turn."""
    first = write(tmp_path / "s.json.gz", session(*turns(300)))
    grown = write(tmp_path / "grown.json.gz", session(*grown_turns))
    app = session_app(first, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = top(app)
        tree = screen.tree
        if expand_last:
            screen.select_op("300-1")
            await pilot.pause()
        tree.scroll_end(animate=False, immediate=True)  # the last lines on screen: the new ones drawn at once
        await pilot.pause()
        bottom = tree.scroll_offset.y
        measured: list = []
        counted_measures(tree, measured)
        screen.replace_document(load(str(grown)))
        await pilot.pause()
        assert len(measured) <= 10, f"{len(measured)} lines measured again for 3-4 new nodes"
        after = shown(tree)  # (before anything else lists the lines again)
    fresh = session_app(grown, watch=False)
    async with fresh.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        if expand_last:
            top(fresh).select_op("300-1")
            await pilot.pause()
        top(fresh).tree.scroll_to(y=bottom, animate=False, immediate=True)
        await pilot.pause()
        expected = shown(top(fresh).tree)
    assert after[0] == expected[0], "the lines listed differ from a fresh build's"
    assert after[1] == expected[1]
    assert after[2] == expected[2], "the lines drawn differ from a fresh build's"


async def test_many_new_turns_are_attached_in_steps_below_the_screen_without_redrawing_it(tmp_path):
    """1,500 turns arrive at once below the screen: 400 are attached at once, the rest in later steps of the event
    loop (keys are answered in between: a change of a big trace attached ~1,600 at once, 50-60 ms of the UI
    thread), and the lines on screen are not drawn before and after to find what changed (nothing there did).
    Once done, the lines are those of a tree built afresh (its width aside: lines not drawn yet are measured
    as they are drawn)."""
    from tui.ui.widgets.op_tree import ATTACH_AT_ONCE

    first = write(tmp_path / "s.json.gz", session(*turns(300)))
    grown = write(tmp_path / "grown.json.gz", session(*turns(1_800)))
    app = session_app(first, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        tree = top(app).tree
        drawn: list = []
        real = tree.visible_strips
        tree.visible_strips = lambda: drawn.append(1) or real()
        top(app).replace_document(load(str(grown)))
        assert len(tree.root.children) == 300 + ATTACH_AT_ONCE < 1_800
        for _ in range(100):
            await pilot.pause(0.05)
            if len(tree.root.children) == 1_800:
                break
        assert len(tree.root.children) == 1_800
        assert drawn == [], "the lines on screen were drawn to find what changed"
        tree.visible_strips = real
        after = shown(tree)
    fresh = session_app(grown, watch=False)
    async with fresh.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        expected = shown(top(fresh).tree)
    assert after[0] == expected[0] and after[2] == expected[2]
    assert after[1].height == expected[1].height
