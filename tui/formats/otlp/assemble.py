"""The spans and log records of one trace become session trees (formats.md section 1), one per session.

What ai-agent sends (read from its code, src/telemetry/index.ts with ai-agent.ts, session-turn-runner.ts,
tools/tools.ts, server/session-manager.ts): spans nest by the active context, so a trace is
`headend.session` (server mode only) → `agent.session` → `agent.llm.turn` (one per attempt) → `agent.tool` →
a sub-agent's `agent.session` → ... : sub-agents are in their parent's trace, below the tool span that ran them.
A session's id is its `ai.session.txn_id`, the id the event stream sends as `meta.sessionId` and snapshot files as
`traceId`, so an OTLP session and a streamed one are one session of the hub. Spans are exported when they END: a
running session's `agent.session` span (and the tool span of a running sub-agent) arrives last. Until then its
llm and tool spans point at a parent not seen yet; such a missing parent of llm spans is a session too, named by
the log records emitted in it (their `txn_id`, `parent_txn_id`, `origin_txn_id`), else by the trace and span id.
Every assembly starts again from the spans held, so nothing that arrived early is lost, and ids settle as the
missing spans arrive.

Turns: an llm span is one attempt of a turn; the turn number comes from the `turn` attribute of the log records
emitted inside it (retries share it), else it is the next number in start order. A tool span belongs to the turn
of the llm span above it, else of the last llm span started before it. Any other framework (GenAI conventions):
`invoke_agent` spans are sessions, llm and tool spans as in tui.formats.otlp.ops; a trace that has no session span
around everything is itself the root session (its id is the trace id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tui.formats.otlp.ops import cost_of, first_user_text, llm_op, log_entry, log_turn, ms, role, tool_op
from tui.formats.otlp.records import STATUS_ERROR, LogRecord, Span

TOP = "^"  # the owner of spans above every session span (the trace itself)
COST_UNKNOWN = "costUnknown"  # a tree attribute: its llm spans stated no cost (tui.model.session_facts.cost_unknown)


@dataclass(slots=True)
class SessionTree:
    session_id: str
    parent_id: str  # "" for a root
    origin_id: str
    agent_id: str
    call_path: str
    tree: dict
    finished: bool = False
    keys: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Session:
    key: str  # a session span's id, "?<missing span id>", or TOP
    span: Span | None = None
    owner: str = ""  # the key of the session above it (walked through the spans)
    tool: str = ""  # the tool span it runs under
    llm: list[Span] = field(default_factory=list)
    tools: list[Span] = field(default_factory=list)
    logs: list[LogRecord] = field(default_factory=list)
    txn: str = ""
    meta: dict = field(default_factory=dict)  # agent, call_path, parent_txn_id, origin_txn_id (from logs)
    sid: str = ""
    start: int = 0


def assemble(trace_id: str, spans: Iterable[Span], logs: Iterable[LogRecord],
             txn_logs: dict[str, list[LogRecord]] | None = None) -> list[SessionTree]:
    """The session trees of a trace, root first. `logs`: the records carrying this trace's id; `txn_logs`: records
    without a trace id, by `txn_id` (attached to the session of that id when it is in this trace)."""
    by_id = {s.span_id: s for s in spans if s.span_id}
    roles = {sid: role(s) for sid, s in by_id.items()}
    owners: dict[str, tuple[str, str, str]] = {}  # span id -> (session key, llm span above, tool span above)
    sessions: dict[str, _Session] = {}

    def session(key: str) -> _Session:
        found = sessions.get(key)
        if found is None:
            found = sessions[key] = _Session(key, by_id.get(key) if not key.startswith(("?", TOP)) else None)
        return found

    def climb(start: str) -> tuple[str, str, str]:
        """(session key, llm span, tool span) above the span `start` (itself excluded), iteratively."""
        llm, tool, current = "", "", by_id[start].parent_id
        seen = {start}
        while True:
            if not current:
                key = TOP
                break
            if current in seen:
                key = TOP  # a cycle of parents: broken data, hung at the top
                break
            seen.add(current)
            span = by_id.get(current)
            if span is None:
                key = "?" + current
                break
            kind = roles[current]
            if kind == "session":
                key = current
                break
            if kind == "llm" and not llm:
                llm = current
            if kind == "tool" and not tool:
                tool = current
            current = span.parent_id
        return key, llm, tool

    for span_id, kind in roles.items():
        if not kind:
            continue
        key, llm, tool = owners[span_id] = climb(span_id)
        if kind == "session":
            s = session(span_id)
            s.owner, s.tool = key, tool  # (a missing parent here is a running tool, not a session: not made one)
        else:
            owner = session(key)
            (owner.llm if kind == "llm" else owner.tools).append(by_id[span_id])
    logs = list(logs)
    loose = _attach_logs(by_id, roles, owners, sessions, session, logs)
    _name_sessions(trace_id, sessions)
    by_sid = {s.sid: s for s in sessions.values()}
    root = sessions[_root_key(sessions)]
    for record in loose:
        txn = record.attrs.get("txn_id")
        by_sid.get(txn if isinstance(txn, str) else "", root).logs.append(record)
    for txn, records in (txn_logs or {}).items():
        if txn in by_sid:
            by_sid[txn].logs.extend(records)
    ops_of: dict[str, dict] = {}
    logs_by_span = _logs_by_span(r for r in logs if roles.get(r.span_id) in ("llm", "tool"))
    trees = [_tree(trace_id, s, owners, ops_of, logs_by_span)
             for s in sorted(sessions.values(), key=lambda s: (s is not root, s.start))]
    for s in sessions.values():  # sub-agents hang on the tool op that ran them (attach_child finds them there)
        if s.tool and s.tool in ops_of and s.sid:
            op = ops_of[s.tool]
            if "childSession" not in op:
                op["kind"] = "session"
                op["childSession"] = {"id": s.sid, "traceId": s.sid, "agentId": s.meta.get("agent", ""), "turns": []}
    for tree in trees:
        _tool_output_children(tree)
    return trees


def _tool_output_children(tree: SessionTree) -> None:
    """A `tool_output` call is a session op in ai-agent's tree, with a child of its parent's agent and call path
    (src/tools/tools.ts); its extraction exports no span, so the child is a stub (as the producer's for a bad
    handle): the call counts as the snapshot counts it, one agent run and no tool run."""
    for turn in tree.tree["turns"]:
        for op in turn["ops"]:
            if op["kind"] == "session" and "childSession" not in op and \
                    op["attributes"].get("ai.tool.provider") == "tool-output" and op.get("endedAt"):
                op["childSession"] = {"id": f"{tree.session_id}-{op['opId']}-tool_output", "traceId": tree.session_id,
                                      "agentId": tree.agent_id, "callPath": tree.call_path,
                                      "sessionTitle": op["attributes"].get("name", "tool_output"),
                                      "startedAt": op["startedAt"], "endedAt": op["endedAt"],
                                      "success": op.get("status") == "ok", "turns": []}


def _logs_by_span(logs: Iterable[LogRecord]) -> dict[str, list[LogRecord]]:
    out: dict[str, list[LogRecord]] = {}
    for record in logs:
        out.setdefault(record.span_id, []).append(record)
    return out


def _attach_logs(by_id, roles, owners, sessions, session, logs) -> list[LogRecord]:
    """Learn each session's txn ids from the records emitted in it or in its llm/tool spans; records not emitted in
    an llm or tool span go to their session's own logs. Returns the records no span places (matched by txn id)."""
    loose = []
    for record in logs:
        txn = record.attrs.get("txn_id")
        span_id = record.span_id
        kind = roles.get(span_id)
        if kind in ("llm", "tool"):
            key = owners[span_id][0]
        elif kind == "session":
            key = span_id
        elif span_id in by_id:
            key = owners[span_id][0] if span_id in owners else _owner_of_plain(span_id, by_id, roles)
        elif span_id and "?" + span_id in sessions:
            key = "?" + span_id
        else:
            loose.append(record)
            continue
        s = session(key)
        if kind not in ("llm", "tool"):
            s.logs.append(record)
        if isinstance(txn, str) and txn and not s.txn:
            s.txn = txn
        if isinstance(txn, str) and txn and txn == s.txn:
            for attr in ("agent", "call_path", "parent_txn_id", "origin_txn_id"):
                value = record.attrs.get(attr)
                if attr == "call_path" and record.attrs.get("type") == "tool":
                    continue  # (a tool record's call_path names the tool too: `master:summary`, not the agent's)
                if isinstance(value, str) and value:
                    s.meta.setdefault(attr, value)
    return loose


