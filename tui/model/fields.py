"""Defensive field access: real files carry wrong types anywhere, so every read is typed here."""

from __future__ import annotations

from datetime import datetime

_CONTROL = {c: f"\\x{c:02x}" for c in list(range(0x00, 0x20)) + [0x7F] if c not in (0x09,)}
_CONTROL.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})

_CONTROL_KEEP_NL = {k: v for k, v in _CONTROL.items() if k != 0x0A}


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def as_opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: object, default: int = 0) -> int:
    """Integers and integral floats count; booleans, strings and NaN do not."""
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
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
        if value != value or abs(value) == float("inf"):
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
    """Make untrusted text inert for a terminal: control characters become visible \\xNN escapes."""
    return text.translate(_CONTROL_KEEP_NL if keep_newlines else _CONTROL)


def one_line(text: str, limit: int = 200) -> str:
    flat = printable(text.replace("\r\n", " ").replace("\n", " "))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
