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

from tui.model import json_load
from tui.model.captures import Capture, captures_from_payload_refs, find_captures
from tui.model.decode import DecodedView, PayloadError, decode_bytes, decode_capture
from tui.model.nodes import Op

try:  # integrity warnings (sha256 / size mismatches) when the reader offers them
    from tui.model.payload_refs import read_ref_checked
except ImportError:  # pragma: no cover - older payload_refs
    read_ref_checked = None

__all__ = [
    "HexLines", "PayloadError", "SECTION_PREFIX", "VIEW_ORDER", "capture_label", "capture_message",
    "decode_with_notes", "default_capture", "file_extension", "op_captures", "payload_views", "save_name",
    "split_lines", "usable",
]

VIEW_ORDER = ("text", "events", "headers", "raw", "hex")
SECTION_PREFIX = "── "  # lines starting with this are section headings (the widget may style them)
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
    return find_captures(op.raw)


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


def capture_message(c: Capture) -> list[str]:
    """Lines explaining why a capture has no bytes to show (unavailable, not captured, invalid)."""
    if c.state == "unavailable":
        return [
            f"capture failure (capture bug in the producer: {c.source} is [unavailable])",
            "",
            "The producer recorded the literal string \"[unavailable]\" instead of the payload bytes.",
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
    if c.state == "ref" and read_ref_checked is not None:
        data, warnings = read_ref_checked(c.ref, sessions_dir)
        notes.extend(warnings)
        view = decode_bytes(data, c.format)
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


def split_lines(text: str) -> list[str]:
    """Split on LF only (a payload may hold form feeds or U+2028 that must stay visible), dropping CR of CRLF."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return lines


def _pretty_args(args: str) -> list[str]:
    s = args.strip()
    if s[:1] in ("{", "["):
        try:
            return split_lines(json.dumps(json.loads(json_load.without_lone_surrogates(s) or s), indent=2,
                                          ensure_ascii=False))
        except (ValueError, RecursionError):
            pass
    return split_lines(args) or ["(no arguments)"]


def _reassembled_lines(view: DecodedView) -> list[str]:
    r = view.reassembled
    if r is None:
        return []
    out: list[str] = []
    meta = []
    if r.model:
        meta.append(f"model {r.model}")
    if r.stop_reason:
        meta.append(f"stop {r.stop_reason}")
    if r.usage:
        usage = ", ".join(f"{k}={v}" for k, v in r.usage.items() if not isinstance(v, (dict, list)))
        if usage:
            meta.append(f"usage {usage}")
    if meta:
        out.append(f"{SECTION_PREFIX}{' · '.join(meta)}")
    if r.errors:
        out.append(f"{SECTION_PREFIX}errors ({len(r.errors)})")
        out.extend(r.errors)
    if r.thinking:
        out.append(f"{SECTION_PREFIX}thinking")
        out.extend(split_lines(r.thinking))
    if r.text or not (r.thinking or r.tool_calls):
        out.append(f"{SECTION_PREFIX}text")
        out.extend(split_lines(r.text) or ["(no text)"])
    if r.tool_calls:
        out.append(f"{SECTION_PREFIX}tool calls ({len(r.tool_calls)})")
        for name, args in r.tool_calls:
            out.append(f"{name or '(unnamed tool)'}:")
            out.extend(f"  {ln}" for ln in _pretty_args(args))
    return out


def _body_lines(view: DecodedView, kind: str) -> list[str]:
    """The best form of a body (or whole capture) whose kind is `kind`."""
    if kind == "sse":
        lines = _reassembled_lines(view)
        if lines:
            return lines
        return split_lines(view.pretty) or ["(empty event stream)"]
    if kind in ("json", "text"):
        return split_lines(view.pretty) or ["(empty)"]
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

    text: SSE reassembled (thinking, text, tool calls), JSON pretty, HTTP start line + headers + best body;
    events: one line per SSE event; headers: HTTP start line + headers; raw: bytes as text (absent when they are
    not UTF-8: hex says it all); hex: lazy hexdump lines.
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
    if decoded.events:
        views.append(("events", _event_lines(decoded)))
    if kind == "http":
        views.append(("headers", _header_lines(decoded) or ["(no headers)"]))
    if kind in ("json", "text") and views and decoded.pretty_is_stored:
        views.append(("raw", views[0][1]))  # the same lines: a 100 MB payload is not held twice
    else:
        raw = _raw_lines(decoded)
        if raw is not None:
            views.append(("raw", raw))
    views.append(("hex", HexLines(decoded)))
    return views


def file_extension(capture: Capture | None, decoded: DecodedView | None) -> str:
    fmt = (capture.format if capture is not None else "") or (decoded.kind if decoded is not None else "")
    return {"sse": "sse", "http": "http", "json": "json", "jsonrpc": "json", "text": "txt"}.get(fmt, "bin")


def save_name(op: Op, capture: Capture, decoded: DecodedView | None) -> str:
    """`<opId or path>-<side>-<source>.<ext>`, made safe as a file name."""
    stem = _UNSAFE_NAME.sub("_", op.op_id or op.path or "op").strip("._") or "op"
    return f"{stem[:80]}-{capture.side}-{capture.source}.{file_extension(capture, decoded)}"
