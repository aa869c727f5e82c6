"""A Genkit snapshot's state as the tree shows it: its messages, what a turn added, a message or part as one line
of text, what changed between two states, and whether the id is the state's content address. Split from
tui.formats.genkit.snapshot (reading a store); tui.formats.genkit.tree uses these.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import orjson

from tui.model.fields import as_dict, as_list, as_str, one_line

if TYPE_CHECKING:
    from tui.formats.genkit.snapshot import Snapshot


def messages(state: object) -> list:
    return as_list(as_dict(state).get("messages"))


def added_messages(before: list, after: list) -> list:
    """The messages `after` holds beyond `before` (all of them when the history was rewritten). The session
    runner writes each snapshot's id into the last message's `metadata.snapshotId` after saving it, so the next
    snapshot holds that earlier message with one more metadata key: not a rewrite."""
    if len(after) < len(before):
        return after
    for old, new in zip(before, after):
        if old != new and _without_snapshot_id(old) != _without_snapshot_id(new):
            return after
    return after[len(before):]


def _without_snapshot_id(message: object) -> object:
    if not isinstance(message, dict) or not isinstance(message.get("metadata"), dict):
        return message
    meta = {k: v for k, v in message["metadata"].items() if k != "snapshotId"}
    out = {k: v for k, v in message.items() if k != "metadata"}
    if meta:
        out["metadata"] = meta
    return out


def message_text(message: object) -> str:
    """`role: text` of a Genkit ai.Message ({role, content: [{text}...]}), or of a plain {role, text} dict."""
    if isinstance(message, str):
        return message
    m = as_dict(message)
    role = as_str(m.get("role"))
    content = m.get("content")
    if isinstance(content, str):
        text = content
    else:
        parts = [part_text(part) for part in as_list(content)]
        text = " ".join(p for p in parts if p) or as_str(m.get("text"))
    return f"{role}: {text}" if role else text


ARGUMENTS_SHOWN = 200


def part_text(part: object) -> str:
    """One ai.Part as text: text, reasoning, a tool request with its input, a tool response with its output,
    media, data, a resource, custom."""
    p = as_dict(part)
    if isinstance(p.get("text"), str):
        return p["text"]
    if isinstance(p.get("reasoning"), str):
        return f"[reasoning] {p['reasoning']}"
    request = p.get("toolRequest")
    if isinstance(request, dict):
        ref = as_str(request.get("ref"))
        return (f"[tool request {as_str(request.get('name'))}{' #' + ref if ref else ''}"
                f"{_json_tail(request.get('input'))}]")
    response = p.get("toolResponse")
    if isinstance(response, dict):
        ref = as_str(response.get("ref"))
        return (f"[tool response {as_str(response.get('name'))}{' #' + ref if ref else ''}"
                f"{_json_tail(response.get('output'))}]")
    media = p.get("media")
    if isinstance(media, dict):
        url = as_str(media.get("url"))
        shown = url if not url.startswith("data:") else f"data URL, {len(url):,} chars"
        return f"[media {as_str(media.get('contentType')) or '?'} {one_line(shown, 80)}]"
    if "data" in p:
        return f"[data{_json_tail(p.get('data'))}]"
    if isinstance(p.get("resource"), dict):
        return f"[resource {as_str(p['resource'].get('uri'))}]"
    if "custom" in p:
        return f"[custom{_json_tail(p.get('custom'))}]"
    return ""


def _json_tail(value: object) -> str:
    if value is None:
        return ""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        text = repr(value)
    return " " + one_line(text, ARGUMENTS_SHOWN)


def state_changes(state: object, parent_state: object) -> list[str]:
    """Top-level keys added, removed or changed since the parent snapshot; message counts when both have them."""
    if not isinstance(state, dict) or not isinstance(parent_state, dict):
        return [] if state == parent_state else ["state replaced"]
    out = []
    for key in state:
        if key not in parent_state:
            out.append(f"+{key}")
        elif state[key] != parent_state[key]:
            before, after = parent_state[key], state[key]
            if isinstance(before, list) and isinstance(after, list) and len(after) != len(before):
                out.append(f"{key} {len(before)}→{len(after)}")
            else:
                out.append(f"~{key}")
    out.extend(f"-{key}" for key in parent_state if key not in state)
    return out


def content_address_matches(s: Snapshot) -> bool:
    """The id is documented as SHA256 of the JSON state; Go's serialisation may differ in spacing or order."""
    try:
        return hashlib.sha256(orjson.dumps(s.state)).hexdigest() == s.id
    except TypeError:
        return False
