"""The session screen's log pane follows the selected node: its logs and those below it, shown a moment after the
cursor stops (a held key does not gather logs for every row it passes), gathered in a thread when there are many,
and kept per node while the screen shows the same tree."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.timer import Timer

from tui.model.fields import one_line
from tui.model.logs import LogView, log_count, logs_under
from tui.model.nodes import Op, Session, Turn
from tui.ui.widgets.log_pane import LogPane

LOG_DEBOUNCE_S = 0.12


def log_scope(node: Session | Turn | Op) -> str:
    return one_line(node.path if isinstance(node, Op) else node.title if isinstance(node, Turn) else "", 40)


class NodeLogs:
    """What the log pane of one session screen shows."""

    def __init__(self, screen: Screen[Any]) -> None:
        self.screen = screen
        self.target: object = None
        self.in_thread_from = 0
        self._timer: Timer | None = None
        self._views: dict[int, tuple[object, LogView]] = {}  # id(node) -> (node, its LogView)

    def forget(self) -> None:
        """Another tree is on screen: the views kept are of nodes no longer shown."""
        self._views.clear()

    def follow(self, node: object, in_thread_from: int) -> None:
        """Show `node`'s logs once the cursor rests; from `in_thread_from` logs on, gathered in a thread."""
        self.target, self.in_thread_from = node, in_thread_from
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.screen.set_timer(LOG_DEBOUNCE_S, self._update)

    def _update(self) -> None:
        node = self.target
        if not isinstance(node, (Session, Turn, Op)):
            return
        cached = self._views.get(id(node))
        if cached is not None and cached[0] is node:
            self._show(node, cached[1])
        elif gather_cost(node) < self.in_thread_from:
            self._show(node, logs_under(node))
        else:
            self.screen.query_one(LogPane).gathering(log_scope(node), log_count(node))
            self.screen.run_worker(lambda: self._gather(node), thread=True, group="logs", exclusive=True,
                                   exit_on_error=False)

    def _gather(self, node: Session | Turn | Op) -> None:
        view = logs_under(node)
        view.severities()
        try:
            self.screen.app.call_from_thread(self._show, node, view)
        except RuntimeError:
            pass  # the app is shutting down

    def _show(self, node: Session | Turn | Op, view: LogView) -> None:
        self._views[id(node)] = (node, view)
        if node is not self.target or not self.screen.is_mounted:
            return
        self.screen.query_one(LogPane).set_entries(view, scope=log_scope(node))


def gather_cost(node: Session | Turn | Op) -> int:
    """The entries logs_under(node) gathers plus the nodes it walks for them: the root of a 16,000-turn OTLP
    trace has few logs but gathering them walked 50,000 nodes on the UI thread (~130 ms at each change)."""
    if isinstance(node, Session):
        return log_count(node) + node.counts.ops + len(node.turns)
    if isinstance(node, Op):
        child = node.child
        return log_count(node) + (child.counts.ops + len(child.turns) if child is not None else 0)
    return log_count(node) + len(node.ops)
