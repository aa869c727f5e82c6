"""The opTree: a session's turns, steps and ops as a collapsible tree whose children are built on expand."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Protocol

from rich.style import Style

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode, UnknownNodeID

from tui.model.nodes import Op, Session, Turn, same_keys
from tui.ui.draw_key import same_cell
from tui.ui.textual_compat import (
    QuietTree,
    attach_children,
    rebuild_tree_lines,
    remeasure_tree,
    set_label_quietly,
    unlink_tree_nodes,
)
from tui.ui.widgets.motion import half_page, motion_bindings
from tui.ui.widgets.node_labels import NodeLabel, label_for
from tui.ui.widgets.op_tree_parts import column_widths, columns_total, fit, reads

Node = Session | Turn | Op
UNSEEN = Text("")  # the label of a node not drawn yet (OpTree.attach_new)
ATTACH_AT_ONCE, ATTACH_PAUSE = 400, 0.02  # new children attached per step of a change, and the pause between
CURSOR_MARGIN = 2  # rows kept between a jumped-to node and the edges of the tree (or its horizontal scrollbar)


class Restorable(Protocol):
    """Expanded nodes, cursor and scroll put back after a rebuild (tui.ui.widgets.tree_state.TreeState)."""

    def restore(self, tree: OpTree) -> None: ...


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


def line_width(label: object, columns: int) -> int:
    """The cells a node's line takes with the right-hand columns `columns` cells wide (0: off), for measuring the
    lines: its cached label, never a fresh render. A label not drawn yet (UNSEEN: most lines of a big trace) is
    not measured."""
    if label is UNSEEN:
        return 2 + columns
    if columns and isinstance(label, NodeLabel):
        return label.name_cells + 2 + columns
    return label.cell_len + 2 if isinstance(label, Text) else 0


class OpTree(QuietTree[Node]):
    """Children are added when a node is first expanded, so a 20,000-op session opens as fast as a small one."""

    BINDINGS = [
        Binding("enter", "open_node", "Open", show=False),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("l,right", "expand_node", "Expand", show=False),
        Binding("h,left", "collapse_node", "Collapse", show=False),
        *motion_bindings("scroll_home", "scroll_end"),
    ]
    _measured_columns = 0  # columns_total() the lines were last measured with (get_label_width)

    class OpenNode(Message):
        """Enter on a node: the screen decides (drill into a sub-agent, or open the payload viewer)."""

        def __init__(self, node: Node) -> None:
            super().__init__()
            self.node = node

    def __init__(self, session: Session, **kwargs) -> None:
        super().__init__(Text(""), data=session, **kwargs)
        self.session = session
        self.guide_depth = 3
        self.keep: Callable[[Node], bool] | None = None  # a filter (errors only); None shows everything
        self._populated: set[int] = set()
        self._column_strips: dict[tuple, tuple[NodeLabel, Strip]] = {}  # (_columns_strip)
        self._unlabelled: set[int] = set()  # nodes given new data off screen, their labels not yet made again
        self._attach_later: set[int] = set()  # nodes with new children still to attach (attach_new)
        self.clock: Callable[[], int] = wall_clock_ms  # what "now" is for running nodes (live streams differ)
        self.stale: Callable[[], bool] = lambda: False  # running nodes show `○ stale` while this says so

    def on_mount(self) -> None:
        self.reset_tree()

    # building ---------------------------------------------------------------------------------------------
    def reset_tree(self) -> None:
        self.clear()
        self._populated.clear()
        self._unlabelled.clear()
        self.relabel(self.root, label_for(self.session, self.stale()))
        self.root.data = self.session
        self.populate(self.root)
        self.root.expand()
        # Expand the user turns of a small session so the first screen shows ops, not just turn headers.
        if len(self.root.children) <= 12:
            for child in self.root.children:
                if isinstance(child.data, Turn) and not child.data.system and len(child.data.ops) <= 40:
                    self.populate(child)
                    child.expand()

    def take_newer(self, session: Session, state: Restorable) -> None:
        """Show a newer build of the session on screen, in place. Every built node whose key is still there, in
        order, keeps its tree node: it gets the new data, a new label only when it reads differently (op_tree_parts.reads),
        and, when expanded, its children the same way; a collapsed node's built children are dropped, to be
        built again from the new data when it is expanded (populate). New children are added at the end. Only
        a node whose children no longer begin with the ones shown is built again, and `state` put back. (Building
        the running turn's ops again at each change of a growing 20,000-op session, then walking the whole tree
        to put the state back, took 1.3-1.5 s of the UI thread a time.)"""
        root = self.root
        if not root.children:  # nothing shown yet: built as a first screen is (small sessions open expanded)
            self.session = session
            self.reset_tree()
            state.restore(self)
            return
        self.session = root.data = session
        stale = self.stale()
        self.relabel(root, label_for(session, stale))
        if self.take_children(root, stale):
            state.restore(self)

    def take_children(self, node: TreeNode[Node], stale: bool) -> bool:
        """`node` (built, holding new data) takes its new children in place (see take_newer). True when some
        node's children had to be built again (their expansion is gone: the caller puts its state back)."""
        if node.id not in self._populated or node.data is None:
            return False
        items, kids = self.children_of(node.data), list(node.children)
        if not same_keys([kid.data for kid in kids], items):
            node.remove_children()
            self._populated.discard(node.id)
            self.populate(node)
            return True
        rebuilt = False
        for kid, old, item in self.take_data(kids, items):
            if old is not item and reads(old) != reads(item):
                self.relabel(kid, label_for(item, stale))
            if kid.allow_expand != self.expandable(item):
                kid.allow_expand = not kid.allow_expand
            if kid.id not in self._populated:
                continue
            if kid.is_expanded:
                rebuilt = self.take_children(kid, stale) or rebuilt
            else:  # built from the old data and not shown: built again when expanded
                kid.remove_children()
                self._populated.discard(kid.id)
        if len(items) > len(kids):
            self.attach_new(node, items[len(kids):], stale)
        return rebuilt

    def take_data(self, kids: list[TreeNode[Node]], items: list[Node]) -> list[tuple]:
        """Each kid gets its new data. Those built or on screen are returned (kid, old data, new data) for the
        caller to compare; the others are only marked to be labelled when drawn (render_line), their expansion
        set right. (This loop runs over every turn of a 16,000-turn trace at each change: the few on screen are
        the only ones worth comparing; `otlp_big_run.py`'s keys row.)"""
        top = self.scroll_offset.y
        low, high = top - 1, top + self.size.height
        populated, unlabelled, expandable = self._populated, self._unlabelled, self.expandable
        near = []
        for kid, item in zip(kids, items):
            old = kid.data
            if old is item and kid.id not in populated:
                continue
            kid.data = item
            if kid.id in populated or low <= kid.line <= high:
                near.append((kid, old, item))
                continue
            unlabelled.add(kid.id)
            if type(item) is not Turn and kid.allow_expand != expandable(item):  # (a turn always expands)
                kid.allow_expand = not kid.allow_expand
        return near

    def attach_new(self, node: TreeNode[Node], items: list[Node], stale: bool, whole: bool = False) -> None:
        """New children at the end of `node`: those below the screen get an empty label, made as their lines are
        drawn (render_line): labelling each of a growing trace's new turns was ~0.2 ms a turn, 16,000 turns.
        ATTACH_AT_ONCE at a time: the rest follow in later steps of the event loop (attach_rest), keys in between
        (a change of a big trace brought ~1,600 turns at once, 50-60 ms of the UI thread; `otlp_big_run.py`)."""
        if len(items) > ATTACH_AT_ONCE and not whole:
            items = items[:ATTACH_AT_ONCE]
            if node.id not in self._attach_later:
                self._attach_later.add(node.id)
                self.set_timer(ATTACH_PAUSE, partial(self.attach_rest, node))
        last = node.children[-1] if node.children else None
        bottom = self.scroll_offset.y + self.size.height
        first = last.line + 1 if last is not None and not last.is_expanded and last.line >= 0 else -1
        labelled = len(items) if first < 0 else max(0, bottom + 1 - first)
        count = len(node.children)
        made = iter(range(len(items)))
        attach_children(self, node, items,
                        lambda item: label_for(item, stale) if next(made) < labelled else UNSEEN, self.expandable)
        if labelled < len(items):
            self._unlabelled.update(kid.id for kid in node.children[count + labelled:])

    def attach_rest(self, node: TreeNode[Node], whole: bool = False) -> None:
        """The new children of `node` that attach_new left for later (the newest build's, by then); `whole`: all
        of them now."""
        self._attach_later.discard(node.id)
        if not self.is_mounted or node.data is None or not self.holds(node):
            return
        items, count = self.children_of(node.data), len(node.children)
        if node.id in self._populated and len(items) > count:
            self.attach_new(node, items[count:], self.stale(), whole)

    def holds(self, node: TreeNode[Node]) -> bool:
        """`node` is still in the tree (not removed with its parent's children since). (Tree.clear makes a new
        root without registering it: the root is checked by identity.)"""
        if node is self.root:
            return True
        try:
            return self.get_node_by_id(node.id) is node
        except UnknownNodeID:
            return False

    def on_unmount(self) -> None:
        # TreeNodes point at their parent and their tree: cycles, so a closed drill-down's thousands of nodes,
        # labels and cached lines waited for a full collection, which then stalled the UI for ~0.4 s. Cutting
        # the links lets reference counting free them as the screen closes.
        unlink_tree_nodes(self)
        self._populated.clear()
        self._column_strips.clear()

    def children_of(self, data: Node) -> list[Node]:
        if isinstance(data, Session):
            items: list[Node] = list(data.turns)
        elif isinstance(data, Turn):
            items = list(data.ops)
        elif isinstance(data, Op) and data.child is not None:
            items = list(data.child.turns)
        else:
            items = []
        if self.keep is not None:
            items = [item for item in items if self.keep(item)]
        return items

    @staticmethod
    def expandable(data: Node) -> bool:
        if isinstance(data, Op):
            return data.child is not None and bool(data.child.turns)
        return True

    def populate(self, node: TreeNode[Node]) -> None:
        """Build `node`'s children (once; expanding a node does it too). It stays collapsed."""
        if node.id in self._populated or node.data is None:
            return
        self._populated.add(node.id)
        stale = self.stale()
        attach_children(self, node, self.children_of(node.data), lambda item: label_for(item, stale),
                        self.expandable)

    def expand_all(self) -> list[TreeNode[Node]]:
        """Build and expand every node (sub-agents inline too, as far as the filter `keep` lets through);
        returns every node of the tree."""
        nodes, stack = [], [self.root]
        while stack:
            node = stack.pop()
            nodes.append(node)
            self.populate(node)
            if node.allow_expand and not node.is_expanded:
                node.expand()
            stack.extend(node.children)
        return nodes

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Node]) -> None:
        if event.node.id not in self._populated:
            self.populate(event.node)

    def process_label(self, label) -> Text:
        # Tree splits every label into lines and keeps the first (a copy per node); ours are one line already.
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def get_label_width(self, node: TreeNode[Node]) -> int:
        return self.label_widths()(node)

    def label_widths(self) -> Callable[[TreeNode[Node]], int]:
        """Tree re-measures every line on each change: use the cached label, not a fresh render, and the columns'
        width worked out once per build (reading `size` per line was most of a build's time). With the columns
        on, a line is its name plus the columns: the tree scrolls sideways until the name's end shows."""
        total = self._measured_columns = columns_total(column_widths(self.size.width))
        return lambda node: line_width(node.label, total)

    # the right-hand columns ---------------------------------------------------------------------------------
    def render_label(self, node: TreeNode[Node], base_style: Style, style: Style) -> Text:
        """The name part only while the columns are on (render_line draws them)."""
        text = super().render_label(node, base_style, style)
        label = node.label
        if isinstance(label, NodeLabel) and columns_total(column_widths(self.size.width)):
            text = text[: len(text.plain) - (len(label.plain) - label.name_end)]
        return text

    def render_line(self, y: int) -> Strip:
        """Tree's line cut where the columns begin (with `…` when the name goes on under them), then the columns
        of its node: they stay put as the name scrolls sideways."""
        line = self.scroll_offset.y + y
        node = self.get_node_at_line(line)
        if node is not None and node.id in self._unlabelled:
            self._unlabelled.discard(node.id)
            self.label_unseen(node)
        strip = super().render_line(y)
        widths = column_widths(self.size.width)
        total = columns_total(widths)
        if not total or node is None:
            return strip
        name_w = max(1, self.scrollable_content_region.width - total)  # (left of a vertical scrollbar)
        name = strip.crop(0, name_w)
        if strip.crop(name_w).text.strip():  # the name goes on under the columns: say so
            segments = list(name.crop(0, name_w - 1))
            style = segments[-1].style if segments else None
            name = Strip([*segments, Segment("…", style)], name_w)
        return Strip.join([name, self._columns_strip(node, widths, total, line == self.cursor_line)])

    def label_unseen(self, node: TreeNode[Node]) -> None:
        """The label of a node given new data while off screen (take_children), made as its line is drawn: a
        change of a 16,000-turn trace compared every turn's old and new data (~80 ms a change) for the few dozen
        lines on screen. A label of another width moves the widest line (the scrolling width): every line was measured
        again for each such label (each line of a big trace first drawn, UNSEEN being narrower than any label);
        now only when the widest may have narrowed (QuietTree.rewidened)."""
        if node.data is None:
            return
        before = node.label
        label = label_for(node.data, self.stale())
        if not same_cell(before, label):
            set_label_quietly(self, node, label)
            total = self._measured_columns  # (what the lines, the widest among them, were measured with)
            was, now = line_width(before, total), line_width(node.label, total)
            if was != now and not self.rewidened(node, was, now):
                self.call_later(remeasure_tree, self)

    def _columns_strip(self, node: TreeNode[Node], widths: tuple[int, int, int], total: int,
                       cursor: bool) -> Strip:
        """The columns of a node's line, kept per node, label and look: each change of a live session draws the
        lines on screen twice (QuietTree.repaint_changed_lines), mostly with the same columns."""
        line_style = self.rich_style
        label = node.label
        if not isinstance(label, NodeLabel):
            return Strip.blank(total, line_style)
        key = (node.id, widths, cursor, self.has_focus, line_style)
        kept = self._column_strips.get(key)
        if kept is not None and kept[0] is label:
            return kept[1]
        if len(self._column_strips) > 1024:
            self._column_strips.clear()
        strip = self._draw_columns(label, widths, total, cursor, line_style)
        self._column_strips[key] = (label, strip)
        return strip

    def _draw_columns(self, label: NodeLabel, widths: tuple[int, int, int], total: int, cursor: bool,
                      line_style: Style) -> Strip:
        status_w, duration_w, cost_w = widths
        text = Text(" ", style=line_style)
        status = label.status.copy()
        status.truncate(status_w, overflow="ellipsis", pad=True)
        text.append_text(status)
        text.append(" " + fit(label.duration, duration_w) + " " + fit(label.cost, cost_w), style="dim")
        if cursor:
            text.stylize(self.get_component_rich_style("tree--cursor", partial=False))
        return Strip(list(text.render(self.app.console)), total).adjust_cell_length(total, line_style)

    def on_resize(self, event: events.Resize) -> None:
        """The columns take another width: measure the lines again (QuietTree only redraws them on a resize). The
        width the lines are measured at is `size` (the vertical scrollbar left out), not the event's."""
        if columns_total(column_widths(self.size.width)) != self._measured_columns:
            remeasure_tree(self)

    def watch_show_vertical_scrollbar(self) -> None:
        """The columns end left of the vertical scrollbar: draw the lines again as it comes or goes (Textual
        keeps the lines drawn before otherwise, and the scrollbar covered the last cells of the cost)."""
        self.redraw_lines()

    def action_scroll_sideways(self, direction: int) -> None:
        """`<` / `>`: half the name part to the left or right (the columns stay)."""
        step = max(4, (self.size.width - columns_total(column_widths(self.size.width))) // 2)
        self.scroll_to(x=max(0, self.scroll_x + direction * step), animate=False)

    # keys -------------------------------------------------------------------------------------------------
    def action_open_node(self) -> None:
        node = self.cursor_node
        if node is not None and node.data is not None:
            self.post_message(self.OpenNode(node.data))

    def action_expand_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and not node.is_expanded:
            self.populate(node)
            node.expand()
        elif node.children:
            rebuild_tree_lines(self)
            self.move_cursor(node.children[0])

    def action_half_page(self, direction: int) -> None:
        line = max(0, self.cursor_line) + direction * half_page(self)
        self.cursor_line = max(0, min(self.last_line, line))
        self.scroll_to_line(self.cursor_line)

    def action_collapse_node(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        if node.is_expanded and node.allow_expand:
            node.collapse()
        elif node.parent is not None:
            self.move_cursor(node.parent)

    # navigation -------------------------------------------------------------------------------------------
    def chain_to(self, target: Node) -> list[Node]:
        """The data path from this tree's session down to `target` (exclusive of the session)."""
        chain: list[Node] = []
        node: Node | None = target
        while node is not None and node is not self.session:
            if isinstance(node, Session):
                node = node.parent_op  # sub-agent sessions are not tree nodes: their op is
                continue
            chain.append(node)
            node = node.turn if isinstance(node, Op) else node.session
        if node is None:
            return []
        chain.reverse()
        return chain

    def reveal(self, target: Node) -> bool:
        """Expand down to `target` and put the cursor on it. False if it is not in this tree (or filtered out)."""
        chain = self.chain_to(target)
        if not chain and target is not self.session:
            return False
        node = self.root
        for data in chain:
            self.populate(node)
            if node.id in self._attach_later:  # (its newest children are wanted now)
                self.attach_rest(node, whole=True)
            if not node.is_expanded:
                node.expand()
            found = next((child for child in node.children if child.data is data), None)
            if found is None:
                return False
            node = found
        rebuild_tree_lines(self)  # a node's line number is only known after a build
        self.move_cursor(node)
        self.scroll_to_node(node, animate=False)
        self.call_after_refresh(self.keep_cursor_visible)
        return True

    def keep_cursor_visible(self) -> None:
        """Scroll so the cursor row sits CURSOR_MARGIN rows inside the visible rows. Run after a refresh: a reveal
        that widens the labels brings up the horizontal scrollbar only at the next layout, and the scroll made
        before it had counted that bottom row as visible, leaving the selected row under the scrollbar."""
        line = self.cursor_line
        height = self.scrollable_content_region.height
        if line < 0 or height <= 0:
            return
        margin = min(CURSOR_MARGIN, (height - 1) // 2)
        top = self.scroll_offset.y
        if line < top + margin:
            y = line - margin
        elif line > top + height - 1 - margin:
            y = line - height + 1 + margin
        else:
            return
        self.scroll_to(y=max(0, y), animate=False, immediate=True, force=True)

    def center_cursor(self) -> None:
        """Centre the cursor row (a jump's op): kept off the bottom row, which a horizontal scrollbar may take after
        a reveal."""
        if self.cursor_line >= 0:
            self.scroll_to(y=max(0, self.cursor_line - self.scrollable_content_region.height // 2), animate=False,
                           immediate=True, force=True)

    def refresh_labels(self) -> None:
        """Re-render the labels of the lines on screen (a running session's durations grow; one that goes silent
        turns `stale`). Lines off screen are relabelled when a build changes them or as they scroll into view
        (the root's too: the totals panel says the session's). Walking every expanded node each second took
        tens of ms on a 10,000-turn session."""
        stale = self.stale()
        top = self.scroll_offset.y
        for line in range(top, top + self.size.height):
            node = self.get_node_at_line(line)
            if node is not None and node.data is not None:
                self.relabel(node, label_for(node.data, stale))
        self.relabel(self.root, label_for(self.session, stale))
