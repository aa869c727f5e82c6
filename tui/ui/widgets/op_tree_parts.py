"""The opTree's plain parts: what a label is made of (OpTree.take_children relabels a node only when it differs), and
the widths of its right-hand columns."""

from __future__ import annotations

from tui.model.nodes import Op, Turn, failed_inside
from tui.model.session_facts import last_activity


def reads(data: object) -> tuple:
    """What a turn's label is made of: equal, the label reads the same. (Its failed ops and last activity (its
    known duration) are read only while it runs: an ended turn whose ops are as many as before is taken as
    unchanged, and counting them for 16,000 turns at each change was most of the time this takes.)"""
    if isinstance(data, Turn):
        ended = data.ended_at
        running = ended is None
        return (data.title, len(data.ops), data.started_at, ended, data.status, running and failed_inside(data),
                running and last_activity(data), len(data.extra_logs), len(data.problems), data.session.running)
    if isinstance(data, Op) and data.ended_at is not None:  # (a running op's duration grows: always relabelled)
        child = data.child
        return (data.status, data.ended_at, data.started_at, data.kind, data.target, data.child_agent, data.error,
                data.tokens_in, data.tokens_out, data.errors, data.warnings, data.cost, len(data.problems),
                data.child_ref is None, child is None, child is not None and len(child.problems),
                child is not None and len(child.turns), data.session.running)
    return (id(data),)


# The right-hand columns (status and reason, duration, cost): a tree narrower than COLUMNS_FROM cells shows whole
# labels instead; the name keeps at least NAME_SHARE of the width, the status column takes what is left up to its max.
DURATION_W, COST_W = 7, 8  # `12.3s+`, `1h02m`; `$0.4907`, `$12.3456`
STATUS_MIN, STATUS_MAX = 9, 40  # `● running`; `✗ FAILED 429 rate limit exceeded, retry…`
COLUMNS_FROM, NAME_MIN, NAME_SHARE = 36, 12, 0.4


def column_widths(width: int) -> tuple[int, int, int]:
    """(status, duration, cost) widths for a tree `width` cells wide; zeros: no columns (too narrow)."""
    if width < COLUMNS_FROM:
        return 0, 0, 0
    name = max(NAME_MIN, int(width * NAME_SHARE))
    status = max(STATUS_MIN, min(STATUS_MAX, width - DURATION_W - COST_W - 3 - name))
    return status, DURATION_W, COST_W


def columns_total(widths: tuple[int, int, int]) -> int:
    """Cells the columns take, a space before each."""
    return sum(widths) + len(widths) if widths[0] else 0


def fit(text: str, width: int) -> str:
    """Right-aligned in `width` cells, cut with `…` when longer (a cost is never shortened silently)."""
    return text.rjust(width) if len(text) <= width else text[: width - 1] + "…"
