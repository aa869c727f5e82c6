"""The session screen: opTree, totals, details and logs of one session (the root or a sub-agent)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.model.document import Document
from tui.model.foreign import view_of
from tui.formats.aiagent.history import Version
from tui.model.nodes import Op, Session, Turn
from tui.model.search import ErrorFilter, find, newest_op
from tui.ui.live_controller import LiveController
from tui.ui.messages import DocumentReloaded, HistoryChanged, LiveTreeBuilt, StreamStateChanged
from tui.ui.screens.session_history import VersionHistory
from tui.ui.screens.session_live import LiveFeed
from tui.ui.screens.session_logs import NodeLogs
from tui.ui.screens.session_parts import breadcrumb, copy_node_json, export_to_pager, refresh_insights, resolve
from tui.ui.screens.session_parts import scroll_sideways, start_clocks, toggle_insights, zoom
from tui.ui.view_memory import ViewKey, memory_of, view_key
from tui.ui.widgets.detail_panel import DetailPanel
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.insights_pane import InsightsPane
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.op_tree import OpTree
from tui.ui.widgets.tree_state import TreeState
from tui.ui.widgets.totals_panel import TotalsPanel
from tui.ui.widgets.steady_static import SteadyStatic

# Above this many logs under the selected node (some 20 ms of work), they are gathered in a thread so
# that keys keep being answered; the views are kept per node while the screen shows the same tree.
LOGS_IN_THREAD = 5_000


class SessionScreen(Screen):
    """One session's tree, totals, details and logs. Composed of a LiveFeed (newer versions, the trees held, `x`)
    and a VersionHistory (`[` `]` `D`); what the keys toggle are reactives, each watcher doing what it implies."""

    CSS_PATH = "session.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("n", "next_match", "Next"),
        Binding("N", "prev_match", "Prev", key_display="N", show=False),  # (n shows the pair)
        Binding("e", "errors_only", "Errors only"),
        Binding("w", "waterfall", "Waterfall"),
        Binding("i", "insights", "Insights"),
        # (the footer shows the keys in this order while they fit: 80 columns hold the ones above)
        Binding("p", "payload", "Payload"),  # (Enter opens it too)
        Binding("x", "export", "Export"),
        Binding("y", "copy", "Copy JSON"),
        Binding("f", "follow", "Follow"),
        Binding("L", "log_level", "Log filter", key_display="L", show=False),
        Binding("left_square_bracket", "history_back", "Older version", key_display="[", show=False),
        Binding("right_square_bracket", "history_forward", "Newer version", key_display="]", show=False),
        Binding("D", "history_diff", "Compare versions", key_display="D", show=False),
        Binding("less_than_sign,shift+left", "scroll_sideways(-1)", "Scroll left", key_display="<", show=False,
                id="session.scroll_left"),
        Binding("greater_than_sign,shift+right", "scroll_sideways(1)", "Scroll right", key_display=">",
                show=False, id="session.scroll_right"),
        Binding("Z", "zoom", "Zoom panel", key_display="Z", show=False, id="session.zoom"),
        Binding("vertical_line", "pager", "Export to $PAGER", key_display="|", show=False, id="session.pager"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.close_view", "Close/Quit"),
    ]

    follow = var(False, init=False)  # the newest op stays selected (f); any move of the user's turns it off
    query_text = var("", init=False, always_update=True)  # the search (/): its matches follow it
    errors_only = var(False, init=False)  # the tree shows failed and broken nodes only (e)
    viewing: var[Version | None] = var(None, init=False)  # an older version on screen; None: the newest

    def __init__(self, doc: Document, session: Session | None, *, live: LiveController | None = None,
                 select_path: str | None = None, live_root: str | None = None) -> None:
        super().__init__()
        # The live pipeline (hub clock, history, holds on trees); what changes arrives by message (on_live_...).
        self.live = live if live is not None else LiveController.detached()
        self.live_root = live_root  # set when the session comes from the event stream, not a file
        assert session is not None
        self.doc = doc
        self.session = session
        self.select_path = select_path
        self.matches: list[Op] = []
        self.match_index = -1
        self._ticking = False
        self._cursor_seen: object = None  # the tree node the cursor was last seen on (a highlight elsewhere = a move)
        self.logs = NodeLogs(self)
        self.history = VersionHistory(self)
        self.feed = LiveFeed(self, self.history.key)  # (holds the trees shown from now on)

    def compose(self) -> ComposeResult:
        yield SteadyStatic(breadcrumb(self.session, self.doc), id="crumbs")
        yield SteadyStatic(id="live")
        yield SteadyStatic(id="history")
        with Horizontal(id="main"):
            yield OpTree(self.session, id="tree")
            with Vertical(id="side"):
                yield TotalsPanel(self.session, id="totals")
                yield DetailPanel(id="detail")
        yield LogPane(id="logs")
        yield InsightsPane(id="insights")
        yield Input(placeholder="search op names, agents, models, log messages, errors…", id="search")
        yield SteadyStatic(id="status")
        yield Footer()

    @property
    def tree(self) -> OpTree:
        return self.query_one(OpTree)

    def on_mount(self) -> None:
        self.query_one("#detail").border_title = "Details"
        self.tree.border_title = Text(getattr(view_of(self.session), "tree_title", "opTree"))
        start_clocks(self.tree, self.query_one(TotalsPanel), self.live, self.live_root, self.doc)
        self.query_one("#search").display = False
        self.query_one(InsightsPane).display = False
        self.query_one("#live").display = self.live_root is not None
        self.query_one("#history", Static).display = False
        self.history.mounted()
        if self.live_root is not None:
            self.feed.update_panel()
        self.tree.focus()
        self.show_node(self.session)
        if self.select_path:
            self.call_after_refresh(self._select_initial)
        elif memory_of(self.app).recall(self._view_key()) is not None:
            self.call_after_refresh(self._recall_view)
        if self.session.running and not self._ticking:
            self._ticking = True
            self.set_interval(1.0, self._tick)

    def _select_initial(self) -> None:
        if self.select_op(self.select_path or "") is None:
            self.notify(f"no op at path {self.select_path}", severity="warning")

    # where you were (tui.ui.view_memory) --------------------------------------------------------------------
    def _view_key(self) -> ViewKey | None:
        return view_key(self.doc, self.session, self.live_root)

    def _recall_view(self) -> None:
        """Reopened: the cursor and the expanded nodes of the last visit."""
        state = memory_of(self.app).recall(self._view_key())
        if state is not None and self.is_mounted:
            state.restore(self.tree)
            cursor = self.tree.cursor_node
            if cursor is not None and cursor.data is not None:
                self.show_node(cursor.data)

    def remember_view(self) -> None:
        """Called as the screen is left (covered or closed): what _recall_view puts back."""
        if self.is_mounted and self.tree.root.children:
            memory_of(self.app).save(self._view_key(), TreeState(self.tree))

    def on_screen_suspend(self) -> None:
        self.remember_view()

    def on_unmount(self) -> None:
        self.feed.unmounted()
        self.history.root = None  # (the rebuilt tree of an older version, let go with the screen)

    # what arrives (tui.ui.live_controller's messages) and the composed parts ---------------------------------
    def on_live_tree_built(self, message: LiveTreeBuilt) -> None:
        """A new build of a live root: taken when it is this screen's root and still the newest one."""
        if self.feed.takes_tree(message.root, message.session):
            self.replace_live(message.session)

    def replace_live(self, root_session: Session) -> None:
        """A new build of the live root this screen (or a sub-agent of it) shows."""
        self.feed.replace_live(root_session)

    def on_document_reloaded(self, message: DocumentReloaded) -> None:
        if self.feed.takes_document(str(message.path)):
            self.replace_document(dataclasses.replace(message.doc, path=self.doc.path))

    def replace_document(self, doc: Document) -> None:
        """A newer version of the same file: keep expanded nodes, selection, scroll and drill-down level."""
        self.feed.replace_document(doc)

    def on_stream_state_changed(self, message: StreamStateChanged) -> None:
        if self.live_root is not None and self.is_mounted:
            self.feed.update_panel()

    def on_history_changed(self, message: HistoryChanged) -> None:
        if message.key == self.history.key and self.is_mounted:
            self.history.update_banner()

    def show_live_panel(self, text: Text) -> None:
        self.query_one("#live", Static).update(text)

    def show_banner(self, text: Text | None, viewing: bool = False) -> None:
        """The history line: hidden (None), the versions kept, or the older version on screen (`viewing`)."""
        banner = self.query_one("#history", Static)
        banner.set_class(viewing, "viewing")
        banner.display = text is not None
        if text is not None:
            banner.update(text)

    def watch_viewing(self) -> None:
        if self.is_mounted:
            self.history.update_banner()

    @property
    def history_key(self) -> str | None:
        return self.history.key

    @property
    def last_export(self) -> str | None:
        """The file the last `x` wrote."""
        return self.feed.last_export

    def update_history_banner(self) -> None:
        self.history.update_banner()

    def inherit_history(self, parent: SessionScreen) -> None:
        """A sub-agent opened from an older version stays on that version (its tree belongs to the parent)."""
        self.viewing = parent.viewing

    def action_history_back(self) -> None:
        self.history.back()

    def action_history_forward(self) -> None:
        self.history.forward()

    def action_history_diff(self) -> None:
        self.history.diff()

    def action_export(self) -> None:
        self.feed.export()

    def _tick(self) -> None:
        if not self.session.running:
            return
        self.tree.refresh_labels()
        self.query_one(TotalsPanel).update_totals()

    def replace_session(self, session: Session, doc: Document | None = None) -> None:
        tree = self.tree
        state = TreeState(tree)
        if doc is not None:
            self.doc = doc
        self.session = session
        self.logs.forget()
        if self.errors_only:
            tree.keep = ErrorFilter()
        with self._our_move():
            tree.take_newer(session, state)  # (a grown live session keeps its nodes: the old one is read here)
        self.feed.sync_holds()  # (after: the old tree is released as this screen lets it go)
        totals = self.query_one(TotalsPanel)
        totals.session = session
        totals.update_totals()
        self.query_one("#crumbs", Static).update(breadcrumb(session, self.doc))
        if self.query_text:
            self.matches = find(session, self.query_text)
            self.match_index = min(self.match_index, len(self.matches) - 1)
        cursor = tree.cursor_node
        self.show_node(cursor.data if cursor is not None and cursor.data is not None else session)
        if session.running and not self._ticking:
            self._ticking = True
            self.set_interval(1.0, self._tick)
        self.after_replace()

    def after_replace(self) -> None:
        if self.follow:
            self._follow_newest()
        if self.query_one(InsightsPane).display:
            self._update_insights()

    # follow mode -----------------------------------------------------------------------------------------
    def action_follow(self) -> None:
        self.follow = not self.follow
        if not self.follow:
            self.set_status("follow: off")

    def watch_follow(self, follow: bool) -> None:
        if follow and self.is_mounted:
            self.set_status("follow: on (the newest op stays selected; any move turns it off)")
            self._follow_newest()

    def _follow_newest(self) -> None:
        newest = newest_op(self.session)
        if newest is not None:
            self.select_op(newest, lift_filter=False)

    # selection -> side panels ------------------------------------------------------------------------------
    @contextmanager
    def _our_move(self) -> Iterator[None]:
        """Around every cursor move the screen makes itself (rebuilds, follow, jumps): those post no highlight,
        so a highlight that arrives is the user's (keys, mouse) and turns follow mode off at once, however many
        rebuilds come in between. (No time window: a key pressed during a rebuild is a move like any other.)"""
        with self.prevent(OpTree.NodeHighlighted):
            yield
        self._cursor_seen = self.tree.cursor_node

    @on(OpTree.NodeHighlighted)
    def _highlighted(self, event: OpTree.NodeHighlighted) -> None:
        if event.node is self._cursor_seen:
            return  # the tree re-announcing the node it is on (its lines were rebuilt): not a move
        self._cursor_seen = event.node
        if self.follow:
            self.follow = False
            self.set_status("follow: off (you moved)")
        cursor = self.tree.cursor_node  # (a move from before a rebuild names a node of the old tree)
        if cursor is not None and cursor.data is not None:
            self.show_node(cursor.data)

    def select_op(self, target: Op | Turn | Session | str, *, lift_filter: bool = True) -> Op | Turn | Session | None:
        """Select `target` in the tree as it is now: the one way every jump selects an op (--op, search n/N,
        insights, the waterfall's `o`, a diff's op, follow). `target` is a path, or a node of any build of this
        session: it is looked up again by path in the current tree, so a node of an older build (a live update
        came in between) selects its successor, never a stale row. An errors-only filter hiding it is lifted.
        Returns the node selected, or None when the current tree has no such op."""
        node = resolve(self.session, target)
        if node is None:
            return None
        tree = self.tree
        with self._our_move():
            if not tree.reveal(node) and self.errors_only and lift_filter:
                self.errors_only = False  # the op is filtered out: show everything, then go to it
                tree.reveal(node)
        self.show_node(node)
        return node

    def show_node(self, node: object) -> None:
        self.query_one(DetailPanel).show(node)
        self.logs.follow(node, LOGS_IN_THREAD)

    # opening ---------------------------------------------------------------------------------------------
    @on(OpTree.OpenNode)
    def _open(self, event: OpTree.OpenNode) -> None:
        node = event.node
        if isinstance(node, Op):
            if node.child is not None:
                # its own copy of the document (a newer build replaces each screen's root on its own), the same
                # live root: a drilled-in sub-agent of a stream follows the stream like its parent
                screen = SessionScreen(dataclasses.replace(self.doc), node.child, live=self.live,
                                       live_root=self.live_root)
                screen.inherit_history(self)
                self.app.push_screen(screen)
            elif node.child_ref is not None and node.kind == "session":
                self.notify("this sub-agent is stored elsewhere: its details are in the panel", severity="warning")
            else:
                self.action_payload()
        else:
            tree_node = self.tree.cursor_node
            if tree_node is not None and tree_node.allow_expand:
                tree_node.toggle()

    def action_payload(self) -> None:
        node = self.tree.cursor_node
        op = node.data if node is not None else None
        if not isinstance(op, Op):
            self.notify("select an op to see its payloads")
            return
        from tui.ui.screens.payload import PayloadScreen

        self.app.push_screen(PayloadScreen(op, self.doc.sessions_dir, monitor_dir=self.live.sessions_dir))

    def action_waterfall(self) -> None:
        from tui.ui.screens.waterfall import WaterfallScreen

        node = self.tree.cursor_node
        self.app.push_screen(WaterfallScreen(self, node.data if node is not None else None, live=self.live,
                                             live_root=self.live_root, key=self.feed.key))

    def action_back(self) -> None:
        """Escape undoes the nearest thing first: the search box, the insights, a finished search, errors-only;
        then goes back (q closes at once)."""
        search = self.query_one("#search", Input)
        if search.display:
            search.display = False
            self.tree.focus()
            return
        if self.query_one(InsightsPane).has_focus:
            self.action_insights()
            return
        if self.query_text:
            self.query_text = ""
            self.set_status("search cleared (Esc again goes back)")
            return
        if self.errors_only:
            self.errors_only = False
            self.set_status("errors only: off (Esc again goes back)")
            return
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.notify("this is the top level: q quits")

    # search ----------------------------------------------------------------------------------------------
    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = True
        search.value = self.query_text
        search.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.tree.focus()
        self.query_text = event.value
        if not self.matches:
            self.set_status(f"no match for {event.value!r}" if event.value else "")
            return
        self.action_next_match()

    def watch_query_text(self, query: str) -> None:
        """A new search (or none): its matches, from the first again."""
        self.matches = find(self.session, query) if query else []
        self.match_index = -1

    def _jump(self, step: int) -> None:
        if not self.matches:
            self.notify("no search: press / to search")
            return
        self.match_index = (self.match_index + step) % len(self.matches)
        op = self.matches[self.match_index]
        self.select_op(op)
        self.set_status(f"match {self.match_index + 1}/{len(self.matches)} for {self.query_text!r}: {op.path}")

    def action_next_match(self) -> None:
        self._jump(1)

    def action_prev_match(self) -> None:
        self._jump(-1)

    def set_status(self, message: str) -> None:
        self.query_one("#status", Static).update(Text(message))

    # filters and copy -------------------------------------------------------------------------------------
    def action_errors_only(self) -> None:
        self.errors_only = not self.errors_only

    def watch_errors_only(self, errors_only: bool) -> None:
        """The tree again, filtered or not, the cursor kept on its node."""
        if not self.is_mounted:
            return
        tree = self.tree
        current = tree.cursor_node.data if tree.cursor_node is not None else None
        tree.keep = ErrorFilter() if errors_only else None
        with self._our_move():
            tree.reset_tree()
            if errors_only:
                tree.expand_all()
            if current is not None:
                tree.reveal(current)
        self.set_status("errors only: failed ops, ops with ERR logs and broken nodes (e to show all)"
                        if errors_only else "")

    def action_log_level(self) -> None:
        level = self.query_one(LogPane).cycle_level()
        self.set_status(f"logs: {level}")

    # insights and the panels ---------------------------------------------------------------------------
    def action_insights(self) -> None:
        toggle_insights(self, self.session, self.tree)

    def _update_insights(self) -> None:
        refresh_insights(self, self.session)

    def action_copy(self) -> None:
        """`y`: the node's JSON as the producer wrote it, to the clipboard."""
        node = self.tree.cursor_node
        message, severity = copy_node_json(self.app, getattr(node.data if node is not None else None, "raw", None))
        self.notify(message, severity=severity)

    def action_pager(self) -> None:
        """`|`: the level in view exported as Markdown (what `x` writes) in `$PAGER`."""
        problem = export_to_pager(self.app, self.session, self.doc)
        if problem:
            self.notify(problem, severity="error", markup=False)

    def action_zoom(self) -> None:
        """`Z`: the focused panel (tree, details, logs, insights) fills the screen; again (or Escape) restores."""
        if not zoom(self):
            self.notify("focus a panel first (tab)", severity="warning")

    def action_scroll_sideways(self, direction: int) -> None:
        scroll_sideways(self.focused or self.tree, direction)

    @on(InsightsPane.Jump)
    def _insight_jump(self, event: InsightsPane.Jump) -> None:
        self.jump_to_path(event.path)

    def jump_to_path(self, path: str) -> bool:
        """Reveal and select the op at `path` (the session itself for its own prefix), showing all if filtered."""
        if self.select_op(path) is None:
            self.notify(f"no op at path {path} in this view", severity="warning")
            return False
        self.set_status(f"insight: {path or 'the session'}")
        self.call_after_refresh(self.tree.center_cursor)
        return True
