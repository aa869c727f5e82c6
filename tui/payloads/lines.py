"""Plain lines shared by the payload views (pure): payload text split on LF only, a tool's JSON arguments
pretty-printed, and one message part laid out. The messages view (`tui.payloads.messages`) and the text view of an
ai-agent turn request (`tui.payloads.aiagent_turn`) lay out parts the same way, so they read the same.
"""

from __future__ import annotations

import json

from tui.inputs import json_load
from tui.payloads.message_readers import Part

__all__ = ["SECTION_PREFIX", "json_lines", "part_lines", "split_lines"]

SECTION_PREFIX = "── "  # lines starting with this are section headings (the widget may style them)


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


def json_lines(text: str) -> list[str]:
    """Tool arguments pretty-printed when they are JSON, else as sent."""
    t = text.strip()
    if t[:1] in ("{", "["):
        try:
            return split_lines(json.dumps(json_load.loads(t), indent=2, ensure_ascii=False))
        except (ValueError, TypeError, RecursionError):
            pass
    return split_lines(text) or ["(no arguments)"]


def part_lines(p: Part, names: dict[str, str]) -> list[str]:
    """One part of a message; `names` maps tool call ids to tool names (a result names the call it answers)."""
    if p.kind == "text":
        return split_lines(p.text) or ["(empty text)"]
    if p.kind in ("thinking", "compaction"):
        head = "· thinking" if p.kind == "thinking" else "· compaction summary"
        return [head, *(f"  {ln}" for ln in split_lines(p.text) or ["(empty)"])]
    if p.kind == "refusal":
        return ["· refusal", *split_lines(p.text)]
    if p.kind == "tool_call":
        ident = f"  [{p.call_id}]" if p.call_id else ""
        return [f"→ tool call {p.name or '(unnamed)'}{ident}", *(f"  {ln}" for ln in json_lines(p.text))]
    if p.kind == "tool_result":
        name = p.name or names.get(p.call_id, "")
        what = " ".join(x for x in (name, f"[{p.call_id}]" if p.call_id else "") if x)
        head = f"← tool result{' ' + what if what else ''}{' (error)' if p.error else ''}"
        return [head, *(f"  {ln}" for ln in split_lines(p.text) or ["(empty)"])]
    if p.kind == "media":
        return [p.text]
    label = f"[{p.name}] " if p.name else ""
    return [f"{label}{ln}" for ln in split_lines(p.text)] or [label.strip() or "(empty part)"]
