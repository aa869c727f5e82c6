"""The opTree: a session's turns, steps and ops as a collapsible tree whose children are built on expand."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui.model.nodes import Op, Session, Turn
from tui.ui.widgets.node_labels import label_for

Node = Session | Turn | Op


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


class OpTree(Tree[Node]):
    """Children are added when a node is first expanded, so a 20,000-op session opens as fast as a small one."""

    BINDINGS = [
        Binding("enter", "open_node", "Open", show=False),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("l,right", "expand_node", "Expand", show=False),
        Binding("h,left", "collapse_node", "Collapse", show=False),
    ]

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
        self.clock: Callable[[], int] = wall_clock_ms  # what "now" is for running nodes (live streams differ)

    def on_mount(self) -> None:
        self.reset_tree()

    # building ---------------------------------------------------------------------------------------------
    def reset_tree(self) -> None:
        self.clear()
        self._populated.clear()
        self.root.set_label(label_for(self.session, self.now_ms()))
        self.root.data = self.session
        self._populate(self.root)
        self.root.expand()
        # Expand the user turns of a small session so the first screen shows ops, not just turn headers.
        if len(self.root.children) <= 12:
            for child in self.root.children:
                if isinstance(child.data, Turn) and not child.data.system and len(child.data.ops) <= 40:
                    self._populate(child)
                    child.expand()

    def on_unmount(self) -> None:
        # TreeNodes point at their parent and their tree: cycles, so a closed drill-down's thousands of nodes,
        # labels and cached lines waited for a full collection, which then stalled the UI for ~0.4 s. Cutting
        # the links lets reference counting free them as the screen closes.
        for node in self._tree_nodes.values():
            node._children = []
            node._parent = None
        self._tree_nodes.clear()
        self._clear_line_cache()
        self._populated.clear()

    def now_ms(self) -> int:
        return self.clock()

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

    def _populate(self, node: TreeNode[Node]) -> None:
        if node.id in self._populated or node.data is None:
            return
        self._populated.add(node.id)
        now = self.now_ms()
        # TreeNode.add invalidates the whole tree per child: with the thousands of turns of a big session that
        # is much of the time a drill-down takes, so children are attached in one go (textual is pinned).
        children = node._children
        for item in self.children_of(node.data):
            child = self._add_node(node, label_for(item, now), item)
            child._allow_expand = self.expandable(item)
            children.append(child)
        node._updates += 1
        self._invalidate()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Node]) -> None:
        if event.node.id not in self._populated:
            self._populate(event.node)

    def process_label(self, label) -> Text:
        # Tree splits every label into lines and keeps the first (a copy per node); ours are one line already.
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    # Tree rebuilds its list of lines (one object per line: thousands for a big session) on every style change
    # (focus, a screen on top) and resize, though neither changes which lines there are: redraw them instead.
    def notify_style_update(self) -> None:
        ScrollView.notify_style_update(self)
        self._redraw_lines()

    def _on_resize(self, event: events.Resize) -> None:
        event.prevent_default()  # instead of Tree's
        self._line_cache.grow(event.size.height)
        self._redraw_lines()

    def _redraw_lines(self) -> None:
        self._line_cache.clear()
        self._updates += 1
        self.refresh()

    def get_label_width(self, node: TreeNode[Node]) -> int:
        # Tree re-measures every visible line on each change: use the cached label, not a fresh render.
        return node._label.cell_len + 2

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
            self._populate(node)
            node.expand()
        elif node.children:
            self._tree_lines
            self.move_cursor(node.children[0])

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
            self._populate(node)
            if not node.is_expanded:
                node.expand()
            found = next((child for child in node.children if child.data is data), None)
            if found is None:
                return False
            node = found
        self._tree_lines  # rebuild now: a node's line number is only known after a build
        self.move_cursor(node)
        self.scroll_to_node(node, animate=False)
        return True

    def refresh_labels(self) -> None:
        """Re-render the labels of built nodes (running durations grow)."""
        now = self.now_ms()
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.data is not None:
                node.set_label(label_for(node.data, now))
            if node.is_expanded:
                stack.extend(node.children)


def node_key(data: object) -> tuple:
    """A key that names the same node across reloads of a growing session."""
    if isinstance(data, Op):
        return ("op", data.path)
    if isinstance(data, Turn):
        return ("turn", data.session.path_prefix, data.kind, data.index, data.position)
    if isinstance(data, Session):
        return ("session", data.path_prefix)
    return ("?", id(data))


class TreeState:
    """Expanded nodes, cursor and scroll of an OpTree, to restore after its session is replaced."""

    def __init__(self, tree: OpTree) -> None:
        self.expanded: list[tuple] = []
        stack = [tree.root]
        while stack:
            node = stack.pop()
            if node.is_expanded and node.data is not None:
                self.expanded.append(node_key(node.data))
                stack.extend(node.children)
        cursor = tree.cursor_node
        self.cursor = node_key(cursor.data) if cursor is not None and cursor.data is not None else None
        self.scroll_y = tree.scroll_y
        self.cursor_line = tree.cursor_line

    def restore(self, tree: OpTree) -> None:
        wanted = set(self.expanded)
        cursor_node = None
        stack = [tree.root]
        while stack:
            node = stack.pop()
            key = node_key(node.data) if node.data is not None else None
            if key == self.cursor:
                cursor_node = node
            if key in wanted:
                tree._populate(node)
                if not node.is_expanded:
                    node.expand()
                stack.extend(node.children)
            elif node.is_expanded:
                node.collapse()
        tree._tree_lines
        if cursor_node is not None:
            tree.move_cursor(cursor_node)
        tree.scroll_to(y=self.scroll_y, animate=False, immediate=True)
