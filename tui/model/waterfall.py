"""The waterfall: a session's turns and ops (sub-agents nested) placed as bars on a time axis.

Times are placed once for the whole tree (`Waterfall`): every node gets a start and an end in ms relative to the
session's start. Real files lack times or carry wrong ones, so placement is defensive:
* a time more than MAX_SKEW_MS away from the session's anchor is treated as missing (seconds-for-ms, zeros);
* a missing start is the previous sibling's end (or the parent's start); a missing end is the end of whatever the
  node holds (or its start): such rows are `inferred`, and drawn as such;
* while the session runs, open nodes are `running` and end at `running_end` (now, or the newest time seen), which
  `advance` moves on without re-placing anything;
* an end before its start becomes a zero-length mark at the start (inferred).

Rows are the flattened, visible part of the tree (collapsed nodes hide their rows); `toggle` splices rows in and
out so a 20,000-op session never re-flattens on a key press. Bar cells, zoom, pan
and tick labels: tui.model.waterfall_axis.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tui.model.fields import one_line
from tui.model.nodes import Op, Session, Turn, node_key
from tui.model.waterfall_axis import MIN_TOTAL_MS

Node = Session | Turn | Op

MAX_SKEW_MS = 30 * 86_400_000  # a time this far from the session's start is not believed
STALE_MS = 3_600_000  # "now" this far past the newest time seen is a dead producer, not a running one
EXPAND_ALL_OPS = 400  # sessions up to this many ops (sub-agents included) open fully expanded


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
