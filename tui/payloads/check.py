"""What each captured payload of an op holds, for `dump --payloads`: one line per capture.

Lines that need a look (unreadable, errors mid-stream, dialect unknown) are printed with `!` by the tree; lines
that only name what a capture is start with "· ".

A capture that cannot be read says why (invalid, `[unavailable]` — the producer's capture bug —, unreadable, an
integrity warning). A readable LLM capture (raw or sdk) is decoded and named: its format, the dialect it speaks
(`Anthropic Messages stream`, `Ollama /api/chat stream`, `OpenAI Chat Completions request`...), the errors met
mid-stream, a prompt the provider refused and why (`prompt blocked: SAFETY (...)`), or `stream dialect unknown`. Plain payload summaries and tool parameters are not listed: they are
the op's own fields, already in the dump.
"""

from __future__ import annotations

import os
from typing import cast

from tui.model.nodes import Op
from tui.payloads.decode import PayloadError, capture_bytes, decode_bytes, placeholder_note, sdk_side
from tui.payloads import aiagent_turn
from tui.payloads.op_captures import op_captures, reassembled_meta
from tui.payloads.refs import read_ref_checked

_PRODUCER_FLAGS = frozenset({"truncated by producer", "redacted by producer"})
_MAX_ERRORS_SHOWN = 2


def payload_problems(op: Op, sessions_dir: str | os.PathLike | None) -> list[str]:
    """One line per capture: what it is (format · dialect · errors), or why it cannot be read."""
    out: list[str] = []
    for c in op_captures(op):
        label = f"payload {c.side}/{c.source}"
        if c.state in ("unavailable", "invalid"):
            out.append(f"{label}: {c.note or c.state}")
            continue
        if c.state == "not_captured":
            continue  # the producer chose not to store it: not a fault of the file
        try:
            warnings: list[str] = []
            if c.state == "ref":
                data, warnings = read_ref_checked(cast(dict, c.ref), sessions_dir)  # (a ref capture holds its ref)
                out.extend(f"{label}: {w}" for w in warnings if w not in _PRODUCER_FLAGS)
            else:
                data = capture_bytes(c, sessions_dir)
        except PayloadError as exc:
            out.append(f"{label}: cannot read: {exc}")
            continue
        except MemoryError:
            out.append(f"{label}: cannot read: out of memory")
            continue
        if c.source == "payload" or (op.kind != "llm" and c.source != "sdk"):
            continue
        note = placeholder_note(data)
        if note:
            out.append(f"{label}: {note}")
            continue
        line, fine = describe(data, c.format, sdk_side(c))
        out.append(f"{'' if not fine else '· '}{label}: {line}")
    return out


def describe(data: bytes, fmt: str, sdk: str = "") -> tuple[str, bool]:
    """(`sse · Anthropic Messages stream · 1 error mid-stream: overloaded_error: Overloaded`, all fine?); `sdk`: the
    side of an ai-agent `sdk` capture (its turn request or result, never a provider's body)."""
    view = decode_bytes(data, fmt, sdk)
    kind = view.kind if view.kind != "http" else f"http {view.body_kind or 'empty'}"
    parts = [fmt or kind] if fmt == view.kind or not fmt else [f"{fmt} ({kind})"]
    r = view.reassembled
    turn_result = r is not None and r.dialect == aiagent_turn.DIALECT  # its status, model, stop, cost: one line
    dialect = reassembled_meta(r) if r is not None and turn_result else view.dialect_line
    if dialect:
        parts.append(dialect)
    if r is not None and r.provider and not turn_result:  # a router's answer (OpenRouter): where it was routed
        parts.append(f"via {r.provider[:80]}")
    if r is not None and r.blocked:  # the provider refused the prompt (Gemini): why, as it said
        parts.append(r.blocked[:300])
    if r is not None and r.errors:
        shown = "; ".join(e[:200] for e in r.errors[:_MAX_ERRORS_SHOWN])
        more = f" (+{len(r.errors) - _MAX_ERRORS_SHOWN} more)" if len(r.errors) > _MAX_ERRORS_SHOWN else ""
        where = "mid-stream" if r.streamed else "in the result" if turn_result else "in the response"
        parts.append(f"{len(r.errors)} error{'s' if len(r.errors) != 1 else ''} {where}: {shown}{more}")
    bad = [n for n in view.notes if n.startswith(("body is not valid JSON", "no SSE events", "the last ",
                                                  "JSON array not closed", "invalid UTF-8", "eventstream"))]
    parts.extend(bad)
    fine = not bad and not (r is not None and (r.errors or r.dialect == "unknown"))
    return " · ".join(parts), fine
