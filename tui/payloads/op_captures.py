"""The captures of one op and the named views a payload screen offers for each (pure: no Textual).

`op_captures(op)` finds the captures of a snapshot op (`find_captures(op.raw)`) or a v3 ledger op
(`captures_from_payload_refs(op.payload_refs)`). `decode_with_notes` reads and decodes one capture, collecting
every problem worth telling a person (producer flags, integrity warnings, decoder notes). `payload_views` turns a
DecodedView into named line lists: "text", "events", "headers", "raw", "hex". Lines are plain strings: the
widget makes them inert and styles them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from typing import cast

from tui.inputs import json_load
from tui.model.nodes import Op
from tui.payloads import Reassembled, ToolCall, aiagent_turn
from tui.payloads.agent_exchange import exchange_captures, tool_note
from tui.payloads.captures import Capture, captures_from_payload_refs, find_captures
from tui.payloads.decode import (
    DecodedView, PayloadError, decode_bytes, decode_capture, placeholder_note, sdk_side,
)
from tui.payloads.lines import SECTION_PREFIX, split_lines
from tui.payloads.refs import read_ref_checked

__all__ = [
    "HexLines", "PayloadError", "SECTION_PREFIX", "VIEW_ORDER", "capture_label", "capture_message", "capture_name",
    "decode_with_notes", "default_capture", "file_extension", "op_captures", "parsed_json", "payload_views",
    "reassembled_meta", "save_name", "split_lines", "usable", "usage_line", "usage_iterations",
]

VIEW_ORDER = ("text", "json", "events", "headers", "raw", "hex")
USABLE_STATES = frozenset({"inline", "ref", "plain"})
_MAX_EVENT_NAME = 28
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def op_captures(op: Op) -> list[Capture]:
    """Captures of an op, request side first: ledger payloadRefs, else the snapshot op's request/response."""
    if op is None:
        return []
    view = getattr(op, "view", None)  # Jules / Genkit ops know their own payloads (tui.model.foreign)
    if view is not None:
        return view.captures(op)
    if op.payload_refs is not None:
        return captures_from_payload_refs(op.payload_refs)
    if op.raw is None:
        return []
    exchanged = exchange_captures(op)  # a model call of another agent's session file (Codex, Gemini CLI, OpenCode)
    if exchanged is not None:
        return exchanged
    captures = find_captures(op.raw)
    return tool_note(op, captures) if op.kind == "tool" and op.status == "failed" and _agent_file(op) else captures


def _agent_file(op: Op) -> bool:
    """The op is in a session read from another agent's own file (its root says which agent)."""
    s = op.turn.session
    while s.parent_op is not None:
        s = s.parent_op.turn.session
    attributes = s.field("attributes")
    return isinstance(attributes, dict) and "agentKind" in attributes


def usable(c: Capture) -> bool:
    """True when the capture has bytes that can be read (possibly failing later with a PayloadError)."""
    return c.state in USABLE_STATES


def default_capture(captures: list[Capture], side: str | None = None) -> int | None:
    """Index of the most readable capture: response side first (or `side`), raw/sdk before the plain payload."""
    sides = (side,) if side else ("response", "request")
    for s in sides:
        on_side = [i for i, c in enumerate(captures) if c.side == s]
        if not on_side:
            continue
        for pick in (lambda c: c.state in ("inline", "ref"), lambda c: c.state == "plain", lambda c: True):
            for i in on_side:
                if pick(captures[i]):
                    return i
    if side is None and captures:
        return 0
    return None


def capture_label(c: Capture) -> str:
    return f"{c.side}/{c.source}"


def capture_name(c: Capture) -> str:
    """What a capture is, where it is named (payload screen, details panel): an `sdk` capture is ai-agent's own
    turn request or result, whatever its bytes hold; "" for the others (their bytes say what they are)."""
    return aiagent_turn.capture_name(c.side) if c.source == "sdk" else ""


