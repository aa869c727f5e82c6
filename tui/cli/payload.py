"""`aiagent-monitor payload FILE --op PATH [--side S] [--source raw|sdk] [--view V]`: one op's captured payload,
decoded, on stdout: the same lines the payload screen shows (tui.payloads.op_captures, tui.payloads.messages), so
that a capture can be piped to jq, grep or less. Never imports textual."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tui.cli.load import PROG as MONITOR
from tui.cli.load import add_max_bytes, add_sessions_dir, fail, load_or_fail, stdout_gone

PROG = f"{MONITOR} payload"
EXPANDED_HINT = " · Enter collapses"  # (tui.payloads.messages: the payload screen's key, not a shell's)
VIEWS = ("messages", "text", "json", "events", "headers", "raw", "hex")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Print one op's captured request or response, decoded as the payload viewer shows it: the "
                    "conversation (messages), the reassembled answer or pretty JSON (text), the whole JSON, one "
                    "line per stream event, the headers, the bytes as text (raw) or a hexdump.",
    )
    p.add_argument("path", help="a snapshot (.json.gz/.json) or a v3 ledger (.jsonl)")
    p.add_argument("--op", required=True, metavar="OP_PATH", help="the op, by its path (e.g. 1-2, or 2-1.1-3)")
    p.add_argument("--side", choices=("request", "response"),
                   help="which side of the call (default: the response, else the request)")
    p.add_argument("--source", choices=("raw", "sdk"),
                   help="raw: the provider's HTTP bytes; sdk: ai-agent's own turn request/result (default: the first "
                        "readable one, raw first)")
    p.add_argument("--view", choices=VIEWS,
                   help="the view to print (default: messages for an LLM call, else the first the capture has)")
    add_sessions_dir(p)
    add_max_bytes(p)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from tui.cli.load import set_max_bytes
    from tui.model.search import find_op_by_path
    from tui.payloads.op_captures import capture_label, capture_message, op_captures

    set_max_bytes(args.max_bytes)
    doc, rc = load_or_fail(args.path, args.sessions_dir, needs_tree="", prog=PROG)
    if doc is None:
        return rc
    op = find_op_by_path(doc.root, args.op)
    if op is None:
        return fail(f"{args.path}: no op {args.op} (`{MONITOR} dump {args.path}` lists the ops and their paths)",
                    PROG)
    try:
        captures = op_captures(op)
    except Exception as exc:  # noqa: BLE001 - malformed input is said, not raised
        return fail(f"op {op.path}: cannot list its captures: {type(exc).__name__}: {exc}", PROG)
    index = pick(captures, args.side, args.source)
    if index is None:
        have = ", ".join(capture_label(c) for c in captures) or "none"
        return fail(f"op {op.path}: no capture{_wanted(args)} (its captures: {have})", PROG)
    capture = captures[index]
    if capture.state not in ("inline", "ref", "plain"):
        return fail(f"op {op.path} {capture_label(capture)}: {capture_message(capture)[0]}", PROG, code=1)
    lines, notes, problem = decoded_lines(captures, index, doc.sessions_dir, args.view)
    for note in notes:
        fail(f"note: {note}", PROG)
    if problem:
        return fail(f"op {op.path} {capture_label(capture)}: {problem}", PROG, code=1)
    return write_lines(lines)


def _wanted(args: argparse.Namespace) -> str:
    parts = [part for part in (args.side, args.source) if part]
    return f" {'/'.join(parts)}" if parts else ""


def pick(captures: list, side: str | None, source: str | None) -> int | None:
    """The capture the options name: of that side and source; the payload screen's default among them
    (tui.payloads.op_captures.default_capture: response first, readable first)."""
    from tui.payloads.op_captures import default_capture

    chosen = [i for i, c in enumerate(captures) if (side is None or c.side == side)
              and (source is None or c.source == source)]
    found = default_capture([captures[i] for i in chosen], side)
    return chosen[found] if found is not None else None


def decoded_lines(captures: list, index: int, sessions_dir, view: str | None) -> tuple[Sequence[str], list[str], str]:
    """(the view's lines, the decoder's notes, a problem): decoded as the payload screen decodes; the messages view
    needs the other side of the call too (the same source when there is one)."""
    from tui.payloads.decode import PayloadError
    from tui.payloads.messages import conversation_lines, conversation_of, is_llm_view
    from tui.payloads.op_captures import decode_with_notes, payload_views, usable

    capture = captures[index]
    try:
        decoded, notes = decode_with_notes(capture, sessions_dir)
        views = dict(payload_views(capture, decoded))
        if view in (None, "messages") and is_llm_view(decoded):
            other_side = "request" if capture.side == "response" else "response"
            partner = pick(captures, other_side, capture.source) or pick(captures, other_side, None)
            other = None
            if partner is not None and usable(captures[partner]):
                try:
                    other = decode_with_notes(captures[partner], sessions_dir)[0]
                except PayloadError:
                    other = None
            request, response = (decoded, other) if capture.side == "request" else (other, decoded)
            conv = conversation_of(request, response)
            if conv is not None:  # the system prompt in full, its heading without the screen's key hint
                laid = conversation_lines(conv, expand_system=True)
                lines = [line.removesuffix(EXPANDED_HINT) if i in laid.heads else line
                         for i, line in enumerate(laid.lines)]
                views = {"messages": lines, **views}
    except PayloadError as exc:
        return [], [], str(exc) or "payload cannot be read"
    except MemoryError:
        return [], [], "out of memory while decoding this payload"
    except Exception as exc:  # noqa: BLE001 - a decoder bug is one line, not a traceback
        return [], [], f"decoder error: {type(exc).__name__}: {exc}"
    name = view or next(iter(views))
    if name not in views:
        return [], notes, f"no {name} view (this capture has: {', '.join(views)})"
    return views[name], notes, ""


def write_lines(lines: Sequence[str]) -> int:
    """The lines on stdout; made inert when stdout is a terminal (payloads are untrusted text)."""
    from tui.model.fields import printable

    out = sys.stdout
    tty = out.isatty()
    try:
        for line in lines:
            text = printable(line) if tty else line
            out.buffer.write(text.encode("utf-8", "replace") + b"\n")
        out.flush()
    except BrokenPipeError:
        stdout_gone()
    return 0
