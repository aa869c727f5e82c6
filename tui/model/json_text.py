"""JSON out of parsed documents of any depth: orjson stops at 255 levels (sub-agents ~50 deep), the stdlib not."""

from __future__ import annotations

import json
import sys

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


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
