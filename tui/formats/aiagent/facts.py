"""The facts of a snapshot that `dump --json` and the sessions index need, read straight from its bytes in one
iterative walk, without building the tree.

Building the tree (tui.formats.aiagent.snapshot) makes an Op object per op: ~60% of opening a file, for commands
that then read a few totals and counts off the root. This walk computes the same numbers by the same rules (the
accounting of tui.model.totals, a turn read by tui.formats.aiagent.turn_build, kinds and sessions counted as
tui.model.nodes counts them, sub-agents of ops that are not `session` ops left out of their parent's totals as the
producer does) and keeps no op. msgspec decodes only the fields that walk reads (the shapes below: the heads of
tui.formats.aiagent.heads without what opening an op needs), so decoding the file costs a quarter less too.

It answers only for a plain snapshot: every field the tree reads of the type the tree expects (a value of another
type is something the tree reports as a problem and reads its own way; the shapes are typed, so msgspec checks
this as it decodes), UTF-8 text throughout, and no sub-agent named by reference (the tree links those from their
ledgers). For anything else `snapshot_facts` gives None and the caller builds the tree:
what it answers is always what the tree would give (tests/formats/test_facts.py compares both on every file).

Why a second walk of the format is worth keeping in step (issue 29: only where it wins 25% on a number the user
sees): benchmark row "Open | dump --json time | 20,000 ops" (tests/benchmarks/README.md, `run.py --sections open`).
2026-11-28, 7 runs each alternated on 2 busy cores: this walk 0.73 s median (0.43 s of CPU), building the tree
instead 1.11 s (0.77 s of CPU), byte-identical output: 34% less time, 44% less CPU, 19% less peak memory (102 MB
against 126 MB). Cold indexing (tui.catalog.index.facts_fill) reads its rows the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Annotated, Any, Literal, get_args

import msgspec

from tui.formats.aiagent import heads
from tui.formats.aiagent.turn_build import build_turn
from tui.model.fields import MS_LIMIT
from tui.model.nodes import KINDS, Session, begin_session
from tui.model.totals import llm_usage, mismatched_keys, stored_totals
from tui.model.session_facts import newest


# The shapes the walk reads, typed as the tree reads them: a value of another type (a number for a string, a
# float for a time, a container of another type) is one the tree reports as a problem, and msgspec refuses it
# (ValidationError) at C speed, so the walk need not look. Absent and null read alike (None). A field only the
# tree's rules look at by type ("a string, else nothing": an error) stays Any: any value there is plain.
Kind = Literal["llm", "tool", "session", "system"]
if set(get_args(Kind)) != KINDS:
    raise ImportError("facts: Kind no longer names tui.model.nodes.KINDS")
# a time as ms_field takes it without a problem: an int strictly within +-MS_LIMIT (msgspec's int takes no bool)
Ms = Annotated[int, msgspec.Meta(gt=-MS_LIMIT, lt=MS_LIMIT)]


class OpAttributes(msgspec.Struct, gc=False):
    name: str | None = None
    provider: str | None = None
    model: str | None = None
    label: str | None = None
    error: Any = None


class LogFacts(msgspec.Struct, gc=False):
    severity: Any = None
    headendId: Any = None  # where the session came from (the sessions index: tui.catalog.index.row_extras)


class UsageFacts(msgspec.Struct, gc=False):
    """An accounting entry: its tokens and cost read by llm_usage. The tree reads them only in entries of type
    llm (plain_usage), but takes them as numbers in every entry here: an odd one anywhere is left to the tree."""

    type: Any = None
    tokens: dict[str, int | float] | None = None
    costUsd: int | float | None = None
    error: Any = None  # a failed op's reason when its attributes have none (the tree's rule, snapshot._accounting)


class PayloadFacts(msgspec.Struct, gc=False):
    """A response payload that is an object: only its `textPreview` (an LLM answer's text, searched by the sessions
    index) is decoded; its captures (`raw`, `sdk`: base64) are skipped unread."""

    textPreview: Any = None


class ResponseFacts(msgspec.Struct, gc=False):
    """An op's response: its payload when inline (a tool result's text, an answer's preview; anything else is
    decoded as the plain value it is)."""

    payload: str | PayloadFacts | list[Any] | int | float | bool | None = None


class OpFacts(msgspec.Struct, gc=False):
    kind: Kind  # (required: an op without a kind the tree reports)
    status: str | None = None
    startedAt: Ms | None = None
    endedAt: Ms | None = None
    attributes: OpAttributes | None = None
    error: Any = None
    accounting: list[UsageFacts] | None = None
    logs: list[LogFacts] | None = None
    response: ResponseFacts | None = None
    childSession: SessionFacts | None = None
    childSessionRef: None = None  # a sub-agent named by reference: the tree links its ledger
    childSessionSummary: None = None


class TurnFacts(heads.TurnHead):  # a root turn: read by build_turn as the tree reads it
    ops: list[OpFacts] | None = None  # type: ignore[assignment]


class ChildTurnFacts(msgspec.Struct, gc=False):
    """A sub-agent's turn: what build_turn reads of it, typed (its Turn is never built)."""

    id: str | None = None
    index: int | None = None
    startedAt: Ms | None = None
    endedAt: Ms | None = None
    kind: str | None = None
    label: str | None = None
    attributes: dict[str, Any] | None = None
    ops: list[OpFacts] | None = None


