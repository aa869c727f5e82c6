"""Session totals recomputed the way the producer does (``compute_totals``)."""

from __future__ import annotations

import math

from tui.model.totals import TOTAL_KEYS

__all__ = ["TOTALS_KEYS", "compute_totals"]

TOTALS_KEYS = TOTAL_KEYS  # the SessionNode totals keys: one definition, tui.model.totals


def compute_totals(node: dict) -> dict:
    """Recompute a SessionNode's totals exactly like the producer (plus step ops, for v2 trees).

    Visits every session (root included: ``agentsRun += 1``), the ops of every turn and every step; a ``tool``
    op adds 1 to ``toolsRun``; every ``llm`` accounting entry adds its tokens and cost (cache read =
    ``cacheReadInputTokens`` if not None, else ``cachedTokens``); ``session`` ops recurse into ``childSession``.
    ``costUsd`` is rounded to 4 decimals.
    """
    tin = tout = tcr = tcw = tools = 0
    agents = 1
    cost = 0.0
    # depth first in op order, a sub-agent right after its op: costs are floats, and the producer's order of
    # additions decides how the sum rounds
    stack = [_ops(node)]
    while stack:
        o = next(stack[-1], None)
        if o is None:
            stack.pop()
            continue
        kind = o.get("kind")
        if kind == "tool":
            tools += 1
        acc = o.get("accounting")
        if isinstance(acc, list):
            for a in acc:
                if not isinstance(a, dict) or a.get("type") != "llm":
                    continue
                tk = a.get("tokens")
                if not isinstance(tk, dict):
                    tk = {}
                tin += _count(tk.get("inputTokens"))
                tout += _count(tk.get("outputTokens"))
                cr = tk.get("cacheReadInputTokens")
                if cr is None:
                    cr = tk.get("cachedTokens")
                tcr += _count(cr)
                tcw += _count(tk.get("cacheWriteInputTokens"))
                c = a.get("costUsd")
                if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c):
                    cost += c
        child = o.get("childSession")
        if kind == "session" and isinstance(child, dict):
            agents += 1
            stack.append(_ops(child))
    return {
        "tokensIn": tin,
        "tokensOut": tout,
        "tokensCacheRead": tcr,
        "tokensCacheWrite": tcw,
        "costUsd": round(cost, 4),
        "toolsRun": tools,
        "agentsRun": agents,
    }


def _count(value: object) -> int:
    """A token count as the monitor reads it: a finite JSON number (fractions truncated); anything else is 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0
    return int(value)


def _ops(session: dict):
    for group in (session.get("turns"), session.get("steps")):
        if isinstance(group, list):
            for t in group:
                if isinstance(t, dict) and isinstance(t.get("ops"), list):
                    yield from (o for o in t["ops"] if isinstance(o, dict))