def capture_message(c: Capture) -> list[str]:
    """Lines explaining why a capture has no bytes to show (unavailable, not captured, invalid)."""
    if c.state == "unavailable":
        return [
            f"capture failure (capture bug in the producer: {c.source} is [unavailable])",
            "",
            "The producer stored the placeholder \"[unavailable]\" (as is, or base64-encoded like any body) "
            "instead of the payload bytes.",
            *([f"note: {c.note}"] if c.note else []),
        ]
    if c.state == "not_captured":
        return [
            f"not captured: the producer stored nothing for this {c.side} ({c.source}) payload (captured: false)",
        ]
    if c.state == "invalid":
        return [f"invalid capture: {c.note or 'malformed capture entry'}"]
    return [f"capture state {c.state!r}: {c.note}"]


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def decode_with_notes(c: Capture, sessions_dir: str | os.PathLike | None) -> tuple[DecodedView, list[str]]:
    """Read and decode a capture; returns the view and notes for the status line. Raises PayloadError."""
    notes: list[str] = [n.strip() for n in (c.note or "").split(";")]
    if c.state == "ref":
        data, warnings = read_ref_checked(cast(dict, c.ref), sessions_dir)  # (a ref capture holds its ref)
        notes.extend(warnings)
        view = decode_bytes(data, c.format, sdk_side(c))
    else:
        view = decode_capture(c, sessions_dir)
    if c.truncated:
        notes.append("truncated by producer")
    notes.extend(view.notes)
    return view, _dedupe(notes)


class HexLines(Sequence):
    """`hexdump -C` lines of a DecodedView, built on demand (a 50 MB payload would be 3 M lines)."""

    __slots__ = ("_view",)

    def __init__(self, view: DecodedView) -> None:
        self._view = view

    def __len__(self) -> int:
        return self._view.line_count_hex()

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return self._view.hex_lines(start, max(0, stop - start))
            return [self[i] for i in range(start, stop, step)]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return self._view.hex_lines(index, 1)[0]


def _pretty_args(args: str) -> list[str]:
    s = args.strip()
    if s[:1] in ("{", "["):
        try:
            return split_lines(json.dumps(json.loads(json_load.without_lone_surrogates(s) or s), indent=2,
                                          ensure_ascii=False))
        except (ValueError, RecursionError):
            pass
    return split_lines(args) or ["(no arguments)"]


def _number(v: object) -> object:
    """A float as a person writes it: OpenRouter's cost of 0.0000285 dollars, not 2.85e-05."""
    if isinstance(v, float) and 0 < abs(v) < 1e-4:
        return f"{v:.12f}".rstrip("0").rstrip(".") or "0"
    return v


def _usage_text(usage: dict) -> str:
    """`k=v` pairs, one level of nesting flattened (`prompt_tokens_details.cached_tokens=5`, `cost=0.0012`)."""
    out: list[str] = []
    for k, v in usage.items():
        if isinstance(v, dict):
            out.extend(f"{k}.{k2}={_number(v2)}" for k2, v2 in v.items()
                       if v2 is not None and not isinstance(v2, (dict, list)))
        elif v is not None and not isinstance(v, list):
            out.append(f"{k}={_number(v)}")
    return ", ".join(out)


def reassembled_meta(r: Reassembled) -> str:
    """The heading line of a reassembled answer: dialect, model, routed provider, stop reason (usage: usage_line)."""
    meta = [r.label if r.dialect != "unknown" else "stream dialect unknown"]
    if r.status:
        meta.append(f"status {r.status}")
    if r.model:
        meta.append(f"model {r.model}")
    if r.provider:
        meta.append(f"via {r.provider}")
    if r.stop_reason:
        meta.append(f"stop {r.stop_reason}" + (f" ({r.stop_details})" if r.stop_details else ""))
    elif r.stop_details:
        meta.append(f"stop details {r.stop_details}")
    meta.extend(r.meta)
    return " · ".join(meta)


def usage_line(r: Reassembled) -> str:
    """The usage of an answer as its own heading (`usage cost=0.0012, prompt_tokens=...`), cost first: on the
    dialect's heading it ran past the screen's edge, where OpenRouter's cost was never seen."""
    if not r.usage:
        return ""
    ordered = {k: v for k, v in r.usage.items() if k == "cost"} | {k: v for k, v in r.usage.items() if k != "cost"}
    usage = _usage_text(ordered)
    return f"usage {usage}" if usage else ""


def usage_iterations(r: Reassembled) -> list[str]:
    """One line per server-side iteration (Anthropic's `usage.iterations` when a compaction ran: the compaction's
    tokens, then each sampling's); the top-level usage counts only the last one, so without these the compaction's
    tokens were nowhere."""
    items = r.usage.get("iterations") if r.usage else None
    if not isinstance(items, list) or not items:
        return []
    out = []
    for i, item in enumerate(items, 1):
        item = item if isinstance(item, dict) else {"value": item}
        kind = item.get("type")
        tokens = _usage_text({k: v for k, v in item.items() if k != "type"})
        out.append(f"iteration {i} of {len(items)}{f' ({kind})' if isinstance(kind, str) and kind else ''}: "
                   f"{tokens or '(no tokens)'}")
    return out


