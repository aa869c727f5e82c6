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

import codecs
import json
import math
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


# one very big document, parsed while other threads keep the interpreter ----------------------------------------
SHARE_BYTES = 1 << 20  # smaller documents: orjson, whose whole parse is short (1 MB: ~3-9 ms by machine)
_DECODE_STEP = 1 << 20  # bytes decoded to text in one call
_I64_MIN, _U64_END = -(1 << 63), 1 << 64


def loads_sharing(data: bytes | bytearray | memoryview | str) -> object:
    """`loads` for a document that may be tens of MB, parsed in a thread while the UI thread waits to run: orjson
    holds the interpreter for its whole parse (a 52 MB tree frame: ~160 ms on a fast machine, ~450 ms on a slow
    one, the UI frozen meanwhile: the benchmark row "longest UI stall during the replay"). The standard library's
    parser with Python hooks lets the interpreter go at each object (every hook call is a point where another
    thread may take it): the longest hold ~7 ms, for ~1.3x orjson's time. Only documents both parsers read alike
    take that road: strict UTF-8 (decoded 1 MB at a time), no surrogate escape, no NaN or Infinity; integers out
    of 64 bits become floats and floats that overflow are refused, as orjson does. Anything else, and any error,
    is left to `loads`: its answer, its errors."""
    if len(data) < SHARE_BYTES:
        return loads(data)
    try:
        text = _text(data)
        if _HINT_STR.search(text) is not None:
            return loads(data)
        return _SHARING.decode(text)
    except (ValueError, ArithmeticError, RecursionError):
        return loads(data)


def _text(data: bytes | bytearray | memoryview | str) -> str:
    """The document as text, decoded in steps short enough to let the interpreter go between them."""
    if isinstance(data, str):
        return data
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    view = memoryview(data)
    parts = [decoder.decode(view[i:i + _DECODE_STEP]) for i in range(0, len(view), _DECODE_STEP)]
    parts.append(decoder.decode(b"", final=True))
    return "".join(parts)


def _object(value: dict) -> dict:
    return value


def _int(text: str) -> int | float:
    value = int(text)
    return value if _I64_MIN <= value < _U64_END else float(value)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError("number is infinity when parsed as double")
    return value


def _constant(text: str) -> object:
    raise ValueError(f"{text} is not JSON")


_SHARING = json.JSONDecoder(object_hook=_object, parse_int=_int, parse_float=_float, parse_constant=_constant)
