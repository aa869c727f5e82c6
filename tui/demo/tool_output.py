"""``tool_output`` ops: the producer's extraction of an oversized tool result, as a ``session`` op with a child.

What the producer writes (``src/tool-output/extractor.ts``), the ``tool_output`` tool being of kind ``agent`` (so
its op is a ``session`` op):

* full-chunked mode: a bare child tree (no turns, no ledger of its own) with one ``internal`` step
  (``attributes.mode: "full-chunked"``); in it one llm op per chunk (``attributes.chunk`` 1..N) and, when there
  are several chunks, a last op with ``attributes.stage: "reduce"``. Those ops carry a request ``{messages,
  bytes}``, a response ``{textPreview}`` and one llm accounting entry, and no logs. These are not retries.
* read-grep mode: a whole sub-agent session ``tool_output.read_grep`` (headend ``tool_output``) that reads the
  stored output with ``tool_output_fs__Read`` / ``tool_output_fs__Grep``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from .gen_state import _Sess
from .ids import _uuid
from .plan import _Plan
from .prose import sentence, text
from .tool_ops import _ToolOps
from tui.formats.aiagent.snapshot_totals import compute_totals
from .usage import _UsageBuilder

__all__ = ["tool_output_ops"]


def tool_output_ops(n_chunks: int) -> int:
    """How many ops a tool_output call of ``n_chunks`` chunks adds (its session op, the chunks, the reduce)."""
    return 1 + n_chunks + (1 if n_chunks > 1 else 0)


class _ToolOutputOps(_ToolOps, _UsageBuilder):
    session: Callable[..., Any]  # _SessionBuilder's, the class this one is mixed into

    def tool_output_params(self) -> tuple[dict[str, Any], str]:
        """The llm's call (the handle of the stored output, what to extract from it, sometimes a mode) and the
        mode the extraction runs in."""
        rng = self.rng
        params = {"handle": _uuid(rng), "extract": sentence(rng, 40, 140)}
        mode = "read-grep" if rng.random() < 0.35 else "full-chunked"
        if rng.random() < 0.3:
            params["mode"] = mode
        return params, mode

    def tool_output_op(self, s: _Sess, *, turn: int, sub: int, path: str, source_tool: str, n_chunks: int,
                       params: dict[str, Any], mode: str = "full-chunked") -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        handle = params["handle"]
        req_json = orjson.dumps(params)
        attrs: dict[str, Any] = {"name": "tool_output", "provider": "tool-output", "kind": "agent"}
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "session", "startedAt": start, "attributes": attrs,
                              "logs": [], "accounting": [],
                              "request": {"kind": "tool", "payload": params, "size": len(req_json)}}
        remote = "agent:tool-output:tool_output"
        op["logs"].append(self.log(s, start, "VRB", turn, sub, path, "request", "tool", remote,
                                   f"-> tool_output(handle={handle})", tool_kind="agent"))
        if mode == "read-grep":
            child = self._read_grep_session(s, start + rng.randint(1, 5), path, params, n_ops=tool_output_ops(n_chunks))
            extracted = child.pop("_report", "") or "NO RELEVANT DATA FOUND"
        else:
            child, extracted = self._chunked_tree(s, start + rng.randint(1, 5), handle, source_tool, n_chunks)
        op["childSession"] = child
        end = child["endedAt"] + rng.randint(1, 10)
        latency = end - start
        result = (f"tool_output(handle={handle}, tool={source_tool}, mode={mode})\n\n{extracted}")
        attrs["latency"] = latency
        attrs["size"] = len(result)
        op["response"] = {"payload": result, "size": len(result), "truncated": False}
        op["accounting"].append(self.tool_accounting(s, end=end, latency=latency, status="ok", server="tool-output",
                                                     command="tool_output", chars_in=len(req_json),
                                                     chars_out=len(result)))
        op["logs"].append(self.log(s, end, "VRB", turn, sub, path, "response", "tool", remote,
                                   f"<- tool_output: {len(result)} bytes in {latency} ms ({mode})",
                                   tool_kind="agent"))
        op["endedAt"] = end
        op["status"] = "ok"
        s.t = end
        return op

    def _read_grep_session(self, s: _Sess, start: int, path: str, params: dict[str, Any], *,
                           n_ops: int) -> dict[str, Any]:
        """read-grep: a whole sub-agent session (agent ``tool_output.read_grep``, headend ``tool_output``)."""
        plan = _Plan(level=s.level + 1, budget=max(5, n_ops - 1))
        agent = "tool_output.read_grep"
        cli_style = ":" in s.call_path and "->" not in s.call_path
        call_path = f"{s.call_path}:{agent}" if cli_style else f"{s.call_path}->{agent}"
        prompt = f"WHAT TO EXTRACT\n{params['extract']}\n\nThe handle file is named `{params['handle']}`."
        return self.session(plan, agent=agent, call_path=call_path, parent_txn=s.txn, prompt=prompt, start=start,
                            prefix=path + ".")

    def _chunked_tree(self, s: _Sess, start: int, handle: str, source_tool: str,
                      n_chunks: int) -> tuple[dict[str, Any], str]:
        rng = self.rng
        node: dict[str, Any] = {"id": self.uid(start), "traceId": _uuid(rng), "agentId": s.agent,
                                "callPath": s.call_path, "sessionTitle": f"tool_output:{handle}",
                                "startedAt": start, "turns": []}
        step: dict[str, Any] = {"id": self.uid(start), "index": 0, "kind": "internal", "startedAt": start,
                                "attributes": {"mode": "full-chunked"}, "ops": []}
        t = start
        outputs = []
        stages = [{"chunk": i} for i in range(1, n_chunks + 1)]
        if n_chunks > 1:
            stages.append({"stage": "reduce"})
        for extra in stages:
            t += rng.randint(1, 8)
            latency = int(rng.lognormvariate(7.6, 0.5)) + 200
            usage = self.usage_for(s, 1, 0)
            cost = self.cost_for(s, usage)
            preview = text(rng, rng.randint(60, 400))
            outputs.append(preview)
            msg_bytes = rng.randint(4000, 60000) if "chunk" in extra else sum(len(o) for o in outputs) + 900
            acc = {"type": "llm", "timestamp": t + latency, "status": "ok", "latency": latency,
                   "provider": s.provider, "model": s.model, "actualProvider": s.provider,
                   "actualModel": s.actual_model, "costUsd": cost, "stopReason": "end_turn",
                   "tokens": self.tokens(s, usage), "agentId": s.agent, "callPath": s.call_path, "txnId": s.txn}
            step["ops"].append({
                "opId": self.uid(t), "kind": "llm", "startedAt": t,
                "attributes": {"provider": s.provider, "model": s.model, **extra, "latency": latency},
                "logs": [], "accounting": [acc],
                "request": {"kind": "llm", "payload": {"messages": 2, "bytes": msg_bytes}, "size": msg_bytes},
                "response": {"payload": {"textPreview": preview}, "size": len(preview), "truncated": False},
                "endedAt": t + latency, "status": "ok",
            })
            t += latency
        step["endedAt"] = t + 1
        node["steps"] = [step]
        node["endedAt"] = t + 2
        node["success"] = True
        node["totals"] = compute_totals(node)
        return node, outputs[-1]
