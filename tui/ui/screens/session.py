"""The session screen: opTree, totals, details and logs of one session (the root or a sub-agent)."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.formats.aiagent.live.session import MAX_PENDING_LOGS
from tui.model.document import Document
from tui.model.fields import one_line
from tui.model.final_report import report_content
from tui.model.foreign import view_of
from tui.model.format import fmt_path
from tui.model.json_text import dumps
from tui.model.logs import log_count, logs_under
from tui.model.nodes import Op, Session, Turn
from tui.model.search import ErrorFilter, find, find_op_by_path, find_session_by_prefix, newest_op
from tui.ui.clipboard import copy_notice
from tui.ui.host import host
from tui.ui.screens.session_history import HistoryView
from tui.ui.view_memory import ViewKey, memory_of, view_key
from tui.ui.widgets.detail_panel import DetailPanel
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.insights_pane import InsightsPane
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.op_tree import OpTree, TreeState
from tui.ui.widgets.totals_panel import TotalsPanel

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


class SessionScreen(HistoryView, Screen):
    CSS_PATH = "session.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("n", "next_match", "Next"),
        Binding("N", "prev_match", "Prev", key_display="N"),
        Binding("e", "errors_only", "Errors only"),
        Binding("p", "payload", "Payload"),
        Binding("y", "copy", "Copy JSON"),
        Binding("L", "log_level", "Log filter", key_display="L"),
        Binding("f", "follow", "Follow"),
        Binding("w", "waterfall", "Waterfall"),
        Binding("i", "insights", "Insights"),
        Binding("x", "export", "Export"),
        Binding("left_square_bracket", "history_back", "Older version", key_display="[", show=False),
        Binding("right_square_bracket", "history_forward", "Newer version", key_display="]", show=False),
        Binding("D", "history_diff", "Compare versions", key_display="D", show=False),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("q", "app.close_view", "Close/Quit"),
    ]

    def __init__(self, doc: Document, session: Session | None, *, select_path: str | None = None,
                 live_root: str | None = None) -> None:
        super().__init__()
        self.live_root = live_root  # set when the session comes from the event stream, not a file
        assert session is not None
        self.doc = doc
        self.session = session
        self.select_path = select_path
        self.matches: list[Op] = []
        self.match_index = -1
        self.query_text = ""
        self._log_timer = None
        self._log_target: object = None
        self._ticking = False
        self.follow = False
        self._follow_target: object = None
        self._quiet_until = 0.0  # programmatic cursor moves (reloads, follow) until then are not "manual"
        self.last_export: str | None = None  # the file the last `x` wrote
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
            hub, root = host(self.app).hub, self.live_root
            self.tree.clock = lambda: hub.clock(root, time.time())
            self.query_one(TotalsPanel).clock = self.tree.clock
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
        op = find_op_by_path(self.session, self.select_path or "")
        if op is None:
            self.notify(f"no op at path {self.select_path}", severity="warning")
            return
        self.tree.reveal(op)
        self.show_node(op)

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

    # live updates ----------------------------------------------------------------------------------------
    def replace_document(self, doc: Document) -> None:
        """A newer version of the same file: keep expanded nodes, selection, scroll and drill-down level."""
        if doc.root is None or self.history_holds(doc):
            return
        session = find_session_by_prefix(doc.root, self.session.path_prefix)
        if session is None:
            return  # the sub-agent in view is gone from the new version: keep showing the old one
        self.replace_session(session, doc)

    def replace_live(self, root_session: Session) -> None:
        """A new build of the live root this screen (or a sub-agent of it) shows."""
        session = find_session_by_prefix(root_session, self.session.path_prefix)
        if session is None:
            return
        self.doc.root = root_session
        if not self.is_mounted:  # pushed but not composed yet: compose will use the newest session
            self.session = session
            return
        if self.history_holds():  # an older version is on screen: it stays
            self.update_live_panel()
            return
        self.replace_session(session)
        self.update_live_panel()

    def update_live_panel(self) -> None:
        hub = getattr(self.app, "hub", None)
        if hub is None or self.live_root is None:
            return
        events, gaps = hub.counters(self.live_root)
        family = hub.descendants(self.live_root)
        text = Text()
        text.append(f" live · {events:,} events · {gaps:,} gaps", style="bold yellow" if gaps else "bold green")
        reordered = sum(s.reordered for s in family)
        if reordered:
            text.append(f" · {reordered:,} reordered")
        if hub.rejected:
            text.append(f" · rejected: {hub.rejection_summary()}", style="bold red")
        state = self.app.stream_state() if hasattr(self.app, "stream_state") else ""
        if state.startswith(("disconnected", "cannot connect", "not listening", "reconnected")):
            text.append(f" · {one_line(state, 120)}", style="bold yellow")
        dropped = sum(s.dropped_logs for s in family)
        if dropped:
            text.append(f" · {dropped:,} older logs dropped from view (cap {MAX_PENDING_LOGS:,} between trees)",
                        style="yellow")
        status = next((s.status_line for s in family if s.session_id == self.live_root and s.status_line), "")
        status = status or next((s.status_line for s in family if s.status_line), "")
        if status:
            text.append(f" · {one_line(status, 80)}")
        output = next((s.output or s.thinking for s in family if s.output or s.thinking), "")
        if output:
            text.append("\n ▸ ", style="dim")
            text.append(one_line(output[-300:], 300), style="italic")
        reports = [s.final_report for s in family if s.final_report and s.session_id == self.live_root]
        content = report_content(reports[0]) if reports else ""
        if content:  # its `content`, or `content_json` as JSON: never "None"
            text.append("\n final report: ", style="bold")
            text.append(one_line(content, 200))
        self.query_one("#live", Static).update(text)

    def replace_session(self, session: Session, doc: Document | None = None) -> None:
        tree = self.tree
        self._quiet_until = time.monotonic() + 0.5
        state = TreeState(tree)
        if doc is not None:
            self.doc = doc
        self.session = session
        self._log_views.clear()
        tree.session = session
        if isinstance(tree.keep, ErrorFilter):
            tree.keep = ErrorFilter()
        tree.reset_tree()
        state.restore(tree)
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
        if newest is None:
            return
        self._follow_target = newest
        self._quiet_until = time.monotonic() + 0.5
        self.tree.reveal(newest)
        self.show_node(newest)

    # selection -> side panels ------------------------------------------------------------------------------
    @on(OpTree.NodeHighlighted)
    def _highlighted(self, event: OpTree.NodeHighlighted) -> None:
        manual = time.monotonic() > self._quiet_until and event.node.data is not self._follow_target
        if self.follow and manual:
            self.follow = False
            self._status("follow: off (you moved)")
        if event.node.data is not None:
            self.show_node(event.node.data)

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
                screen = SessionScreen(self.doc, node.child)
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

        self.app.push_screen(PayloadScreen(op, self.doc.sessions_dir))

    def action_waterfall(self) -> None:
        from tui.ui.screens.waterfall import WaterfallScreen

        node = self.tree.cursor_node
        self.app.push_screen(WaterfallScreen(self, node.data if node is not None else None))

    def on_unmount(self) -> None:
        if self.session.parent_op is None and self.live_root is None:
            closed = getattr(self.app, "on_screen_closed", None)
            if closed is not None:
                closed(self.doc)

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
        if not self.tree.reveal(op) and self.tree.keep is not None:
            self.action_errors_only()  # the match is filtered out: show everything, then go to it
            self.tree.reveal(op)
        self.show_node(op)
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
        tree.reset_tree()
        if tree.keep is not None:
            self.tree.expand_all()
            self._status("errors only: failed ops, ops with ERR logs and broken nodes (e to show all)")
        else:
            self._status("")
        if current is not None:
            tree.reveal(current)


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

    # insights and export ----------------------------------------------------------------------------------
    def action_insights(self) -> None:
        pane = self.query_one(InsightsPane)
        pane.display = not pane.display
        self.query_one(LogPane).display = not pane.display
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
        target: Op | Session | None = self.session if path == self.session.path_prefix else find_op_by_path(
            self.session, path)
        if target is None:
            self.notify(f"no op at path {path} in this view", severity="warning")
            return False
        if not self.tree.reveal(target) and self.tree.keep is not None:
            self.action_errors_only()  # the op is filtered out: show everything, then go to it
            self.tree.reveal(target)
        self.show_node(target)
        self._status(f"insight: {path or 'the session'}")
        self.call_after_refresh(self._center_cursor)
        return True

    def _center_cursor(self) -> None:
        """Centre the jumped-to op: kept off the bottom row, which a horizontal scrollbar may take after a reveal."""
        tree = self.tree
        if tree.cursor_line >= 0:
            tree.scroll_to(y=max(0, tree.cursor_line - tree.scrollable_content_region.height // 2), animate=False,
                           immediate=True, force=True)

    def action_export(self) -> None:
        from tui.ui.screens.export import ExportScreen

        session = self.session
        self.app.push_screen(ExportScreen(session, sessions_dir=getattr(self.app, "sessions_dir", None)),
                             lambda choice: self._export_chosen(session, choice))

    def _export_chosen(self, session: Session, choice: tuple | None) -> None:
        if choice is not None:
            fmt, path, *overwrite = choice
            self._write_export(session, fmt, path, bool(overwrite and overwrite[0]))

    @work(thread=True, group="export", exit_on_error=False)
    def _write_export(self, session: Session, fmt: str, path: str, overwrite: bool = False) -> None:
        from pathlib import Path

        from tui.text.export import render, write_atomic

        try:
            data = render(session, fmt, source=self.doc.path, source_format=self.doc.format)
            written = write_atomic(Path(path), data, overwrite=overwrite,
                                   sessions_dirs=(getattr(self.app, "sessions_dir", None),))
        except Exception as exc:  # a full disk or a bad directory must not take the screen down
            self.app.call_from_thread(self.notify, f"export failed: {exc}", title="export", severity="error",
                                      markup=False, timeout=10)
            return
        self.app.call_from_thread(self._exported, str(written.resolve()), len(data))

    def _exported(self, path: str, size: int) -> None:
        self.last_export = path
        self.notify(f"wrote {path} ({size:,} bytes)", title="export", markup=False, timeout=8)
