"""What the user made of an opTree (expanded nodes, cursor, scroll), kept by node keys to put back on a newer build
of its session (a live change or reload that had to build a node's children again) or when a screen comes back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.model.nodes import node_key
from tui.ui.textual_compat import rebuild_tree_lines

if TYPE_CHECKING:
    from tui.ui.widgets.op_tree import OpTree


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
                tree.populate(node)
                if not node.is_expanded:
                    node.expand()
                stack.extend(node.children)
            elif node.is_expanded:
                node.collapse()
        rebuild_tree_lines(tree)
        if cursor_node is not None:
            tree.move_cursor(cursor_node)
        tree.scroll_to(y=self.scroll_y, animate=False, immediate=True)
