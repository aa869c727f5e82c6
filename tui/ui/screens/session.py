"""The session screen: opTree, totals, details and logs of one session (the root or a sub-agent)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.model.document import Document
from tui.model.fields import one_line
from tui.model.foreign import view_of
from tui.model.format import fmt_path
from tui.model.json_text import dumps
from tui.model.logs import log_count, logs_under
from tui.model.nodes import Op, Session, Turn
from tui.model.search import ErrorFilter, find, find_op_by_path, find_session_by_prefix, newest_op
from tui.ui.clipboard import copy_notice
from tui.ui.live_controller import LiveController
from tui.ui.screens.session_history import HistoryView
from tui.ui.screens.session_live import LiveView
from tui.ui.view_memory import ViewKey, memory_of, view_key
from tui.ui.widgets.detail_panel import DetailPanel
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.insights_pane import InsightsPane
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.op_tree import OpTree, TreeState
from tui.ui.widgets.totals_panel import FileChange, TotalsPanel, held_clock, last_event, went_silent

LOG_DEBOUNCE_S = 0.12
COPY_LIMIT = 16 * 1024 * 1024  # the clipboard goes through the terminal (OSC 52): keep it sane


CRUMBS_SHOWN = 6  # deeper drill-downs show the root, "… N levels …" and the last levels: the line has room

# Above this many logs under the selected node (some 20 ms of work), they are gathered in a thread so
# that keys keep being answered; the views are kept per node while the screen shows the same tree.
LOGS_IN_THREAD = 5_000


def breadcrumb(session: Session, doc: Document) -> Text:
    text = Text()
    text.append(" ◆ ", style="bold blue")
    name = doc.path if doc.path != "-" else "stdin"
    text.append(one_line(name.rsplit("/", 1)[-1], 60), style="dim")
    chain: list[Session | None] = list(session.breadcrumb())
    elided = len(chain) > CRUMBS_SHOWN
    if elided:  # the root, how many levels are hidden, the last levels: agent names only (paths are long there)
        hidden = len(chain) - CRUMBS_SHOWN + 1
        chain = [chain[0], None, *chain[-(CRUMBS_SHOWN - 2):]]
        text.append(f"  depth {session.depth}", style="bold")
    for s in chain:
        text.append("  ›  ", style="dim")
        if s is None:
            text.append(f"… {hidden} levels …", style="dim italic")
            continue
        if s.parent_op is not None and not elided:
            text.append(f"[{fmt_path(s.parent_op.path)}] ", style="dim")
        text.append(one_line(s.display_agent, 30 if elided else 50), style="bold" if s is session else "")
    return text


DETAIL_WITH_INSIGHTS_ROWS = 32  # terminal rows below which insights hide the Details panel

class SessionScreen(LiveView, HistoryView, Screen):
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
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.close_view", "Close/Quit"),
    ]

    def __init__(self, doc: Document, session: Session | None, *, live: LiveController | None = None,
                 select_path: str | None = None, live_root: str | None = None) -> None:
        super().__init__()
        # The live pipeline (hub clock, history, holds on trees); what changes arrives by message (on_live_...).
        self.live = live if live is not None else LiveController.detached()
        self.live_root = live_root  # set when the session comes from the event stream, not a file
        assert session is not None
        self.doc = doc
        self.session = session
        self._held: dict[int, Session] = {}  # the trees this screen shows, held from release (LiveController)
        self._sync_holds()
        self._key = self.history_key
        self.live.opened(self._key)  # from now on its updates are posted here (even before it mounts)
        self.select_path = select_path
        self.matches: list[Op] = []
        self.match_index = -1
        self.query_text = ""
        self._log_timer = None
        self._log_target: object = None
        self._ticking = False
        self.follow = False
        self._cursor_seen: object = None  # the tree node the cursor was last seen on (a highlight elsewhere = a move)
        self._log_views: dict[int, tuple[object, object]] = {}  # id(node) -> (node, its LogView)

    def compose(self) -> ComposeResult:
        yield Static(breadcrumb(self.session, self.doc), id="crumbs")
        yield Static(id="live")
        yield Static(id="history")
        with Horizontal(id="main"):
            yield OpTree(self.session, id="tree")
            with Vertical(id="side"):
                yield TotalsPanel(self.session, id="totals")
                yield DetailPanel(id="detail")
        yield LogPane(id="logs")
        yield InsightsPane(id="insights")
        yield Input(placeholder="search op names, agents, models, log messages, errors…", id="search")
        yield Static(id="status")
        yield Footer()

    @property
    def tree(self) -> OpTree:
        return self.query_one(OpTree)

    def on_mount(self) -> None:
        self.query_one("#detail").border_title = "Details"
        self.tree.border_title = Text(getattr(view_of(self.session), "tree_title", "opTree"))
        if self.live_root is not None:
            self.tree.clock = self.live.clock(self.live_root)
        totals = self.query_one(TotalsPanel)  # `stale` after --stale-after of silence (tui.catalog.liveness)
        totals.last_change = (last_event(partial(self.live.facts, self.live_root)) if self.live_root is not None
                              else FileChange(self.doc.path))
        if self.live_root is None:  # a stale file's running nodes stop at its last change, not 5,000 hours on
            self.tree.clock = held_clock(totals.last_change)
        self.tree.stale = went_silent(totals.last_change)  # and say `○ stale`
        if self.session.running:  # the labels built as the tree mounted used the default clock
            self.tree.refresh_labels()
        self.query_one("#search").display = False
        self.query_one(InsightsPane).display = False
        self.query_one("#live").display = self.live_root is not None
        if self.live_root is not None:
            self.update_live_panel()
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
        self._log_views.clear()
        if isinstance(tree.keep, ErrorFilter):
            tree.keep = ErrorFilter()
        with self._our_move():
            tree.take_newer(session, state)  # (a grown live session keeps its nodes: the old one is read here)
        self._sync_holds()  # (after: the old tree is released as this screen lets it go)
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
        self._status("follow: on (the newest op stays selected; any move turns it off)" if self.follow
                     else "follow: off")
        if self.follow:
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
            self._status("follow: off (you moved)")
        cursor = self.tree.cursor_node  # (a move from before a rebuild names a node of the old tree)
        if cursor is not None and cursor.data is not None:
            self.show_node(cursor.data)

    def select_op(self, target: Op | Turn | Session | str, *, lift_filter: bool = True) -> Op | Turn | Session | None:
        """Select `target` in the tree as it is now: the one way every jump selects an op (--op, search n/N,
        insights, the waterfall's `o`, a diff's op, follow). `target` is a path, or a node of any build of this
        session: it is looked up again by path in the current tree, so a node of an older build (a live update
        came in between) selects its successor, never a stale row. An errors-only filter hiding it is lifted.
        Returns the node selected, or None when the current tree has no such op."""
        node = self._resolve(target)
        if node is None:
            return None
        tree = self.tree
        with self._our_move():
            if not tree.reveal(node) and tree.keep is not None and lift_filter:
                self.action_errors_only()  # the op is filtered out: show everything, then go to it
                tree.reveal(node)
        self.show_node(node)
        return node

    def _resolve(self, target: Op | Turn | Session | str) -> Op | Turn | Session | None:
        session = self.session
        if isinstance(target, str):
            return session if target == session.path_prefix else find_op_by_path(session, target)
        if isinstance(target, (Op, Turn)) and target.session.breadcrumb()[0] is session.breadcrumb()[0]:
            return target  # already a node of the tree on screen (follow, a fresh search): no walk
        if isinstance(target, Op):
            return find_op_by_path(session, target.path)
        if isinstance(target, Session):
            return find_session_by_prefix(session, target.path_prefix) if target.path_prefix else session
        if target.session is None:
            return None
        prefix = target.session.path_prefix
        owner = session if prefix == session.path_prefix else find_session_by_prefix(session, prefix)
        from tui.model.waterfall import node_key  # (the waterfall's model: not needed for the first screen)

        key = node_key(target)
        return next((turn for turn in owner.turns if node_key(turn) == key), None) if owner is not None else None

    def show_node(self, node: object) -> None:
        self.query_one(DetailPanel).show(node)
        self._log_target = node
        if self._log_timer is not None:
            self._log_timer.stop()
        self._log_timer = self.set_timer(LOG_DEBOUNCE_S, self._update_logs)

    def _update_logs(self) -> None:
        node = self._log_target
        if not isinstance(node, (Session, Turn, Op)):
            return
        cached = self._log_views.get(id(node))
        if cached is not None and cached[0] is node:
            self._show_logs(node, cached[1])
        elif log_count(node) < LOGS_IN_THREAD:
            self._show_logs(node, logs_under(node))
        else:
            self.query_one(LogPane).gathering(self._log_scope(node), log_count(node))
            self._gather_logs(node)

    @work(thread=True, group="logs", exclusive=True, exit_on_error=False)
    def _gather_logs(self, node: Session | Turn | Op) -> None:
        view = logs_under(node)
        view.severities()
        try:
            self.app.call_from_thread(self._show_logs, node, view)
        except RuntimeError:
            pass  # the app is shutting down

    def _show_logs(self, node: Session | Turn | Op, view) -> None:
        self._log_views[id(node)] = (node, view)
        if node is not self._log_target or not self.is_mounted:
            return
        self.query_one(LogPane).set_entries(view, scope=self._log_scope(node))

    @staticmethod
    def _log_scope(node: Session | Turn | Op) -> str:
        return one_line(node.path if isinstance(node, Op) else node.title if isinstance(node, Turn) else "", 40)

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
                                             live_root=self.live_root, key=self._key))

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
            self.query_text, self.matches, self.match_index = "", [], -1
            self._status("search cleared (Esc again goes back)")
            return
        if self.tree.keep is not None:
            self.action_errors_only()
            self._status("errors only: off (Esc again goes back)")
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
        self.query_text = event.value
        event.input.display = False
        self.tree.focus()
        self.matches = find(self.session, event.value)
        self.match_index = -1
        if not self.matches:
            self._status(f"no match for {event.value!r}" if event.value else "")
            return
        self.action_next_match()

    def _jump(self, step: int) -> None:
        if not self.matches:
            self.notify("no search: press / to search")
            return
        self.match_index = (self.match_index + step) % len(self.matches)
        op = self.matches[self.match_index]
        self.select_op(op)
        self._status(f"match {self.match_index + 1}/{len(self.matches)} for {self.query_text!r}: {op.path}")

    def action_next_match(self) -> None:
        self._jump(1)

    def action_prev_match(self) -> None:
        self._jump(-1)

    def _status(self, message: str) -> None:
        self.query_one("#status", Static).update(Text(message))

    # filters and copy -------------------------------------------------------------------------------------
    def action_errors_only(self) -> None:
        tree = self.tree
        current = tree.cursor_node.data if tree.cursor_node is not None else None
        tree.keep = None if tree.keep is not None else ErrorFilter()
        with self._our_move():
            tree.reset_tree()
            if tree.keep is not None:
                self.tree.expand_all()
            if current is not None:
                tree.reveal(current)
        self._status("errors only: failed ops, ops with ERR logs and broken nodes (e to show all)"
                     if tree.keep is not None else "")


    def action_copy(self) -> None:
        node = self.tree.cursor_node
        data = node.data if node is not None else None
        raw = getattr(data, "raw", None)
        if raw is None:
            self.notify("nothing to copy for this node", severity="warning")
            return
        try:
            data = dumps(raw, indent=True)  # any depth: orjson alone stops at 255 levels
        except (ValueError, TypeError, RecursionError) as exc:
            self.notify(f"cannot copy this node as JSON: {exc}", severity="error")
            return
        if len(data) > COPY_LIMIT:
            self.notify(f"this node is {len(data):,} bytes of JSON: too large for the clipboard "
                        f"(limit {COPY_LIMIT:,})", severity="warning")
            return
        text = data.decode("utf-8", "replace")
        self.app.copy_to_clipboard(text)
        self.notify(copy_notice(f"copied {len(text):,} characters of JSON"))

    def action_log_level(self) -> None:
        level = self.query_one(LogPane).cycle_level()
        self._status(f"logs: {level}")

    # insights ----------------------------------------------------------------------------------
    def action_insights(self) -> None:
        pane = self.query_one(InsightsPane)
        pane.display = not pane.display
        self.query_one(LogPane).display = not pane.display
        # a short terminal (80x24) has no rows left for the Details beside the Totals while the insights take the
        # lower half: hide the panel instead of leaving a bare border (it comes back with the log pane)
        self.query_one("#detail").display = not pane.display or self.size.height >= DETAIL_WITH_INSIGHTS_ROWS
        if pane.display:
            self._update_insights()
            pane.focus()
        else:
            self.tree.focus()

    def _update_insights(self) -> None:
        from tui.model.insights import compute

        self.query_one(InsightsPane).set_insights(compute(self.session))

    @on(InsightsPane.Jump)
    def _insight_jump(self, event: InsightsPane.Jump) -> None:
        self.jump_to_path(event.path)

    def jump_to_path(self, path: str) -> bool:
        """Reveal and select the op at `path` (the session itself for its own prefix), showing all if filtered."""
        if self.select_op(path) is None:
            self.notify(f"no op at path {path} in this view", severity="warning")
            return False
        self._status(f"insight: {path or 'the session'}")
        self.call_after_refresh(self._center_cursor)
        return True

    def _center_cursor(self) -> None:
        """Centre the jumped-to op: kept off the bottom row, which a horizontal scrollbar may take after a reveal."""
        tree = self.tree
        if tree.cursor_line >= 0:
            tree.scroll_to(y=max(0, tree.cursor_line - tree.scrollable_content_region.height // 2), animate=False,
                           immediate=True, force=True)
