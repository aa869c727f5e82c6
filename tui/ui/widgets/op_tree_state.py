"""What the opTree keeps across a newer build of its session: the keys that name the same node, what a label is
made of (OpTree.take_children relabels a node only when it differs), and the expanded nodes, cursor and scroll."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.model.nodes import Op, Session, Turn, failed_inside
from tui.model.session_facts import last_activity
from tui.ui.textual_compat import rebuild_tree_lines

if TYPE_CHECKING:
    from tui.ui.widgets.op_tree import OpTree


def reads(data: object) -> tuple:
    """What a turn's label is made of: equal, the label reads the same. (Its failed ops and last activity (its
    known duration) are read only while it runs: an ended turn whose ops are as many as before is taken as
    unchanged, and counting them for 16,000 turns at each change was most of the time this takes.)"""
    if isinstance(data, Turn):
        ended = data.ended_at
        running = ended is None
        return (data.title, len(data.ops), data.started_at, ended, data.status, running and failed_inside(data),
                running and last_activity(data), len(data.extra_logs), len(data.problems), data.session.running)
    if isinstance(data, Op) and data.ended_at is not None:  # (a running op's duration grows: always relabelled)
        child = data.child
        return (data.status, data.ended_at, data.started_at, data.kind, data.target, data.child_agent, data.error,
                data.tokens_in, data.tokens_out, data.errors, data.warnings, data.cost, len(data.problems),
                data.child_ref is None, child is None, child is not None and len(child.problems),
                child is not None and len(child.turns), data.session.running)
    return (id(data),)


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
