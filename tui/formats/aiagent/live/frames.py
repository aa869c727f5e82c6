"""The frames of the live stream read on their own: an op_tree frame's meta without its tree, an event's time,
its tree, its status line, and the bounded pending entries between two trees (tui.formats.aiagent.live.hub applies
them). Pure functions of one event: no hub state."""

from __future__ import annotations

from collections import deque

import orjson

from tui.formats.aiagent.live.session import LiveSession
from tui.inputs import json_load
from tui.model.fields import as_dict, as_list, as_str

BOM = "\ufeff"
TREE_EVENTS = {"op_tree", "snapshot"}
KNOWN_EVENTS = TREE_EVENTS | {
    "log", "accounting", "accounting_flush", "turn_started", "progress", "status", "output", "thinking",
    "final_report", "handoff",
}
STATUS_EVENTS = {"turn_started", "progress", "status", "accounting_flush", "final_report", "handoff"}
# Why frames were not applied, in the order they are listed on screen. "duplicate" frames repeat a
# (session, sequence) already applied; the others are broken, or refused before they were read.
REJECTIONS = ("malformed JSON", "not an object", "unknown type", "no session id", "no tree", "oversized",
              "truncated", "binary frame", "duplicate", "auth refused", "origin refused", "too many clients",
              "over memory budget")
# Refused clients and repeats, not broken frames: left out of the malformed count.
NOT_MALFORMED = frozenset({"duplicate", "auth refused", "origin refused", "too many clients", "over memory budget"})


_TREE_PREFIXES = ('{"type":"op_tree"', '{"type": "op_tree"')
_TREE_PREFIXES_B = tuple(p.encode() for p in _TREE_PREFIXES)


def tree_frame_meta(frame: bytes | str) -> dict | None:
    """The meta of an op_tree frame whose `type` comes first and `meta` last (as producers write them), read
    without parsing the tree; None for any other frame (it is parsed whole).

    A `"meta":` preceded by `{` or `,` is a key (quotes inside strings are escaped); what follows the last one
    parses as an object followed by exactly one `}` only when it is the top-level object's last key."""
    text = isinstance(frame, str)
    if not frame.startswith(_TREE_PREFIXES if text else _TREE_PREFIXES_B):
        return None
    key = '"meta":' if text else b'"meta":'
    at = frame.rfind(key)
    if at <= 0 or frame[at - 1:at].strip() not in (("{", ",", "") if text else (b"{", b",", b"")):
        return None
    tail = frame[at + len(key):].rstrip()
    if not tail.endswith("}" if text else b"}"):
        return None
    try:
        meta = json_load.loads(tail[:-1])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("sessionId"), str) or not meta["sessionId"]:
        return None
    return meta


def event_time(kind: str, event: dict, tree: dict | None) -> int:
    if tree is not None:
        stamps = [tree.get("startedAt"), tree.get("endedAt")]
        turns = as_list(tree.get("turns"))
        if turns and isinstance(turns[-1], dict):
            stamps.append(turns[-1].get("startedAt"))
            ops = as_list(turns[-1].get("ops"))
            if ops and isinstance(ops[-1], dict):
                stamps.extend([ops[-1].get("startedAt"), ops[-1].get("endedAt")])
    elif kind in ("log", "accounting"):
        stamps = [as_dict(event.get("entry")).get("timestamp")]
    elif kind in ("progress", "status"):
        stamps = [as_dict(event.get("event")).get("timestamp")]
    else:
        stamps = [as_dict(event.get("report")).get("ts"), as_dict(event.get("payload")).get("timestamp")]
    return max((int(v) for v in stamps if isinstance(v, (int, float)) and not isinstance(v, bool)), default=0)


def tree_of(event: dict) -> dict | None:
    if event.get("type") == "op_tree":
        tree = event.get("tree")
    else:
        payload = as_dict(event.get("payload"))
        tree = as_dict(payload.get("snapshot")).get("opTree")
    return tree if isinstance(tree, dict) else None


BROKEN = object()


def loads_without_bom(frame: bytes | str) -> object:
    """A frame that starts with a UTF-8 byte order mark (some encoders write one) parsed without it."""
    if isinstance(frame, str):
        stripped = frame[1:] if frame.startswith(BOM) else None
    else:
        stripped = frame[3:] if frame.startswith(b"\xef\xbb\xbf") else None
    if stripped is None:
        return BROKEN
    try:
        return json_load.loads(stripped)
    except orjson.JSONDecodeError:
        return BROKEN


def short_repr(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def drop_pending_before(live: LiveSession, sequence: int | None) -> None:
    """A new tree contains every log/accounting entry sent before it; keep only those sent after it."""
    for items in (live.pending_logs, live.pending_accounting):
        if sequence is None:
            items.clear()
            continue
        kept = [item for item in items if item[0] is not None and item[0] > sequence]
        if len(kept) != len(items):
            items.clear()
            items.extend(kept)


def add_pending(items: deque, sequence: int | None, entry: dict) -> bool:
    """Add (sequence, entry) in arrival order (O(1): late ones are put in place when shown);
    True when the bounded deque pushed its oldest entry out."""
    full = len(items) == items.maxlen
    items.append((sequence, entry))
    return full


def status_text(kind: str, event: dict, live: LiveSession) -> str:
    if kind == "turn_started":
        retry = " (retry)" if event.get("isRetry") else ""
        final = " (final turn)" if event.get("isFinalTurn") else ""
        return f"turn {event.get('turn')} started, attempt {event.get('attempt')}{retry}{final}"
    if kind in ("progress", "status"):
        return progress_text(as_dict(event.get("event")))
    if kind == "accounting_flush":
        return f"accounting flushed ({len(live.flushed)} entries)"
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