class SessionFacts(msgspec.Struct, gc=False):
    """A sub-agent's session node (the root's: RootFacts)."""

    id: str | None = None
    traceId: str | None = None
    agentId: str | None = None
    callPath: str | None = None
    sessionTitle: str | None = None
    latestStatus: str | None = None
    startedAt: Ms | None = None
    endedAt: Ms | None = None
    success: bool | None = None
    error: str | None = None
    finalReport: Any = None
    totals: dict[str, Any] | None = None
    attributes: Any = None
    pluginMetas: Any = None
    turns: list[ChildTurnFacts] | None = None
    steps: list[ChildTurnFacts] | None = None


class RootFacts(SessionFacts):
    turns: list[TurnFacts] | None = None  # type: ignore[assignment]
    steps: list[TurnFacts] | None = None  # type: ignore[assignment]


class EnvelopeFacts(msgspec.Struct, gc=False):
    recordType: Any = None
    type: Any = None
    opTree: RootFacts | None = None


_decode = msgspec.json.Decoder(EnvelopeFacts).decode

# Called for every op in tree order (sub-agents right after their op, as tui.model.search.walk_ops goes): the op,
# its attributes (all None when absent), its error as Op.error reads it, whether it is the root session's own op,
# and its sub-agent (or None). Every field of the op and of that sub-agent the tree reads is of its plain type.
OnOp = Callable[[OpFacts, OpAttributes, str, bool, "SessionFacts | None"], None]

_NO_ATTRIBUTES = OpAttributes()


def snapshot_facts(data: bytes | bytearray | memoryview, on_op: OnOp | None = None,
                   on_root: Callable[[Session], None] | None = None) -> Session | None:
    """The root session of a snapshot file's bytes, as the tree would give it but without ops (see root_facts);
    None when the bytes are not a plain snapshot (then build the tree)."""
    if not heads.object_first(data) or not _utf8(data):
        return None
    try:
        env = _decode(data)  # (a field of another type than its shape's: a ValidationError, one of these)
    except (*heads.DecodeError, RecursionError):
        return None
    head = env.opTree
    if not heads.snapshot_envelope(env):
        return None
    return root_facts(head, on_op, on_root) if head is not None else None


def _utf8(data: bytes | bytearray | memoryview) -> bool:
    """The bytes are UTF-8 text. msgspec checks only the strings it decodes, and these shapes decode fewer than
    the tree's (tui.formats.aiagent.heads: op ids, final reports...): a byte that is not UTF-8 in one of those
    makes the tree's reader fall back to the full parse, which refuses the file (a broken row)."""
    if not isinstance(data, memoryview) and data.isascii():  # (nearly every file: one fast scan)
        return True
    try:
        str(data, "utf-8")
    except UnicodeDecodeError:
        return False
    return True


def root_facts(head: RootFacts, on_op: OnOp | None = None,
               on_root: Callable[[Session], None] | None = None) -> Session | None:
    """A Session holding what the tree's root holds of its own (fields, totals and stored totals, mismatch, counts
    and max_depth over the whole tree) and its own turns, each without ops; None when the tree is not plain.
    `on_root`: called with the root once its own fields are read, before the first `on_op`."""
    root = begin_session(None, "", 0)
    root.id = head.id or ""
    root.trace_id = head.traceId or ""
    root.agent_id = head.agentId or ""
    root.call_path = head.callPath or ""
    root.title = head.sessionTitle or ""
    root.latest_status = head.latestStatus or ""
    root.started_at, root.ended_at = head.startedAt, head.endedAt
    root.success = head.success
    root.error = head.error or None
    root.final_report = head.finalReport
    root.stored_totals = stored_totals(head.totals)
    root.head = {"attributes": head.attributes, "pluginMetas": head.pluginMetas}
    root_ops = []
    for key, kind in (("turns", "turn"), ("steps", "step")):
        for position, item in enumerate(getattr(head, key) or ()):
            t, ops = build_turn(root, item, kind, position)
            if t.problems:
                return None
            root.turns.append(t)
            root_ops.append(ops)
    if on_root is not None:
        on_root(root)
    if not _walk(root, root_ops, on_op):
        return None
    root.mismatch = mismatched_keys(root.stored_totals, root.totals)
    return root


