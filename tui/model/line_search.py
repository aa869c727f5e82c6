"""Finding text in line-based views (the payload viewer, the log pane, the waterfall): a case-insensitive substring
search over a sequence of lines, and the n/N step from one hit to the next. Pure: the views in tui/ui/widgets
share one implementation of `/`, `n` and `N` on top of it (tui/ui/widgets/line_search.py)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable


def find_lines(lines: Iterable[object], needle: str) -> list[int]:
    """Indices of the lines containing `needle`, ignoring case ("" finds nothing). Lines that are not strings are
    searched as str(line); one that cannot be turned into text is skipped, never raised."""
    if not needle:
        return []
    folded = needle.casefold()
    hits = []
    for index, line in enumerate(lines):
        try:
            text = line if isinstance(line, str) else str(line)
        except Exception:  # noqa: BLE001 - a hostile object's __str__ must not break a search
            continue
        if folded in text.casefold():
            hits.append(index)
    return hits


def step_hit(hits: list[int], at: int, step: int) -> int | None:
    """The hit after (step > 0) or before (step < 0) line `at`, wrapping around; None without hits.

    `hits` is sorted (find_lines returns it so). From line `at` itself, step 0 gives the first hit at or after it."""
    if not hits:
        return None
    if step > 0:
        i = bisect_right(hits, at)
        return hits[i % len(hits)]
    if step < 0:
        i = bisect_left(hits, at) - 1
        return hits[i % len(hits)]
    i = bisect_left(hits, at)
    return hits[i % len(hits)]
