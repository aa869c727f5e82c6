"""Insights: the questions people answer with jq over a snapshot, computed in one walk over a session tree.

Failed ops with their errors, fatal logs, the slowest ops, cost and tokens by model / agent / tool, the cache-read
share of input tokens, retried turns, the tool error rate and the final report. Every entry names the op path it
refers to, so a screen can jump to it; `insights_text` lays them out as text for `dump --insights` and the panel.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from tui.model.fields import as_dict, as_list
from tui.model.final_report import FinalReport, final_report
from tui.model.nodes import Op, Session, Turn
from tui.model.op_facts import op_facts
from tui.model.search import walk_ops

SLOWEST = 10
SIZE_KEYS = ("charactersIn", "charactersOut", "requestBytes", "responseBytes", "opsWithoutStart")
ERROR_TEXT = 2000  # characters of an op's error detail kept


@dataclass(slots=True)
class FailedOp:
    path: str
    kind: str
    target: str
    agent: str
    error: str  # the producer's error slug (attributes.error) or session error
    detail: str  # the first ERR log message, else a failed tool's response text


@dataclass(slots=True)
class FatalLog:
    path: str
    severity: str
    message: str
    ts: int | None


@dataclass(slots=True)
class SlowOp:
    path: str
    kind: str
    target: str
    duration_ms: int


@dataclass(slots=True)
class Usage:
    """One row of a breakdown (by model, agent or tool): what its ops used."""

    key: str
    path: str  # the op to jump to: models and tools their first failure, else the first (models) or slowest
    # (tools) call; agents the op that first ran them
    calls: int = 0  # llm calls (models), sessions (agents), tool calls (tools)
    ops: int = 0
    failed: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    duration_ms: int = 0
    max_ms: int = 0
    _jump_failed: bool = False

    def add_op(self, op: Op, duration: int | None) -> None:
        self.ops += 1
        self.tokens_in += op.tokens_in
        self.tokens_out += op.tokens_out
        self.cache_read += op.cache_read
        self.cache_write += op.cache_write
        self.cost += op.cost
        if op.failed:
            self.failed += 1
            if not self._jump_failed:
                self._jump_failed = True
                self.path = op.path
        if duration is not None:
            self.duration_ms += duration
            if duration > self.max_ms:
                self.max_ms = duration

    def as_dict(self, name: str) -> dict:
        return {
            name: self.key, "path": self.path, "calls": self.calls, "ops": self.ops, "failed": self.failed,
            "tokensIn": self.tokens_in, "tokensOut": self.tokens_out, "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write, "costUsd": round(self.cost, 4), "durationMs": self.duration_ms,
            "maxMs": self.max_ms,
        }


@dataclass(slots=True)
class Retry:
    path: str  # the second attempt's op (or the turn's first op when the turn itself says it is a retry)
    turn: str
    agent: str
    attempts: int
    reason: str


@dataclass
class Insights:
    session_path: str  # the path prefix of the session the insights describe ("" = the document's root)
    agent: str
    failed_ops: list[FailedOp] = field(default_factory=list)
    fatal_logs: list[FatalLog] = field(default_factory=list)
    slowest: list[SlowOp] = field(default_factory=list)
    by_model: list[Usage] = field(default_factory=list)
    by_agent: list[Usage] = field(default_factory=list)
    by_tool: list[Usage] = field(default_factory=list)
    retries: list[Retry] = field(default_factory=list)
    tokens_in: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    tool_calls: int = 0
    tool_failed: int = 0
    first_failed_tool: str = ""
    sizes: dict = field(default_factory=lambda: dict.fromkeys(SIZE_KEYS, 0))  # summed over the ops (op_facts)
    final_report: FinalReport | None = None

    @property
    def cache_share(self) -> float | None:
        """Cache reads over all input tokens (uncached + cache read + cache write); None without input."""
        total = self.tokens_in + self.cache_read + self.cache_write
        return self.cache_read / total if total else None

    @property
    def tool_error_rate(self) -> float | None:
        return self.tool_failed / self.tool_calls if self.tool_calls else None

    def as_dict(self) -> dict:
        share, rate = self.cache_share, self.tool_error_rate
        report = self.final_report
        return {
            "sessionPath": self.session_path,
            "failedOps": [{"path": f.path, "kind": f.kind, "target": f.target, "agent": f.agent, "error": f.error,
                           "detail": f.detail} for f in self.failed_ops],
            "fatalLogs": [{"path": f.path, "severity": f.severity, "message": f.message, "ts": f.ts}
                          for f in self.fatal_logs],
            "slowestOps": [{"path": s.path, "kind": s.kind, "target": s.target, "durationMs": s.duration_ms}
                           for s in self.slowest],
            "byModel": [u.as_dict("model") for u in self.by_model],
            "byAgent": [u.as_dict("agent") for u in self.by_agent],
            "byTool": [u.as_dict("tool") for u in self.by_tool],
            "cache": {"tokensIn": self.tokens_in, "cacheRead": self.cache_read, "cacheWrite": self.cache_write,
                      "share": round(share, 4) if share is not None else None},
            "retries": [{"path": r.path, "turn": r.turn, "agent": r.agent, "attempts": r.attempts, "reason": r.reason}
                        for r in self.retries],
            "toolErrors": {"calls": self.tool_calls, "failed": self.tool_failed,
                           "rate": round(rate, 4) if rate is not None else None, "path": self.first_failed_tool or None},
            "finalReport": None if report is None else {
                "path": report.path, "source": report.source, "format": report.format, "text": report.text,
                "truncated": report.truncated, "contentJson": report.content_json or None,
                "captured": report.captured, "note": report.note or None},
            "sizes": dict(self.sizes),
        }


def compute(session: Session) -> Insights:
    """The insights of `session` and everything below it, in one walk over its ops."""
    ins = Insights(session.path_prefix, session.display_agent)
    models: dict[str, Usage] = {}
    tools: dict[str, Usage] = {}
    slow: list[tuple[int, int, Op]] = []  # a min-heap of the SLOWEST longest (duration, -sequence, op)
    sessions: list[Session] = [session]
    llm_turns: dict[int, list[Op]] = {}  # id(turn) -> its LLM ops, for retried turns
    seq = 0
    for op in walk_ops(session):
        seq += 1
        _add_sizes(ins.sizes, op)
        duration = op.duration_ms  # None when unknown (no times, or a ledger op placed at its record's time)
        kind = op.kind
        failed = op.status == "failed"
        if kind == "llm":
            key = op.target or "?"
            model = models.get(key)
            if model is None:
                model = models[key] = Usage(key, op.path)
            model.calls += 1
            model.add_op(op, duration)
            attempts = llm_turns.get(id(op.turn))
            if _chunk_call(op):
                pass  # a tool_output sub-agent: one call per chunk of a big tool result, then a reduce: not retries
            elif attempts is None:
                llm_turns[id(op.turn)] = [op]
            else:
                attempts.append(op)
        elif kind == "tool":
            key = op.name or op.target or "?"
            tool = tools.get(key)
            if tool is None:
                tool = tools[key] = Usage(key, op.path)
            tool.calls += 1
            if duration is not None and duration > tool.max_ms and not tool._jump_failed:
                tool.path = op.path  # the slowest call so far, until a call fails
            tool.add_op(op, duration)
            ins.tool_calls += 1
            if failed:
                ins.tool_failed += 1
                if not ins.first_failed_tool:
                    ins.first_failed_tool = op.path
        elif op.tokens_in or op.tokens_out or op.cost:  # tokens on a non-llm op still count towards the total
            key = f"({kind} ops)"
            other = models.get(key)
            if other is None:
                other = models[key] = Usage(key, op.path)
            other.add_op(op, duration)
        if duration is not None and kind != "session":
            if len(slow) < SLOWEST:
                heapq.heappush(slow, (duration, -seq, op))
            elif duration > slow[0][0]:
                heapq.heapreplace(slow, (duration, -seq, op))
        child = op.child
        if failed or (child is not None and kind == "session" and child.status == "failed"):
            ins.failed_ops.append(_failed(op))
        if op.errors or failed:  # the producer marks only ERR logs fatal; ops without any skip the scan
            _fatal_logs(op, op.raw.get("logs") if op.raw is not None else None, ins.fatal_logs)
        if child is not None:
            sessions.append(child)
    t = session.totals
    ins.tokens_in, ins.cache_read, ins.cache_write, ins.cost = (t.tokensIn, t.tokensCacheRead, t.tokensCacheWrite,
                                                                 t.costUsd)
    ins.slowest = [SlowOp(op.path, op.kind, op.target, d) for d, _, op in sorted(slow, reverse=True)]
    ins.by_model = sorted(models.values(), key=lambda u: (-u.cost, -(u.tokens_in + u.tokens_out), u.key))
    ins.by_agent = _by_agent(sessions)
    ins.by_tool = sorted(tools.values(), key=lambda u: (-u.failed, -u.calls, u.key))
    for s in sessions:
        _turn_insights(s, ins, llm_turns)
    ins.fatal_logs.sort(key=lambda f: f.ts if f.ts is not None else 0)
    ins.final_report = final_report(session)
    return ins


def _by_agent(sessions: list[Session]) -> list[Usage]:
    """Each agent's own usage: a session's totals and counts minus those of the sessions embedded in its ops.

    An agent's entry jumps to the op that first ran it (the session itself for the one in view)."""
    agents: dict[str, Usage] = {}
    for s in sessions:
        key = s.display_agent
        usage = agents.get(key)
        if usage is None:
            usage = agents[key] = Usage(key, s.path_prefix)
        usage.calls += 1
        t, c = s.totals, s.counts
        tin, tout, cread, cwrite, cost = t.tokensIn, t.tokensOut, t.tokensCacheRead, t.tokensCacheWrite, t.costUsd
        ops, failed = c.ops, c.failed
        for turn in s.turns:
            for op in turn.ops:
                child = op.child
                if child is None:
                    continue
                ops -= child.counts.ops
                failed -= child.counts.failed
                if op.kind == "session":  # a detached child (tool_output) is not in its parent's totals
                    ct = child.totals
                    tin -= ct.tokensIn
                    tout -= ct.tokensOut
                    cread -= ct.tokensCacheRead
                    cwrite -= ct.tokensCacheWrite
                    cost -= ct.costUsd
        usage.ops += ops
        usage.failed += failed
        usage.tokens_in += tin
        usage.tokens_out += tout
        usage.cache_read += cread
        usage.cache_write += cwrite
        usage.cost += cost
        if s.duration_ms is not None:
            usage.duration_ms += s.duration_ms
            usage.max_ms = max(usage.max_ms, s.duration_ms)
    return sorted(agents.values(), key=lambda u: (-u.cost, -u.ops, u.key))


