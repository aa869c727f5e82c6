"""The shape of a generated tree, decided up front: op budget, running/failed flags and sub-agents per session."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass
class _Plan:
    level: int
    budget: int
    running: bool = False
    failed: bool = False
    children: list[_Plan] = field(default_factory=list)


def _make_plan(rng: random.Random, ops: int, depth: int, fanout: int, running: bool, failed: bool) -> _Plan:
    depth = max(0, depth) if fanout > 0 else 0
    n_sessions = sum(fanout**lvl for lvl in range(depth + 1))
    per = max(4, ops // max(1, n_sessions))

    def build(level: int, run: bool) -> _Plan:
        p = _Plan(level=level, budget=max(4, int(per * rng.uniform(0.7, 1.3))), running=run)
        if level < depth:
            for i in range(fanout):
                p.children.append(build(level + 1, run and i == fanout - 1))
        if level > 0 and not run and rng.random() < 0.04:
            p.failed = True
        return p

    root = build(0, running)
    root.failed = failed and not running
    descendants = 0
    stack = list(root.children)
    while stack:
        c = stack.pop()
        descendants += c.budget
        stack.extend(c.children)
    root.budget = max(4 + len(root.children), ops - descendants)
    return root
