"""The waterfall model: placing nodes on the time axis (missing, wrong and running times), rows, and axis math."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.builders import op, session
from tui.demo import make_tree
from tui.formats.aiagent.snapshot import build_session
from tui.model.nodes import Op, Turn
from tui.model.search import walk_ops
from tui.model.nodes import node_key
from tui.model.waterfall import MAX_SKEW_MS, STALE_MS, Waterfall
from tui.model.waterfall_axis import MIN_WINDOW_MS, Window, axis, bar_cells, fit, fmt_offset, pan, ticks, zoom

T0 = 1_779_000_000_000


def turn_of(index: int, *ops: dict, started=None, ended=None) -> dict:
    node = {"id": f"t{index}", "index": index, "ops": list(ops), "attributes": {}}
    if started is not None:
        node["startedAt"] = started
    if ended is not None:
        node["endedAt"] = ended
    return node


def tree(*turns: dict, started=T0, ended=T0 + 10_000, success=True) -> Waterfall:
    node = session(*turns, ended=ended, success=success)
    if started is None:
        node.pop("startedAt")
    else:
        node["startedAt"] = started
    return Waterfall(build_session(node), now_ms=None)


def spans(wf: Waterfall) -> dict[str, tuple[float, float, str]]:
    out = {}
    for row in wf.rows:
        node = row.node
        if isinstance(node, Op):
            key = node.path
        elif isinstance(node, Turn):
            key = f"{node.session.path_prefix}:{node.title}".lstrip(":")
        else:
            key = "root"
        out[key] = (*wf.span(row), wf.status(row))
    return out


# placing ---------------------------------------------------------------------------------------------------------
def test_offsets_are_relative_to_the_session_start_and_sub_agents_nest():
    child = session(turn_of(1, op("llm", op_id="c1", started=T0 + 2000, ended=T0 + 3000), started=T0 + 1900,
                            ended=T0 + 3500), agent="child", ended=T0 + 3600)
    child["startedAt"] = T0 + 1800
    wf = tree(turn_of(1, op("llm", started=T0 + 100, ended=T0 + 1100),
                      op("session", started=T0 + 1500, ended=T0 + 4000, child=child),
                      started=T0 + 50, ended=T0 + 4100))
    s = spans(wf)
    assert s["root"] == (0, 10_000, "ok")
    assert s["Turn 1"] == (50, 4100, "ok")
    assert s["1-1"] == (100, 1100, "ok")
    assert s["1-2"] == (1500, 4000, "ok")
    assert s["1-2.1-1"] == (2000, 3000, "ok")
    depths = [(row.kind, row.depth) for row in wf.rows]
    assert depths == [("root", 0), ("turn", 1), ("llm", 2), ("session", 2), ("turn", 3), ("llm", 4)]
    assert wf.total == 10_000
    assert wf.share(wf.rows[2]) == pytest.approx(0.1)


def test_missing_times_are_placed_after_the_previous_sibling_and_marked():
    wf = tree(turn_of(1, op("tool", started=T0 + 100, ended=T0 + 600),
                      op("tool", started=None, ended=None),
                      op("tool", started=None, ended=T0 + 900),
                      op("tool", started=T0 + 1000, ended=None),
                      started=T0, ended=T0 + 2000))
    s = spans(wf)
    assert s["1-1"] == (100, 600, "ok")
    assert s["1-2"] == (600, 600, "inferred")  # after 1-1, zero length
    assert s["1-3"] == (600, 900, "inferred")
    assert s["1-4"] == (1000, 1000, "inferred")  # finished session: an open op is not running


def test_a_turn_without_times_spans_its_ops():
    wf = tree(turn_of(1, op("llm", started=T0 + 300, ended=T0 + 800), op("tool", started=T0 + 900, ended=T0 + 1200)))
    assert spans(wf)["Turn 1"] == (0, 1200, "inferred")  # start: the session's; end: its last op's


def test_an_end_before_the_start_becomes_a_mark_at_the_start():
    wf = tree(turn_of(1, op("tool", started=T0 + 500, ended=T0 + 100), started=T0, ended=T0 + 1000))
    assert spans(wf)["1-1"] == (500, 500, "inferred")


def test_unbelievable_times_are_treated_as_missing():
    seconds_not_ms = (T0 + 500) // 1000
    wf = tree(turn_of(1, op("tool", started=T0 + 100, ended=T0 + 200),
                      op("tool", started=seconds_not_ms, ended=0),
                      op("tool", started=T0 + MAX_SKEW_MS * 2, ended=T0 + 300),
                      started=T0, ended=T0 + 1000))
    s = spans(wf)
    assert s["1-2"] == (200, 200, "inferred")
    assert s["1-3"] == (200, 300, "inferred")
    assert wf.total == 10_000  # neither 1970 nor the far future stretched the axis


def test_a_session_without_any_time_still_draws():
    node = session(turn_of(1, op("tool", started=None, ended=None)), ended=None)
    node.pop("startedAt")
    wf = Waterfall(build_session(node))
    assert wf.total > 0
    assert all(wf.span(row) == (0, 0) for row in wf.rows)


def test_running_nodes_end_now_and_advance_moves_them():
    wf_node = session(turn_of(1, op("llm", started=T0 + 100, ended=T0 + 900),
                              op("tool", status=None, started=T0 + 1000, ended=None), started=T0),
                      ended=None, success=None)
    wf_node["startedAt"] = T0
    wf = Waterfall(build_session(wf_node), now_ms=T0 + 5000)
    s = spans(wf)
    assert s["1-2"] == (1000, 5000, "running")
    assert s["Turn 1"][2] == "running" and s["root"] == (0, 5000, "running")
    assert s["1-1"] == (100, 900, "ok")
    wf.advance(T0 + 8000)
    assert spans(wf)["1-2"] == (1000, 8000, "running")
    assert wf.total == 8000
    wf.advance(T0 + 7000)  # a clock going back never shrinks a bar
    assert spans(wf)["1-2"][1] == 8000


def test_a_dead_producer_does_not_stretch_the_axis_to_now():
    node = session(turn_of(1, op("tool", status=None, started=T0 + 1000, ended=None), started=T0),
                   ended=None, success=None)
    node["startedAt"] = T0
    wf = Waterfall(build_session(node), now_ms=T0 + 1000 + STALE_MS + 1)
    assert spans(wf)["1-1"] == (1000, 1000, "running")
    assert wf.total == 1000


def test_failed_ops_and_failed_sub_agents():
    child = session(turn_of(1), agent="child", success=False, error="boom")
    wf = tree(turn_of(1, op("tool", status="failed"), op("session", child=child), started=T0, ended=T0 + 3000))
    s = spans(wf)
    assert s["1-1"][2] == "failed" and s["1-2"][2] == "failed"


# rows -------------------------------------------------------------------------------------------------------------
def big() -> Waterfall:
    return Waterfall(build_session(make_tree(4, ops=1200, depth=2, fanout=2, started_at=T0)))


def test_a_big_session_opens_with_sub_agents_folded_and_a_small_one_unfolded():
    wf = big()
    assert not any(row.depth > 2 for row in wf.rows)
    assert any(row.expandable and not wf.is_expanded(row) for row in wf.rows if row.kind == "session")
    small = Waterfall(build_session(make_tree(4, ops=60, depth=2, fanout=1, started_at=T0)))
    assert len(small.rows) == 1 + sum(len(t.ops) for t in _sessions_turns(small)) + len(_sessions_turns(small))


def _sessions_turns(wf: Waterfall):
    turns = list(wf.session.turns)
    for o in walk_ops(wf.session):
        if o.child is not None:
            turns.extend(o.child.turns)
    return turns


def test_toggle_splices_rows_in_and_out_exactly():
    wf = big()
    index = next(i for i, row in enumerate(wf.rows) if row.kind == "session" and row.expandable)
    before = [row.node for row in wf.rows]
    assert wf.toggle(index)
    inserted = len(wf.rows) - len(before)
    assert inserted > 0
    assert all(row.depth > wf.rows[index].depth for row in wf.rows[index + 1:index + 1 + inserted])
    fresh = Waterfall(wf.session, expanded=wf.expanded)
    assert [row.node for row in fresh.rows] == [row.node for row in wf.rows]
    assert wf.toggle(index)
    assert [row.node for row in wf.rows] == before
    leaf = next(i for i, row in enumerate(wf.rows) if not row.expandable)
    assert not wf.toggle(leaf)


def test_index_of_unfolds_the_way_to_a_deep_op():
    wf = big()
    deepest = max(walk_ops(wf.session), key=lambda o: o.path.count("."))
    assert deepest.path.count(".") == 2
    index = wf.index_of(deepest)
    assert index is not None and wf.rows[index].node is deepest
    other = Waterfall(build_session(make_tree(5, ops=20, depth=0, started_at=T0)))
    assert wf.index_of(next(walk_ops(other.session))) is None


def test_state_carries_over_to_a_newer_tree_by_key():
    wf = big()
    index = next(i for i, row in enumerate(wf.rows) if row.kind == "session" and row.expandable)
    wf.toggle(index)
    key = node_key(wf.rows[index + 3].node)
    newer = Waterfall(build_session(make_tree(4, ops=1200, depth=2, fanout=2, started_at=T0)), expanded=wf.expanded)
    assert len(newer.rows) == len(wf.rows)
    moved = newer.index_of_key(key)
    assert moved == index + 3 and newer.rows[moved].node is not wf.rows[index + 3].node


def test_names_are_plain_one_line_text():
    wf = tree(turn_of(1, op("tool", name="evil\x1b[31m\nname [bold]x[/]"), started=T0, ended=T0 + 10))
    name = wf.rows[2].name
    assert "\x1b" not in name and "\n" not in name and "[bold]" in name


# axis math ------------------------------------------------------------------------------------------------------
def test_bar_cells_round_edges_to_the_nearest_cell():
    w = Window(0, 100)
    c = bar_cells(0, 10, w, 100)
    assert (c.first, c.last, c.mark) == (0, 10, False)
    c = bar_cells(10.4, 20.6, w, 100)
    assert (c.first, c.last) == (10, 21)
    c = bar_cells(0, 100, w, 100)
    assert (c.first, c.last, c.cut_left, c.cut_right) == (0, 100, False, False)
    c = bar_cells(0, 100, w, 37)
    assert (c.first, c.last) == (0, 37)


def test_zero_and_sub_cell_bars_get_one_cell():
    w = Window(0, 100)
    for start, end, first in ((50, 50, 50), (50.2, 50.4, 50), (49.6, 49.9, 50), (0, 0, 0), (100, 100, 99)):
        c = bar_cells(start, end, w, 100)
        assert (c.first, c.last, c.mark) == (first, first + 1, True), (start, end)


def test_bars_never_leave_the_bar_area():
    w = Window(1000, 2000)
    c = bar_cells(0, 5000, w, 80)
    assert (c.first, c.last, c.cut_left, c.cut_right) == (0, 80, True, True)
    assert bar_cells(0, 999, w, 80) is None
    assert bar_cells(2001, 3000, w, 80) is None
    assert bar_cells(10, 20, w, 0) is None


def test_sub_millisecond_and_multi_hour_windows():
    c = bar_cells(0.1, 0.2, Window(0, 0.5), 50)
    assert (c.first, c.last) == (10, 20)
    hours = Window(0, 10 * 3_600_000)
    c = bar_cells(5 * 3_600_000, 5 * 3_600_000 + 1000, hours, 100)
    assert (c.first, c.last, c.mark) == (50, 51, True)
    c = bar_cells(3_600_000, 7_200_000, hours, 100)
    assert (c.first, c.last) == (10, 20)


@given(st.floats(0, 1e8), st.floats(0, 1e8), st.floats(0, 1e8), st.floats(1e-3, 1e8), st.integers(1, 400))
def test_bar_cells_invariants(a, b, w0, span, width):
    start, end = min(a, b), max(a, b)
    window = Window(w0, w0 + span)
    c = bar_cells(start, end, window, width)
    if end < window.start or start > window.end:
        assert c is None
        return
    assert 0 <= c.first < c.last <= width
    if start <= window.start and end >= window.end:
        assert (c.first, c.last) == (0, width)


def test_zoom_keeps_the_anchor_in_place_and_stays_in_bounds():
    w = zoom(Window(0, 100), 0.5, 25, 100)
    assert (w.start, w.end) == (12.5, 62.5)  # 25 was a quarter in, and still is
    w = zoom(Window(0, 100), 0.5, 0, 100)
    assert (w.start, w.end) == (0, 50)
    w = zoom(Window(40, 60), 4.0, 50, 100)
    assert (w.start, w.end) == (10, 90)
    assert zoom(Window(10, 60), 8.0, 50, 100) == Window(0, 100)  # never wider than the session
    tiny = Window(0, 100)
    for _ in range(60):
        tiny = zoom(tiny, 0.5, 33, 100)
    assert tiny.span == pytest.approx(MIN_WINDOW_MS)
    assert tiny.start <= 33 <= tiny.end


def test_pan_stops_at_both_ends():
    assert pan(Window(0, 10), -0.25, 100) == Window(0, 10)
    assert pan(Window(0, 10), 0.25, 100) == Window(2.5, 12.5)
    assert pan(Window(85, 95), 1.0, 100) == Window(90, 100)
    assert fit(0) == Window(0, 1.0)


@pytest.mark.parametrize("ms, step, text", [
    (0, 10_000, "0s"),
    (10_000, 10_000, "10s"),
    (60_000, 10_000, "1m"),
    (80_000, 10_000, "1m 20s"),
    (65_000, 5_000, "1m 05s"),
    (80_500, 500, "1m 20.5s"),
    (1_500, 500, "1.5s"),
    (1_000, 250, "1s"),
    (250, 50, "250ms"),
    (0.5, 0.1, "0.5ms"),
    (0.25, 0.05, "0.25ms"),
    (3_900_000, 300_000, "1h 05m"),
    (3_630_000, 30_000, "1h 00m 30s"),
    (7_200_000, 3_600_000, "2h"),
    (90_000_000, 3_600_000, "25h"),
])
def test_fmt_offset(ms, step, text):
    assert fmt_offset(ms, step) == text


def test_ticks_for_a_session_of_a_minute_and_a_half():
    labels = [t.label for t in ticks(Window(0, 86_421), 100)]
    assert labels == ["0s", "10s", "20s", "30s", "40s", "50s", "1m", "1m 10s", "1m 20s"]


@pytest.mark.parametrize("span", [0.3, 1, 7, 999, 1000, 61_000, 3_600_000, 11 * 3_600_000, 9 * 86_400_000])
@pytest.mark.parametrize("width", [20, 57, 100, 140])
def test_ticks_fit_their_labels_at_every_scale(span, width):
    for start in (0.0, span * 0.37):
        window = Window(start, start + span)
        marks = ticks(window, width)
        assert marks, (span, width)
        columns = [t.column for t in marks]
        assert columns == sorted(columns) and all(0 <= c < width for c in columns)
        for left, right in zip(marks, marks[1:]):
            assert right.column - left.column >= len(left.label) + 1
        labels, ruler = axis(window, width)
        assert len(labels) == width and len(ruler) == width
        assert ruler.count("┬") == len(marks)


def test_a_newer_tree_keeps_the_users_folds_and_opens_new_nodes_by_default():
    early = Waterfall(build_session(make_tree(6, ops=40, depth=1, fanout=1, started_at=T0)))
    agent = next(i for i, row in enumerate(early.rows) if row.kind == "session")
    turn = next(i for i, row in enumerate(early.rows) if row.kind == "turn" and row.node.ops)
    folded = {node_key(early.rows[agent].node), node_key(early.rows[turn].node)}
    early.toggle(max(agent, turn))
    early.toggle(min(agent, turn))
    grown = make_tree(6, ops=40, depth=1, fanout=1, started_at=T0)
    grown["turns"].append({"id": "new", "index": 99, "startedAt": T0, "endedAt": T0 + 10, "attributes": {},
                           "ops": [op("tool", started=T0, ended=T0 + 5)]})
    newer = Waterfall(build_session(grown), previous=early)
    assert folded <= newer.collapsed and not folded & newer.expanded
    assert ("turn", "", "turn", 99, len(grown["turns"]) - 1) in newer.expanded
    assert newer.rows[-1].node.path == "99-1"


def test_an_empty_or_broken_session_has_just_its_own_row():
    wf = tree()
    assert [row.kind for row in wf.rows] == ["root"] and not wf.rows[0].expandable
    assert not wf.toggle(0) and wf.span(wf.rows[0]) == (0, 10_000)
    broken = Waterfall(build_session({"startedAt": T0, "endedAt": T0 + 100, "success": True,
                                      "turns": ["not a turn", {"ops": "nope"}]}))
    assert [row.kind for row in broken.rows] == ["root", "turn", "turn"]
    assert broken.status(broken.rows[1]) == "inferred"