def _failed(op: Op) -> FailedOp:
    error = op.error
    child = op.child
    if not error and child is not None and child.error:
        error = child.error
    detail = ""
    raw = op.raw
    if raw is not None:
        for log in as_list(raw.get("logs")):
            if isinstance(log, dict) and (log.get("severity") == "ERR" or log.get("fatal") is True):
                message = log.get("message")
                if isinstance(message, str) and message:
                    detail = message
                    break
        if not detail and op.kind == "tool":
            payload = as_dict(raw.get("response")).get("payload")
            if isinstance(payload, str):
                detail = payload
    if detail == error:
        detail = ""
    return FailedOp(op.path, op.kind, op.target, op.turn.session.display_agent, error[:ERROR_TEXT],
                    detail[:ERROR_TEXT])


def _fatal_logs(op: Op, logs: object, out: list[FatalLog]) -> None:
    if not isinstance(logs, list):
        return
    for log in logs:
        if isinstance(log, dict) and log.get("fatal") is True:
            message = log.get("message")
            severity = log.get("severity")
            ts = log.get("timestamp")
            out.append(FatalLog(op.path, severity if isinstance(severity, str) else "?",
                                message if isinstance(message, str) else "" if message is None else str(message),
                                ts if isinstance(ts, int) and not isinstance(ts, bool) else None))


