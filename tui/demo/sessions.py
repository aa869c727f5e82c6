"""Sessions and their turns: turn 0 init, v2 steps (advisors, handoffs), user turns with LLM/tool/sub-agent
ops, the final report, session end and totals; ``session_op`` nests a sub-agent session."""

from __future__ import annotations

from typing import Any

import orjson

from .catalog import _AGENTS, _INGRESS, _LLM_ERR, _STATUSES, _TITLES, _TOOL_SCHEMA, _TOOLS
from .gen_state import _Sess
from .ids import _uuid
from .llm_ops import _LlmOps
from .llm_types import ToolCall
from .plan import _Plan
from .prose import HOSTILE_STRINGS, sentence, text
from .system_ops import _SystemOps
from .tool_ops import _ToolOps
from .tool_output import _ToolOutputOps, tool_output_ops
from tui.formats.aiagent.snapshot_totals import compute_totals


class _SessionBuilder(_LlmOps, _ToolOutputOps, _SystemOps):
    def session(self, plan: _Plan, *, agent: str, call_path: str, parent_txn: str | None, prompt: str,
                start: int, prefix: str) -> dict[str, Any]:
        rng = self.rng
        txn = _uuid(rng)
        if not self.origin:
            self.origin = txn
        provider = self.providers[rng.randrange(len(self.providers))]
        model, actual_model, prices, thinking_capable = self.pick_model(provider)
        tool_names, sub_agents = _AGENTS.get(agent, (("web__search",), ("web-fetch",)))
        tools = [{"name": n, "description": _TOOLS[n][2] + " " + text(rng, 60), "schema": _TOOL_SCHEMA}
                 for n in tool_names + ("agent__final_report",)]
        system = (f"You are {agent}, an autonomous agent. " + text(rng, max(200, min(4000, self.pb // 2 or 300))))
        s = _Sess(
            agent=agent, call_path=call_path, txn=txn, parent_txn=parent_txn, origin=self.origin, prefix=prefix,
            provider=provider, model=model, actual_model=actual_model, prices=prices,
            thinking=thinking_capable and rng.random() < 0.7, tools=tools, tool_names=tool_names, system=system,
            user=prompt, legacy_raw=self.version == 1 and rng.random() < 0.5, t=start, level=plan.level,
        )
        node: dict[str, Any] = {
            "id": self.uid(start),
            "traceId": txn,
            "agentId": agent,
            "callPath": call_path,
            "sessionTitle": "",
            "startedAt": start,
        }
        if plan.level == 0 and rng.random() < 0.5:
            node["attributes"] = {"ingress": dict(_INGRESS[rng.randrange(len(_INGRESS))])}
        elif plan.level > 0 and rng.random() < 0.2:
            node["attributes"] = {"ingress": {"source": "sub-agent", "parentTxnId": parent_txn}}
        turns: list[dict[str, Any]] = []
        node["turns"] = turns
        steps: list[dict[str, Any]] | None = None
        budget = plan.budget

        # turn 0: system init; it stays open until the session ends (the final-report and fin ops close it)
        t0: dict[str, Any] = {"id": self.uid(s.t), "index": 0, "startedAt": s.t,
              "attributes": {"system": True, "label": "init"}, "ops": []}
        turns.append(t0)
        t0["ops"].append(self.system_op(s, 0, f"{prefix}0-1", "init"))
        init_end = s.t + 1
        s.t += 2
        budget -= 1

        if self.version >= 2 and budget >= 8 and rng.random() < 0.4:
            steps = []
            steps.append({"id": self.uid(t0["startedAt"]), "index": 0, "kind": "system",
                          "startedAt": t0["startedAt"], "endedAt": init_end,
                          "attributes": {"label": "init"}, "ops": []})
            adv_start = s.t
            saved = (s.provider, s.model, s.actual_model, s.prices, s.thinking)
            cm, cam, cpr, _ = self.pick_model(s.provider, cheap=True)
            s.model, s.actual_model, s.prices, s.thinking = cm, cam, cpr, False
            n_adv = rng.randint(1, 2)
            # ops in v2 steps are labelled S<step>-<op> (capital S), like the producer's getOpPath
            adv_ops = [self.llm_op(s, turn=0, pos=i + 1, path=f"{prefix}S1-{i + 1}", is_final=False, tool_calls=[],
                                   small=True)
                       for i in range(n_adv)]
            s.provider, s.model, s.actual_model, s.prices, s.thinking = saved
            steps.append({"id": self.uid(adv_start), "index": 1, "kind": "advisors", "startedAt": adv_start,
                          "endedAt": s.t + 1,
                          "attributes": {"advisors": ["cost-advisor", "scope-advisor"][:n_adv]}, "ops": adv_ops})
            budget -= n_adv
            s.t += 2

        # --- plan the user turns
        children = list(plan.children)
        running_child = children.pop() if plan.running and children else None
        if plan.running:
            tail_ops = 2 if (running_child is not None or rng.random() < 0.5) else 1
        elif plan.failed:
            tail_ops = 2  # the failed llm op, the fin op
        else:
            tail_ops = 3  # the final llm op, the final-report and fin ops of turn 0
        middle = budget - tail_ops - len(children) - (1 if running_child is not None else 0)
        # some root sessions extract an oversized tool result with tool_output (v2: its chunks live in a step)
        n_chunks = 0
        if self.version >= 2 and plan.level == 0 and rng.random() < 0.3:
            n_chunks = rng.choice((1, 2, 3, 3, 4, 6))
            if middle - tool_output_ops(n_chunks) >= 6:
                middle -= tool_output_ops(n_chunks)
            else:
                n_chunks = 0
        sizes: list[int] = []
        choices = (0, 1, 1, 2, 2, 2, 3, 4, 6)
        m = middle
        while m > 0:
            k = min(choices[rng.randrange(len(choices))], m - 1)
            sizes.append(k)
            m -= 1 + k
        if children and not sizes:
            sizes.append(0)
        turn_plans: list[list[Any]] = []
        for k in sizes:
            specs: list[Any] = []
            for _ in range(k):
                if rng.random() < 0.06 and "agent__task_status" in tool_names:
                    specs.append(("tool", "agent__task_status"))
                else:
                    real = [n for n in tool_names if n != "agent__task_status"] or list(tool_names)
                    specs.append(("tool", real[rng.randrange(len(real))]))
            turn_plans.append(specs)
        for cp_ in children:
            ti = rng.randrange(len(turn_plans))
            specs = turn_plans[ti]
            specs.insert(rng.randint(0, len(specs)), ("session", cp_))
        if n_chunks and turn_plans:
            turn_plans[rng.randrange(len(turn_plans))].append(("tool_output", n_chunks))

        def child_name(i: int) -> str:
            subs = sub_agents or ("web-fetch",)
            return subs[i % len(subs)]

        child_counter = [0]

        def child_spec(cplan: _Plan) -> tuple[str, str, dict[str, Any]]:
            cname = child_name(child_counter[0] + rng.randrange(3))
            child_counter[0] += 1
            params = {"prompt": sentence(rng, 60, 200), "format": "markdown"}
            return cname, f"agent__{cname}", params

        turn_index = 0
        user_turns: list[tuple[list[Any], str]] = [(tp, "mid") for tp in turn_plans]
        if plan.running:
            if running_child is not None:
                user_turns.append(([("session", running_child)], "running_child"))
            else:
                user_turns.append(([("tool", None)] if tail_ops == 2 else [], "running"))
        elif plan.failed:
            user_turns.append(([], "failed"))
        else:
            user_turns.append(([("final", None)], "final"))

        report_text = ""
        report_params: dict[str, Any] = {}
        for n, (specs, mode) in enumerate(user_turns):
            turn_index += 1
            tstart = s.t + self.gap()
            s.t = tstart
            turn: dict[str, Any] = {"id": self.uid(tstart), "index": turn_index, "startedAt": tstart}
            if turn_index == 1:
                turn["attributes"] = {"prompts": {"system": s.system, "user": s.user}}
            elif rng.random() < 0.05:
                turn["attributes"] = {"retry": 1, "reason": "invalid tool call"}
            ops: list[dict[str, Any]] = []
            turn["ops"] = ops
            turns.append(turn)
            is_final = mode in ("final", "failed")
            # build tool calls for the llm op from the specs
            calls: list[ToolCall] = []
            resolved: list[tuple[str, Any, str, dict[str, Any]]] = []
            for kind, what in specs:
                if kind == "tool":
                    name = what
                    if name is None:
                        real = [x for x in tool_names if x != "agent__task_status"] or list(tool_names)
                        name = real[rng.randrange(len(real))]
                    params = self.tool_params(name, s)
                    resolved.append(("tool", None, name, params))
                elif kind == "session":
                    cname, tname, params = child_spec(what)
                    resolved.append(("session", (what, cname), tname, params))
                elif kind == "tool_output":
                    source = next((x for x in tool_names if x != "agent__task_status"), "web__fetch")
                    params, to_mode = self.tool_output_params()
                    resolved.append(("tool_output", (what, source, to_mode), "tool_output", params))
                else:  # final: the llm calls agent__final_report; no tool op, a final-report op in turn 0 at the end
                    report_text = self.final_report_text()
                    params = {"report_format": "markdown", "report_content": report_text, "encoding": "raw"}
                    resolved.append(("final", None, "agent__final_report", params))
                calls.append(ToolCall(id=self.call_id(s), name=resolved[-1][2], input=resolved[-1][3]))
            llm_running = mode == "running" and not resolved
            fail = _LLM_ERR[rng.randrange(len(_LLM_ERR))] if mode == "failed" else None
            ops.append(self.llm_op(s, turn=turn_index, pos=1, path=f"{prefix}{turn_index}-1", is_final=is_final,
                                   tool_calls=calls, running=llm_running, fail=fail))
            sub = 0
            for i, (kind, extra, name, params) in enumerate(resolved):
                if kind == "final":
                    report_params = params
                    continue
                pos = len(ops) + 1
                sub += 1
                path = f"{prefix}{turn_index}-{pos}"
                last = i == len(resolved) - 1
                if kind == "tool_output":
                    n, source, to_mode = extra
                    ops.append(self.tool_output_op(s, turn=turn_index, sub=sub, path=path, source_tool=source,
                                                   n_chunks=n, params=params, mode=to_mode))
                elif kind == "tool":
                    ops.append(self.tool_op(s, turn=turn_index, pos=pos, sub=sub, path=path, name=name,
                                            params=params, running=(mode == "running" and last),
                                            report=report_text if name == "agent__final_report" else None))
                else:
                    cplan, cname = extra
                    ops.append(self.session_op(s, cplan, turn=turn_index, sub=sub, path=path, cname=cname,
                                               tname=name, params=params))
            if mode in ("running", "running_child"):
                pass  # turn still open
            else:
                s.t += rng.randint(1, 10)
                turn["endedAt"] = s.t

        # --- steps at the end (v2)
        if steps is not None:
            steps.append({"id": self.uid(turns[1]["startedAt"] if len(turns) > 1 else s.t), "index": len(steps),
                          "kind": "user", "startedAt": turns[1]["startedAt"] if len(turns) > 1 else s.t,
                          "attributes": {"turns": [1, turn_index]}, "ops": []})
            if "endedAt" in turns[-1]:
                steps[-1]["endedAt"] = turns[-1]["endedAt"]
            if not plan.running and rng.random() < 0.6:
                kind = rng.choice(("handoff", "router_handoff", "internal"))
                st_start = s.t + self.gap()
                s.t = st_start
                spath = f"{prefix}S{len(steps)}-1"
                if kind == "internal":
                    sop = self.tool_op(s, turn=turn_index, pos=1, sub=0, path=spath, name="agent__task_status",
                                       params={"status": "completed", "done": "all", "pending": "", "now": "done"})
                else:
                    sop = self.llm_op(s, turn=turn_index, pos=1, path=spath, is_final=False, tool_calls=[], small=True)
                steps.append({"id": self.uid(st_start), "index": len(steps), "kind": kind, "startedAt": st_start,
                              "endedAt": s.t + 1, "attributes": {"reason": kind.replace("_", " ")}, "ops": [sop]})
                s.t += 2

        # --- session end
        if s.title:
            node["sessionTitle"] = s.title
        if plan.level == 0 and rng.random() < 0.3:
            node["sessionTitle"] = rng.choice(_TITLES)
        if rng.random() < self.hostile_rate * 3:
            node["sessionTitle"] = f"{node['sessionTitle'] or 'Title'} {HOSTILE_STRINGS[rng.randrange(len(HOSTILE_STRINGS))]}"
        if s.status_text:
            node["latestStatus"] = s.status_text
        elif plan.running:
            node["latestStatus"] = rng.choice(_STATUSES)
        if steps is not None:
            node["steps"] = steps
        if not plan.running:
            # turn 0 closes the session: the final report committed (producer: a system op labelled
            # final-report with the agent__final_report tool accounting), then the fin op
            if not plan.failed:
                t0["ops"].append(self.final_report_op(s, f"{prefix}0-{len(t0['ops']) + 1}", report_params,
                                                      report_text, sub_agent=plan.level > 0))
            t0["ops"].append(self.system_op(s, 0, f"{prefix}0-{len(t0['ops']) + 1}", "fin"))
            s.t += rng.randint(2, 30)
            node["endedAt"] = s.t
            t0["endedAt"] = s.t
            node["success"] = not plan.failed
            if plan.failed:
                err = [o for o in turns[-1]["ops"] if o.get("status") == "failed"]
                msg = err[-1]["accounting"][0].get("error") if err and err[-1]["accounting"] else "session failed"
                node["error"] = f"LLM request failed: {msg}"
            elif self.version >= 2:
                if rng.random() < 0.8:
                    node["finalReport"] = {"format": "markdown", "content": report_text, "ts": node["endedAt"]}
                else:
                    node["finalReport"] = {"format": "json", "content_json": {"summary": report_text[:200],
                                                                              "confidence": round(rng.random(), 2)},
                                           "ts": node["endedAt"]}
        if self.version >= 2 and plan.level == 0 and rng.random() < 0.3:
            node["pluginMetas"] = {"netdata-docs": {"version": "0.3.1", "enabled": True, "meta": {"sources": 3}},
                                   "cost-guard": {"version": "1.0.0", "enabled": True}}
        node["totals"] = compute_totals(node)
        if self.version >= 2 and plan.level == 0 and rng.random() < 0.3:
            node["totals"].update({"turnsUsed": turn_index, "turnsFailed": 1 if plan.failed else 0, "toolsInvalid": 0,
                                   "finalFailed": 0, "toolsFixed": rng.randint(0, 2), "finalFixed": 0,
                                   "finalForced": 0})
        node["_report"] = report_text
        return node

    def final_report_text(self) -> str:
        rng = self.rng
        n = max(80, int(self.pb * rng.uniform(0.1, 0.5)))
        return (f"## Summary\n\n{text(rng, n // 2)}\n\n## Findings\n\n- {sentence(rng)}\n- {sentence(rng)}\n\n"
                f"## Details\n\n{text(rng, n // 2)}\n")

    def session_op(self, s: _Sess, cplan: _Plan, *, turn: int, sub: int, path: str, cname: str, tname: str,
                   params: dict[str, Any]) -> dict[str, Any]:
        rng = self.rng
        start = s.t + self.gap()
        attrs: dict[str, Any] = {"name": tname, "provider": "agent", "kind": "agent"}
        op: dict[str, Any] = {"opId": self.uid(start), "kind": "session", "startedAt": start, "attributes": attrs,
                              "logs": [], "accounting": []}
        req_json = orjson.dumps(params)
        op["request"] = {"kind": "tool", "payload": params, "size": len(req_json)}
        remote = f"agent:{cname}"
        op["logs"].append(self.log(s, start, "VRB", turn, sub, path, "request", "tool", remote,
                                   f"-> {tname}: starting sub-agent", tool_kind="agent"))
        if self.style == "arrow":
            ccp = f"{s.call_path}->{tname}->{cname}"
        else:
            ccp = f"{s.call_path}:{cname}"
        child = self.session(cplan, agent=cname, call_path=ccp, parent_txn=s.txn, prompt=params["prompt"],
                             start=start + rng.randint(2, 20), prefix=path + ".")
        report = child.pop("_report", "")
        op["childSession"] = child
        if cplan.running:
            s.t = max(s.t, start + 1)
            return op
        end = child["endedAt"] + rng.randint(2, 30)
        latency = end - start
        attrs["latency"] = latency
        if child.get("success"):
            result = report or "(empty report)"
            op["logs"].append(self.log(s, end, "VRB", turn, sub, path, "response", "tool", remote,
                                       f"<- {tname}: {len(result)} bytes in {latency} ms", tool_kind="agent"))
            status = "ok"
        else:
            result = f"sub-agent {cname} failed: {child.get('error', 'unknown error')}"
            attrs["error"] = "subagent_failed"
            op["logs"].append(self.log(s, end, "ERR", turn, sub, path, "response", "tool", remote, result,
                                       tool_kind="agent"))
            status = "failed"
        attrs["size"] = len(result)
        op["response"] = {"payload": result, "size": len(result), "truncated": False}
        # a sub-agent call is a tool call too: the producer appends its tool accounting entry
        op["accounting"].append(self.tool_accounting(s, end=end, latency=latency, status=status, server="subagent",
                                                     command=tname, chars_in=len(req_json),
                                                     chars_out=len(result), error=attrs.get("error")))
        op["endedAt"] = end
        op["status"] = status
        s.t = end
        return op
