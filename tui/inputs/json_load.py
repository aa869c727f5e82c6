"""The one JSON parser every reader uses (files, ledger lines, live events, payload bodies).

ai-agent truncates long strings, and Node's `JSON.stringify` writes a string cut inside an emoji as a lone
surrogate escape (`"\\ud83d"`): valid JSON that orjson refuses ("no low surrogate in string"). Refusing it would
make a whole snapshot "invalid JSON", drop a live event, or lose a ledger turn with its ops and tokens. So:
orjson first, at full speed and with no pre-scan; only when it fails, and only if the text holds a surrogate
escape, every lone surrogate escape becomes `\\ufffd` (U+FFFD, the replacement character: the broken character
shows as such) and orjson tries again. A valid high+low pair still decodes to its emoji, and an escaped backslash
before `u` (`"\\\\ud83d"`) is text, not an escape. The replacement keeps every escape's length (six characters),
so the positions an error message gives stay right.
"""

from __future__ import annotations

import re

import orjson

JSONDecodeError = orjson.JSONDecodeError

_HINT = re.compile(rb"\\u[dD][89a-fA-F]")
_HINT_STR = re.compile(r"\\u[dD][89a-fA-F]")
# Left to right, an escaped backslash is consumed whole, so it is never taken for the start of `\u`; other
# escapes (`\n`, `\"`, `\u0041`) cannot be mistaken for one and are left to the scan, which is why they are not
# matched (a match costs a Python call).
_ESCAPE = (rb"\\(?:(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"  # a high+low pair: kept
           rb"|(u[dD][89a-fA-F][0-9a-fA-F]{2})"  # any other surrogate escape: lone
           rb"|\\)")  # an escaped backslash: kept
_ESCAPES = re.compile(_ESCAPE, re.DOTALL)
_ESCAPES_STR = re.compile(_ESCAPE.decode("ascii"), re.DOTALL)


def loads(data: bytes | bytearray | memoryview | str) -> object:
    """orjson.loads that also reads lone surrogate escapes (as U+FFFD). Raises orjson.JSONDecodeError."""
    try:
        return orjson.loads(data)
    except JSONDecodeError:
        fixed = without_lone_surrogates(data)
        if fixed is None:
            raise
    return orjson.loads(fixed)  # still broken for another reason: that error (at the same position) is raised


def without_lone_surrogates(data: bytes | bytearray | memoryview | str) -> bytes | str | None:
    """`data` with each lone surrogate escape replaced by `\\ufffd`; None when it holds no surrogate escape."""
    if isinstance(data, str):
        if _HINT_STR.search(data) is None:
            return None
        return _ESCAPES_STR.sub(_fix_str, data)
    if isinstance(data, memoryview):
        data = data.tobytes()
    if _HINT.search(data) is None:
        return None
    return _ESCAPES.sub(_fix, data)


def _fix(match: re.Match) -> bytes:
    return b"\\ufffd" if match.group(2) is not None else match.group(0)


def _fix_str(match: re.Match) -> str:
    return "\\ufffd" if match.group(2) is not None else match.group(0)
