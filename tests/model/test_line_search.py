"""The pure part of `/`, `n`, `N` in line views: case-insensitive substring find, and stepping between hits."""

from __future__ import annotations

from tui.model.line_search import find_lines, step_hit


class Hostile:
    def __str__(self) -> str:
        raise ValueError("no text")


def test_find_is_case_insensitive_and_skips_what_has_no_text():
    lines = ["Alpha", "beta", "ALPHABET", Hostile(), 42, "\ud800 alpha"]
    assert find_lines(lines, "alpha") == [0, 2, 5]
    assert find_lines(lines, "4") == [4]
    assert find_lines(lines, "") == []
    assert find_lines([], "x") == []


def test_step_wraps_both_ways_and_starts_at_or_after_a_line():
    hits = [3, 10, 20]
    assert step_hit(hits, 0, 0) == 3 and step_hit(hits, 10, 0) == 10 and step_hit(hits, 21, 0) == 3
    assert step_hit(hits, 3, 1) == 10 and step_hit(hits, 20, 1) == 3
    assert step_hit(hits, 10, -1) == 3 and step_hit(hits, 3, -1) == 20
    assert step_hit([], 5, 1) is None