def _tool_lines(calls: list[ToolCall], several_choices: bool) -> list[str]:
    out = [f"{SECTION_PREFIX}tool calls ({len(calls)})"]
    for tc in calls:
        label = tc.name or "(unnamed tool)"
        extra = [x for x in (tc.kind and f"{tc.kind} tool", tc.id, several_choices and f"choice {tc.choice}") if x]
        suffix = f" [{', '.join(extra)}]" if extra else ""
        out.append(f"{label}{suffix}:")
        out.extend(f"  {ln}" for ln in _pretty_args(tc.arguments))
    return out


def _reassembled_lines(view: DecodedView) -> list[str]:
    """Thinking blocks apart, text (per choice when several), refusal, tool calls, citations, search results."""
    r = view.reassembled
    if r is None:
        return []
    out = [f"{SECTION_PREFIX}{reassembled_meta(r)}"]
    usage = usage_line(r)
    if usage:
        out.append(f"{SECTION_PREFIX}{usage}")
        out.extend(usage_iterations(r))
    if r.errors:
        out.append(f"{SECTION_PREFIX}errors ({len(r.errors)})")
        out.extend(r.errors)
    if r.dialect == "unknown":
        return out
    for summary in r.of_kind("compaction"):
        out.append(f"{SECTION_PREFIX}compaction summary")
        out.extend(split_lines(summary.text) or ["(none: the compaction failed)"])
    thinking = r.thinking_blocks
    for i, block in enumerate(thinking, 1):
        out.append(f"{SECTION_PREFIX}thinking" + (f" ({i} of {len(thinking)})" if len(thinking) > 1 else ""))
        out.extend(split_lines(block) or ["(empty)"])
    choices = r.choices
    calls = r.tool_calls
    several = len(choices) > 1
    for choice in choices:
        text = r.text_of(choice)
        refusal = "".join(b.text for b in r.blocks if b.kind == "refusal" and b.choice == choice)
        if several:
            stop = r.stops.get(choice, "")
            out.append(f"{SECTION_PREFIX}text (choice {choice}{f', stop {stop}' if stop else ''})")
            out.extend(split_lines(text) or ([] if refusal else ["(no text)"]))  # a refusal is that choice's answer
        elif text or not (thinking or calls or refusal or r.errors):
            out.append(f"{SECTION_PREFIX}text")
            out.extend(split_lines(text) or ["(no text)"])
        if refusal:
            out.append(f"{SECTION_PREFIX}refusal" + (f" (choice {choice})" if several else ""))
            out.extend(split_lines(refusal))
    if calls:
        out.extend(_tool_lines(calls, several))
    provider_results: tuple = (("tool_result", "results of the provider's tools"),)
    if r.dialect == "aiagent":  # ai-agent's turn result: the results of the agent's own tools the turn holds
        provider_results = ()
        results = [b for b in r.blocks if b.kind in ("tool_result", "tool_error")]
        if results:
            out.append(f"{SECTION_PREFIX}tool results ({len(results)})")
            for b in results:
                tool = b.tool or ToolCall()
                what = " ".join(x for x in (tool.name, f"[{tool.id}]" if tool.id else "") if x) or "(unnamed tool)"
                out.append(f"{what}{' (error)' if b.kind == 'tool_error' else ''}:")
                out.extend(f"  {ln}" for ln in split_lines(b.text) or ["(empty)"])
    for kind, title in (("citation", "citations"), ("search_result", "search results"), *provider_results):
        blocks = r.of_kind(kind)
        if blocks:
            out.append(f"{SECTION_PREFIX}{title} ({len(blocks)})")
            out.extend(ln for b in blocks for ln in (split_lines(b.text) or [""]))
    return out


def parsed_json(view: DecodedView) -> object:
    """The JSON a view's pretty text holds (it was parsed once to be pretty-printed), else None."""
    try:
        return json_load.loads(view.pretty)
    except (ValueError, TypeError, RecursionError):
        return None


