"""The waterfall screen (`w` on a session screen): where the wall time of the session shown there went.

It follows the session it was opened on: a newer build of its live root (`LiveTreeBuilt`) or a newer version of its
file (`DocumentReloaded`) rebuilds it, keeping folds, cursor and zoom (a session screen showing an older version
keeps the waterfall on that version too); a running session's open bars grow with the clock once a second. `o`
(or Enter on an op) goes back with that op selected in the tree: looked up by path in the tree shown there now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from tui.model.fields import one_line
from tui.model.format import fmt_duration
from tui.model.nodes import Op, Session, Turn, node_key
from tui.model.search import find_session_by_prefix
from tui.model.waterfall import Row, Waterfall
from tui.model.waterfall_axis import fit, fmt_offset
from tui.ui.live_controller import LiveController
from tui.ui.messages import DocumentReloaded, LiveTreeBuilt
from tui.ui.widgets.footer import Footer
from tui.ui.widgets.node_labels import KIND_TAG
from tui.ui.widgets.waterfall import KIND_COLOR, StatusLines, WaterfallView

if TYPE_CHECKING:
    from tui.ui.widgets.op_tree import OpTree


class SessionView(Protocol):
    """What the waterfall needs of the screen it was opened from (a SessionScreen; typed here by what it offers, so
    that the session screen can open the waterfall without the two modules importing each other)."""

    session: Session
    tree: OpTree

    @property
    def viewing(self) -> object: ...  # an older version on screen (None: the newest)

    def select_op(self, target: Op | Turn | Session | str, *, lift_filter: bool = True) -> object: ...

TICK_S = 1.0  # how often a running session's open bars grow
_STATUS_STYLE = {"failed": "bold red", "running": "bold yellow", "inferred": "italic dim", "ok": "green"}
_STATUS_TEXT = {"failed": "✗ failed", "running": "● running", "inferred": "~ times partly missing", "ok": "ok"}


class WaterfallScreen(Screen):
    CSS_PATH = "waterfall.tcss"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("o", "jump", "Show in tree", show=False),  # (Enter goes to the op too; 80 columns)
        Binding("q", "app.close_view", "Close", show=False),
    ]

    def __init__(self, origin: SessionView, select: object | None = None, *, live: LiveController | None = None,
                 live_root: str | None = None, key: str | None = None) -> None:
        super().__init__()
        self.origin = origin
        self.live = live if live is not None else LiveController.detached()
        self.live_root = live_root  # the live root it follows, or None
        self.key = key if live_root is None else None  # the resolved file it follows, or None
        self.follows = origin.viewing is None  # opened on an older version: it stays there
        self.session: Session = origin.session
        self._pin = self.live.pinned(None)
        self._hold(self.session)
        self.model = Waterfall(self.session, now_ms=self._now())
        self._select = select

    def _hold(self, session: Session) -> None:
        """Hold the tree the rows point into (a newer build must not empty it under them)."""
        root = session.breadcrumb()[0]
        if root is not self._pin.root:
            pin, self._pin = self._pin, self.live.pinned(root)
            pin.release()

    def on_unmount(self) -> None:
        self._pin.release()

    def _now(self) -> int | None:
        return self.origin.tree.clock() if self.session.running else None

    def compose(self) -> ComposeResult:
        yield Static(id="wf-title")
        yield WaterfallView(self.model, id="wf-view")
        yield StatusLines(id="wf-status")
        yield Footer()

    @property
    def view(self) -> WaterfallView:
        return self.query_one(WaterfallView)

    def on_mount(self) -> None:
        view = self.view
        view.border_title = "Waterfall"
        view.focus()
        index = self.model.index_of(self._select) if isinstance(self._select, (Turn, Op)) else None
        view.set_model(self.model, cursor=index or 0)
        self._update_title()
        self.set_interval(TICK_S, self.tick)

    # following the session ----------------------------------------------------------------------------------
    def on_live_tree_built(self, message: LiveTreeBuilt) -> None:
        if (self.follows and message.root == self.live_root and self.live.is_current(message.root, message.session)):
            self._newer(message.session)

    def on_document_reloaded(self, message: DocumentReloaded) -> None:
        if self.follows and self.key is not None and self.key == str(message.path) and message.doc.root is not None:
            self._newer(message.doc.root)

    def _newer(self, root: Session) -> None:
        session = find_session_by_prefix(root, self.session.path_prefix)
        if session is not None and session is not self.session and self.is_mounted:
            self.rebuild(session)

    def tick(self) -> None:
        """Let a running session's open bars grow with the clock."""
        session = self.session
        if session.running:
            view = self.view
            fitted = view.fitted
            self.model.advance(self._now())
            view.set_window(fit(self.model.total) if fitted else view.window)
            self._update_title()

    def rebuild(self, session: Session) -> None:
        view = self.view
        old = self.model
        row = view.row
        key = node_key(row.node) if row is not None else None
        fitted = view.fitted
        self.session = session
        self._hold(session)
        self.model = Waterfall(session, now_ms=self._now(), previous=old)
        index = self.model.index_of_key(key) if key is not None else None
        window = None if fitted else view.window
        view.set_model(self.model, cursor=index if index is not None else view.cursor, window=window)
        self._update_title()

    # showing ------------------------------------------------------------------------------------------------
    def _update_title(self) -> None:
        session = self.session
        text = Text()
        text.append(" ◆ Waterfall ", style="bold blue")
        text.append(one_line(session.display_agent, 60), style="bold")
        if session.parent_op is not None:
            text.append(f"  [{one_line(session.parent_op.path, 40)}]", style="dim")
        text.append(f"  wall {fmt_duration(round(self.model.total))}", style="dim")
        text.append(f"  {session.counts.ops:,} ops", style="dim")
        if session.running:
            text.append("  ● running", style="bold yellow")
        self.query_one("#wf-title", Static).update(text)

    @on(WaterfallView.Highlighted)
    def _highlighted(self, event: WaterfallView.Highlighted) -> None:
        # The row under the cursor now: a Highlighted queued before a newer build's model came names a row of the
        # old model, which the new one does not know (the live worker's builds arrive between any two messages).
        self.query_one("#wf-status", StatusLines).show(self.describe(self.view.row))

    def describe(self, row: Row | None) -> Text:
        """The status line: the selected row's name, times and share of the wall time, then the window."""
        text = Text()
        model = self.model
        if row is not None:
            node = row.node
            text.append(" ")
            if isinstance(node, Op):
                tag = KIND_TAG.get(node.kind, node.kind).strip()
                text.append(tag + " ", style=f"bold {KIND_COLOR.get(node.kind, 'white')}")
            text.append(one_line(row.name, 70), style="bold")
            if isinstance(node, Op):
                text.append(f"  {one_line(node.path, 30)}", style="dim")
            start, end = model.span(row)
            text.append(f"  start +{fmt_offset(start, 1)}  took {fmt_offset(end - start, 1)}")
            text.append(f"  {model.share(row) * 100:.1f}% of the wall time")
            status = model.status(row)
            text.append(f"  {_STATUS_TEXT[status]}", style=_STATUS_STYLE[status])
        window = self.view.window
        zoom = model.total / window.span if window.span else 1.0
        text.append(f"\n window {fmt_offset(window.start, 1)} – {fmt_offset(window.end, 1)}", style="dim")
        text.append(f"  ×{zoom:,.1f}" if zoom < 100 else f"  ×{zoom:,.0f}", style="dim")
        view = self.view
        text.append(f"  row {view.cursor + 1:,}/{len(model.rows):,}", style="dim")
        return text

    # leaving --------------------------------------------------------------------------------------------------
    def action_back(self) -> None:
        self.app.pop_screen()

    def action_jump(self) -> None:
        row = self.view.row
        if row is not None:
            self.go_to(row.node)

    @on(WaterfallView.Jump)
    def _jump(self, event: WaterfallView.Jump) -> None:
        self.go_to(event.row.node)

    def go_to(self, node: object) -> None:
        """Back to the session screen with `node` selected in its tree: the same op in the tree shown there now
        (SessionScreen.select_op looks it up by path), never a row of an older build."""
        origin = self.origin
        if origin not in self.app.screen_stack:
            self.app.pop_screen()
            return
        while self.app.screen is not origin:
            self.app.pop_screen()
        if isinstance(node, (Op, Turn)):
            origin.select_op(node)
