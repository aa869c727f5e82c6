"""Absurd numbers in one session file: clamped, and the row flagged suspect, so that one file cannot break the
sessions index, stats or the browser for every session (issue 28).

A token count of 2^63 does not fit SQLite's INTEGER (the index's write of a whole batch failed, and the browser
dropped the index), costs of 1e308 sum to inf (stats then print `null` or fail), a start in year 9999 is past what
dates can step through, a negative cost makes totals lie, a 10^300 token count prints 300 digits. No real session
comes near these bounds: a quadrillion tokens, a million dollars, a start after 2200 or before 1970, a run of ten
years. A value past them is clamped to the bound (negative counts and costs to 0; a cost that is not a number, and
a start out of range, to unknown) and the row's `suspect` says which values were, so the browser and stats show
the session as suspect rather than as its file claims.
"""

from __future__ import annotations

import math

MAX_TOKENS = 10 ** 15
MAX_COST_USD = 1_000_000.0
MAX_COUNT = 10 ** 9  # turns, failed ops
MAX_START_MS = 7_258_118_400_000  # 2200-01-01T00:00:00Z
MAX_DURATION_MS = 10 * 366 * 86_400_000


def shown(value: object) -> str:
    """A number as a reason quotes it: short, whatever its size (a 10^300 int has no short decimal form)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return type(value).__name__
    if isinstance(value, int) and abs(value) >= 10 ** 18:
        return f"~2^{value.bit_length() - 1}" if value > 0 else f"-~2^{value.bit_length() - 1}"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def count(value: object, limit: int, name: str, reasons: list[str]) -> int | None:
    """A count (tokens, turns) within [0, limit]; None stays None; anything else is clamped, with a reason."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        reasons.append(f"{name} {shown(value)}")
        return None
    if 0 <= value <= limit:
        return int(value)
    reasons.append(f"{name} {shown(value)}")
    return 0 if value < 0 else limit


def cost(value: object, reasons: list[str]) -> float | None:
    """A cost in USD within [0, MAX_COST_USD]; not a finite number: unknown (None), with a reason."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        reasons.append(f"cost {shown(value)}")
        return None
    number = float(value) if not isinstance(value, int) or abs(value) < 10 ** 300 else math.inf
    if not math.isfinite(number):
        reasons.append(f"cost {shown(value)}")
        return None
    if 0 <= number <= MAX_COST_USD:
        return number
    reasons.append(f"cost {shown(value)}")
    return 0.0 if number < 0 else MAX_COST_USD


def start(value: object, reasons: list[str]) -> int | None:
    """A start time in ms since the epoch within [1970, 2200); outside: unknown (None), with a reason."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_START_MS:
        return value
    reasons.append(f"start {shown(value)}")
    return None


def sane_row(row) -> None:
    """Clamp a row's (tui.catalog.session_row.SessionRow) numbers in place and set its `suspect` to why."""
    reasons: list[str] = []
    row.started_at = start(row.started_at, reasons)
    row.duration_ms = count(row.duration_ms, MAX_DURATION_MS, "duration", reasons)
    row.turns = count(row.turns, MAX_COUNT, "turns", reasons)
    row.tokens = count(row.tokens, 2 * MAX_TOKENS, "tokens", reasons)
    row.cost = cost(row.cost, reasons)
    row.suspect = suspect_text(reasons)


def sane_record(record: dict, reasons: list[str]) -> None:
    """Clamp the index-only numbers of a `sessions` record (tui.catalog.index.indexer) in place; why into
    `reasons`."""
    for name in ("tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write"):
        record[name] = count(record.get(name), MAX_TOKENS, name.replace("_", " "), reasons)
    record["failed_ops"] = count(record.get("failed_ops"), MAX_COUNT, "failed ops", reasons) or 0


SUSPECT_HEAD = "absurd numbers, clamped: "


def suspect_text(reasons: list[str]) -> str:
    """The `suspect` of a row: "" when every number was sane."""
    return (SUSPECT_HEAD + ", ".join(dict.fromkeys(reasons)))[:300] if reasons else ""