def _owner_of_plain(span_id: str, by_id, roles) -> str:
    """The session key above a span that is neither session, llm nor tool (headend.session, an HTTP span)."""
    seen = set()
    current = by_id[span_id].parent_id
    while current and current not in seen:
        seen.add(current)
        span = by_id.get(current)
        if span is None:
            return "?" + current
        if roles.get(current) == "session":
            return current
        current = span.parent_id
    return TOP


def _root_key(sessions: dict[str, _Session]) -> str:
    return next((k for k, s in sessions.items() if s.meta.get("root")), TOP)


def _name_sessions(trace_id: str, sessions: dict[str, _Session]) -> None:
    """Ids, parents and which session is the root: TOP when spans hang outside every session, else the one
    top session (the earliest of several: the others hang below it)."""
    for s in sessions.values():
        starts = [x.start_ns for x in (s.llm + s.tools) if x.start_ns]
        if s.span is not None and s.span.start_ns:
            starts.append(s.span.start_ns)
        s.start = min(starts, default=0)
        a = s.span.attrs if s.span is not None else {}
        txn = a.get("ai.session.txn_id")
        if isinstance(txn, str) and txn:
            s.txn = txn
        told: dict[str, str] = {}  # the session span's own names win over its log records' (tool records' differ)
        for attr, key in (("ai.agent.id", "agent"), ("gen_ai.agent.name", "agent"), ("gen_ai.agent.id", "agent"),
                          ("ai.agent.call_path", "call_path"), ("ai.session.parent_txn_id", "parent_txn_id"),
                          ("ai.session.origin_txn_id", "origin_txn_id")):
            value = a.get(attr)
            if isinstance(value, str) and value:
                told.setdefault(key, value)
        s.meta.update(told)
    tops = [s for s in sessions.values() if s.key != TOP and (s.key.startswith("?") or s.owner == TOP)]
    top = sessions.get(TOP)
    if top is not None and (top.llm or top.tools):
        root = top
    elif tops:
        root = min(tops, key=lambda s: (s.key.startswith("?"), s.start))
        sessions.pop(TOP, None)
    else:
        root = top if top is not None else _Session(TOP)
        sessions[TOP] = root
    root.meta["root"] = True
    if root.span is None and root.meta.get("parent_txn_id"):  # a sub-agent's spans came before its parents' (a
        root.meta["parent"] = root.meta["parent_txn_id"]  # batch): its log records name its parent, it hangs there
    for s in sessions.values():
        s.sid = s.txn or (trace_id if s is root else f"{trace_id}-{s.key.lstrip('?')}")
    for s in sessions.values():
        if s is root:
            continue
        parent = sessions.get(s.owner) if s.owner and s.owner != TOP and not s.key.startswith("?") else None
        s.meta["parent"] = parent.sid if parent is not None else (s.meta.get("parent_txn_id") or root.sid)


