"""Running or dead? The rule that tells a session still being written from one whose writer went away.

A session without an end is "running" only as long as something keeps happening to it: its file changes (a
snapshot rewritten, a ledger appended to) or its stream delivers events. After `stale_after` seconds of silence it
is shown as `stale`. Its duration is what is known either way, up to its last activity (tui.model.session_facts),
never a clock that keeps ticking from its start (5,000 hours for a process killed half a year ago).

Pure functions of times in seconds (wall clock) or milliseconds (session time): the browser rows, the summary line
and the Totals panel all ask these, so they never disagree. `--stale-after` sets the threshold for the process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RUNNING, STALE = "running", "stale"
STALE_AFTER_S = 600.0  # the default of --stale-after: 10 minutes without a change
_stale_after_s = STALE_AFTER_S

_SPAN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*", re.IGNORECASE)
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_span(text: str) -> float:
    """Seconds from `600`, `90s`, `10m`, `1.5h` or `2d` (the --stale-after syntax); 0 turns the rule off.

    Raises ValueError with a sentence a person can act on (argparse shows it as is)."""
    match = _SPAN.fullmatch(text or "")
    if match is None:
        raise ValueError(f"not a time span: {text!r} (examples: 600, 90s, 10m, 1h, 2d; 0 turns it off)")
    return float(match.group(1)) * _UNIT_S[(match.group(2) or "s").lower()]


def set_stale_after(seconds: float) -> None:
    """The process-wide threshold (the CLI sets it once, before the app starts); 0 or less: never stale."""
    global _stale_after_s
    _stale_after_s = float(seconds)


def stale_after() -> float:
    return _stale_after_s


def is_stale(status: str, last_change_s: float | None, now_s: float, stale_after_s: float | None = None) -> bool:
    """A running session whose file or stream has not changed for more than `stale_after_s` seconds.

    Only "running" goes stale: an ended session is what it is; an unknown last change never makes it stale."""
    limit = _stale_after_s if stale_after_s is None else stale_after_s
    return status == RUNNING and last_change_s is not None and limit > 0 and now_s - last_change_s > limit


def shown_status(status: str, last_change_s: float | None, now_s: float, stale_after_s: float | None = None) -> str:
    """The status to show: `stale` for a running session that went silent, else the status itself."""
    return STALE if is_stale(status, last_change_s, now_s, stale_after_s) else status


def humanize_age(seconds: float) -> str:
    """How long ago, in at most four characters: `12s`, `5m`, `3h`, `2d`, `180d`, `9y`. A time in the future
    (a clock skew between the writer and us) counts as now."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h"
    if s < 1000 * 86400:
        return f"{s // 86400}d"
    return f"{min(9999, s // (365 * 86400))}y"


@dataclass(frozen=True, slots=True)
class Liveness:
    """What to show for a session's status and duration at one moment."""

    status: str  # "running" | "stale" | "ok" | "failed" | ...
    duration_ms: int | None  # None: not known

    @property
    def stale(self) -> bool:
        return self.status == STALE


def liveness(status: str, duration_ms: int | None, *, last_change_s: float | None, now_s: float,
             stale_after_s: float | None = None) -> Liveness:
    """Status and duration of one session: the status as shown (`stale` for a running session gone silent) and
    its duration (tui.model.session_facts: the session's own when it ended, else up to its last activity; never a
    clock ticking from its start)."""
    return Liveness(shown_status(status, last_change_s, now_s, stale_after_s), duration_ms)