def _turn_insights(s: Session, ins: Insights, llm_turns: dict[int, list[Op]]) -> None:
    """Retried turns, and the fatal logs that hang on a turn or a session (ledgers) rather than an op."""
    for log in s.extra_logs:
        if log.fatal:
            ins.fatal_logs.append(FatalLog(s.path_prefix, log.severity, log.message, log.ts))
    for turn in s.turns:
        for log in turn.extra_logs:
            if log.fatal:
                ins.fatal_logs.append(FatalLog(turn.ops[0].path if turn.ops else s.path_prefix, log.severity,
                                               log.message, log.ts))
        llm = llm_turns.get(id(turn), ())
        raw = turn.raw
        attrs = raw.get("attributes") if raw is not None else None
        if len(llm) > 1 or (isinstance(attrs, dict) and attrs):
            retry = _retry(turn, llm, attrs if isinstance(attrs, dict) else {})
            if retry is not None:
                ins.retries.append(retry)


def _retry(turn: Turn, llm, attrs: dict) -> Retry | None:
    """A turn that took more than one LLM attempt, or says it is a retry (attributes retry / isRetry / attempt)."""
    flagged = attrs.get("isRetry") is True or _positive(attrs.get("retry")) or _positive(attrs.get("attempt"), 1)
    if len(llm) < 2 and not flagged:
        return None
    reason = attrs.get("reason")
    reason = reason if isinstance(reason, str) else ""
    if not reason:
        reason = next((op.error for op in llm if op.failed and op.error), "")
    attempts = len(llm)
    for key in ("attempt", "attempts"):
        value = attrs.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > attempts:
            attempts = value
    if flagged and attempts < 2:
        attempts = 2
    path = llm[1].path if len(llm) > 1 else (turn.ops[0].path if turn.ops else turn.session.path_prefix)
    return Retry(path, turn.title, turn.session.display_agent, attempts, reason)


def _add_sizes(sizes: dict, op: Op) -> None:
    """Tool characters, request/response bytes and the ops without a start, added up for `dump --insights --json`."""
    if op.started_at is None or op.payload_refs:
        facts = op_facts(op)
        values = (facts.chars_in, facts.chars_out, facts.request_bytes, facts.response_bytes)
        if op.started_at is None and op.raw is not None:
            sizes["opsWithoutStart"] += 1
    else:
        values = (op.chars_in, op.chars_out, op.request_bytes, op.response_bytes)
    for key, value in zip(SIZE_KEYS, values):
        if value:
            sizes[key] += value


def _chunk_call(op: Op) -> bool:
    """An llm op of a tool_output extraction (src/tool-output/extractor.ts): a map call per chunk
    (`attributes.chunk` 1..N) and the reduce call (`attributes.stage: "reduce"`)."""
    attrs = op.attributes
    if not attrs:
        return False
    chunk = attrs.get("chunk")
    return (type(chunk) is int and chunk >= 1) or attrs.get("stage") in ("reduce", "map")


def _positive(value: object, above: int = 0) -> bool:
    if isinstance(value, bool):
        return value
    return isinstance(value, (int, float)) and value > above