def _tree(trace_id: str, s: _Session, owners, ops_of: dict[str, dict], logs_by_span) -> SessionTree:
    meta = s.meta
    agent = meta.get("agent", "") or _resource_name(s)
    txn_meta = {"agentId": agent, "callPath": meta.get("call_path", agent), "txnId": s.sid}
    turns: dict[int, dict] = {}
    turn_of: dict[str, int] = {}
    number = 0
    for span in sorted(s.llm, key=lambda x: (x.start_ns, x.span_id)):
        told = [t for t in (log_turn(r) for r in logs_by_span.get(span.span_id, ())) if t is not None]
        number = told[0] if told else number + 1
        turn_of[span.span_id] = number
        _add_op(turns, number, llm_op(span, txn_meta, logs_by_span.get(span.span_id, ())), ops_of, logs_by_span)
    starts = sorted((x.start_ns, turn_of[x.span_id]) for x in s.llm)
    for span in sorted(s.tools, key=lambda x: (x.start_ns, x.span_id)):
        above = owners.get(span.span_id, ("", "", ""))[1]
        turn = turn_of.get(above)
        if turn is None:
            before = [t for start, t in starts if start <= span.start_ns]
            told = [t for t in (log_turn(r) for r in logs_by_span.get(span.span_id, ())) if t is not None]
            turn = before[-1] if before else (told[0] if told else 1)
        _add_op(turns, turn, tool_op(span, txn_meta), ops_of, logs_by_span)
    own_logs = s.logs
    ordered = [turns[n] for n in sorted(turns)]
    prompt = next((text for text in map(first_user_text, sorted(s.llm, key=lambda x: x.start_ns)[:1]) if text), "")
    if prompt and ordered:  # (GenAI spans carry the prompt: the title of a session that has none)
        ordered[0]["attributes"]["prompts"] = {"user": prompt}
    if own_logs:
        own_logs.sort(key=lambda r: r.time_ns)
        ordered.insert(0, {"id": f"{s.sid}-0", "index": 0, "attributes": {"system": True, "label": "init"},
                           "startedAt": ms(own_logs[0].time_ns),
                           "ops": [{"opId": f"{s.sid}-logs", "kind": "system", "startedAt": ms(own_logs[0].time_ns),
                                    "attributes": {"label": "session logs"}, "accounting": [],
                                    "logs": [log_entry(r, "0-1") for r in own_logs]}]})
    for turn_node in ordered:
        turn_node["ops"].sort(key=lambda op: op.get("startedAt") or 0)  # (attempts and tools as they happened)
        for n, op in enumerate(turn_node["ops"]):
            path = f"{turn_node['index']}-{n + 1}"
            for entry in op["logs"]:
                entry.setdefault("path", path)
        ends = [op.get("endedAt") for op in turn_node["ops"]]
        turn_node["startedAt"] = min((op["startedAt"] for op in turn_node["ops"] if op.get("startedAt")), default=0)
        if ends and all(ends):
            turn_node["endedAt"] = max(ends)
    session_span = s.span
    title = session_span.attrs.get("ai.session.title") if session_span is not None else None
    tree: dict = {"id": s.sid, "traceId": s.sid, "agentId": agent, "callPath": meta.get("call_path", agent),
                  "sessionTitle": title if isinstance(title, str) else "", "startedAt": ms(s.start), "turns": ordered,
                  "attributes": {"source": "otlp", "otlpTraceId": trace_id}}
    if s.llm and all(cost_of(x) is None for x in s.llm):
        tree["attributes"][COST_UNKNOWN] = True  # (ai-agent exports no cost: unknown, never a made-up $0)
    finished = False
    if session_span is not None and session_span.end_ns:
        finished = True
        tree["endedAt"] = ms(session_span.end_ns)
        success = session_span.attrs.get("ai.agent.success")
        tree["success"] = success if isinstance(success, bool) else session_span.status != STATUS_ERROR
        if session_span.status == STATUS_ERROR:
            tree["error"] = session_span.status_message or "failed"
        tree["latestStatus"] = "completed" if tree["success"] else "failed"
    return SessionTree(s.sid, meta.get("parent", ""), meta.get("origin_txn_id", ""), agent,
                       meta.get("call_path", agent), tree, finished)


def _resource_name(s: _Session) -> str:
    for span in (s.span, *s.llm, *s.tools):
        if span is not None:
            name = span.resource.get("service.name")
            if isinstance(name, str) and name and not name.startswith("unknown_service"):
                return name
    return ""


def _add_op(turns: dict[int, dict], number: int, op: dict, ops_of: dict[str, dict], logs_by_span) -> None:
    turn = turns.get(number)
    if turn is None:
        turn = turns[number] = {"id": f"turn-{number}", "index": number, "attributes": {}, "ops": []}
    op["logs"] = [log_entry(r) for r in sorted(logs_by_span.get(op["opId"], ()), key=lambda r: r.time_ns)]
    turn["ops"].append(op)
    ops_of[op["opId"]] = op
