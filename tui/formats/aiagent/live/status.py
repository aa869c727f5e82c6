"""A live session's status line, from the last status-bearing event it sent (turn_started, progress, status,
accounting_flush, final_report, handoff). Pure functions: the session writes the line only when it is read
(LiveSession.status_line), since most such events are replaced by a newer one before any screen shows them."""

from __future__ import annotations

from tui.model.fields import as_dict, as_str


def status_text(kind: str, event: dict, flushed: int) -> str:
    if kind == "turn_started":
        retry = " (retry)" if event.get("isRetry") else ""
        final = " (final turn)" if event.get("isFinalTurn") else ""
        return f"turn {event.get('turn')} started, attempt {event.get('attempt')}{retry}{final}"
    if kind in ("progress", "status"):
        return progress_text(as_dict(event.get("event")))
    if kind == "accounting_flush":
        return f"accounting flushed ({flushed} entries)"
    return f"{kind.replace('_', ' ')} received"


def progress_text(p: dict) -> str:
    kind = as_str(p.get("type"), "progress")
    who = as_str(p.get("agentId")) or as_str(p.get("callPath"))
    tool = as_dict(p.get("tool"))
    parts = [kind.replace("_", " ")]
    if who:
        parts.append(who)
    if tool.get("name"):
        parts.append(f"tool {as_str(tool.get('name'))}")
    for key in ("message", "status", "error"):
        value = p.get(key)
        if isinstance(value, str) and value:
            parts.append(value)
    return ": ".join(parts[:2]) + (" — " + " · ".join(parts[2:]) if len(parts) > 2 else "")