def _walk(root: Session, root_ops: list, on_op: OnOp | None) -> bool:
    """Count every op and sub-agent into the root, in tree order; False at the first part that is not plain.
    (msgspec checked the type of every field the tree reads but a sub-agent's turn attributes: see the shapes.)"""
    counts, totals = root.counts, root.totals
    turns = steps = llm = tool = session = system = failed = logs = warnings = errors = 0
    sessions = max_depth = 0
    tools_run = agents_run = 0
    ops = sum(map(len, root_ops))
    stack = [(chain.from_iterable(root_ops), 0, True)]  # (ops still to walk, depth, counted in the root's totals)
    unended, last = root.ended_at is None, None  # no end: its duration runs to its newest op (ops_last)
    while stack:
        todo, depth, counted = stack[-1]
        own = depth == 0
        for op in todo:
            kind = op.kind
            if unended:
                last = newest(last, op.startedAt, op.endedAt)
            if kind == "llm":
                llm += 1
            elif kind == "tool":
                tool += 1
                if counted:
                    tools_run += 1
            elif kind == "session":
                session += 1
            else:
                system += 1
            if op.status == "failed":
                failed += 1
            attrs, error = _attributes_and_error(op)
            if counted and op.accounting:
                _add_usage(totals, op.accounting)
            entries = op.logs
            if entries:
                logs += len(entries)
                for entry in entries:
                    severity = entry.severity
                    if severity == "WRN":
                        warnings += 1
                    elif severity == "ERR":
                        errors += 1
            child = op.childSession
            if on_op is not None:
                on_op(op, attrs, error, own, child)
            if child is None:
                continue
            child_ops = _child_ops(child)
            if child_ops is None:
                return False
            ops += sum(map(len, child_ops))
            turns += len(child.turns or ())
            steps += len(child.steps or ())
            sessions += 1
            child_counted = counted and kind == "session"
            if child_counted:
                agents_run += 1
            max_depth = max(max_depth, depth + 1)
            stack.append((chain.from_iterable(child_ops), depth + 1, child_counted))
            break
        else:
            stack.pop()
    counts.turns += turns
    counts.steps += steps
    counts.ops += ops
    counts.llm += llm
    counts.tool += tool
    counts.session += session
    counts.system += system
    counts.failed += failed
    counts.logs += logs
    counts.warnings += warnings
    counts.errors += errors
    counts.sessions += sessions
    totals.toolsRun += tools_run
    totals.agentsRun += agents_run
    root.max_depth = max_depth
    root.ops_last = last
    return True


def _attributes_and_error(op) -> tuple:
    """(the op's attributes, else _NO_ATTRIBUTES; Op.error: the attributes' error, else the op's, else a failed
    op's first accounting entry's, each only when it is a string)."""
    attrs = op.attributes
    if attrs is None:
        attrs, error = _NO_ATTRIBUTES, ""
    else:
        error = attrs.error
        if type(error) is not str:
            error = ""
    if not error:
        error = op.error
        if type(error) is not str:
            error = ""
    entries = op.accounting
    if not error and entries and op.status == "failed":
        error = next((e.error for e in entries if e.error and type(e.error) is str), "")
    return attrs, error


def _add_usage(totals, entries: list) -> None:
    """The LLM accounting entries' tokens and cost into the root's totals (tui.model.totals.llm_usage)."""
    for entry in entries:
        if entry.type == "llm":
            totals.add_usage(*llm_usage(entry.tokens, entry.costUsd))


def _child_ops(child) -> list | None:
    """A sub-agent's ops, turn by turn then step by step; None when a turn's or step's attributes are not plain
    (a label or status that is not a string: the tree reads those its own way)."""
    child_ops = []
    for items in (child.turns, child.steps):
        for item in items or ():
            attributes = item.attributes
            if attributes and not (_plain_str(attributes.get("label")) and _plain_str(attributes.get("status"))):
                return None
            if item.ops:
                child_ops.append(item.ops)
    return child_ops


def _plain_str(value: object) -> bool:
    return value is None or type(value) is str
