"""Pieces of the session screen that need its widgets or the app, not the screen itself: the breadcrumb line, which
node of the tree on screen a jump names, the clocks of running nodes, the insights pane, `Z` and `<` `>`, `y` (copy
the node's JSON) and `|` (the export in $PAGER)."""

from __future__ import annotations

from functools import partial

from typing import Any

from rich.text import Text
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from tui.model.document import Document
from tui.model.fields import one_line
from tui.model.format import fmt_path
from tui.model.json_text import dumps
from tui.model.nodes import Op, Session, Turn
from tui.model.search import find_op_by_path, find_session_by_prefix
from tui.ui.clipboard import copy_notice
from tui.ui.live_controller import LiveController
from tui.ui.widgets.insights_pane import InsightsPane
from tui.ui.widgets.log_pane import LogPane
from tui.ui.widgets.op_tree import OpTree
from tui.ui.widgets.totals_panel import FileChange, TotalsPanel, held_clock, last_event, went_silent

COPY_LIMIT = 16 * 1024 * 1024  # the clipboard goes through the terminal (OSC 52): keep it sane
DETAIL_WITH_INSIGHTS_ROWS = 32  # terminal rows below which insights hide the Details panel
CRUMBS_SHOWN = 6  # deeper drill-downs show the root, "… N levels …" and the last levels: the line has room


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


def resolve(session: Session, target: Op | Turn | Session | str) -> Op | Turn | Session | None:
    """`target` (a path, or a node of any build of `session`) as a node of `session`'s tree: looked up again by
    path, so a node of an older build selects its successor; None when this tree has no such node."""
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


def copy_node_json(app: App[Any], raw: object) -> tuple[str, Any]:
    """`y`: a node's JSON as the producer wrote it, to the clipboard; returns the notice and its severity."""
    if raw is None:
        return "nothing to copy for this node", "warning"
    try:
        data = dumps(raw, indent=True)  # any depth: orjson alone stops at 255 levels
    except (ValueError, TypeError, RecursionError) as exc:
        return f"cannot copy this node as JSON: {exc}", "error"
    if len(data) > COPY_LIMIT:
        return (f"this node is {len(data):,} bytes of JSON: too large for the clipboard (limit {COPY_LIMIT:,})",
                "warning")
    text = data.decode("utf-8", "replace")
    app.copy_to_clipboard(text)
    return copy_notice(f"copied {len(text):,} characters of JSON"), "information"


def export_to_pager(app: App[Any], session: Session, doc: Document) -> str | None:
    """`|`: the session (or sub-agent) in view as its Markdown export in $PAGER; None, or what went wrong."""
    from tui.text.export import render
    from tui.ui.pager import open_in_pager

    try:
        text = render(session, "markdown", source=doc.path, source_format=doc.format)
    except Exception as exc:  # noqa: BLE001 - an odd tree must not take the screen down
        return f"cannot export this session: {exc}"
    return open_in_pager(app, text.decode("utf-8", "replace"))


def start_clocks(tree: OpTree, totals: TotalsPanel, live: LiveController, live_root: str | None,
                 doc: Document) -> None:
    """What "now" is for the tree's running nodes: the stream's clock, or a file's last change once it went stale
    (a dead writer's nodes stop there, not 5,000 hours on), and whether they say `○ stale` (after --stale-after)."""
    if live_root is not None:
        tree.clock = live.clock(live_root)
    totals.last_change = (last_event(partial(live.facts, live_root)) if live_root is not None
                          else FileChange(doc.path))
    if live_root is None:
        tree.clock = held_clock(totals.last_change)
    tree.stale = went_silent(totals.last_change)
    if tree.session.running:  # the labels built as the tree mounted used the default clock
        tree.refresh_labels()


def toggle_insights(screen: Screen[Any], session: Session, tree: OpTree) -> None:
    """`i`: the insights take the log pane's place (and focus), or give it back."""
    pane = screen.query_one(InsightsPane)
    pane.display = not pane.display
    screen.query_one(LogPane).display = not pane.display
    # a short terminal (80x24) has no rows left for the Details beside the Totals while the insights take the
    # lower half: hide the panel instead of leaving a bare border (it comes back with the log pane)
    screen.query_one("#detail").display = not pane.display or screen.size.height >= DETAIL_WITH_INSIGHTS_ROWS
    if pane.display:
        refresh_insights(screen, session)
        pane.focus()
    else:
        tree.focus()


def refresh_insights(screen: Screen[Any], session: Session) -> None:
    from tui.model.insights import compute

    screen.query_one(InsightsPane).set_insights(compute(session))


def zoom(screen: Screen[Any]) -> bool:
    """`Z`: the focused panel fills the screen, or the zoomed one goes back; False: no panel has the focus."""
    if screen.maximized is not None:
        screen.minimize()
        return True
    return screen.focused is not None and screen.maximize(screen.focused)


def scroll_sideways(widget: Widget, direction: int) -> None:
    """`<` / `>`: half a panel sideways; the tree's right-hand columns stay where they are."""
    if isinstance(widget, OpTree):
        widget.action_scroll_sideways(direction)
    else:
        widget.scroll_relative(x=direction * max(4, widget.size.width // 2), animate=False)
