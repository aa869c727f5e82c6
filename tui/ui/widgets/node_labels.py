"""One-line Rich labels for opTree nodes. Untrusted text is appended as plain text, never parsed as markup."""

from __future__ import annotations

from rich.text import Text

from tui.formats.aiagent.file_identity import MARK
from tui.model.fields import one_line
from tui.model.foreign import view_of
from tui.model.format import fmt_cost, fmt_path, fmt_tokens
from tui.model.nodes import Op, Session, Turn, failed_inside
from tui.model.session_facts import cost_estimated, cost_unknown, shown_duration

KIND_STYLE = {"llm": "bold cyan", "tool": "bold magenta", "session": "bold blue", "system": "dim", "?": "bold red"}
KIND_TAG = {"llm": "LLM ", "tool": "TOOL", "session": "AGENT", "system": "SYS ", "?": "??? "}
# Jules activity types and artifacts, Genkit snapshot events and branches (tui.formats.jules.tree, tui.formats.genkit.tree)
KIND_TAG.update({
    "planGenerated": "PLAN", "planApproved": "APPROVED", "progressUpdated": "PROGRESS", "agentMessaged": "REPLY",
    "userMessaged": "USER", "sessionCompleted": "DONE", "sessionFailed": "FAILED", "patch": "PATCH",
    "media": "MEDIA", "turnEnd": "TURN END", "toolIterationEnd": "TOOLS END", "invocationEnd": "INVOKE END",
    "branch": "BRANCH", "activity": "ACTIVITY",
})
KIND_STYLE.update({
    "planGenerated": "bold green", "planApproved": "green", "progressUpdated": "cyan", "agentMessaged": "bold cyan",
    "userMessaged": "bold yellow", "sessionCompleted": "bold green", "sessionFailed": "bold red",
    "patch": "bold blue", "media": "blue", "turnEnd": "bold cyan", "toolIterationEnd": "bold magenta",
    "invocationEnd": "bold green", "branch": "bold yellow", "activity": "cyan",
})


def running_text(stale: bool = False) -> Text:
    """`● running`, or `○ stale` once the session's file or stream went silent (tui.catalog.liveness): a killed
    writer's nodes must not look alive."""
    return Text("○ stale", style="dim") if stale else Text("● running", style="bold yellow")


def status_text(status: str | None, running: bool, stale: bool = False) -> Text:
    if running:
        return running_text(stale)
    if status == "failed":
        return Text("✗ FAILED", style="bold white on red")
    if status == "ok":
        return Text("ok", style="green")
    return Text(status or "-", style="dim")


class NodeLabel(Text):
    """A tree label in two parts: the name (path, kind, target, agent, tokens, counts) that scrolls sideways and
    is cut with `…`, then the columns (status and failure reason, duration, cost) that the opTree draws at its
    right edge, aligned and never scrolled away (as the browser's table keeps its columns). The whole label reads
    `name  status  duration  cost`, so anything reading it as text (tests, search) finds every word."""

    __slots__ = ("name_end", "name_cells", "status", "duration", "cost")

    def finish(self, status: Text, duration: str, cost: str) -> NodeLabel:
        """Mark where the name ends and append the columns (kept apart too, for the tree to align them)."""
        self.name_end, self.name_cells = len(self.plain), self.cell_len
        self.status, self.duration, self.cost = status, duration, cost
        self.append("  ")
        self.append_text(status)
        self.append(f"  {duration}", style="dim")
        if cost:
            self.append(f"  {cost}", style="dim")
        return self


