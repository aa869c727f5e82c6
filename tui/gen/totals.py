"""Session totals recomputed the way the producer does (``compute_totals``)."""

from __future__ import annotations

import math

__all__ = ["TOTALS_KEYS", "compute_totals"]

TOTALS_KEYS = ("tokensIn", "tokensOut", "tokensCacheRead", "tokensCacheWrite", "costUsd", "toolsRun", "agentsRun")


def compute_totals(node: dict) -> dict:
    """Recompute a SessionNode's totals exactly like the producer (plus step ops, for v2 trees).

    Visits every session (root included: ``agentsRun += 1``), the ops of every turn and every step; a ``tool``
    op adds 1 to ``toolsRun``; every ``llm`` accounting entry adds its tokens and cost (cache read =
    ``cacheReadInputTokens`` if not None, else ``cachedTokens``); ``session`` ops recurse into ``childSession``.
    ``costUsd`` is rounded to 4 decimals.
    """
    tin = tout = tcr = tcw = tools = agents = 0
    cost = 0.0
    stack = [node]
    while stack:
        s = stack.pop()
        agents += 1
        for group in (s.get("turns"), s.get("steps")):
            if not isinstance(group, list):
                continue
            for t in group:
                if not isinstance(t, dict):
                    continue
                ops = t.get("ops")
                if not isinstance(ops, list):
                    continue
                for o in ops:
                    if not isinstance(o, dict):
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
                    if kind == "session":
                        child = o.get("childSession")
                        if isinstance(child, dict):
                            stack.append(child)
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
