"""JSON out of parsed documents of any depth: orjson stops at 255 levels (sub-agents ~50 deep), the stdlib not.
For a terminal, characters that would act on it rather than be shown are written as \\uXXXX escapes (the same JSON).
"""

from __future__ import annotations

import json
import re
import sys
from types import FrameType

import orjson

# Parsed documents are at most 1,024 levels deep (orjson's parse limit): the stdlib encoder needs about one frame
# of Python's recursion budget per level, so the fallback gets that much on top of the frames in use.
_FALLBACK_FRAMES = 1_200


def dumps(value: object, *, indent: bool = False) -> bytes:
    """orjson's output when it can; past its nesting limit the stdlib encoder's (same JSON, slower)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0, default=str)
    except orjson.JSONEncodeError:
        pass
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, _stack_depth() + _FALLBACK_FRAMES))
    try:
        text = json.dumps(value, indent=2 if indent else None, separators=None if indent else (",", ":"),
                          ensure_ascii=False, default=str)
    finally:
        sys.setrecursionlimit(before)
    return text.encode("utf-8", "surrogatepass")


def canonical(value: object) -> bytes:
    """One spelling of a parsed value whatever its key order (keys sorted at every level): two objects that mean
    the same give the same bytes, so they hash the same (accounting entries, tree blobs). Never raises: past
    orjson's 255 levels the stdlib writes it; what is not JSON (never from a parsed file) is written by repr."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=repr)
    except orjson.JSONEncodeError:
        pass
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, _stack_depth() + _FALLBACK_FRAMES))
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    finally:
        sys.setrecursionlimit(before)
    return text.encode("utf-8", "surrogatepass")


# What JSON may carry raw but a terminal would obey: DEL, the C1 controls (U+0080-U+009F: U+009B is CSI, an escape
# sequence in one character), bidi marks, embeddings, overrides and isolates (they reorder what follows), line and
# paragraph separators, and lone surrogates (the stdlib fallback writes them as invalid UTF-8). orjson and the
# stdlib already escape C0 controls.
_TERMINAL_UNSAFE = re.compile(
    b"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xed[\xa0-\xbf][\x80-\xbf]")


def _escaped(match: re.Match) -> bytes:
    raw = match.group()
    code = raw[0] if len(raw) == 1 else raw.decode("utf-8", "surrogatepass")
    return b"\\u%04x" % (code if isinstance(code, int) else ord(code))


def terminal_safe(data: bytes) -> bytes:
    """`data` (UTF-8 JSON) with every character a terminal would act on written as a \\uXXXX escape; they only
    occur inside strings, so the JSON means the same."""
    return _TERMINAL_UNSAFE.sub(_escaped, data) if _TERMINAL_UNSAFE.search(data) else data


def dumps_for(stream, value: object, *, indent: bool = False) -> bytes:
    """dumps() for writing to `stream`: made terminal_safe when the stream is a terminal."""
    data = dumps(value, indent=indent)
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    return terminal_safe(data) if tty else data


def _stack_depth() -> int:
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
