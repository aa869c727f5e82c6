"""System ops of turn 0: ``init`` opens every session; at its end the ``final-report`` op (the committed report,
with the ``agent__final_report`` tool accounting entry; its content is not in the tree) and ``fin`` close it."""

from __future__ import annotations

from typing import Any

import orjson

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

    def final_report_op(self, s: _Sess, path: str, params: dict[str, Any], report: str, *,
                        sub_agent: bool) -> dict[str, Any]:
        """The producer's final-report op: ``kind: system``, ``attributes.label: final-report``, one ``tool``
        accounting entry ``command: agent__final_report`` and a FIN log; the report itself is not in the op."""
        rng = self.rng
        start = s.t + self.gap()
        latency = rng.randint(1, 12)
        end = start + latency
        fmt = "sub-agent" if sub_agent else params.get("report_format", "markdown")
        chars_in = len(orjson.dumps(params)) if params else 0
        acc: dict[str, Any] = {"type": "tool", "timestamp": end, "status": "ok", "latency": latency,
                               "mcpServer": "agent", "command": "agent__final_report", "charactersIn": chars_in,
                               "charactersOut": len(report), "agentId": s.agent, "callPath": s.call_path,
                               "txnId": s.txn, "originTxnId": s.origin}
        if s.parent_txn:
            acc["parentTxnId"] = s.parent_txn
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "system", "startedAt": start,
                              "attributes": {"label": "final-report"}, "logs": [], "accounting": [acc]}
        op["logs"].append(self.log(s, end, "FIN", 0, 0, path, "response", "tool", "agent:final-report",
                                   f"final report accepted ({fmt}, {len(report)} chars)", tool_kind="agent"))
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op
