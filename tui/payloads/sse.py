"""Server-sent events framing per the WHATWG rules: text in, events out (no meaning given to the data).

Lines end with CRLF, CR or LF; a line starting with `:` is a comment (keep-alives, `: OPENROUTER PROCESSING`);
`field: value` loses one leading space; several `data:` lines join with "\\n"; `id:` sticks to later events;
`retry:` and unknown fields are ignored. A blank line ends an event. Two departures, both because captures are
records, not live streams: an event that set only `event:` (no data) is kept so the events view shows it, and a
last event without its closing blank line is kept (captures end abruptly). The caller decodes the whole body once
(UTF-8 split across network chunks is a matter of bytes, already joined in the capture).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_EVENT_LINE = re.compile(r"(?m)^(?:event|data):")


@dataclass(slots=True)
class SseEvent:
    event: str
    data: str
    id: str = ""


def looks_like_sse(text: str) -> bool:
    """True when the first non-empty line is an SSE field (or a comment) and a `data:`/`event:` line follows."""
    head = text[:4096]
    for line in _LINE_SPLIT.split(head):
        s = line.strip()
        if not s:
            continue
        if s.startswith(("event:", "data:")):
            return True
        if s.startswith((":", "id:", "retry:")):
            return bool(_EVENT_LINE.search(head))
        return False
    return False


def parse_sse(text: str) -> list[SseEvent]:
    """The events of a stream, in order (see the module docstring for the rules)."""
    events: list[SseEvent] = []
    name = ""
    data: list[str] = []
    last_id = ""
    pending = False
    if text.startswith("\ufeff"):
        text = text[1:]
    for line in _LINE_SPLIT.split(text):
        if not line:
            if pending:
                events.append(SseEvent(name, "\n".join(data), last_id))
            name, data, pending = "", [], False
            continue
        if line[0] == ":":
            continue
        key, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if key == "data":
            data.append(value)
            pending = True
        elif key == "event":
            name = value
            pending = True
        elif key == "id":
            if "\x00" not in value:
                last_id = value
    if pending:
        events.append(SseEvent(name, "\n".join(data), last_id))
    return events
