"""The waterfall: a session's turns and ops (sub-agents nested) as bars on a time axis, and the axis math.

Times are placed once for the whole tree (`Waterfall`): every node gets a start and an end in ms relative to the
session's start. Real files lack times or carry wrong ones, so placement is defensive:
* a time more than MAX_SKEW_MS away from the session's anchor is treated as missing (seconds-for-ms, zeros);
* a missing start is the previous sibling's end (or the parent's start); a missing end is the end of whatever the
  node holds (or its start): such rows are `inferred`, and drawn as such;
* while the session runs, open nodes are `running` and end at `running_end` (now, or the newest time seen), which
  `advance` moves on without re-placing anything;
* an end before its start becomes a zero-length mark at the start (inferred).

Rows are the flattened, visible part of the tree (collapsed nodes hide their rows); `toggle` splices rows in and
out so a 20,000-op session never re-flattens on a key press. The axis math (bar cells, zoom, pan, tick labels) is
pure functions of a time window and a width in cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tui.model.fields import one_line
from tui.model.nodes import Op, Session, Turn

Node = Session | Turn | Op

MAX_SKEW_MS = 30 * 86_400_000  # a time this far from the session's start is not believed
STALE_MS = 3_600_000  # "now" this far past the newest time seen is a dead producer, not a running one
MIN_TOTAL_MS = 1.0  # the axis of a session with no measurable span
MIN_WINDOW_MS = 0.1  # the deepest zoom
EXPAND_ALL_OPS = 400  # sessions up to this many ops (sub-agents included) open fully expanded
_EPS = 1e-9


class Timing:
    """Where one node sits on the axis: absolute ms, and how much of it is known."""

    __slots__ = ("start", "end", "inferred", "running", "cursor")

    def __init__(self, start: float, end: float, inferred: bool, running: bool) -> None:
        self.start = start
        self.end = end  # placing: the start until the ends are known (Waterfall._place)
        self.inferred = inferred
        self.running = running
        self.cursor = start  # placing only: where the next child without a start begins


@dataclass(slots=True)
class Row:
    """One visible line: a session (the top), a turn/step, or an op (a sub-agent op stands for its session)."""

    node: Node
    depth: int
    expandable: bool

    @property
    def kind(self) -> str:
        if isinstance(self.node, Op):
            return self.node.kind
        return "turn" if isinstance(self.node, Turn) else "root"

    @property
    def name(self) -> str:
        """A plain one-line name (untrusted text, control characters escaped)."""
        node = self.node
        if isinstance(node, Session):
            title = f" · {node.title}" if node.title else ""
            return one_line(node.display_agent + title, 120)
        if isinstance(node, Turn):
            return one_line(node.title, 120)
        target = node.target or "-"
        agent = node.child_agent
        if agent and agent != target:
            target = f"{target} → {agent}"
        return one_line(target, 120)


def node_key(node: Node) -> tuple:
    """Names the same node in a newer tree of the same session (live updates, reloads)."""
    if isinstance(node, Op):
        return ("op", node.path)
    if isinstance(node, Turn):
        return ("turn", node.session.path_prefix, node.kind, node.index, node.position)
    return ("session", node.path_prefix)


def _children(node: Node) -> list:
    if isinstance(node, Session):
        return node.turns
    if isinstance(node, Turn):
        return node.ops
    return node.child.turns if node.child is not None else []


def _expandable(node: Node) -> bool:
    return bool(_children(node))


class Waterfall:
    """The placed tree of one session and its visible rows."""

    def __init__(self, session: Session, *, now_ms: int | None = None, expanded: Iterable[tuple] | None = None,
                 previous: Waterfall | None = None) -> None:
        """`expanded`: exactly these nodes are unfolded. `previous`: the waterfall of an older tree of the same
        session, whose folds carry over (nodes new since then open as they would by default)."""
        self.session = session
        self._times: dict[int, Timing] = {}
        self._anchor = 0
        self.origin = 0.0
        self.latest = 0.0
        self.running_end = 0.0
        self.total = MIN_TOTAL_MS
        self._place(now_ms)
        self.collapsed: set[tuple] = set()  # folded by the user
        if expanded is not None:
            self.expanded: set[tuple] = set(expanded)
        else:
            self.expanded = self._default_expanded()
            if previous is not None:
                self.expanded = (self.expanded | previous.expanded) - previous.collapsed
                self.collapsed = set(previous.collapsed)
        self.rows: list[Row] = self._flatten(session, 0)

    # placing ------------------------------------------------------------------------------------------------
    def _place(self, now_ms: int | None) -> None:
        root = self.session
        anchor = root.started_at
        if anchor is None:
            anchor = next((n.started_at for n in _all_nodes(root) if n.started_at is not None), None)
        if anchor is None:
            anchor = next((n.ended_at for n in _all_nodes(root) if n.ended_at is not None), 0)
        self._anchor = anchor
        low, high = anchor - MAX_SKEW_MS, anchor + MAX_SKEW_MS
        times = self._times
        latest = float(anchor)
        # Starts, top-down (pre-order): a missing start follows the previous sibling, or the parent's start.
        order: list[Node] = []
        unended: set[int] = set()  # ids of the nodes without a believed end: found bottom-up below
        stack: list[tuple[Node, Timing | None]] = [(root, None)]
        while stack:
            node, parent = stack.pop()
            order.append(node)
            start: float | None = node.started_at
            if start is not None and not low <= start <= high:
                start = None
            end = node.ended_at
            if end is not None and not low <= end <= high:
                end = None
            inferred = start is None or getattr(node, "duration_unknown", False)  # a ledger op at its record's time
            if start is None:
                child = node.child if isinstance(node, Op) else None
                if child is not None and child.started_at is not None and low <= child.started_at <= high:
                    start = child.started_at
                elif parent is None:
                    start = anchor
                elif isinstance(node, Session):
                    start = parent.start  # a sub-agent without a start: its op's
                else:
                    start = parent.cursor
            timing = Timing(float(start), float(end) if end is not None else float(start), inferred, False)
            times[id(node)] = timing
            if end is None:
                unended.add(id(node))
            if parent is not None:
                parent.cursor = max(parent.cursor, timing.start if end is None else float(end))
            if end is not None and end > latest:
                latest = end
            if start > latest:
                latest = start
            if isinstance(node, Op):
                if node.child is not None:
                    stack.append((node.child, timing))
            else:
                kids: Sequence[Node] = node.turns if isinstance(node, Session) else node.ops
                stack.extend([(kid, timing) for kid in reversed(kids)])
        self.latest = latest
        live = root.running
        self.running_end = self._running_end(now_ms) if live else latest
        # Ends, bottom-up: a missing end is the end of what the node holds, or its start.
        for node in reversed(order):
            timing = times[id(node)]
            if id(node) in unended:
                if live and _open(node):
                    timing.running = True
                    timing.end = self.running_end
                else:
                    timing.end = max((times[id(kid)].end for kid in _inner(node)), default=timing.start)
                    timing.inferred = True
            if timing.end < timing.start:
                timing.end = timing.start
                timing.inferred = True
        self.origin = min(t.start for t in times.values())
        last = max(max(t.end for t in times.values()), self.running_end if live else self.origin)
        self.total = max(MIN_TOTAL_MS, last - self.origin)

    def _believed(self, value: int | None) -> int | None:
        if value is None or abs(value - self._anchor) > MAX_SKEW_MS:
            return None
        return value

    def _running_end(self, now_ms: int | None) -> float:
        now = self._believed(now_ms)
        if now is None or now < self.latest or now - self.latest > STALE_MS:
            return self.latest
        return float(now)

    def advance(self, now_ms: int | None) -> None:
        """Move the end of running nodes to `now_ms` (the clock ticks; nothing else changed)."""
        if not self.session.running:
            return
        self.running_end = max(self.running_end, self._running_end(now_ms))
        for timing in self._times.values():
            if timing.running:
                timing.end = max(timing.end, self.running_end)
        self.total = max(self.total, self.running_end - self.origin)

    # reading ------------------------------------------------------------------------------------------------
    def timing(self, node: Node) -> Timing:
        return self._times[id(node)]

    def span(self, row: Row) -> tuple[float, float]:
        """(start, end) of a row in ms from the session's start."""
        t = self._times[id(row.node)]
        return t.start - self.origin, t.end - self.origin

    def status(self, row: Row) -> str:
        """ok | failed | running | inferred (times partly guessed)."""
        node = row.node
        t = self._times[id(node)]
        if t.running:
            return "running"
        if isinstance(node, Op):
            failed = node.failed or (node.child is not None and node.child.status == "failed")
        elif isinstance(node, Turn):
            failed = node.status == "failed"
        else:
            failed = node.status == "failed"
        if failed:
            return "failed"
        return "inferred" if t.inferred else "ok"

    def share(self, row: Row) -> float:
        """The row's duration as a fraction of the session's wall time."""
        start, end = self.span(row)
        return (end - start) / self.total

    # rows ---------------------------------------------------------------------------------------------------
    def _default_expanded(self) -> set[tuple]:
        session = self.session
        keys = {node_key(session)}
        if session.counts.ops <= EXPAND_ALL_OPS:
            for node in _all_nodes(session):
                if _expandable(node):
                    keys.add(node_key(node))
        else:
            keys.update(node_key(turn) for turn in session.turns)
        return keys

    def is_expanded(self, row: Row) -> bool:
        return row.expandable and node_key(row.node) in self.expanded

    def _flatten(self, node: Node, depth: int) -> list[Row]:
        rows: list[Row] = []
        stack: list[tuple[Node, int]] = [(node, depth)]
        expanded = self.expanded
        while stack:
            item, level = stack.pop()
            kids = _children(item)
            rows.append(Row(item, level, bool(kids)))
            if kids and node_key(item) in expanded:
                stack.extend((kid, level + 1) for kid in reversed(kids))
        return rows

    def toggle(self, index: int) -> bool:
        """Collapse or expand the row at `index`; False if it holds nothing."""
        row = self.rows[index]
        if not row.expandable:
            return False
        key = node_key(row.node)
        if key in self.expanded:
            self.expanded.discard(key)
            self.collapsed.add(key)
            end = index + 1
            while end < len(self.rows) and self.rows[end].depth > row.depth:
                end += 1
            del self.rows[index + 1:end]
        else:
            self.expanded.add(key)
            self.collapsed.discard(key)
            self.rows[index + 1:index + 1] = self._flatten(row.node, row.depth)[1:]
        return True

    def index_of(self, node: Node) -> int | None:
        """The row of `node`, expanding its ancestors first; None if it is not in this session."""
        chain: list[Node] = []
        item: Node | None = node
        while item is not None and item is not self.session:
            if id(item) not in self._times:
                return None
            chain.append(item)
            if isinstance(item, Op):
                item = item.turn
            elif isinstance(item, Turn):
                item = item.session
            else:
                item = item.parent_op
        if item is None:
            return None
        chain.reverse()
        index = 0
        for data in chain:
            parent_row = self.rows[index]
            if not self.is_expanded(parent_row):
                self.toggle(index)
            if isinstance(parent_row.node, Op) and isinstance(data, Session):
                continue  # a sub-agent session has no row: its op is the row
            index = next((i for i in range(index + 1, len(self.rows)) if self.rows[i].node is data), -1)
            if index < 0:
                return None
        return index

    def index_of_key(self, key: tuple) -> int | None:
        return next((i for i, row in enumerate(self.rows) if node_key(row.node) == key), None)


def _open(node: Node) -> bool:
    if isinstance(node, Op):
        return node.running
    return node.ended_at is None


def _inner(node: Node) -> list:
    if isinstance(node, Op):
        return [node.child] if node.child is not None else []
    return _children(node)


def _all_nodes(session: Session):
    stack: list[Node] = [session]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, Op):
            if node.child is not None:
                stack.extend(node.child.turns)
        else:
            stack.extend(_children(node))


# axis math ----------------------------------------------------------------------------------------------------
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
