"""Build the normalised tree from v3 ledgers: `session/<id>.jsonl`, following child ledgers.

Child ledgers are built iteratively (see tui.model.trampoline), so deep chains of sub-agents cost no recursion.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from tui.model import json_load
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str, type_name
from tui.model.logs import LogEntry
from tui.model.nodes import Op, Session, Turn, begin_op
from tui.model.source_bytes import LoadError, read_source
from tui.model.totals import Totals
from tui.model.trampoline import drive

MAX_CHILD_DEPTH = 512


def parse_records(data: bytes) -> tuple[list[dict], list[str], int]:
    """Records of a ledger, the problems met, and how many bytes were consumed.

    A last line without its newline is a record still being written: it is held back (not consumed) unless it
    parses, so a reader that tails the file can resume at the returned offset.
    """
    records: list[dict] = []
    problems: list[str] = []
    pos = 0
    size = len(data)
    line_no = 0
    while pos < size:
        end = data.find(b"\n", pos)
        complete = end != -1
        line = data[pos:end] if complete else data[pos:]
        line_no += 1
        if line.strip():
            try:
                record = json_load.loads(line)
            except orjson.JSONDecodeError as exc:
                if not complete:
                    problems.append(f"line {line_no} is incomplete (still being written?): held back")
                    break
                problems.append(f"line {line_no} is not valid JSON ({exc.args[0] if exc.args else exc})")
                record = None
            if isinstance(record, dict):
                records.append(record)
            elif record is not None:
                problems.append(f"line {line_no} is {type_name(record)}, expected an object")
        pos = end + 1 if complete else size
    return records, problems, pos


def is_ledger_record(record: object) -> bool:
    return isinstance(record, dict) and "recordType" in record


class LedgerBuilder:
    """Turns ledger records into a Session; child ledgers are read from the sessions directory."""

    def __init__(self, sessions_dir: Path | None) -> None:
        self.sessions_dir = sessions_dir.resolve() if sessions_dir is not None else None
        self.open_totals: list[Totals] = []
        self.visited: set[Path] = set()

    def build(self, records: list[dict], problems: list[str], *, parent_op: Op | None = None,
              prefix: str = "", depth: int = 0) -> Session:
        return drive(self._build(records, problems, parent_op, prefix, depth))

    def _build(self, records: list[dict], problems: list[str], parent_op: Op | None, prefix: str, depth: int):
        s = Session()
        s.parent_op, s.depth, s.path_prefix = parent_op, depth, prefix
        s.counts.sessions = 1
        s.totals.agentsRun = 1
        s.problems.extend(problems)
        turns: dict[int, Turn] = {}
        ends: dict[int, tuple[dict, int | None]] = {}
        self.open_totals.append(s.totals)
        for record in records:
            if record.get("recordType") == "turn_end":  # the last turn_end of a turn describes it (a repeat replaces)
                ends[self._turn(s, turns, record).index] = (record, as_ms(record.get("ts")))
                if not s.id:
                    s.id = s.trace_id = as_str(record.get("sessionId"))
            else:
                self._apply(s, turns, record)
        for number, (record, ts) in ends.items():
            yield from self._turn_end(s, turns[number], record, ts)
        self.open_totals.pop()
        s.turns = [turns[key] for key in sorted(turns)]
        return s

    def _apply(self, s: Session, turns: dict[int, Turn], r: dict) -> None:
        kind = r.get("recordType")
        ts = as_ms(r.get("ts"))
        if kind == "session_start":
            s.raw = r
            s.id = s.trace_id = as_str(r.get("sessionId"))
            s.origin_id = as_str(r.get("originId"))
            s.agent_id = as_str(r.get("agentId"))
            s.call_path = as_str(r.get("callPath"))
            s.started_at = ts
        elif kind == "turn_start":
            self._turn(s, turns, r).started_at = ts
        elif kind == "session_summary":
            status = r.get("status")
            s.success = True if status == "ok" else False if status == "failed" else s.success
            s.ended_at = ts
            if isinstance(r.get("error"), str) and r["error"]:
                s.error = r["error"]
            s.final_report = r.get("finalReport")
        elif kind == "session_error":
            error = r.get("error")
            s.error = error if isinstance(error, str) else str(error)
            s.success = False
            if s.ended_at is None:
                s.ended_at = ts
            s.extra_logs.append(LogEntry(ts, "ERR", s.error, s.path_prefix, None, r))
            s.counts.logs += 1
            s.counts.errors += 1
        if not s.id:
            s.id = s.trace_id = as_str(r.get("sessionId"))

    def _turn(self, s: Session, turns: dict[int, Turn], r: dict) -> Turn:
        number = as_int(r.get("turn"), -1)
        turn = turns.get(number)
        if turn is None:
            turn = turns[number] = Turn(s, "turn", number)
            turn.raw = r
            s.counts.turns += 1
        return turn

    def _turn_end(self, s: Session, t: Turn, r: dict, ts: int | None):
        t.raw = r
        t.ended_at = ts
        t.status = as_str(r.get("status"))
        if t.status == "running":
            t.ended_at = None
        counts = s.counts
        for severity, key in (("WRN", "warnings"), ("ERR", "errors")):
            for message in as_list(r.get(key)):
                text = message if isinstance(message, str) else str(message)
                t.extra_logs.append(LogEntry(ts, severity, text, f"{s.path_prefix}{'.' if s.path_prefix else ''}"
                                             f"{t.index}", None, r))
                counts.logs += 1
                setattr(counts, key, getattr(counts, key) + 1)
        ops = r.get("ops")
        if ops is not None and not isinstance(ops, list):
            t.problems.append(f"ops is {type_name(ops)}, expected an array")
            return
        t.ops = []
        for position, item in enumerate(ops or ()):
            op = self._op(s, t, item, position)
            t.ops.append(op)
            if op.raw is not None:
                for ref in as_list(item.get("childSessions")):
                    yield from self._child(s, op, ref)

    def _op(self, s: Session, t: Turn, node: object, position: int) -> Op:
        prefix = f"{s.path_prefix}." if s.path_prefix else ""
        index = as_int(node.get("opIndex"), position + 1) if isinstance(node, dict) else position + 1
        op = Op(t, f"{prefix}{t.index}-{index}")
        if begin_op(op, node, s.counts) is None:
            return op
        status = node.get("status")
        op.status = status if isinstance(status, str) and status != "running" else None
        if op.status == "failed":
            s.counts.failed += 1
        op.started_at = as_ms(node.get("startedAt"))
        op.ended_at = as_ms(node.get("endedAt"))
        attrs = as_dict(node.get("attributes"))
        op.attributes = attrs
        op.name = as_str(node.get("name")) or as_str(attrs.get("name"))
        op.provider = as_str(node.get("provider")) or as_str(attrs.get("provider"))
        op.model = as_str(node.get("model")) or as_str(attrs.get("model"))
        op.label = as_str(attrs.get("label"))
        op.error = as_str(node.get("error")) or as_str(attrs.get("error"))
        refs = node.get("payloadRefs")
        op.payload_refs = refs if isinstance(refs, list) else None
        acc = as_dict(node.get("accounting"))
        op.tokens_in = as_int(acc.get("tokensIn"))
        op.tokens_out = as_int(acc.get("tokensOut"))
        op.cache_read = as_int(acc.get("tokensCacheRead"))
        op.cache_write = as_int(acc.get("tokensCacheWrite"))
        op.cost = float(acc.get("costUsd")) if isinstance(acc.get("costUsd"), (int, float)) else 0.0
        for totals in self.open_totals:
            totals.tokensIn += op.tokens_in
            totals.tokensOut += op.tokens_out
            totals.tokensCacheRead += op.cache_read
            totals.tokensCacheWrite += op.cache_write
            totals.costUsd += op.cost
            if op.kind == "tool":
                totals.toolsRun += 1
        return op

    def _child(self, s: Session, op: Op, ref: object):
        ref = ref if isinstance(ref, dict) else {"value": ref}
        if op.child is not None:
            return  # one child per op; more would need a node kind we do not have
        ledger_path = ref.get("ledgerPath")
        try:
            if s.depth + 1 > MAX_CHILD_DEPTH:
                raise LoadError(str(ledger_path), f"sub-agents nested deeper than {MAX_CHILD_DEPTH} levels")
            path = self.resolve(ledger_path)
            if path in self.visited:
                raise LoadError(str(ledger_path), "ledger refers back to itself (cycle)")
            self.visited.add(path)
            records, problems, _ = parse_records(read_source(str(path)))
        except LoadError as exc:
            op.child_ref = dict(ref, problem=exc.reason)
            return
        child = yield self._build(records, problems, op, op.path, s.depth + 1)
        op.child = child
        s.counts.add(child.counts)
        s.totals.agentsRun += child.totals.agentsRun
        s.max_depth = max(s.max_depth, child.max_depth, child.depth)

    def resolve(self, ledger_path: object) -> Path:
        """A child ledger's path, which must stay inside the sessions directory."""
        if not isinstance(ledger_path, str) or not ledger_path:
            raise LoadError(str(ledger_path), "childSessions entry has no ledgerPath")
        if self.sessions_dir is None:
            raise LoadError(ledger_path, "no sessions directory known to resolve child ledgers")
        candidate = Path(ledger_path)
        if candidate.is_absolute():
            raise LoadError(ledger_path, "absolute ledgerPath refused (must be relative to the sessions directory)")
        try:
            resolved = (self.sessions_dir / candidate).resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            raise LoadError(ledger_path, "symbolic link loop (the link points back to itself)") from None
        if not resolved.is_relative_to(self.sessions_dir):
            raise LoadError(ledger_path, "ledgerPath escapes the sessions directory: refused")
        return resolved


def sessions_dir_for_ledger(path: Path) -> Path:
    """`<sessionsDir>/session/<id>.jsonl` -> `<sessionsDir>`; a ledger elsewhere resolves against its own folder."""
    parent = path.resolve().parent
    return parent.parent if parent.name == "session" else parent
