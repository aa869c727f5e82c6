"""A body that is several JSON values in a row: NDJSON (Ollama), a JSON array cut off mid-stream (Gemini), or
values glued together. Returns the values and where each one sits in the text, so the events view can show each
as it was stored. Linear: one pass of orjson per line, else one pass of the stdlib's raw_decode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import orjson

from tui.inputs import json_load
_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


@dataclass(slots=True)
class JsonSequence:
    values: list[object] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of each value in the text
    tail: str = ""  # what could not be read at the end (a line cut short), "" when everything was JSON
    array: bool = False  # the values sat inside a `[` ... (an unfinished JSON array)


def json_sequence(text: str) -> JsonSequence | None:
    """The JSON values of `text` in order, or None when it does not start with one."""
    seq = _by_lines(text)
    if seq is not None:
        return seq
    return _by_raw_decode(text)


def _by_lines(text: str) -> JsonSequence | None:
    seq = JsonSequence()
    pos = 0
    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end]
        stripped = line.strip(_WS)
        if stripped:
            try:
                value = json_load.loads(stripped)
            except orjson.JSONDecodeError:
                return None
            start = pos + line.index(stripped[0])
            seq.values.append(value)
            seq.spans.append((start, start + len(stripped)))
        pos = end + 1
    return seq if seq.values else None


def _by_raw_decode(text: str) -> JsonSequence | None:
    seq = JsonSequence()
    n = len(text)
    pos = _skip(text, 0, "\ufeff" + _WS)
    if pos < n and text[pos] == "[":
        seq.array = True
        pos += 1
    while True:
        pos = _skip(text, pos, _WS + ",")
        if pos >= n:
            break
        if seq.array and text[pos] == "]":
            pos = _skip(text, pos + 1, _WS)
            if pos < n:
                seq.tail = text[pos:]
            break
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            seq.tail = text[pos:]
            break
        seq.values.append(value)
        seq.spans.append((pos, end))
        pos = end
    return seq if seq.values else None


def _skip(text: str, pos: int, chars: str) -> int:
    n = len(text)
    while pos < n and text[pos] in chars:
        pos += 1
    return pos
