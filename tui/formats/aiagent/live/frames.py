"""The frames of the live stream read on their own: an op_tree frame's meta without its tree, an event's time,
its tree, its status line, and the bounded pending entries between two trees (tui.formats.aiagent.live.hub applies
them). Pure functions of one event: no hub state."""

from __future__ import annotations

import re
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
# ... and whose tree comes next and is an object (any other shape is parsed at once, and refused if it must be)
_TREE_START = re.compile(r'\{"type":\s*"op_tree",\s*"tree":\s*\{')
_TREE_START_B = re.compile(_TREE_START.pattern.encode())


def tree_frame_meta(frame: bytes | str) -> dict | None:
    """The meta of an op_tree frame whose `type` comes first, then its tree, and `meta` last (as producers write
    them), read without parsing the tree; None for any other frame (it is parsed whole).

    The hub's one speed trick on input (LiveHub.feed): such a frame is counted and ordered at once and parsed only
    when its session is built, so of the trees a session sends between two batches only the newest is ever parsed
    (a producer sends its whole tree again and again). It wins the "Live" rows of tests/benchmarks/README.md:
    `replay --speed 0` of the 20,000-op session (its trees are 99% of the 1.3 GB) and the mixed small-event load.

    A `"meta":` preceded by `{` or `,` is a key (quotes inside strings are escaped); what follows the last one
    parses as an object followed by exactly one `}` only when it is the top-level object's last key."""
    text = isinstance(frame, str)
    if not frame.startswith(_TREE_PREFIXES if text else _TREE_PREFIXES_B):
        return None
    if (_TREE_START if text else _TREE_START_B).match(frame) is None:  # type: ignore[arg-type]
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


_STAMPED = {"log": "entry", "accounting": "entry", "progress": "event", "status": "event"}


def event_time(kind: str, event: dict, tree: dict | None) -> int:
    """The newest timestamp an event carries (ms; 0 when none)."""
    if tree is None:
        holder = _STAMPED.get(kind)
        if holder is not None:  # (most events: one stamp, read without building a list)
            inner = event.get(holder)
            stamp = inner.get("timestamp") if inner.__class__ is dict else None
            if stamp.__class__ is int:
                return stamp
        elif "report" not in event and "payload" not in event:
            return 0  # (output, thinking, turn_started...: nothing stamped to look at)
    return _event_time(kind, event, tree)


def _event_time(kind: str, event: dict, tree: dict | None) -> int:
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


_STATUS_FROM_EVENT = {"turn_started", "progress", "status"}  # (the others' lines do not need the event kept)


def take(live: LiveSession, kind: str, event: dict, tree: dict | None, sequence: int | None, late: bool,
     deferred: bytes | str | None) -> None:
    """What an accepted event brings to its session, by kind."""
    if kind in TREE_EVENTS:
        newest = max((n for n in (live.tree_sequence, live.tree_frame_sequence) if n is not None), default=None)
        if not (late and newest is not None and sequence is not None and sequence < newest):
            # (an older tree than the one held has nothing the newer one lacks)
            if deferred is not None:
                live.tree_frame, live.tree_frame_sequence = deferred, sequence
                # Pending logs and accounting are dropped once this frame parses (_settle_frame).
            else:
                live.tree, live.tree_frame, live.tree_frame_sequence = tree, None, None
                live.tree_sequence = sequence
                drop_pending_before(live, sequence)
    elif kind in ("log", "accounting"):
        entry = event.get("entry")
        in_tree = sequence is not None and live.tree_sequence is not None and sequence < live.tree_sequence
        if isinstance(entry, dict) and not in_tree:  # a late entry the tree held already contains
            if kind == "log":
                if add_pending(live.pending_logs, sequence, entry):
                    live.dropped_logs += 1
            elif add_pending(live.pending_accounting, sequence, entry):
                live.dropped_accounting += 1
    elif kind in ("output", "thinking"):
        text = event.get("text")
        if isinstance(text, str):
            (live.output_text if kind == "output" else live.thinking_text).add(text, sequence)
    elif kind == "accounting_flush":
        # A flush holds the session's whole tree, sub-agents included, and may come again: each entry once.
        for entry in as_list(as_dict(event.get("payload")).get("entries")):
            live.flushed.first(entry)
    elif kind in ("final_report", "handoff"):
        report = event.get("report")
        live.final_report = report if isinstance(report, dict) else {"content": report}
    older_status = late and live.status_sequence is not None and sequence is not None \
        and sequence < live.status_sequence
    if kind in STATUS_EVENTS and not older_status:
        live.set_status(kind, event if kind in _STATUS_FROM_EVENT else {})
        live.status_sequence = sequence