def session_label(s: Session, stale: bool = False) -> NodeLabel:
    text = NodeLabel()
    text.append("◆ ", style="bold blue")
    text.append(one_line(s.display_agent, 60), style="bold")
    if s.title:
        text.append(f"  {one_line(s.title, 60)}", style="italic")
    t = s.totals
    cost = ""
    if view_of(s) is None:  # Jules and Genkit record no tokens or cost
        cost = "cost unknown" if cost_unknown(s) else \
            ("~" if cost_estimated(s) else "") + fmt_cost(t.costUsd)  # (OTLP from ai-agent: none sent)
        text.append(f"  {fmt_tokens(t.tokensIn)}→{fmt_tokens(t.tokensOut)}", style="dim")
    status = _session_status(s, stale)
    if s.problems:
        status.append("  BROKEN", style="bold red")
    if s.misfiled:  # the file is named after another session: this tree is not that session
        text.append(f"  {MARK} {one_line(s.misfiled, 40)}", style="bold red")
    return text.finish(status, shown_duration(s), cost)


def _session_status(s: Session, stale: bool = False) -> Text:
    status = s.status
    if status == "running":
        return running_text(stale)
    if status == "failed":
        return Text("✗ failed", style="bold red")
    if s.success is None and s.latest_status and view_of(s) is not None:
        # a Jules session snapshotted while still going: its own state word, not "ok"
        return Text(one_line(s.latest_status, 30), style="yellow")
    return Text("ok", style="green")


def turn_label(t: Turn, stale: bool = False) -> NodeLabel:
    text = NodeLabel()
    text.append(one_line(t.title, 60), style="bold" if not t.system else "dim bold")
    text.append(f"  {len(t.ops)} ops", style="dim")
    _failed_inside(text, failed_inside(t))
    running = t.running and t.session.running
    status = running_text(stale) if running else \
        Text("✗ failed", style="bold red") if t.status == "failed" else Text("")
    if any(log.severity in ("ERR", "FATAL") for log in t.extra_logs):
        text.append("  ERR", style="bold red")
    if t.problems:
        status.append("  BROKEN" if status.plain else "BROKEN", style="bold red")
    return text.finish(status, shown_duration(t), "")


def _failed_inside(text: Text, failed: int) -> None:
    """`✗3`: the failed ops a turn or sub-agent holds, early in its label so a folded node shows them even when
    the label is wider than the tree (the ops themselves show their own ✗ once expanded)."""
    if failed:
        text.append(f" ✗{failed:,}", style="bold red")


def op_label(op: Op, stale: bool = False) -> NodeLabel:
    text = NodeLabel()
    text.append(f"{fmt_path(op.path)} ", style="dim")
    text.append(KIND_TAG.get(op.kind, op.kind), style=KIND_STYLE.get(op.kind, ""))
    text.append(" ")
    target = op.target
    text.append(one_line(target, 200) if target else "-", style="bold red" if op.failed else "")
    agent = op.child_agent
    if agent and agent != target:
        text.append(f" → {one_line(agent, 40)}", style="blue")
    _failed_inside(text, failed_inside(op))
    if op.child_ref is not None and op.child is None:
        text.append(" (stored elsewhere)", style="dim italic")
    if op.tokens_in or op.tokens_out:
        text.append(f"  {fmt_tokens(op.tokens_in)}→{fmt_tokens(op.tokens_out)}", style="dim")
    if op.errors:
        text.append(f"  {op.errors} ERR", style="bold red")
    if op.warnings:
        text.append(f"  {op.warnings} WRN", style="yellow")
    if op.child is not None and op.child.problems:
        text.append("  BROKEN sub-agent: " + one_line("; ".join(op.child.problems), 60), style="bold red")
    running = op.running and op.session.running
    status = status_text(op.status, running, stale)
    if op.error:  # the reason, right after the status: the column keeps both in view
        status.append(f" {one_line(op.error, 120)}", style="red")
    if op.problems:
        status.append("  BROKEN: " + one_line("; ".join(op.problems), 60), style="bold red")
    return text.finish(status, shown_duration(op), fmt_cost(op.cost) if op.cost else "")


def label_for(node: object, stale: bool = False) -> Text:
    """The tree label of a node; `stale`: its session is running but went silent (`○ stale`, not `● running`)."""
    if isinstance(node, Op):
        return op_label(node, stale)
    if isinstance(node, Turn):
        return turn_label(node, stale)
    if isinstance(node, Session):
        return session_label(node, stale)
    return Text(str(node))
