"""Tree's private API: lines rebuilt, re-measured and repainted only where they changed, children attached in one
go, labels set without a rebuild, nodes unlinked for the collector."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.widgets import Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

from tui.ui.draw_key import same_cell
from tui.ui.textual_compat.layout import set_scroll_size

T = TypeVar("T")


class QuietTree(Tree[T], Generic[T]):
    """Tree rebuilds its list of lines (one object per line: thousands for a big session) on every style change
    (focus, a screen on top) and resize, though neither changes which lines there are: redraw them instead on a
    style change; on a resize nothing (the lines are drawn again as the widget is resized: ScrollView's
    `_size_updated` repaints it, and the line cache is keyed by the width). Uses the private `_on_resize` handler,
    `_line_cache` and `_updates`."""

    def notify_style_update(self) -> None:
        ScrollView.notify_style_update(self)
        self.redraw_lines()

    def _on_resize(self, event: events.Resize) -> None:
        event.prevent_default()  # instead of Tree's
        self._line_cache.grow(event.size.height)

    def label_widths(self) -> Callable[[TreeNode[T]], int]:
        """How wide a node's label is, for one build of the lines (a subclass computes what is common to every
        line once here, not per line)."""
        return self.get_label_width

    def _build(self) -> None:
        """Tree._build (the list of lines, `TreeNode._line`, the widest line, the cursor's line), measuring each
        line as it is listed with `label_widths()` and its depth: Tree measured every line again through
        `get_label_width` and each line's guide width, ~77 µs a line with the opTree's columns, 1.3 s per
        change of a 16,000-turn trace on screen."""
        lines: list[_TreeLine[T]] = []
        add_line, make_line, guide = lines.append, _TreeLine, self.guide_depth
        measure = self.label_widths()
        widest = 0

        def add_node(path: list[TreeNode[T]], node: TreeNode[T], last: bool) -> None:
            nonlocal widest
            child_path = [*path, node]
            node._line = len(lines)
            add_line(make_line(child_path, last))
            width = measure(node) + len(path) * guide
            if width > widest:
                widest = width
            if node._expanded:
                children = node._children
                end = len(children) - 1
                for i, child in enumerate(children):
                    add_node(child_path, child, i == end)

        if self.show_root:
            add_node([], self.root, True)
        else:
            for child in self.root._children:
                add_node([], child, True)
        self._tree_lines_cached = lines
        set_scroll_size(self, Size(widest if lines else self.size.width, len(lines)), repaint=False)
        self.put_cursor_back(lines)

    def put_cursor_back(self, lines: list[_TreeLine[T]]) -> None:
        """The cursor on its node's line, set again (its watcher marks the node selected: `_invalidate` reset it)."""
        if self.cursor_line != -1:
            if self.cursor_node is not None:
                self.cursor_line = self.cursor_node._line
            if self.cursor_line >= len(lines):
                self.cursor_line = -1

    def append_lines(self, node: TreeNode[T], start: int) -> bool:
        """`node`'s children from `start` on are new and the lines listed before are still right: when `node`'s
        lines are the last ones listed (the root, the root's last turn while it grows, ...: every node on its path
        expanded and the last child of its parent), list only the new children's, at the end, instead of every
        line again at the next build (`_tree_lines_cached` dropped by `_invalidate`: 20-50 ms per change of a
        growing 16,000-turn trace, for a few new turns). The child that was last is no longer: its own line's
        `_TreeLine.last` (its guide's corner) is set again; the lines under it draw their guides from
        `TreeNode.is_last`, read as they are drawn. False (nothing done) otherwise: the caller invalidates."""
        lines = self._tree_lines_cached
        children = node._children
        if not lines or start >= len(children):
            return False
        base = self.path_ending_lines(node, lines)
        if base is None:
            return False
        top_level = not base  # the root's children while it is hidden: Tree draws each as a last one
        if start:
            previous = children[start - 1]
            at = previous._line
            if not (0 <= at < len(lines)) or lines[at].path[-1] is not previous:
                return False
            if not top_level:
                lines[at] = _TreeLine(lines[at].path, False)
        elif base and base[-1]._line != len(lines) - 1:
            return False
        measure, indent = self.label_widths(), len(base) * self.guide_depth
        widest = self.virtual_size.width
        end = len(children) - 1
        for i in range(start, len(children)):
            child = children[i]
            child._line = len(lines)
            lines.append(_TreeLine([*base, child], top_level or i == end))
            widest = max(widest, measure(child) + indent)
        set_scroll_size(self, Size(widest, len(lines)), repaint=False)
        self._line_cache.clear()  # (what _invalidate does, but the line list kept)
        self.lines_changed()
        self.put_cursor_back(lines)
        first = children[start - 1]._line if start else children[start]._line
        top = self.scroll_offset.y
        if self.lines_before is None and first <= top + self.size.height:  # (else its batch repaints what changed)
            self.refresh(Region(0, max(0, first - top), self.size.width, self.size.height))
        return True

    def lines_end_with(self, node: TreeNode[T]) -> bool:
        """`node`'s children's lines are listed and are the last ones (children added to it are appended)."""
        lines = self._tree_lines_cached
        if not lines:
            return False
        return self.path_ending_lines(node, lines) is not None

    def rewidened(self, node: TreeNode[T], before: int, after: int) -> bool:
        """`node`'s label went from `before` to `after` cells: the widest line (the scrolling width) follows without
        listing the lines again when it can. A wider label can only widen it; a narrower one that was not the
        widest changes nothing. False when the lines must be measured again (it may have been the widest)."""
        lines = self._tree_lines_cached
        at = node._line
        if not lines or not (0 <= at < len(lines)) or lines[at].path[-1] is not node:
            return False
        indent = (len(lines[at].path) - 1) * self.guide_depth
        widest = self.virtual_size.width
        if after > before:
            if after + indent > widest:
                set_scroll_size(self, Size(after + indent, len(lines)), repaint=False)
            return True
        return before + indent < widest

    def path_ending_lines(self, node: TreeNode[T], lines: list[_TreeLine[T]]) -> list[TreeNode[T]] | None:
        """The path of `node`'s line (`_TreeLine.path`, [] for a hidden root) when its children's lines are
        listed and are the last lines (each node on the path expanded and the last child of its parent), else
        None."""
        if node is self.root and not self.show_root:
            return []
        at = node._line
        if not (0 <= at < len(lines)) or lines[at].path[-1] is not node:
            return None
        path = lines[at].path
        if all(step._expanded and step.is_last for step in path):
            return path
        return None

    def redraw_lines(self) -> None:
        self._line_cache.clear()
        self._updates += 1
        self.refresh()

    # Tree repaints all of itself on every change of its nodes (`_invalidate`: a live session's reload rebuilds
    # the running turn's ops, the same ops mostly) and a node's line and every line under it on every set_label,
    # an equal label or not (the root's: all lines, each second of a running session). Here the lines on screen
    # are rendered before the first change of a batch and after it, and only the lines that differ are repainted
    # (all of them if the view scrolled or was resized); an equal label does nothing.
    lines_before: tuple[int, int, list[list]] | None = None
    relabelled_nodes: list[TreeNode] | None = None

    def _invalidate(self) -> None:
        """Tree._invalidate (`_clear_line_cache`, `_updates`, `TreeNode._reset`, a layout) without the full
        repaint: the changed lines are repainted by `repaint_changed_lines` once this batch of changes is done."""
        self.begin_changes()
        self._clear_line_cache()
        self.lines_changed()

    def lines_changed(self) -> None:
        """The rest of Tree._invalidate once the line cache is cleared (by `_invalidate`, or by `append_lines`,
        which keeps the list of lines): the lines' key (`_updates`), the nodes' cached state, a layout."""
        self._updates += 1
        self.root._reset()
        self.refresh(layout=True, repaint=False)

    def begin_changes(self) -> None:
        """The lines on screen as they are before a batch of changes (drawn from the line cache: before a node is
        added, which changes `_updates`, its key), repainted where they differ once the batch is done."""
        if self.lines_before is None:
            fresh = self.is_mounted and self._tree_lines_cached is not None
            self.lines_before = self.visible_strips() if fresh else (-1, -1, [])
            self.relabelled_nodes = []
            self.call_later(self.repaint_changed_lines)

    def visible_strips(self) -> tuple[int, int, list[list]]:
        """What each line on screen writes to the terminal: text and style, without the style's meta (the node
        ids mouse clicks are matched with: the compositor renders a line afresh for that, never from the screen)."""
        return self.scroll_offset.y, self.size.width, [
            [(seg.text, seg.style.clear_meta_and_links() if seg.style else None, seg.control)
             for seg in self.render_line(y)] for y in range(self.size.height)]

    def repaint_changed_lines(self) -> None:
        before, relabelled = self.lines_before, self.relabelled_nodes or []
        self.lines_before = self.relabelled_nodes = None
        if before is None or not self.is_mounted:
            return
        top, width, after = self.visible_strips()
        if (top, width) != before[:2] or len(after) != len(before[2]):
            self.refresh()
            return
        changed = {y for y, (old, new) in enumerate(zip(before[2], after)) if old != new}
        changed.update(node.line - top for node in relabelled if 0 <= node.line - top < len(after))
        for y in sorted(changed):
            self.refresh(Region(0, y, width, 1))

    def relabel(self, node: TreeNode[T], label: Text) -> None:
        """TreeNode.set_label for a tree that repaints only what changed: an equal label does nothing, a new one
        repaints the node's own line (the lines under it do not show it). Sets `TreeNode._label` and `_updates`
        (the line cache's key) as set_label does."""
        text = self.process_label(label)
        if same_cell(node._label, text):
            return
        node._label = text
        node._updates += 1
        if self.relabelled_nodes is not None:  # a batch of changes is under way: its line is known after it
            self.relabelled_nodes.append(node)
        elif self._tree_lines_cached is None or node.line < 0:
            self.refresh()
        else:
            self.refresh(Region(0, node.line - self.scroll_offset.y, self.size.width, 1))


def attach_children(tree: Tree[T], node: TreeNode[T], items: Iterable[T], label: Callable[[T], Text],
                    expandable: Callable[[T], bool]) -> None:
    """TreeNode.add invalidates the whole tree per child: with the thousands of turns of a big session that is
    much of the time a drill-down takes, so children are attached in one go, through `Tree._add_node`,
    `TreeNode._children`, `_allow_expand`, `_updates` and `Tree._invalidate`. Children appended after the last
    lines listed (a growing trace's new turns) are listed and repainted alone (QuietTree.append_lines): drawing
    the lines on screen before and after to find what changed was ~40 ms a change of a big trace."""
    appending = isinstance(tree, QuietTree) and tree.lines_end_with(node)
    if isinstance(tree, QuietTree) and not appending:
        tree.begin_changes()
    children = node._children
    start = len(children)
    for item in items:
        child = tree._add_node(node, label(item), item)
        child._allow_expand = expandable(item)
        children.append(child)
    node._updates += 1
    if not (appending and isinstance(tree, QuietTree) and tree.append_lines(node, start)):
        tree._invalidate()
        if appending:  # (the lines before were not drawn: all of them are painted again)
            tree.refresh()


def set_label_quietly(tree: Tree, node: TreeNode, label: Text) -> None:
    """A node's new label (`TreeNode._label`, `_updates`: the line cache's key) set while its line is being
    drawn: no refresh, the line drawn next reads it."""
    node._label = tree.process_label(label)
    node._updates += 1


def rebuild_tree_lines(tree: Tree) -> None:
    """Reading `Tree._tree_lines` rebuilds the line list now: a node's line number (for move_cursor and
    scroll_to_node) is only known after a build, and Tree builds lazily."""
    tree._tree_lines


def remeasure_tree(tree: Tree) -> None:
    """Measure the lines again at the next build (`Tree._tree_lines_cached`: listed and measured again when next
    read, at the latest at the tree's next idle): the opTree's line widths (its scrolling width) depend on its
    width (its right-hand columns), which QuietTree's resize does not re-measure. What a line draws does not
    depend on the measure (Tree's line cache is keyed by the width; a resize has redrawn them all), so nothing is
    repainted here: `Tree._invalidate` drew the lines on screen twice over to compare them, for nothing, at every
    app start (the lines are first measured before the layout gives the tree a width) and every resize."""
    tree._tree_lines_cached = None
    tree.check_idle()  # (Tree lists the lines again at its idle; no layout: set_scroll_size minds the scrollbars)


def unlink_tree_nodes(tree: Tree) -> None:
    """TreeNodes point at their parent and their tree: cycles, so a closed drill-down's thousands of nodes
    waited for a full collection. Cutting `_children`/`_parent` of every node in `Tree._tree_nodes` (and the
    `_clear_line_cache`) lets reference counting free them as the screen closes."""
    for node in tree._tree_nodes.values():
        node._children = []
        node._parent = None
    tree._tree_nodes.clear()
    tree._clear_line_cache()
