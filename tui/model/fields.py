"""Defensive field access: real files carry wrong types anywhere, so every read is typed here."""

from __future__ import annotations

import re
from datetime import datetime

_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x00, 0x20)) + [0x7F] if c not in (0x09,)}
_CONTROL.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
# Bidi embeddings, overrides and isolates reorder what follows them on screen (a "Trojan Source" title could
# read as something else); line/paragraph separators break lines in some terminals. Shown as \uXXXX.
_INVISIBLE = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029)
_CONTROL.update({c: f"\\u{c:04x}" for c in _INVISIBLE})
_UNSAFE = re.compile("[" + "".join(f"\\u{c:04x}" for c in sorted(_CONTROL)) + "]")
_UNSAFE_KEEP_NL = re.compile("[" + "".join(f"\\u{c:04x}" for c in sorted(_CONTROL) if c != 0x0A) + "]")

_CONTROL_KEEP_NL = {k: v for k, v in _CONTROL.items() if k != 0x0A}


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


# orjson reads integers past 64 bits as floats (1e29): int() of those makes integers no JSON writer takes back.
_INT_LIMIT = 2.0**63
# datetime's range (years 1 to 9999): a "time" outside it cannot be shown, so it is not a time.
MS_LIMIT = 253_402_300_800_000  # (a time ms_field takes as is: an int strictly within ±MS_LIMIT)


def as_int(value: object, default: int = 0) -> int:
    """Integers and integral floats within 64 bits count; booleans, strings, NaN and 1e29 do not."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) < _INT_LIMIT:
        return int(value)
    return default


def as_num(value: object, default: float = 0.0) -> float:
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)) and value == value and abs(value) != float("inf"):
        return float(value)
    return default


def as_opt_bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def as_ms(value: object) -> int | None:
    """A timestamp in ms since the epoch: a number, or an ISO-8601 string (v3 ledgers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if value != value or abs(value) >= MS_LIMIT:
            return None
        return int(value)
    if isinstance(value, str) and value:
        try:
            text = value[:-1] + "+00:00" if value.endswith("Z") else value
            return int(datetime.fromisoformat(text).timestamp() * 1000)
        except ValueError:
            return None
    return None


def type_name(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )


def printable(text: str, keep_newlines: bool = False) -> str:
    """Make untrusted text inert for a terminal: control characters become visible \\xNN escapes, bidi controls
    \\uXXXX. Text with nothing to escape (nearly all of it) is returned as is, after one regex scan."""
    if keep_newlines:
        return text.translate(_CONTROL_KEEP_NL) if _UNSAFE_KEEP_NL.search(text) else text
    return text.translate(_CONTROL) if _UNSAFE.search(text) else text


def one_line(text: str, limit: int = 200) -> str:
    # A tab would expand to the next tab stop wherever the line starts: inside an indented tree label that
    # misplaces everything after it. One space, like a line break.
    flat = printable(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _shown(value: object) -> str:
    text = repr(value) if isinstance(value, str) else type_name(value)
    return one_line(text, 40)


def str_field(node: dict, key: str, problems: list[str]) -> str:
    """node[key] when it is a string; anything else but null is noted in `problems` and read as ""."""
    value = node.get(key)
    if isinstance(value, str):
        return value
    if value is not None:
        problems.append(f"{key} is {type_name(value)}, expected a string")
    return ""


def ms_field(node: dict, key: str, problems: list[str]) -> int | None:
    """node[key] as ms since the epoch (see as_ms); a value that is not a time is noted in `problems`."""
    return ms_value(node.get(key), key, problems)


def ms_value(value: object, key: str, problems: list[str]) -> int | None:
    """ms_field of a value read already (`key`: its name in the problem)."""
    if type(value) is int and -MS_LIMIT < value < MS_LIMIT:  # nearly every time: as_ms's answer, no call
        return value
    ms = as_ms(value)
    if ms is None and value is not None:
        problems.append(f"{key} is {_shown(value)}, expected a time (ms since the epoch)")
    return ms
