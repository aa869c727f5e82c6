"""Log entries of generated ops (severity, direction, remote identifier, transaction ids...)."""

from __future__ import annotations

from typing import Any

from .gen_state import _GenBase, _Sess


class _LogBuilder(_GenBase):
    def log(
        self,
        s: _Sess,
        ts: int,
        severity: str,
        turn: int,
        subturn: int,
        path: str | None,
        direction: str,
        typ: str,
        remote: str,
        message: str,
        *,
        tool_kind: str | None = None,
        fatal: bool = False,
        details: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        e: dict[str, Any] = {
            "timestamp": ts,
            "severity": severity,
            "turn": turn,
            "subturn": subturn,
        }
        if path is not None:
            # The producer's path is relative to the tree of the session that logs: inside the sub-agent of op
            # 1-5 a log says 1-1, not 1-5.1-1 (readers join it with the sub-agent's op path).
            if s.prefix and path.startswith(s.prefix):
                path = path[len(s.prefix):]
            e["path"] = path
        e["direction"] = direction
        e["type"] = typ
        if tool_kind is not None:
            e["toolKind"] = tool_kind
        e["remoteIdentifier"] = remote
        e["fatal"] = fatal
        e["message"] = self.hostile(message)
        e["agentId"] = s.agent
        e["callPath"] = s.call_path
        e["txnId"] = s.txn
        if s.parent_txn is not None:
            e["parentTxnId"] = s.parent_txn
        e["originTxnId"] = s.origin
        if self.rng.random() < 0.08:
            e["agentPath"] = s.call_path
            e["turnPath"] = f"{turn}.{subturn}"
            e["max_turns"] = 100
            e["max_subturns"] = 20
            e["headendId"] = self.headend
        if details:
            e["details"] = details
        return e
