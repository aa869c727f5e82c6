"""Time of generated sessions: the default epoch and ISO-8601 millisecond timestamps."""

from __future__ import annotations

import time

# Default epoch for generated sessions: 2026-04-01T00:00:00Z (+ up to 60 days, seeded).
_BASE_MS = 1_775_001_600_000


def _iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"
