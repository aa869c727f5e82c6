"""System ops: the ``init`` op that opens every session (and a ``fin`` variant)."""

from __future__ import annotations

from typing import Any

from .gen_state import _Sess
from .logs import _LogBuilder


class _SystemOps(_LogBuilder):
    def system_op(self, s: _Sess, turn: int, path: str | None, label: str) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        end = start + rng.randint(2, 60)
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "system", "startedAt": start,
                              "attributes": {"label": label}, "logs": [], "accounting": []}
        if label == "init":
            op["logs"].append(self.log(s, start, "INF", turn, 0, path, "request", "llm", "agent:init",
                                       f"session started: agent={s.agent}, model={s.provider}:{s.model}, "
                                       f"tools={len(s.tools)}, headend={self.headend}",
                                       details={"agent": s.agent, "tools": len(s.tools), "maxTurns": 100}))
            op["logs"].append(self.log(s, start + 1, "VRB", turn, 0, path, "request", "llm", "agent:tools",
                                       f"loaded {len(s.tools)} tools from {len({t['name'].split('__')[0] for t in s.tools})} providers"))
            if rng.random() < 0.3:
                op["logs"].append(self.log(s, end, "DBG", turn, 0, path, "request", "llm", "agent:init",
                                           f"system prompt {len(s.system)} chars, user prompt {len(s.user)} chars"))
        else:
            op["logs"].append(self.log(s, start, "FIN", turn, 0, path, "response", "llm", "agent:fin",
                                       "session finished"))
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op
