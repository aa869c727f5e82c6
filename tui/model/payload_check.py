"""Which captured payloads of an op cannot be read, and why (for `dump --payloads`): bytes only, no decoding."""

from __future__ import annotations

import os

from tui.model.decode import PayloadError, capture_bytes
from tui.model.op_captures import op_captures
from tui.model.payload_refs import read_ref_checked
from tui.model.nodes import Op

_PRODUCER_FLAGS = frozenset({"truncated by producer", "redacted by producer"})


def payload_problems(op: Op, sessions_dir: str | os.PathLike | None) -> list[str]:
    """One line per capture that is broken (invalid, unavailable, unreadable) or fails an integrity check."""
    out: list[str] = []
    for c in op_captures(op):
        label = f"payload {c.side}/{c.source}"
        if c.state in ("unavailable", "invalid"):
            out.append(f"{label}: {c.note or c.state}")
            continue
        if c.state == "not_captured":
            continue  # the producer chose not to store it: not a fault of the file
        try:
            if c.state == "ref":
                _, warnings = read_ref_checked(c.ref, sessions_dir)
                out.extend(f"{label}: {w}" for w in warnings if w not in _PRODUCER_FLAGS)
            else:
                capture_bytes(c, sessions_dir)
        except PayloadError as exc:
            out.append(f"{label}: cannot read: {exc}")
        except MemoryError:
            out.append(f"{label}: cannot read: out of memory")
    return out
