"""A v2 snapshot written by hand from the producer's code (src/session-tree.ts, src/ai-agent.ts,
src/tool-output/extractor.ts), with the shapes our own generator used to leave out:

- v2 `steps[]` beside `turns[]`; their ops are labelled `S<step>-<op>` (`S0-1`, inside a sub-agent `1-2.S0-1`);
- a sub-agent whose logs carry paths relative to its own tree (`1-1`), and one log that already carries the full
  path (live events and some older files do);
- the final report: a `system` op labelled `final-report` with a `tool` accounting entry
  `command: "agent__final_report"`, and its content in `opTree.finalReport` (content and content_json);
- `pluginMetas` on the opTree;
- a `tool_output` sub-agent: step 0 (`internal`, mode full-chunked), one llm op per chunk (`chunk: 1..N`) and the
  reduce call (`stage: "reduce"`);
- a tool op with `charactersIn`/`charactersOut` in its accounting, llm ops with `request.size`/`response.size`,
  and an op without `startedAt` whose accounting entry has a `timestamp`.
"""

from __future__ import annotations

T0 = 1_764_000_000_000  # ms


def _llm_acc(at: int, tin: int, tout: int, cost: float) -> dict:
    return {"type": "llm", "timestamp": at, "status": "ok", "latency": 900, "provider": "anthropic",
            "model": "claude-sonnet", "costUsd": cost, "stopReason": "end_turn",
            "tokens": {"inputTokens": tin, "outputTokens": tout, "totalTokens": tin + tout}}


def _llm(op_id: str, at: int, *, logs=(), request_size=None, response_size=None, **attrs) -> dict:
    node = {"opId": op_id, "kind": "llm", "startedAt": at, "endedAt": at + 1000, "status": "ok",
            "attributes": {"provider": "anthropic", "model": "claude-sonnet", **attrs},
            "logs": list(logs), "accounting": [_llm_acc(at + 1000, 100, 20, 0.001)]}
    if request_size is not None:
        node["request"] = {"kind": "llm", "payload": {"messages": 3, "bytes": request_size}, "size": request_size}
    if response_size is not None:
        node["response"] = {"payload": {"textPreview": "ok"}, "size": response_size, "truncated": False}
    return node


def _log(at: int, severity: str, message: str, path: str) -> dict:
    return {"timestamp": at, "severity": severity, "message": message, "path": path, "type": "llm",
            "direction": "response", "turn": 1, "subturn": 0}


def _session(sid: str, agent: str, at: int, *, turns=(), steps=None, **extra) -> dict:
    node = {"id": sid, "traceId": f"trace-{sid}", "agentId": agent, "callPath": agent, "sessionTitle": "",
            "startedAt": at, "endedAt": at + 60_000, "success": True, "turns": list(turns)}
    if steps is not None:
        node["steps"] = steps
    node.update(extra)
    return node


def _turn(index: int, at: int, ops, **attrs) -> dict:
    return {"id": f"t{index}-{at}", "index": index, "startedAt": at, "endedAt": at + 50_000, "attributes": attrs,
            "ops": list(ops)}


def researcher() -> dict:
    """The sub-agent of op 1-2: its logs say `1-1` (relative) and, once, `1-2.1-1` (already the full path)."""
    at = T0 + 5_000
    return _session("res", "researcher", at, turns=[_turn(1, at, [
        _llm("r-llm", at, logs=[_log(at + 100, "WRN", "child relative log", "1-1"),
                                _log(at + 200, "ERR", "child full-path log", "1-2.1-1")]),
    ])])


def tool_output_child() -> dict:
    """What ToolOutputExtractor.runFullChunked writes: step 0, one llm op per chunk, then the reduce op."""
    at = T0 + 20_000
    ops = [_llm("to-1", at, chunk=1), _llm("to-2", at + 2000, chunk=2), _llm("to-3", at + 4000, stage="reduce")]
    return _session("tout", "root-agent", at, turns=[], sessionTitle="tool_output:handle-1",
                    steps=[{"id": "st0", "index": 0, "kind": "internal", "startedAt": at, "endedAt": at + 6000,
                            "attributes": {"mode": "full-chunked"}, "ops": ops}])


def advisor() -> dict:
    """The sub-agent of step op S0-1: its log says `1-1`, shown as `S0-1.1-1`."""
    at = T0 + 40_000
    return _session("adv", "advisor", at, turns=[_turn(1, at, [
        _llm("a-llm", at, logs=[_log(at + 10, "INF", "advisor log", "1-1")]),
    ])])


def tree() -> dict:
    tool_at = T0 + 12_000
    final_at = T0 + 50_000
    turn0 = _turn(0, T0, [{"opId": "init", "kind": "system", "startedAt": T0, "endedAt": T0 + 5, "status": "ok",
                           "attributes": {"label": "init"}, "logs": [], "accounting": []}],
                  system=True, label="init")
    turn1 = _turn(1, T0 + 1000, [
        _llm("llm-1", T0 + 1000, request_size=2048, response_size=512),
        {"opId": "sub-1", "kind": "session", "startedAt": T0 + 5000, "endedAt": T0 + 11_000, "status": "ok",
         "attributes": {"name": "agent__researcher", "provider": "agent", "kind": "agent"},
         "logs": [], "accounting": [], "childSession": researcher()},
        {"opId": "tool-1", "kind": "tool", "status": "ok",  # no startedAt/endedAt: its accounting entry dates it
         "attributes": {"name": "web__fetch", "provider": "mcp", "kind": "mcp"},
         "logs": [], "accounting": [{"type": "tool", "timestamp": tool_at, "status": "ok", "latency": 300,
                                     "mcpServer": "web", "command": "web__fetch", "charactersIn": 120,
                                     "charactersOut": 4567}]},
        {"opId": "tout-op", "kind": "session", "startedAt": T0 + 20_000, "endedAt": T0 + 27_000, "status": "ok",
         "attributes": {"name": "tool_output", "provider": "tool_output"}, "logs": [], "accounting": [],
         "childSession": tool_output_child()},
        {"opId": "final", "kind": "system", "startedAt": final_at, "endedAt": final_at + 10, "status": "ok",
         "attributes": {"label": "final-report", "format": "markdown"}, "logs": [],
         "accounting": [{"type": "tool", "timestamp": final_at + 10, "status": "ok", "latency": 1,
                         "mcpServer": "agent", "command": "agent__final_report", "charactersIn": 40,
                         "charactersOut": 0}]},
    ])
    steps = [{"id": "step0", "index": 0, "kind": "advisors", "startedAt": T0 + 40_000, "endedAt": T0 + 45_000,
              "attributes": {}, "ops": [
                  {"opId": "adv-op", "kind": "session", "startedAt": T0 + 40_000, "endedAt": T0 + 44_000,
                   "status": "ok", "attributes": {"name": "agent__advisor", "provider": "agent"}, "logs": [],
                   "accounting": [], "childSession": advisor()},
                  _llm("step-llm", T0 + 44_000),
              ]}]
    root = _session("root", "root-agent", T0, turns=[turn0, turn1], steps=steps,
                    finalReport={"format": "markdown", "content": "# Answer\nAll good.",
                                 "content_json": {"answer": 42}, "ts": final_at},
                    pluginMetas={"support": {"ticket": "T-1", "priority": "high"}})
    return root


def snapshot() -> dict:
    return {"version": 2, "reason": "final", "opTree": tree(), "sessionId": "root", "originId": "root",
            "timestamp": T0 + 60_000}
