"""``make_tree``: one seeded ai-agent ``opTree`` shaped like real snapshots; and the walks over such a tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterator

from tui.formats.aiagent.snapshot_totals import TOTALS_KEYS, compute_totals

from .catalog import DATA, HOSTILE_STRINGS, STATUSES, TITLES, TOOL_PARAMS, fill, sentence, text, uuid4
from .ops import (At, Gen, Sess, accounting, call_id, call_op, close, cost_for, final_report_op, llm_op, new_op,
                  response, system_op, tool_op, usage_for)

#: Each session draws its provider from this tuple (repeats weigh): Anthropic and OpenAI most, Gemini and Ollama too.
DEFAULT_PROVIDERS = ("anthropic", "anthropic", "openai", "openai", "google", "ollama")
BASE_MS = 1_775_001_600_000  # default epoch: 2026-04-01T00:00:00Z (+ up to 60 days, seeded)


@dataclass
class Plan:
    """The shape of a session, decided up front: its op budget, running/failed, its sub-agents."""

    level: int
    budget: int
    running: bool = False
    failed: bool = False
    children: list[Plan] = field(default_factory=list)


def make_plan(g: Gen, ops: int, depth: int, fanout: int, running: bool, failed: bool) -> Plan:
    depth = max(0, depth) if fanout > 0 else 0
    per = max(4, ops // max(1, sum(fanout**lvl for lvl in range(depth + 1))))

    def build(level: int, run: bool) -> Plan:
        p = Plan(level=level, budget=max(4, int(per * g.rng.uniform(0.7, 1.3))), running=run)
        p.children = [build(level + 1, run and i == fanout - 1) for i in range(fanout)] if level < depth else []
        p.failed = level > 0 and not run and g.rng.random() < 0.04
        return p

    root = build(0, running)
    root.failed = failed and not running
    root.budget = max(4 + len(root.children), ops - (_budget(root) - root.budget))
    return root


def _budget(p: Plan) -> int:
    return p.budget + sum(_budget(c) for c in p.children)


def make_tree(seed: int = 0, *, ops: int = 40, depth: int = 2, fanout: int = 2, running: bool = False,
              failed: bool = False, version: int = 2, payload_bytes: int = 1500, mismatch: bool = False,
              provider_mix: tuple[str, ...] = DEFAULT_PROVIDERS, started_at: int | None = None,
              hostile_rate: float = 0.01, agent: str | None = None, capture_rate: float | None = None) -> dict:
    """An ``opTree`` of about ``ops`` ops and ``depth`` levels of sub-agents; the flags: odd cases tests need."""
    g = Gen(seed, version=version, payload_bytes=payload_bytes, provider_mix=tuple(provider_mix),
            hostile_rate=hostile_rate, capture_rate=capture_rate)
    rng, plan = g.rng, make_plan(g, ops, depth, fanout, running, failed)
    start = started_at if started_at is not None else BASE_MS + rng.randrange(0, 60 * 86_400_000)
    root = agent or rng.choice(DATA["root_agents"])
    tree = session(g, plan, agent=root, call_path=root if g.style == "arrow" else f"cli:{root}", parent_txn=None,
                   prompt=rng.choice(TITLES) + ". " + sentence(rng, 40, 160), start=start, prefix="")[0]
    if mismatch:  # totals that disagree with the ops
        t = tree["totals"]
        t.update(tokensIn=t["tokensIn"] + 1000 + rng.randint(1, 999), costUsd=round(t["costUsd"] + 0.0123, 4),
                 toolsRun=t["toolsRun"] + 1)
    return tree


def _advisors(g: Gen, s: Sess, t0: dict[str, Any], init_end: int) -> list[dict[str, Any]]:
    """v2 steps 0 (system init) and 1 (advisors: small LLM calls on the cheap model)."""
    steps = [{"id": g.uid(t0["startedAt"]), "index": 0, "kind": "system", "startedAt": t0["startedAt"],
              "endedAt": init_end, "attributes": {"label": "init"}, "ops": []}]
    adv_start = s.t
    saved = (s.provider, s.model, s.actual_model, s.prices, s.thinking)
    (s.model, s.actual_model, s.prices, _), s.thinking = g.pick_model(s.provider, cheap=True), False
    n_adv = g.rng.randint(1, 2)
    # ops in v2 steps are labelled S<step>-<op> (capital S), like the producer's getOpPath
    adv_ops = [llm_op(g, s, turn=0, path=f"{s.prefix}S1-{i + 1}", is_final=False, tool_calls=[], small=True)
               for i in range(n_adv)]
    s.provider, s.model, s.actual_model, s.prices, s.thinking = saved
    steps.append({"id": g.uid(adv_start), "index": 1, "kind": "advisors", "startedAt": adv_start, "endedAt": s.t + 1,
                  "attributes": {"advisors": ["cost-advisor", "scope-advisor"][:n_adv]}, "ops": adv_ops})
    s.t += 2
    return steps


def tool_output_ops(n_chunks: int) -> int:
    """How many ops a tool_output call of ``n_chunks`` chunks adds (its session op, the chunks, the reduce)."""
    return 1 + n_chunks + (1 if n_chunks > 1 else 0)


def _plan_turns(g: Gen, s: Sess, plan: Plan, budget: int) -> list[tuple[list[Any], str]]:
    """The user turns ``(specs, mode)``: specs ``(kind, what)`` of tool, session, tool_output or final calls."""
    rng, tool_names = g.rng, s.tool_names
    children = list(plan.children)
    running_child = children.pop() if plan.running and children else None
    # failed: the failed llm op, the fin op; else the final llm op, the final-report and fin ops
    tail_ops = (2 if running_child or rng.random() < 0.5 else 1) if plan.running else 2 if plan.failed else 3
    middle = budget - tail_ops - len(children) - (1 if running_child is not None else 0)
    # some roots extract an oversized tool result with tool_output (v2: its chunks live in a step)
    n_chunks = rng.choice((1, 2, 3, 3, 4, 6)) if g.version >= 2 and plan.level == 0 and rng.random() < 0.3 else 0
    n_chunks = n_chunks if n_chunks and middle - tool_output_ops(n_chunks) >= 6 else 0
    middle -= tool_output_ops(n_chunks) if n_chunks else 0
    sizes: list[int] = []
    while middle > 0:
        sizes.append(min(rng.choice((0, 1, 1, 2, 2, 2, 3, 4, 6)), middle - 1))
        middle -= 1 + sizes[-1]
    if children and not sizes:
        sizes.append(0)
    turn_plans: list[list[Any]] = [[("tool", "agent__task_status" if rng.random() < 0.06 and "agent__task_status" in
                                     tool_names else rng.choice(s.work_tools)) for _ in range(k)] for k in sizes]
    for cp in children:
        specs = rng.choice(turn_plans)
        specs.insert(rng.randint(0, len(specs)), ("session", cp))
    if n_chunks and turn_plans:
        rng.choice(turn_plans).append(("tool_output", n_chunks))
    last: tuple[list[Any], str] = ([("session", running_child)], "running_child") if running_child is not None \
        else ([("tool", None)] if tail_ops == 2 else [], "running") if plan.running \
        else ([], "failed") if plan.failed else ([("final", None)], "final")
    return [(tp, "mid") for tp in turn_plans] + [last]


def _resolve(g: Gen, s: Sess, specs: list, running: bool) -> Iterator[tuple[str, dict, Callable[..., dict] | None]]:
    """The calls the LLM makes for a turn's specs, one at a time: ``(tool name, params, what makes its op)``; the
    final report's makes none (its op is turn 0's, at the end); ``running``: the last tool call is still running."""
    rng = g.rng
    for i, (kind, what) in enumerate(specs):
        if kind == "tool":
            name = what if what is not None else rng.choice(s.work_tools)
            yield (name, TOOL_PARAMS[name](rng, s) if name in TOOL_PARAMS else {"query": text(rng, 30)},
                   partial(tool_op, g, s, name=name, running=running and i == len(specs) - 1))
        elif kind == "session":
            subs = s.sub_agents or ("web-fetch",)
            cname = subs[(s.children_named + rng.randrange(3)) % len(subs)]
            s.children_named += 1
            yield (f"agent__{cname}", {"prompt": sentence(rng, 60, 200), "format": "markdown"},
                   partial(session_op, g, s, what, cname=cname, tname=f"agent__{cname}"))
        elif kind == "tool_output":
            source = next((x for x in s.tool_names if x != "agent__task_status"), "web__fetch")
            params: dict[str, Any] = {"handle": uuid4(rng), "extract": sentence(rng, 40, 140)}
            mode = "read-grep" if rng.random() < 0.35 else "full-chunked"
            params |= {"mode": mode} if rng.random() < 0.3 else {}
            yield "tool_output", params, partial(tool_output_op, g, s, source_tool=source, n_chunks=what, mode=mode)
        else:  # final: agent__final_report
            n = max(80, int(g.pb * rng.uniform(0.1, 0.5)))
            s.report_text = (f"## Summary\n\n{text(rng, n // 2)}\n\n## Findings\n\n- {sentence(rng)}\n- "
                             f"{sentence(rng)}\n\n## Details\n\n{text(rng, n // 2)}\n")
            s.report_params = {"report_format": "markdown", "report_content": s.report_text, "encoding": "raw"}
            yield "agent__final_report", s.report_params, None


def _user_turn(g: Gen, s: Sess, index: int, specs: list[Any], mode: str) -> dict[str, Any]:
    rng = g.rng
    s.t += g.gap()
    turn: dict[str, Any] = {"id": g.uid(s.t), "index": index, "startedAt": s.t}
    turn |= {"attributes": {"prompts": {"system": s.system, "user": s.user}}} if index == 1 else \
        {"attributes": {"retry": 1, "reason": "invalid tool call"}} if rng.random() < 0.05 else {}
    # each call's id is drawn right after the call: keep the rng's order
    calls = [({"id": call_id(g, s), "name": name, "input": params}, make)
             for name, params, make in _resolve(g, s, specs, mode == "running")]
    ops = turn["ops"] = [llm_op(g, s, turn=index, path=f"{s.prefix}{index}-1", is_final=mode in ("final", "failed"),
                                tool_calls=[c for c, _ in calls], running=mode == "running" and not calls,
                                fail=rng.choice(DATA["llm_err"]) if mode == "failed" else None)]
    for call, make in calls:
        if make is not None:
            ops.append(make(turn=index, sub=len(ops), path=f"{s.prefix}{index}-{len(ops) + 1}", params=call["input"]))
    if mode not in ("running", "running_child"):  # else the turn stays open
        turn["endedAt"] = s.t = s.t + rng.randint(1, 10)
    return turn


def _closing_steps(g: Gen, s: Sess, plan: Plan, steps: list[dict], turns: list[dict], last_index: int) -> None:
    """v2: the ``user`` step over the user turns, then maybe a handoff, router handoff or internal step."""
    rng, first = g.rng, turns[1]["startedAt"] if len(turns) > 1 else s.t
    steps.append({"id": g.uid(first), "index": len(steps), "kind": "user", "startedAt": first,
                  "attributes": {"turns": [1, last_index]}, "ops": [],
                  **({"endedAt": turns[-1]["endedAt"]} if "endedAt" in turns[-1] else {})})
    if plan.running or rng.random() >= 0.6:
        return
    kind = rng.choice(("handoff", "router_handoff", "internal"))
    s.t += g.gap()
    st_start, spath = s.t, f"{s.prefix}S{len(steps)}-1"
    sop = tool_op(g, s, turn=last_index, sub=0, path=spath, name="agent__task_status", params={
        "status": "completed", "done": "all", "pending": "", "now": "done"}) if kind == "internal" else \
        llm_op(g, s, turn=last_index, path=spath, is_final=False, tool_calls=[], small=True)
    steps.append({"id": g.uid(st_start), "index": len(steps), "kind": kind, "startedAt": st_start,
                  "endedAt": s.t + 1, "attributes": {"reason": kind.replace("_", " ")}, "ops": [sop]})
    s.t += 2


def session(g: Gen, plan: Plan, *, agent: str, call_path: str, parent_txn: str | None, prompt: str, start: int,
            prefix: str) -> tuple[dict[str, Any], str]:
    """The session's node and its final report's text (what its caller's tool returns)."""
    rng, s = g.rng, Sess(g, plan.level, agent, call_path, parent_txn, prompt, start, prefix)
    node: dict[str, Any] = {"id": g.uid(start), "traceId": s.txn, "agentId": agent, "callPath": call_path,
                            "sessionTitle": "", "startedAt": start}
    if plan.level == 0 and rng.random() < 0.5:
        node["attributes"] = {"ingress": dict(rng.choice(DATA["ingress"]))}
    elif plan.level > 0 and rng.random() < 0.2:
        node["attributes"] = {"ingress": {"source": "sub-agent", "parentTxnId": parent_txn}}
    # turn 0: system init; it stays open until the session ends (the final-report and fin ops close it)
    t0: dict[str, Any] = {"id": g.uid(s.t), "index": 0, "startedAt": s.t, "attributes": {
        "system": True, "label": "init"}, "ops": [system_op(g, s, 1, "init")]}
    turns = node["turns"] = [t0]
    init_end = s.t + 1
    s.t += 2
    budget = plan.budget - 1
    steps = None
    if g.version >= 2 and budget >= 8 and rng.random() < 0.4:
        steps = _advisors(g, s, t0, init_end)
        budget -= len(steps[1]["ops"])
    user_turns = _plan_turns(g, s, plan, budget)
    turns += [_user_turn(g, s, n, specs, mode) for n, (specs, mode) in enumerate(user_turns, 1)]
    if steps is not None:
        _closing_steps(g, s, plan, steps, turns, len(user_turns))
    _finish(g, s, plan, node, steps)
    return node, s.report_text


def _finish(g: Gen, s: Sess, plan: Plan, node: dict[str, Any], steps: list | None) -> None:
    rng, turns, t0 = g.rng, node["turns"], node["turns"][0]
    node["sessionTitle"] = rng.choice(TITLES) if plan.level == 0 and rng.random() < 0.3 else s.title
    if rng.random() < g.hostile_rate * 3:
        node["sessionTitle"] = f"{node['sessionTitle'] or 'Title'} {rng.choice(HOSTILE_STRINGS)}"
    node |= {"latestStatus": s.status_text or rng.choice(STATUSES)} if s.status_text or plan.running else {}
    node |= {"steps": steps} if steps is not None else {}
    if not plan.running:
        if not plan.failed:
            t0["ops"].append(final_report_op(g, s, len(t0["ops"]) + 1))
        t0["ops"].append(system_op(g, s, len(t0["ops"]) + 1, "fin"))
        node["endedAt"] = t0["endedAt"] = s.t = s.t + rng.randint(2, 30)
        node["success"] = not plan.failed
        if plan.failed:  # its last turn's only op: the failed LLM request
            node["error"] = f"LLM request failed: {turns[-1]['ops'][0]['accounting'][0]['error']}"
        elif g.version >= 2:
            node["finalReport"] = {"format": "markdown", "content": s.report_text, "ts": node["endedAt"]} \
                if rng.random() < 0.8 else {"format": "json", "content_json": {
                    "summary": s.report_text[:200], "confidence": round(rng.random(), 2)}, "ts": node["endedAt"]}
    if g.version >= 2 and plan.level == 0 and rng.random() < 0.3:
        node["pluginMetas"] = fill(DATA["plugin_metas"], {})  # a copy
    node["totals"] = compute_totals(node)
    if g.version >= 2 and plan.level == 0 and rng.random() < 0.3:
        node["totals"].update(fill(DATA["v2_totals"], {"used": len(turns) - 1, "failed": 1 if plan.failed else 0,
                                                       "fixed": rng.randint(0, 2)}))


def session_op(g: Gen, s: Sess, cplan: Plan, *, turn: int, sub: int, path: str, cname: str, tname: str,
               params: dict[str, Any]) -> dict[str, Any]:
    """A sub-agent call: a ``session`` op whose ``childSession`` is the sub-agent's whole session."""
    rng = g.rng
    op, at = call_op(g, s, "session", (turn, sub, path), {"name": tname, "provider": "agent", "kind": "agent"},
                     params, f"agent:{cname}")
    start = op["startedAt"]
    at.log(start, "agent_start", name=tname)
    ccp = f"{s.call_path}->{tname}->{cname}" if g.style == "arrow" else f"{s.call_path}:{cname}"
    child, report = session(g, cplan, agent=cname, call_path=ccp, parent_txn=s.txn, prompt=params["prompt"],
                            start=start + rng.randint(2, 20), prefix=path + ".")
    op["childSession"] = child
    if cplan.running:
        s.t = max(s.t, start + 1)
        return op
    ok = child["success"]
    result = report if ok else f"sub-agent {cname} failed: {child['error']}"
    return _agent_done(s, op, at, child["endedAt"] + rng.randint(2, 30), result, "subagent", failed=not ok)


def _agent_done(s: Sess, op: dict[str, Any], at: At, end: int, result: str, server: str, suffix: str = "",
                failed: bool = False) -> dict[str, Any]:
    attrs, latency, status = op["attributes"], end - op["startedAt"], "failed" if failed else "ok"
    attrs.update(latency=latency, **({"error": "subagent_failed"} if failed else {}), size=len(result))
    op["response"] = response(result, len(result))
    op["accounting"].append(accounting(s, "tool", end=end, latency=latency, status=status, server=server,
                                       command=attrs["name"], chars_in=op["request"]["size"], chars_out=len(result),
                                       error=attrs.get("error")))
    at.log(end, "agent_failed" if failed else "agent_response", text=result, name=attrs["name"], size=len(result),
           latency=latency, suffix=suffix)
    return close(s, op, end, status)


def tool_output_op(g: Gen, s: Sess, *, turn: int, sub: int, path: str, source_tool: str, n_chunks: int,
                   params: dict[str, Any], mode: str = "full-chunked") -> dict[str, Any]:
    """An oversized tool result's extraction: over a bare full-chunked tree or a read-grep sub-agent session."""
    rng, handle = g.rng, params["handle"]
    op, at = call_op(g, s, "session", (turn, sub, path), {"name": "tool_output", "provider": "tool-output",
                                                           "kind": "agent"}, params, "agent:tool-output:tool_output")
    start = op["startedAt"]
    at.log(start, "tool_output_start", handle=handle)
    if mode == "read-grep":  # agent tool_output.read_grep, headend tool_output
        agent = "tool_output.read_grep"
        cli_style = ":" in s.call_path and "->" not in s.call_path
        prompt = f"WHAT TO EXTRACT\n{params['extract']}\n\nThe handle file is named `{handle}`."
        child, extracted = session(g, Plan(level=s.level + 1, budget=max(5, tool_output_ops(n_chunks) - 1)),
                                   agent=agent, call_path=f"{s.call_path}{':' if cli_style else '->'}{agent}",
                                   parent_txn=s.txn, prompt=prompt, start=start + rng.randint(1, 5), prefix=path + ".")
    else:
        child, extracted = _chunked_tree(g, s, start + rng.randint(1, 5), handle, n_chunks)
    op["childSession"] = child
    result = f"tool_output(handle={handle}, tool={source_tool}, mode={mode})\n\n{extracted}"
    return _agent_done(s, op, at, child["endedAt"] + rng.randint(1, 10), result, "tool-output", f" ({mode})")


def _chunked_tree(g: Gen, s: Sess, start: int, handle: str, n_chunks: int) -> tuple[dict[str, Any], str]:
    rng = g.rng
    node: dict[str, Any] = {"id": g.uid(start), "traceId": uuid4(rng), "agentId": s.agent, "callPath": s.call_path,
                            "sessionTitle": f"tool_output:{handle}", "startedAt": start, "turns": []}
    step: dict[str, Any] = {"id": g.uid(start), "index": 0, "kind": "internal", "startedAt": start,
                            "attributes": {"mode": "full-chunked"}, "ops": []}
    t, outputs = start, []
    for extra in [{"chunk": i} for i in range(1, n_chunks + 1)] + ([{"stage": "reduce"}] if n_chunks > 1 else []):
        t, latency = t + rng.randint(1, 8), int(rng.lognormvariate(7.6, 0.5)) + 200
        usage = usage_for(g, s, 1, 0)
        cost = cost_for(s, usage)
        outputs.append(text(rng, rng.randint(60, 400)))
        msg_bytes = rng.randint(4000, 60000) if "chunk" in extra else sum(len(o) for o in outputs) + 900
        acc = accounting(s, "llm", end=t + latency, latency=latency, status="ok", cost=cost, upstream=cost,
                         stop="end_turn", usage=usage, actual_provider=s.provider, origin=False)
        step["ops"].append(new_op(
            g, "llm", t, {"provider": s.provider, "model": s.model, **extra, "latency": latency}, accounting=[acc],
            request={"kind": "llm", "payload": {"messages": 2, "bytes": msg_bytes}, "size": msg_bytes},
            response=response({"textPreview": outputs[-1]}, len(outputs[-1])), endedAt=t + latency, status="ok"))
        t += latency
    step["endedAt"] = t + 1
    node.update(steps=[step], endedAt=t + 2, success=True)
    node["totals"] = compute_totals(node)
    return node, outputs[-1]


def iter_sessions(node: dict) -> Iterator[tuple[dict, int]]:
    """``(session, depth)`` for the node and every sub-agent's (pre-order: ``iter_ops``'s, one ``.`` a level)."""
    yield node, 0
    for path, o, _t, _s in iter_ops(node):
        if o.get("kind") == "session" and isinstance(o.get("childSession"), dict):
            yield o["childSession"], path.count(".") + 1


def iter_ops(node: dict, prefix: str = "") -> Iterator[tuple[str, dict, dict, dict]]:
    """``(path, op, turn or step, session)`` of every op; paths as the producer's: ``<turn>-<op>``, ``S<step>-<op>``."""
    for group, mark in ((node.get("turns") or [], ""), (node.get("steps") or [], "S")):
        for t in group:
            for i, o in enumerate(t.get("ops") or [], 1):
                path = f"{prefix}{mark}{t['index']}-{i}"
                yield path, o, t, node
                if o.get("kind") == "session" and isinstance(o.get("childSession"), dict):
                    yield from iter_ops(o["childSession"], path + ".")


def last_activity(node: dict) -> int:
    if isinstance(node.get("endedAt"), int):
        return node["endedAt"]
    best = node.get("startedAt") or 0
    for s, _d in iter_sessions(node):
        for t in (s.get("turns") or []) + (s.get("steps") or []):
            best = max(best, t.get("startedAt") or 0, t.get("endedAt") or 0)
            for o in t.get("ops") or []:
                best = max(best, o.get("startedAt") or 0, o.get("endedAt") or 0,
                           *(lg.get("timestamp") or 0 for lg in o.get("logs") or []))
    return best
