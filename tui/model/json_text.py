"""JSON out of parsed documents of any depth: orjson stops at 255 levels (sub-agents ~50 deep), the stdlib not."""

from __future__ import annotations

import json

import orjson


def dumps(value: object, *, indent: bool = False) -> bytes:
    """orjson's output when it can; past its nesting limit the stdlib encoder's (same JSON, slower)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0, default=str)
    except orjson.JSONEncodeError:
        text = json.dumps(value, indent=2 if indent else None, separators=None if indent else (",", ":"),
                          ensure_ascii=False, default=str)
        return text.encode("utf-8", "surrogatepass")
