"""Details of the highlighted node: attributes, accounting, reasoning, prompts and a list of its captures."""

from __future__ import annotations

import re

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.formats.aiagent.file_identity import misfiled_note
from tui.model.fields import as_dict, as_list, one_line, printable, type_name
from tui.model.final_report import final_report
from tui.model.foreign import sections_of, view_of
from tui.model.format import fmt_bytes, fmt_cost, fmt_ts
from tui.model.session_facts import shown_duration
from tui.model.json_text import dumps
from tui.model.nodes import Op, Session, Turn, node_key, user_turns
from tui.model.op_facts import op_facts
from tui.ui.textual_compat import LaidOutOnce
from tui.ui.widgets.steady_static import SteadyStatic

LONG_TEXT = 4000


def _clip(text: str, limit: int = LONG_TEXT) -> str:
    text = printable(text, keep_newlines=True)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def json_value(value: object) -> str:
    """A value of the JSON a producer wrote, as JSON says it: strings as they are, true/false/null, numbers, and
    objects or arrays as compact JSON (never Python's `False`, `None` or `{'source': ...}`)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return dumps(value).decode("utf-8", "replace")


FULL_TARGET = 64 * 1024  # an op's target is shown whole up to this (a hostile 1 MB name stops here, with `…`)


class DetailBuilder:
    """Builds the detail text; plain functions of the model, kept apart from the widget for tests."""

    def __init__(self) -> None:
        self.text = Text()

    def heading(self, title: str) -> None:
        if self.text.plain:
            self.text.append("\n")
        self.text.append(one_line(title, 300) + "\n", style="bold underline")

    def field(self, name: str, value: object, style: str = "", limit: int = 300) -> None:
        if value is None or value == "":
            return
        self.text.append(f"{one_line(name, 60):>12} ", style="dim")
        self.text.append(one_line(json_value(value), limit) + "\n", style=style)

    def block(self, value: str, style: str = "") -> None:
        self.text.append(_clip(value) + "\n", style=style)


def breakable_arrows(call_path: str) -> str:
    """`a->b->c` with a space each side of every arrow: the panel wraps a long call path at spaces, and without
    any it cut wherever the width ended, `-` on one line and `>` on the next."""
    return _ARROW.sub(" -> ", call_path) if call_path else call_path


_ARROW = re.compile(r"\s*->\s*")


def describe(node: object) -> Text:
    b = DetailBuilder()
    if isinstance(node, Op):
        _op(b, node)
    elif isinstance(node, Turn):
        _turn(b, node)
    elif isinstance(node, Session) and view_of(node) is None:
        _session(b, node)  # a Jules / Genkit session says it all in its own sections
    if not isinstance(node, Op):
        _format_sections(b, node)
    return b.text


TONE_STYLE = {"bad": "bold red", "warn": "yellow", "good": "green", "strong": "bold", "dim": "dim"}


def _format_sections(b: DetailBuilder, node: object) -> None:
    """What a Jules or Genkit node adds (tui.model.foreign); nothing for ai-agent nodes."""
    for section in sections_of(node):
        b.heading(section.title)
        for fact in section.fields:
            b.field(fact.label, fact.value, TONE_STYLE.get(fact.tone, ""))
        if section.text:
            b.block(section.text, TONE_STYLE.get(section.tone, ""))


def _session(b: DetailBuilder, s: Session) -> None:
    b.heading("Session")
    b.field("agent", s.agent_id)
    b.field("callPath", breakable_arrows(s.call_path))
    b.field("title", s.title)
    b.field("traceId", s.trace_id)
    b.field("id", s.id)
    b.field("status", s.status, "bold red" if s.status == "failed" else "")
    b.field("latest", s.latest_status)
    b.field("started", fmt_ts(s.started_at))
    b.field("ended", fmt_ts(s.ended_at) if s.ended_at else "running")
    b.field("duration", shown_duration(s))
    b.field("user turns", user_turns(s))
    if s.error:
        b.heading("Error")
        b.block(s.error, "red")
    for problem in s.problems:
        b.field("broken", problem, "bold red")
    if s.misfiled:  # the producer's handoff bug (tui.formats.aiagent.file_identity)
        b.field("file", misfiled_note(s.misfiled, s.trace_id, s.call_path or s.agent_id), "bold red")
    attrs = as_dict(s.field("attributes"))
    if attrs:
        b.heading("Attributes")
        for key, value in list(attrs.items())[:40]:
            b.field(str(key), value)
    _final_report(b, s)
    metas = s.field("pluginMetas")
    if metas is not None:
        b.heading("Plugin metas")
        b.block(_json(metas))


def _final_report(b: DetailBuilder, s: Session) -> None:
    report = final_report(s)
    if report is None:
        return
    b.heading("Final report")
    b.field("source", report.source)
    b.field("op", report.path)
    b.field("format", report.format)
    if report.captured is not None:
        b.field("captured", "yes" if report.captured else "no")
    if report.note:
        b.field("content", report.note, "dim")
    if report.text:
        b.block(report.text)
    if report.content_json:
        b.field("content_json", "(as JSON, below)")
        b.block(report.content_json)


def _json(value: object) -> str:
    return dumps(value, indent=True).decode("utf-8", "replace")


def _turn(b: DetailBuilder, t: Turn) -> None:
    b.heading(t.title)
    b.field("id", t.id)
    b.field("started", fmt_ts(t.started_at))
    b.field("duration", shown_duration(t))
    b.field("ops", len(t.ops))
    b.field("status", t.status)
    for problem in t.problems:
        b.field("broken", problem, "bold red")
    if t.prompts:
        for key in ("system", "user"):
            value = t.prompts.get(key)
            if isinstance(value, str) and value:
                b.heading(f"{key} prompt")
                b.block(value)
    for log in t.extra_logs:
        b.field(log.severity, log.message, "red" if log.severity in ("ERR", "FATAL") else "yellow")


def _op(b: DetailBuilder, op: Op) -> None:
    b.heading(f"{op.kind.upper()} {op.path}")
    b.field("target", op.target, limit=FULL_TARGET)  # whole: the tree's line cuts it with `…`
    b.field("opId", op.op_id)
    b.field("status", op.status or ("running" if op.running else "-"), "bold red" if op.failed else "")
    b.field("error", op.error, "bold red")
    facts = op_facts(op)
    if facts.when_source and facts.when is not None:
        b.field("at", f"{fmt_ts(facts.when)} (no start recorded: {facts.when_source} ts)")
    else:
        b.field("started", fmt_ts(op.started_at))
    b.field("duration", shown_duration(op))
    if facts.chars_in is not None or facts.chars_out is not None:
        b.field("characters", f"in {_count(facts.chars_in)}  out {_count(facts.chars_out)}")
    if facts.request_bytes is not None:
        b.field("request", fmt_bytes(facts.request_bytes))
    if facts.response_bytes is not None:
        b.field("response", fmt_bytes(facts.response_bytes))
    if op.child is not None:
        b.field("sub-agent", f"{op.child.display_agent} ({op.child.counts.ops} ops) — Enter to drill in", "blue")
        for problem in op.child.problems:
            b.field("broken", f"sub-agent: {problem}", "bold red")
    if op.child_ref is not None:
        b.heading("Sub-agent stored elsewhere")
        for key, value in list(op.child_ref.items())[:20]:
            b.field(str(key), value)
    for problem in op.problems:
        b.field("broken", problem, "bold red")
    if op.attributes:
        b.heading("Attributes")
        for key, value in list(op.attributes.items())[:40]:
            b.field(str(key), value)
    _accounting(b, op)
    _reasoning(b, op)
    _format_sections(b, op)
    _captures(b, op)


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _known(value: object) -> str:
    return "?" if value is None else json_value(value)


def _accounting(b: DetailBuilder, op: Op) -> None:
    entries = as_list(op.raw.get("accounting")) if op.raw else []
    if not entries and not (op.tokens_in or op.tokens_out or op.cost):
        return
    b.heading("Accounting")
    if not entries:
        b.field("tokens", f"in {op.tokens_in:,}  out {op.tokens_out:,}  cacheR {op.cache_read:,}  cacheW {op.cache_write:,}")
        b.field("cost", fmt_cost(op.cost))
        return
    for entry in entries[:20]:
        if not isinstance(entry, dict):
            b.field("broken", f"accounting entry is {type_name(entry)}", "bold red")
            continue
        kind = entry.get("type")
        if kind == "llm":
            actual = "/".join(json_value(entry.get(k)) for k in ("actualProvider", "actualModel") if entry.get(k))
            target = ":".join(json_value(entry.get(k)) for k in ("provider", "model") if entry.get(k) is not None)
            b.field("llm", target + (f" → {actual}" if actual else ""))
            tokens = as_dict(entry.get("tokens"))
            b.field("tokens", "  ".join(f"{k} {json_value(v)}" for k, v in tokens.items()))
            b.field("cost", entry.get("costUsd"))
            b.field("stopReason", entry.get("stopReason"))
        else:
            b.field("tool", entry.get("mcpServer") or entry.get("command"))
            chars_in, chars_out = entry.get("charactersIn"), entry.get("charactersOut")
            if chars_in is not None or chars_out is not None:
                b.field("chars", f"in {_known(chars_in)}  out {_known(chars_out)}")
        latency = entry.get("latency")
        b.field("latency", f"{json_value(latency)} ms" if latency is not None else None)
        b.field("error", entry.get("error"), "red")


def _reasoning(b: DetailBuilder, op: Op) -> None:
    reasoning = op.raw.get("reasoning") if op.raw else None
    if not isinstance(reasoning, dict):
        return
    final = reasoning.get("final")
    chunks = as_list(reasoning.get("chunks"))
    text = final if isinstance(final, str) and final else "".join(
        c.get("text", "") for c in chunks if isinstance(c, dict) and isinstance(c.get("text"), str)
    )
    if text:
        b.heading("Reasoning")
        b.block(text, "italic")


def _captures(b: DetailBuilder, op: Op) -> None:
    try:
        from tui.payloads.op_captures import capture_name, op_captures
    except ImportError:  # pragma: no cover - the payload module is optional during development
        return
    captures = op_captures(op)
    if not captures:
        return
    b.heading("Captures (Enter: payload viewer)")
    for c in captures:
        size = fmt_bytes(c.size) if isinstance(c.size, int) else ""
        state = {"inline": "", "plain": ""}.get(c.state, c.state)
        style = "bold red" if c.state in ("unavailable", "invalid") else ""
        name = capture_name(c)  # an sdk capture is ai-agent's own turn request / result, not a provider's body
        source = f"{c.source} ({name})" if name else c.source
        b.field(c.side, f"{source} {c.format} {size} {state} {c.note}".strip(), style)


DESCRIBE_IN_THREAD = 5_000  # ops in a session from which its details are written in a thread


class DetailBody(SteadyStatic, LaidOutOnce):
    """The details' text: a key that moves the cursor gives it another height, and each such change laid the
    screen out twice (its own `virtual_size` asked for the second layout)."""


class DetailPanel(VerticalScroll, LaidOutOnce):
    shown: object = None  # the node the panel is to show (its text may still be written in a thread)
    put_key: tuple | None = None  # node_key of the node whose text is on the panel

    def compose(self):
        yield DetailBody(id="detail-body")

    def show(self, node: object) -> None:
        """A big session's details are written in a thread (its final report is looked for among all its ops:
        ~40 ms at 33,000 ops, each time a growing live trace changed with its root highlighted, or a key landed
        on it); the text before stays meanwhile."""
        self.shown = node
        if isinstance(node, Session) and node.counts.ops >= DESCRIBE_IN_THREAD:
            self.run_worker(lambda: self._describe_in_thread(node), thread=True, group="details", exclusive=True,
                            exit_on_error=False)
            return
        self._put(node, describe(node))

    def _describe_in_thread(self, node: Session) -> None:
        text = describe(node)
        try:
            self.app.call_from_thread(self._put, node, text)
        except RuntimeError:
            pass  # the app is shutting down

    def _put(self, node: object, text: Text) -> None:
        """The text of `node` on the panel, from its top when it is another node than the one before: a newer
        build of the same node (a live change, a reload) keeps the place the user scrolled to."""
        if node is not self.shown or not self.is_mounted:
            return
        self.query_one("#detail-body", Static).update(text)
        key = node_key(node)
        if key != self.put_key:
            self.put_key = key
            self.scroll_home(animate=False)
