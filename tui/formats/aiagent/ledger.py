"""Build the normalised tree from v3 ledgers: `session/<id>.jsonl`, following child ledgers.

Child ledgers are built iteratively (see tui.model.trampoline), so deep chains of sub-agents cost no recursion.

Every child a ledger names is shown and counted. One session op may list several `childSessions` (a fan-out): the
first is the op's sub-agent, each further one a sibling op right after it, labelled `<op path>#2`, `#3`... A child
that only `session_summary.childSessions` lists joins the op its `parentOpId` names, or else a made-up turn at the
end of the session (kind ORPHANS). A child is listed once per session even when several entries name it.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from tui.inputs import json_load
from tui.inputs.files import LoadError, read_source
from tui.model import json_text
from tui.model.document import LEDGER, Document
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str, type_name
from tui.model.logs import LogEntry
from tui.model.nodes import ORPHANS, Op, Session, Turn, begin_op, begin_session
from tui.model.totals import Totals
from tui.model.trampoline import drive

MAX_CHILD_DEPTH = 512
FAN_OUT_MARK = "#"  # `1-2#2`: the second sub-agent of session op 1-2
ORPHAN_LABEL = "orphan-"  # `orphan-1`: the first sub-agent that only the session summary lists, under no op
# payloadRefs kinds giving an op's request/response size: the wire body, else (not captured) the SDK's
REQUEST_KINDS = (("llm_request", "tool_request"), ("sdk_request",))
RESPONSE_KINDS = (("llm_response", "tool_response"), ("sdk_response",))


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
        self.fan_out: dict[int, tuple[Op, int]] = {}  # id(op) -> (op, ops in its group: itself + fan-out siblings)

    def build(self, records: list[dict], problems: list[str], *, parent_op: Op | None = None,
              prefix: str = "", depth: int = 0) -> Session:
        return drive(self._build(records, problems, parent_op, prefix, depth))

    def _build(self, records: list[dict], problems: list[str], parent_op: Op | None, prefix: str, depth: int):
        s = begin_session(parent_op, prefix, depth)
        s.problems.extend(problems)
        turns: dict[int, Turn] = {}
        ends: dict[int, tuple[dict, int | None]] = {}
        summary_children: object = None
        self.open_totals.append(s.totals)
        for record in records:
            kind = record.get("recordType")
            if kind == "turn_end":  # the last turn_end of a turn describes it (a repeat replaces)
                ends[self._turn(s, turns, record).index] = (record, as_ms(record.get("ts")))
                if not s.id:
                    s.id = s.trace_id = as_str(record.get("sessionId"))
            else:
                self._apply(s, turns, record)
                if kind == "session_summary":
                    summary_children = record.get("childSessions")
        linked: set[str] = set()
        for number, (record, ts) in ends.items():
            yield from self._turn_end(s, turns[number], record, ts, linked)
        s.turns = [turns[key] for key in sorted(turns)]
        yield from self._summary_children(s, as_list(summary_children), linked)
        self.open_totals.pop()
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
            report = r.get("finalReport")
            s.final_report = report if isinstance(report, dict) else None  # {format, captured}: no text in v3
            if report is not None and s.final_report is None:
                s.problems.append(f"finalReport is {type_name(report)}, expected an object")
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

    def _turn_end(self, s: Session, t: Turn, r: dict, ts: int | None, linked: set[str]):
        t.raw = r
        t.ended_at = ts
        t.status = as_str(r.get("status"))
        if t.status == "running":
            t.ended_at = None
        counts = s.counts
        for severity, key in (("WRN", "warnings"), ("ERR", "errors")):
            for message in as_list(r.get(key)):
                text = message if isinstance(message, str) else json_text.dumps(message).decode("utf-8", "replace")
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
            op = self._op(s, t, item, position, ts)
            t.ops.append(op)
            if op.raw is not None:
                for ref in as_list(item.get("childSessions")):
                    keys = child_keys(ref)
                    if keys and not keys.isdisjoint(linked):
                        continue  # named twice: shown once
                    linked |= keys
                    ref = ref if isinstance(ref, dict) else {"value": ref}
                    yield from self._child(s, self._slot(op, ref), ref)

    def _summary_children(self, s: Session, entries: list, linked: set[str]):
        """Children that only `session_summary.childSessions` lists: under the op `parentOpId` names, else orphans."""
        by_op_id: dict[str, Op] | None = None
        for entry in entries:
            keys = child_keys(entry) if isinstance(entry, dict) else set()
            if not keys or not keys.isdisjoint(linked):
                continue
            linked |= keys
            if by_op_id is None:
                by_op_id = {}
                for op in s.all_ops():
                    if op.op_id and op.raw is not None:
                        by_op_id.setdefault(op.op_id, op)  # the op itself, not its fan-out siblings
            parent = by_op_id.get(as_str(entry.get("parentOpId")))
            slot = self._slot(parent, entry) if parent is not None else self._orphan(s, entry)
            yield from self._child(s, slot, entry)
        if s.turns and s.turns[-1].kind == ORPHANS:
            t = s.turns[-1]
            starts = [op.started_at for op in t.ops if op.started_at is not None]
            ends = [op.ended_at for op in t.ops if op.ended_at is not None]
            t.started_at = min(starts) if starts else s.ended_at
            t.ended_at = max(ends) if ends and len(ends) == len(t.ops) else s.ended_at

    def _slot(self, op: Op, ref: dict) -> Op:
        """The op that takes the next child of `op`: `op` itself while it has none, else a new sibling after it."""
        if op.child is None and op.child_ref is None:
            return op
        t = op.turn
        _, size = self.fan_out.get(id(op), (op, 1))
        sibling = self._sub_agent_op(t, f"{op.path}{FAN_OUT_MARK}{size + 1}", ref, op)
        sibling.op_id = f"{op.op_id}{FAN_OUT_MARK}{size + 1}" if op.op_id else ""  # ids stay unique in the tree
        t.ops.insert(t.ops.index(op) + size, sibling)
        self.fan_out[id(op)] = (op, size + 1)
        return sibling

    def _orphan(self, s: Session, ref: dict) -> Op:
        """A node for a child no op of the session names, in the ORPHANS turn at the end of the session."""
        t = s.turns[-1] if s.turns and s.turns[-1].kind == ORPHANS else None
        if t is None:
            t = Turn(s, ORPHANS, len(s.turns))
            t.raw = {}
            s.turns.append(t)
        prefix = f"{s.path_prefix}." if s.path_prefix else ""
        op = self._sub_agent_op(t, f"{prefix}{ORPHAN_LABEL}{len(t.ops) + 1}", ref, None)
        op.op_id = op.path
        t.ops.append(op)
        return op

    @staticmethod
    def _sub_agent_op(t: Turn, path: str, ref: dict, beside: Op | None) -> Op:
        """A made-up op of kind session standing for one child (its raw is the childSessions entry), counted."""
        op = Op(t, path)
        op.raw = ref
        op.kind = "session"
        status = ref.get("status")
        op.status = status if status in ("ok", "failed") else beside.status if beside is not None else None
        # a fan-out sibling is the same tool call as the op it stands beside: named like it (the child shows after
        # the arrow), whether or not its entry names an agent; an orphan is named after its agent
        op.name = (beside.name if beside is not None else "") or as_str(ref.get("agentId"))
        if beside is not None:
            op.provider = beside.provider
            op.started_at, op.ended_at = beside.started_at, beside.ended_at
        counts = t.session.counts
        counts.ops += 1
        counts.session += 1
        if op.status == "failed":
            counts.failed += 1
        return op

    def _op(self, s: Session, t: Turn, node: object, position: int, ts: int | None = None) -> Op:
        prefix = f"{s.path_prefix}." if s.path_prefix else ""
        index = as_int(node.get("opIndex"), position + 1) if isinstance(node, dict) else position + 1
        op = Op(t, f"{prefix}{t.index}-{index}")
        node = begin_op(op, node, s.counts)  # the same object, now known to be a dict
        if node is None:
            return op
        status = node.get("status")
        op.status = status if isinstance(status, str) and status != "running" else None
        if op.status == "failed":
            s.counts.failed += 1
        op.started_at, op.ended_at = op_times(node, op.status is not None, ts)
        if all(node.get(key) is None for key in ("startedAt", "endedAt", "durationMs")) and op.started_at is not None:
            op.ts_fallback, op.duration_unknown = op.started_at, op.status is not None  # the record's time stands in
        attrs = as_dict(node.get("attributes"))
        op.attributes = attrs
        op.name = as_str(node.get("name")) or as_str(attrs.get("name"))
        op.provider = as_str(node.get("provider")) or as_str(attrs.get("provider"))
        op.model = as_str(node.get("model")) or as_str(attrs.get("model"))
        op.label = as_str(attrs.get("label"))
        op.error = as_str(node.get("error")) or as_str(attrs.get("error"))
        refs = node.get("payloadRefs")
        op.payload_refs = refs if isinstance(refs, list) else None
        op.request_bytes, op.response_bytes = payload_sizes(refs)
        acc = as_dict(node.get("accounting"))
        op.tokens_in = as_int(acc.get("tokensIn"))
        op.tokens_out = as_int(acc.get("tokensOut"))
        op.cache_read = as_int(acc.get("tokensCacheRead"))
        op.cache_write = as_int(acc.get("tokensCacheWrite"))
        cost = acc.get("costUsd")
        op.cost = float(cost) if isinstance(cost, (int, float)) else 0.0
        for totals in self.open_totals:
            totals.add_op(op)
        return op

    def _child(self, s: Session, op: Op, ref: dict, chain: list[Session] | None = None):
        """Build the ledger `ref` names as the sub-agent of `op`, counted in `chain` (default: the session `s`)."""
        ledger_path = child_ledger_path(ref)
        try:
            if s.depth + 1 > MAX_CHILD_DEPTH:
                raise LoadError(str(ledger_path), f"sub-agents nested deeper than {MAX_CHILD_DEPTH} levels")
            path = self.resolve(ledger_path)
            if path in self.visited:
                raise LoadError(str(ledger_path), "ledger refers back to itself (cycle), or is already in this tree")
            self.visited.add(path)
            records, problems, _ = parse_records(read_source(str(path)))
        except LoadError as exc:
            op.child_ref = dict(ref, problem=exc.reason)
            return
        child = yield self._build(records, problems, op, op.path, s.depth + 1)
        op.child = child
        if op.raw is ref:  # a made-up node (fan-out sibling, orphan): named and timed after the child itself
            op.name = op.name or child.agent_id
            if op.started_at is None:
                op.started_at, op.ended_at = child.started_at, child.ended_at
        for owner in chain or (s,):
            owner.counts.add(child.counts)
            owner.totals.agentsRun += child.totals.agentsRun
            owner.max_depth = max(owner.max_depth, child.max_depth, child.depth)

    def attach(self, op: Op, ref: dict) -> None:
        """Build the ledger `ref` names as the sub-agent of `op`, an op of a tree built elsewhere (a v2 snapshot's
        childSessionRef), counted in every session above `op`: its totals too when `op` is a session op (like a
        snapshot's embedded child)."""
        chain = op.session.breadcrumb()
        counted = op.kind == "session"
        self.open_totals = [owner.totals for owner in chain] if counted else []
        runs = [owner.totals.agentsRun for owner in chain]
        drive(self._child(op.session, op, ref, chain))
        if not counted:
            for owner, before in zip(chain, runs):
                owner.totals.agentsRun = before
        self.open_totals = []

    def resolve(self, ledger_path: object) -> Path:
        """A child ledger's path, which must stay inside the sessions directory."""
        if not isinstance(ledger_path, str) or not ledger_path:
            raise LoadError(str(ledger_path), "childSessions entry has no ledgerPath")
        if self.sessions_dir is None:
            raise LoadError(ledger_path, "no sessions directory known to resolve child ledgers")
        candidate = Path(ledger_path)
        if candidate.is_absolute():
            raise LoadError(ledger_path, "absolute ledgerPath refused (must be relative to the sessions directory)")
        if "\x00" in ledger_path:
            raise LoadError(ledger_path, "ledgerPath holds a NUL byte: not a file name")
        try:
            resolved = (self.sessions_dir / candidate).resolve()
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
            raise LoadError(ledger_path, "symbolic link loop (the link points back to itself)") from None
        if not resolved.is_relative_to(self.sessions_dir):
            raise LoadError(ledger_path, "ledgerPath escapes the sessions directory: refused")
        return resolved


def ledger_session(records: list[dict], path: str, sessions_dir: Path | None,
                   problems: list[str] | None = None) -> Session:
    """The session tree of a v3 ledger's records (the file at `path`, "-" for stdin), its child ledgers read from
    `sessions_dir`; `problems` (the file's unreadable lines) go on the root. The one way a ledger becomes a tree:
    loading a file, tailing one, and rebuilding a kept version of one."""
    builder = LedgerBuilder(sessions_dir)
    if path != "-":
        builder.visited.add(Path(path).resolve())  # a child ledger naming its root is a loop, not a child
    return builder.build(records, problems or [])


def ledger_document(records: list[dict], path: str, sessions_dir: Path | None, problems: list[str], *,
                    problems_in_tree: bool = True) -> Document:
    """A v3 ledger as a Document: its tree (ledger_session), ids and `problems`. A tailed ledger keeps its reading
    problems (lines held back while they are written) off the tree: `problems_in_tree=False`."""
    root = ledger_session(records, path, sessions_dir, problems if problems_in_tree else None)
    doc = Document(LEDGER, path, root=root, sessions_dir=sessions_dir, shape="ledger", version=3)
    doc.session_id, doc.origin_id, doc.problems = root.id, root.origin_id, list(problems)
    return doc


def sessions_dir_for_ledger(path: Path) -> Path:
    """`<sessionsDir>/session/<id>.jsonl` -> `<sessionsDir>`; a ledger elsewhere resolves against its own folder."""
    parent = path.resolve().parent
    return parent.parent if parent.name == "session" else parent


def child_keys(ref: object) -> set[str]:
    """What identifies a childSessions entry: its sessionId and ledgerPath (an entry naming neither has no key)."""
    if not isinstance(ref, dict):
        return set()
    keys = set()
    session_id, ledger_path = ref.get("sessionId"), ref.get("ledgerPath")
    if isinstance(session_id, str) and session_id:
        keys.add(f"id:{session_id}")
    if isinstance(ledger_path, str) and ledger_path:
        keys.add(f"path:{ledger_path}")
    return keys


def child_ledger_path(ref: dict) -> object:
    """The entry's ledgerPath; without one, `session/<sessionId>.jsonl` when the id is a plain file name."""
    ledger_path = ref.get("ledgerPath")
    if isinstance(ledger_path, str) and ledger_path:
        return ledger_path
    session_id = ref.get("sessionId")
    if (isinstance(session_id, str) and session_id not in ("", ".", "..")
            and not any(c in session_id for c in "/\\\x00")):
        return f"session/{session_id}.jsonl"
    return ledger_path


def op_times(node: dict, finished: bool, ts: int | None) -> tuple[int | None, int | None]:
    """An op's start and end; without startedAt/endedAt, from durationMs and the turn_end record's time `ts`
    (a finished op ended by then). A running op has no end; no fallback puts an end before its start."""
    started, ended = as_ms(node.get("startedAt")), as_ms(node.get("endedAt"))
    duration = node.get("durationMs")
    duration = as_int(duration, -1) if isinstance(duration, (int, float)) else -1
    if ended is None and finished:
        ended = as_ms(started + duration) if started is not None and duration >= 0 else None
        if ended is None and ts is not None:
            ended = ts if started is None else max(ts, started)
    if started is None:
        started = as_ms(ended - duration) if ended is not None and duration >= 0 else None
        if started is None and ts is not None:
            started = ts if ended is None else min(ts, ended)
    return started, ended


def payload_sizes(refs: object) -> tuple[int | None, int | None]:
    """Request and response sizes in bytes from payloadRefs' originalBytes (None when no ref gives one)."""
    sizes: dict[str, int] = {}
    for ref in as_list(refs):
        if not isinstance(ref, dict):
            continue
        size, kind = ref.get("originalBytes"), ref.get("kind")
        if isinstance(kind, str) and isinstance(size, int) and not isinstance(size, bool) and size >= 0:
            sizes[kind] = sizes.get(kind, 0) + size
    return _size_of(sizes, REQUEST_KINDS), _size_of(sizes, RESPONSE_KINDS)


def _size_of(sizes: dict[str, int], preference: tuple[tuple[str, ...], ...]) -> int | None:
    for kinds in preference:
        found = [sizes[kind] for kind in kinds if kind in sizes]
        if found:
            return sum(found)
    return None
