"""Number and time formatting shared by the text dump and the screens."""

from __future__ import annotations

from datetime import datetime, timezone

import humanize


def fmt_duration(ms: int | float | None) -> str:
    if ms is None:
        return "-"
    if ms < 0:
        return f"{ms}ms"
    if ms < 1000:
        return f"{int(ms)}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, sec = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def fmt_tokens(n: int) -> str:
    if n < 10_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def fmt_cost(usd: float) -> str:
    return f"${usd:.4f}"


def fmt_known_cost(usd: float, known: int) -> str:
    """A sum of costs, or "-" when none of the summed sessions had one (a group of unpriced sessions is unknown,
    not free: $0.0000 there read as "cost nothing")."""
    return fmt_cost(usd) if known else "-"


def fmt_ts(ms: int | None, *, date: bool = True) -> str:
    if ms is None:
        return "-"
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return dt.strftime("%Y-%m-%d %H:%M:%S") if date else dt.strftime("%H:%M:%S.%f")[:-3]


def fmt_bytes(n: int | None) -> str:
    return "? B" if n is None else humanize.naturalsize(n, binary=True, format="%.1f")


def fmt_path(path: str, limit: int = 32) -> str:
    """An op path for a narrow place: deep ones (`1-1.1-1.….3-2`, 4 characters a level) keep their end."""
    if len(path) <= limit:
        return path
    tail = path[-(limit - 1):]
    dot = tail.find(".")
    if 0 <= dot < len(tail) - 1:
        tail = tail[dot + 1:]
    return "…" + tail