def _body_lines(view: DecodedView, kind: str) -> list[str]:
    """The best form of a body (or whole capture) whose kind is `kind`."""
    note = placeholder_note(view.data)
    if note:
        return [note, "", "The producer recorded a placeholder string instead of the payload bytes."]
    if kind in ("sse", "ndjson", "eventstream") or (kind == "json" and view.reassembled is not None):
        lines = _reassembled_lines(view)
        r = view.reassembled
        if r is not None and r.dialect != "unknown":
            return lines
        n = len(view.events)
        what = {"sse": "event", "eventstream": "frame"}.get(kind, "JSON value") + ("" if n == 1 else "s")
        unknown = [f"{SECTION_PREFIX}stream dialect unknown: {n} {what} (see the events view)"]
        return [*unknown, *lines[1:], *(split_lines(view.pretty) or ["(empty event stream)"])]
    if kind == "json" and isinstance(view.request, aiagent_turn.TurnRequestInfo):
        lines = aiagent_turn.request_lines(parsed_json(view))
        if lines:
            return lines
    if kind in ("json", "text"):
        head = [f"{SECTION_PREFIX}{view.request.line}"] if view.request is not None else []
        return [*head, *(split_lines(view.pretty) or ["(empty)"])]
    if kind == "binary":
        return ["(binary body: see the hex view)"]
    return ["(empty body)"]


def _header_lines(view: DecodedView) -> list[str]:
    out = [view.start_line] if view.start_line else []
    out.extend(f"{name}: {value}" for name, value in view.headers)
    return out


def _event_lines(view: DecodedView) -> list[str]:
    width = min(_MAX_EVENT_NAME, max((len(e.event) for e in view.events), default=0))
    width = max(width, len("message"))
    return [f"{(e.event or 'message'):<{width}}  {e.data}" for e in view.events]


def _raw_lines(view: DecodedView) -> Sequence[str] | None:
    if view.kind == "binary":
        return None
    try:
        text = view.data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return split_lines(text)


def payload_views(capture: Capture | None, decoded: DecodedView) -> list[tuple[str, Sequence[str]]]:
    """Named views of a decoded capture, most readable first (the first one is what the screen opens on).

    text: an LLM stream or answer reassembled (dialect, thinking, text, tool calls), a request named then pretty
    JSON, other JSON pretty, HTTP start line + headers + best body; json: the pretty JSON of an answer whose text
    view shows the message; events: one line per SSE event, NDJSON line or array chunk; headers: HTTP start line
    + headers; raw: bytes as text (absent when they are not UTF-8: hex says it all); hex: lazy hexdump lines.
    """
    views: list[tuple[str, Sequence[str]]] = []
    kind = decoded.kind
    if kind == "empty":
        return [("text", ["(empty payload: 0 bytes)"])]
    if kind == "http":
        text = _header_lines(decoded)
        body_kind = decoded.body_kind or "empty"
        if body_kind != "empty" or text:
            text = [*text, ""] if text else text
        text.extend(_body_lines(decoded, body_kind))
        views.append(("text", text))
    elif kind != "binary":
        views.append(("text", _body_lines(decoded, kind)))
    body_kind = decoded.body_kind if kind == "http" else kind
    if body_kind == "json" and decoded.pretty and (decoded.reassembled is not None or
                                                    isinstance(decoded.request, aiagent_turn.TurnRequestInfo)):
        views.append(("json", split_lines(decoded.pretty)))  # the text view shows the message; this, all of it
    if decoded.events:
        views.append(("events", _event_lines(decoded)))
    if kind == "http":
        views.append(("headers", _header_lines(decoded) or ["(no headers)"]))
    if kind in ("json", "text") and views and decoded.pretty_is_stored and decoded.request is None \
            and decoded.reassembled is None and not placeholder_note(decoded.data):
        views.append(("raw", views[0][1]))  # the same lines: a 100 MB payload is not held twice
    else:
        raw = _raw_lines(decoded)
        if raw is not None:
            views.append(("raw", raw))
    views.append(("hex", HexLines(decoded)))
    return views


def file_extension(capture: Capture | None, decoded: DecodedView | None) -> str:
    fmt = (capture.format if capture is not None else "") or (decoded.kind if decoded is not None else "")
    return {"sse": "sse", "http": "http", "json": "json", "jsonrpc": "json", "sdk": "json", "text": "txt",
            "ndjson": "ndjson"}.get(fmt, "bin")


def save_name(op: Op, capture: Capture, decoded: DecodedView | None) -> str:
    """`<opId or path>-<side>-<source>.<ext>`, made safe as a file name."""
    stem = _UNSAFE_NAME.sub("_", op.op_id or op.path or "op").strip("._") or "op"
    return f"{stem[:80]}-{capture.side}-{capture.source}.{file_extension(capture, decoded)}"
