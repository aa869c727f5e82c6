"""The waterfall's axis math: pure functions of a time window (ms from the session's start) and a width in cells.

Bar cells (a bar's cells and its partial edges), zoom and pan bounded by the session's span, and tick labels at
"nice" steps. Split from tui.model.waterfall (the placing of a session's nodes on the axis), which uses only
MIN_TOTAL_MS from here; the waterfall widget draws with these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_TOTAL_MS = 1.0  # the axis of a session with no measurable span
MIN_WINDOW_MS = 0.1  # the deepest zoom
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Window:
    """The part of the axis on screen, in ms from the session's start."""

    start: float
    end: float

    @property
    def span(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Cells:
    """A bar's cells [first, last) within the bar area; `mark` when it is shorter than a cell."""

    first: int
    last: int
    mark: bool
    cut_left: bool
    cut_right: bool


def fit(total: float) -> Window:
    return Window(0.0, max(total, MIN_TOTAL_MS))


def bar_cells(start: float, end: float, window: Window, width: int) -> Cells | None:
    """The cells of the bar [start, end] in `width` cells showing `window`; None when it is outside the window.

    Edges are rounded to the nearest cell; a bar shorter than a cell (zero-length included) still gets one cell.
    """
    if width <= 0 or end < window.start or start > window.end:
        return None
    scale = width / window.span
    x0 = (start - window.start) * scale
    x1 = (end - window.start) * scale
    first = max(0, min(width - 1, math.floor(x0 + 0.5)))
    last = max(0, min(width, math.floor(x1 + 0.5)))
    if last <= first:
        last = first + 1
    return Cells(first, last, (x1 - x0) < 1.0 - _EPS, x0 < -_EPS, x1 > width + _EPS)


def zoom(window: Window, factor: float, anchor: float, total: float) -> Window:
    """Scale the window by `factor` (<1 zooms in) keeping `anchor` where it is on screen, within [0, total]."""
    total = max(total, MIN_TOTAL_MS)
    span = window.span
    new = min(total, max(min(MIN_WINDOW_MS, total), span * factor))
    anchor = min(max(anchor, window.start), window.end)
    ratio = (anchor - window.start) / span if span > 0 else 0.5
    start = anchor - ratio * new
    start = min(max(start, 0.0), total - new)
    return Window(start, start + new)


def pan(window: Window, fraction: float, total: float) -> Window:
    """Shift the window by `fraction` of its span, staying within [0, total]."""
    total = max(total, MIN_TOTAL_MS)
    span = min(window.span, total)
    start = min(max(window.start + span * fraction, 0.0), total - span)
    return Window(start, start + span)


def _nice_steps() -> list[float]:
    steps = [m * 10.0 ** e for e in range(-3, 3) for m in (1, 2, 5)]  # 1µs .. 500ms
    steps += [1000.0 * s for s in (1, 2, 5, 10, 15, 30)]
    steps += [60_000.0 * m for m in (1, 2, 5, 10, 15, 30)]
    steps += [3_600_000.0 * h for h in (1, 2, 3, 6, 12)]
    steps += [86_400_000.0 * d for d in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)]
    return steps


NICE_STEPS = _nice_steps()


def _decimals(value: float) -> int:
    """Decimal places needed to write multiples of `value` exactly (at most 6)."""
    for d in range(7):
        scaled = value * 10 ** d
        if abs(scaled - round(scaled)) < 1e-6 * max(1.0, scaled):
            return d
    return 6


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def fmt_offset(ms: float, step: float) -> str:
    """An axis label: `ms` from the start written to the precision of the tick `step` (0s, 250ms, 1m 20s, 1h 05m)."""
    if abs(ms) < _EPS or ms < 0:
        return "0s"
    if step < 1000 and ms < 1000 - _EPS:
        d = _decimals(step)
        return _trim(f"{ms:.{d}f}") + "ms"
    d = _decimals(step / 1000) if step < 1000 else 0
    scale = 10 ** d
    units = round(ms * scale / 1000)
    hours, rest = divmod(units, 3600 * scale)
    minutes, rest = divmod(rest, 60 * scale)
    seconds = _trim(f"{rest / scale:.{d}f}") if d else str(rest // scale)
    values = [(hours, "h"), (minutes, "m"), (rest, "s")]
    nonzero = [i for i, (v, _) in enumerate(values) if v]
    if not nonzero:
        return "0s"
    parts = []
    for i in range(nonzero[0], nonzero[-1] + 1):
        value, unit = values[i]
        if unit == "s":
            text = seconds
            if i > nonzero[0] and rest < 10 * scale:
                text = "0" + text
        else:
            text = str(value) if i == nonzero[0] else f"{value:02d}"
        parts.append(text + unit)
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Tick:
    column: int
    label: str


def ticks(window: Window, width: int, gap: int = 2) -> list[Tick]:
    """Ticks at round times, as dense as their labels allow (each label plus `gap` cells fits between ticks)."""
    if width <= 0 or window.span <= 0:
        return []
    span = window.span
    scale = width / span
    for step in NICE_STEPS + [None]:
        if step is None:  # beyond the table: one tick per screen
            step = span
        cells = step * scale
        if cells < 4:
            continue
        first = math.ceil(window.start / step - 1e-6)
        last = math.floor(window.end / step + 1e-6)
        if last - first > width:
            continue
        labels = [(k * step, fmt_offset(k * step, step)) for k in range(first, last + 1)]
        widest = max((len(text) for _, text in labels), default=0)
        if cells >= widest + gap:
            return [Tick(min(width - 1, max(0, math.floor((t - window.start) * scale + 0.5))), text)
                    for t, text in labels]
    return []


def axis(window: Window, width: int) -> tuple[str, str]:
    """The two header lines over the bars: tick labels, and a ruler with a mark under each tick. Exactly `width`."""
    marks = ticks(window, width)
    labels = [" "] * width
    ruler = ["─"] * width
    taken = -1  # last cell used by a label
    for tick in marks:
        ruler[tick.column] = "┬"
        begin = tick.column
        if begin + len(tick.label) > width:
            begin = width - len(tick.label)  # the last tick's label ends at the edge
        if begin <= taken or begin < 0:
            continue
        labels[begin:begin + len(tick.label)] = tick.label
        taken = begin + len(tick.label)
    return "".join(labels)[:width], "".join(ruler)[:width]
