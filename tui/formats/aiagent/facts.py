"""The facts of a snapshot that `dump --json` and the sessions index need, read straight from its bytes in one
iterative walk, without building the tree.

Building the tree (tui.formats.aiagent.snapshot) makes an Op object per op: ~60% of opening a file, for commands
that then read a few totals and counts off the root. This walk computes the same numbers by the same rules (the
accounting of tui.model.totals, a turn read by tui.formats.aiagent.turn_build, kinds and sessions counted as
tui.model.nodes counts them, sub-agents of ops that are not `session` ops left out of their parent's totals as the
producer does) and keeps no op. msgspec decodes only the fields that walk reads (the shapes below: the heads of
tui.formats.aiagent.heads without what opening an op needs), so decoding the file costs a quarter less too.

It answers only for a plain snapshot: every field the tree reads of the type the tree expects (a value of another
type is something the tree reports as a problem and reads its own way), and no sub-agent named by reference (the
tree links those from their ledgers). For anything else `snapshot_facts` gives None and the caller builds the tree:
what it answers is always what the tree would give (tests/formats/test_facts.py compares both on every file).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import msgspec

from tui.formats.aiagent import heads
from tui.formats.aiagent.turn_build import build_turn
from tui.model.fields import MS_LIMIT
from tui.model.nodes import KINDS, Session, begin_session
from tui.model.totals import llm_usage, mismatched_keys, plain_usage, stored_totals


# The shapes the walk reads (absent and null read alike, None; a container of another type makes msgspec refuse
# the file, and the tree reads it). A root turn is a heads.TurnHead: build_turn reads it as the tree does.
class OpAttributes(msgspec.Struct, gc=False):
    name: Any = None
    provider: Any = None
    model: Any = None
    label: Any = None
    error: Any = None


class LogFacts(msgspec.Struct, gc=False):
    severity: Any = None
    headendId: Any = None  # where the session came from (the sessions index: tui.catalog.index.row_extras)


class UsageFacts(msgspec.Struct, gc=False):  # an accounting entry: its tokens and cost read by llm_usage
    type: Any = None
    tokens: Any = None
    costUsd: Any = None


class OpFacts(msgspec.Struct, gc=False):
    kind: Any = None
    status: Any = None
    startedAt: Any = None
    endedAt: Any = None
    attributes: OpAttributes | None = None
    error: Any = None
    accounting: list[UsageFacts] | None = None
    logs: list[LogFacts] | None = None
    childSession: SessionFacts | None = None
    childSessionRef: Any = None
    childSessionSummary: Any = None


class TurnFacts(heads.TurnHead):
    ops: list[OpFacts] | None = None  # type: ignore[assignment]


class SessionFacts(msgspec.Struct, gc=False):
    id: Any = None
    traceId: Any = None
    agentId: Any = None
    callPath: Any = None
    sessionTitle: Any = None
    latestStatus: Any = None
    startedAt: Any = None
    endedAt: Any = None
    success: Any = None
    error: Any = None
    totals: Any = None
    attributes: Any = None
    pluginMetas: Any = None
    turns: list[TurnFacts] | None = None
    steps: list[TurnFacts] | None = None


class EnvelopeFacts(msgspec.Struct, gc=False):
    recordType: Any = None
    type: Any = None
    opTree: SessionFacts | None = None


_decode = msgspec.json.Decoder(EnvelopeFacts).decode

# Called for every op in tree order (sub-agents right after their op, as tui.model.search.walk_ops goes): the op,
# its attributes (all None when absent), its error as Op.error reads it, whether it is the root session's own op,
# and its sub-agent (or None). Every field of the op and of that sub-agent the tree reads is of its plain type.
OnOp = Callable[[OpFacts, OpAttributes, str, bool, "SessionFacts | None"], None]

_SESSION_STRINGS = ("id", "traceId", "agentId", "callPath", "sessionTitle", "latestStatus", "error")
_TURN_STRINGS = ("id", "kind", "label")
_NO_ATTRIBUTES = OpAttributes()


def snapshot_facts(data: bytes | bytearray | memoryview, on_op: OnOp | None = None,
                   on_root: Callable[[Session], None] | None = None) -> Session | None:
    """The root session of a snapshot file's bytes, as the tree would give it but without ops (see root_facts);
    None when the bytes are not a plain snapshot (then build the tree)."""
    if not heads.object_first(data):
        return None
    try:
        env = _decode(data)
    except (*heads.DecodeError, RecursionError):
        return None
    head = env.opTree
    if not heads.snapshot_envelope(env):
        return None
    return root_facts(head, on_op, on_root) if head is not None else None


def root_facts(head: SessionFacts, on_op: OnOp | None = None,
               on_root: Callable[[Session], None] | None = None) -> Session | None:
    """A Session holding what the tree's root holds of its own (fields, totals and stored totals, mismatch, counts
    and max_depth over the whole tree) and its own turns, each without ops; None when the tree is not plain.
    `on_root`: called with the root once its own fields are read, before the first `on_op`."""
    if not _plain_session(head):
        return None
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
    """Count every op and sub-agent into the root, in tree order; False at the first part that is not plain."""
    counts, totals = root.counts, root.totals
    turns = steps = ops = llm = tool = session = system = failed = logs = warnings = errors = 0
    sessions = max_depth = 0
    tools_run = agents_run = 0
    stack = [(chain.from_iterable(root_ops), 0, True)]  # (ops still to walk, depth, counted in the root's totals)
    while stack:
        todo, depth, counted = stack[-1]
        for op in todo:
            ops += 1
            kind = op.kind
            if type(kind) is not str or kind not in KINDS:
                return False
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
            status = op.status
            if status is not None:
                if type(status) is not str:
                    return False
                if status == "failed":
                    failed += 1
            if not (_plain_ms(op.startedAt) and _plain_ms(op.endedAt)):
                return False
            attrs = op.attributes
            error = ""
            if attrs is None:
                attrs = _NO_ATTRIBUTES
            else:
                for value in (attrs.name, attrs.provider, attrs.model, attrs.label):
                    if value is not None and type(value) is not str:
                        return False
                if isinstance(attrs.error, str):
                    error = attrs.error
            if not error and isinstance(op.error, str):
                error = op.error
            entries = op.accounting
            if entries:
                for entry in entries:
                    if entry.type != "llm":
                        continue
                    if not plain_usage(entry.tokens, entry.costUsd):
                        return False
                    if counted:
                        tin, tout, cread, cwrite, cost = llm_usage(entry.tokens, entry.costUsd)
                        totals.tokensIn += tin
                        totals.tokensOut += tout
                        totals.tokensCacheRead += cread
                        totals.tokensCacheWrite += cwrite
                        totals.costUsd += cost
            entries = op.logs
            if entries:
                logs += len(entries)
                for entry in entries:
                    severity = entry.severity
                    if severity == "WRN":
                        warnings += 1
                    elif severity == "ERR":
                        errors += 1
            if op.childSessionRef is not None or op.childSessionSummary is not None:
                return False  # a sub-agent named by reference: the tree links its ledger
            child = op.childSession
            if child is not None and not _plain_session(child):
                return False
            if on_op is not None:
                on_op(op, attrs, error, depth == 0, child)
            if child is None:
                continue
            child_ops = []
            for key in ("turns", "steps"):
                for item in getattr(child, key) or ():
                    if not _plain_turn(item):
                        return False
                    child_ops.append(item.ops or ())
                    if key == "turns":
                        turns += 1
                    else:
                        steps += 1
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
    return True


def _plain_ms(value: object) -> bool:
    return value is None or (type(value) is int and -MS_LIMIT < value < MS_LIMIT)


def _plain_session(head: SessionFacts) -> bool:
    """Every field of a session node the tree reads is of its type (or absent)."""
    for key in _SESSION_STRINGS:
        value = getattr(head, key)
        if value is not None and type(value) is not str:
            return False
    success, totals = head.success, head.totals
    return (_plain_ms(head.startedAt) and _plain_ms(head.endedAt) and (success is None or type(success) is bool)
            and (totals is None or type(totals) is dict))


def _plain_turn(head: TurnFacts) -> bool:
    """Every field of a turn the tree reads (tui.formats.aiagent.turn_build) is of its type (or absent)."""
    index = head.index
    if index is not None and type(index) is not int:
        return False
    for key in _TURN_STRINGS:
        value = getattr(head, key)
        if value is not None and type(value) is not str:
            return False
    attrs = head.attributes
    if attrs is not None:
        if type(attrs) is not dict:
            return False
        for key in ("label", "status"):
            value = attrs.get(key)
            if value is not None and type(value) is not str:
                return False
    return _plain_ms(head.startedAt) and _plain_ms(head.endedAt)
