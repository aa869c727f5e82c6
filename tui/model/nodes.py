"""The normalised session tree: Session -> Turn (turns and v2 steps) -> Op -> child Session.

Nodes keep a reference to the raw dict they were built from instead of copying it; payloads and logs are read from
`raw` lazily, when a screen asks for them. A snapshot read lazily (tui.formats.aiagent.heads) goes further: an op's
or session's dict is not decoded at all until `raw` is first read (then once, and kept), so memory stays near the
file's own bytes instead of what a full parse of them costs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Protocol, TypeVar

from tui.model.fields import as_str, type_name
from tui.model.totals import Totals

R = TypeVar("R")

COUNT_KEYS = (
    "sessions", "turns", "steps", "ops", "llm", "tool", "session", "system",
    "failed", "logs", "warnings", "errors",
)


@dataclass(slots=True)
class Counts:
    sessions: int = 0
    turns: int = 0
    steps: int = 0
    ops: int = 0
    llm: int = 0
    tool: int = 0
    session: int = 0
    system: int = 0
    failed: int = 0
    logs: int = 0
    warnings: int = 0
    errors: int = 0

    def add(self, other: "Counts") -> None:
        for key in COUNT_KEYS:
            setattr(self, key, getattr(self, key) + getattr(other, key))

    def as_dict(self) -> dict:
        return {key: getattr(self, key) for key in COUNT_KEYS}


class _Timed:
    """started_at/ended_at in ms since the epoch; the duration is known once both are."""

    __slots__ = ()
    started_at: int | None
    ended_at: int | None

    @property
    def duration_ms(self) -> int | None:
        return self.timed_duration_ms()

    def timed_duration_ms(self) -> int | None:
        """The duration from the two times alone (a subclass's duration_ms may know better and still call this)."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


class Session(_Timed):
    """One agent session: the root of a file, or a sub-agent embedded in an op."""

    __slots__ = (
        "_raw", "_source", "head", "id", "trace_id", "agent_id", "call_path", "title", "latest_status", "started_at", "ended_at",
        "success", "error", "turns", "totals", "stored_totals", "mismatch", "counts", "parent_op", "depth",
        "path_prefix", "problems", "max_depth", "final_report", "extra_logs", "origin_id", "settled",
        "ops_last", "misfiled", "memo", "__weakref__",
    )

    def __init__(self) -> None:
        self._raw: dict | None = None
        self._source: LazySource | None = None
        self.head: dict | None = None  # a lazily read snapshot session: its small fields (attributes, pluginMetas)
        self.id = ""
        self.trace_id = ""
        self.agent_id = ""
        self.call_path = ""
        self.title = ""
        self.latest_status = ""
        self.started_at: int | None = None
        self.ended_at: int | None = None
        self.success: bool | None = None
        self.error: str | None = None
        self.turns: list[Turn] = []  # turns first, then v2 steps, each in file order
        self.totals = Totals()  # recomputed over this session and everything below it
        self.stored_totals: Totals | None = None
        self.mismatch: list[str] = []
        self.counts = Counts()  # over this session and everything below it
        self.parent_op: Op | None = None
        self.depth = 0
        self.path_prefix = ""
        self.problems: list[str] = []  # fields of this node that had to be ignored
        self.max_depth = 0  # deepest sub-agent level below (relative to the root of the document)
        self.final_report: object = None
        self.extra_logs: list = []  # LogEntry objects not attached to any op (ledger session_error)
        self.origin_id = ""
        # a sub-agent with no end of its own inside an op that ended (the producer's `tool_output` stub child,
        # `{"id": "...-stub", "turns": []}`): it is over, not running
        self.settled = False
        # a root read without its ops (tui.formats.aiagent.facts) and without an end: the newest op time its walk
        # saw, which tui.model.session_facts would otherwise read from the ops
        self.ops_last: int | None = None
        # a file's root: the session id the file is named after when the file holds another session ("" when it
        # holds its own; tui.formats.aiagent.file_identity, the producer's handoff bug)
        self.misfiled = ""
        self.memo: dict[str, tuple] | None = None  # what was read of the whole tree, by name (remembered)

    raw = property(lambda self: _raw_of(self), lambda self, value: _set_raw(self, value),
                   doc="The SessionNode dict the session was built from (decoded on first use when it was read lazily).")

    def raw_later(self) -> Callable[[], dict | None]:
        """What `raw` gives, to be decoded only if it is ever needed (the history store records a file's tree as
        it was opened only once the file changes); holds the node's bytes, not the session."""
        raw, source = self._raw, self._source
        if raw is not None or source is None:
            return lambda: raw
        return lambda: _as_raw(source.load())

    def field(self, key: str) -> object:
        """One of the node's own small fields (attributes, pluginMetas) without decoding the whole node."""
        head = self.head if self._raw is None else self._raw
        return head.get(key) if isinstance(head, dict) else None

    @property
    def running(self) -> bool:
        return self.ended_at is None and self.success is None and not self.settled

    @property
    def status(self) -> str:
        if self.success is False or (self.error and self.success is not True):
            return "failed"
        if self.running:
            return "running"
        return "ok"

    @property
    def display_agent(self) -> str:
        return self.agent_id or self.call_path or self.trace_id or self.id or "?"

    def all_ops(self):
        for turn in self.turns:
            yield from turn.ops

    def breadcrumb(self) -> list["Session"]:
        chain: list[Session] = []
        node: Session | None = self
        while node is not None:
            chain.append(node)
            node = node.parent_op.turn.session if node.parent_op is not None else None
        chain.reverse()
        return chain


# The kind of a made-up Turn that holds the sub-agents a v3 session_summary lists under no op of its ledger.
ORPHANS = "orphans"


class Turn(_Timed):
    """A turn (`turns[]`) or a v2 step (`steps[]`): both hold ops."""

    __slots__ = (
        "raw", "kind", "index", "position", "id", "started_at", "ended_at", "label", "step_kind", "system",
        "prompts", "ops", "session", "problems", "status", "extra_logs", "memo", "__weakref__",
    )

    def __init__(self, session: Session, kind: str, position: int) -> None:
        self.raw: dict | None = None
        self.kind = kind  # "turn" | "step"
        self.index: int = position
        self.position = position
        self.id = ""
        self.started_at: int | None = None
        self.ended_at: int | None = None
        self.label = ""
        self.step_kind = ""
        self.system = False
        self.prompts: dict | None = None
        self.ops: list[Op] = []
        self.session = session
        self.problems: list[str] = []
        self.status = ""  # ledgers: ok | failed | running
        self.extra_logs: list = []  # LogEntry objects of the turn itself (ledger warnings/errors)
        self.memo: dict[str, tuple] | None = None  # what was read of its ops, by name (remembered)

    @property
    def running(self) -> bool:
        return self.ended_at is None

    @property
    def title(self) -> str:
        if self.kind == ORPHANS:
            return "Sub-agents not tied to an op"
        if self.kind == "step":
            return f"Step {self.index}" + (f" ({self.step_kind})" if self.step_kind else "")
        label = self.label or ("init" if self.system else "")
        return f"Turn {self.index}" + (f" ({label})" if label else "")


class Op(_Timed):
    """One operation: an LLM call, a tool call, a sub-agent (kind session) or a system op."""

    __slots__ = (
        "_raw", "_source", "op_id", "kind", "status", "started_at", "ended_at", "name", "provider", "model", "label",
        "error", "path", "turn", "child", "child_ref", "tokens_in", "tokens_out", "cache_read", "cache_write",
        "cost", "log_count", "warnings", "errors", "problems", "payload_refs", "attributes", "__weakref__",
        "chars_in", "chars_out", "request_bytes", "response_bytes", "ts_fallback", "duration_unknown", "log_heads",
    )

    def __init__(self, turn: Turn, path: str) -> None:
        self._raw: dict | None = None
        self._source: LazySource | None = None
        self.op_id = ""
        self.kind = "?"
        self.status: str | None = None
        self.started_at: int | None = None
        self.ended_at: int | None = None
        self.name = ""
        self.provider = ""
        self.model = ""
        self.label = ""
        self.error = ""
        self.path = path
        self.turn = turn
        self.child: Session | None = None
        self.child_ref: dict | None = None  # childSessionRef / childSessionSummary / missing child ledger
        self.tokens_in = 0
        self.tokens_out = 0
        self.cache_read = 0
        self.cache_write = 0
        self.cost = 0.0
        self.log_count = 0
        self.warnings = 0
        self.errors = 0
        self.problems: list[str] = []
        self.payload_refs: list | None = None  # v3 ledgers: payloadRefs[]
        self.attributes: dict = {}
        # sizes and a stand-in time (tui.model.op_facts reads them; None = not recorded): charactersIn/Out of tool
        # accounting entries, request/response bytes (snapshot `size`, v3 payloadRefs originalBytes), and for an op
        # without startedAt the time of its record (v3 `ts`) or first accounting entry
        self.chars_in: int | None = None
        self.chars_out: int | None = None
        self.request_bytes: int | None = None
        self.response_bytes: int | None = None
        self.ts_fallback: int | None = None
        # a v3 ledger op with no startedAt, endedAt or durationMs sits at its turn_end record's time: its start and
        # end are that stand-in, so its duration is not known (not 0ms)
        self.duration_unknown = False
        # a lazily read op: its log entries' severity, time and position (tui.model.logs reads them without
        # decoding the op; the entries themselves come from `raw` when drawn)
        self.log_heads: list | None = None

    raw = property(lambda self: _raw_of(self), lambda self, value: _set_raw(self, value),
                   doc="The op dict it was built from: payloads, logs, accounting (decoded on first use, once).")

    @property
    def lazy_logs(self) -> list | None:
        """The log heads while the op's dict is not decoded yet (None once it is, or for an op read in full)."""
        return self.log_heads if self._raw is None else None

    @property
    def has_raw(self) -> bool:
        """Whether it was built from an object (without decoding it)."""
        return self._raw is not None or self._source is not None

    @property
    def duration_ms(self) -> int | None:
        return None if self.duration_unknown else _Timed.timed_duration_ms(self)

    @property
    def session(self) -> Session:
        return self.turn.session

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def running(self) -> bool:
        return self.status is None and self.ended_at is None and self.has_raw  # a broken op is not running

    @property
    def target(self) -> str:
        """What the op talks to: provider:model for LLM calls, the tool or agent name otherwise."""
        if self.kind == "llm":
            if self.provider and self.model:
                return f"{self.provider}:{self.model}"
            return self.model or self.provider or self.name
        if self.kind == "system":
            return self.label or self.name
        return self.name or self.label or (f"{self.provider}" if self.provider else "")

    @property
    def child_agent(self) -> str:
        if self.child is not None:
            return self.child.display_agent
        if self.child_ref is not None:
            ref = self.child_ref
            for key in ("agentId", "callPath", "sessionId", "traceId", "id"):
                value = ref.get(key)
                if isinstance(value, str) and value:
                    return value
        return ""


def user_turns(session: Session) -> int:
    """A row's "Turns", the one definition the browser's file and live rows and the totals panel share: the
    session's own user turns, i.e. its `turns[]` entries with index >= 1 that are not system turns. Turn 0 (the
    producer's init/fin turn), the turns of sub-agents and v2 `steps[]` are not counted: that is what the producer
    counts as turns used. A v2 tree that has only steps counts its `user` steps. A Jules or Genkit session counts
    its own way (`own_turns`): its turn 0 is a real one."""
    own_turns = getattr(session, "own_turns", None)
    if callable(own_turns):
        return own_turns()
    users = steps = 0
    has_turns = False
    for turn in session.turns:
        if turn.kind == "turn":
            has_turns = True
            if turn.index >= 1 and not turn.system:
                users += 1
        elif turn.step_kind == "user":
            steps += 1
    return users if has_turns else steps


_TURN_KEY = attrgetter("session.path_prefix", "kind", "index", "position")
_OP_KEY = attrgetter("path")


def node_key(node: object) -> tuple:
    """Names the same node in a newer tree of the same session (live updates, reloads): the opTree and the
    waterfall keep expanded nodes and the cursor by it."""
    if isinstance(node, Op):
        return ("op", node.path)
    if isinstance(node, Turn):
        return ("turn", *_TURN_KEY(node))
    if isinstance(node, Session):
        return ("session", node.path_prefix)
    return ("?", id(node))


def same_keys(old: Sequence[object], new: Sequence[object]) -> bool:
    """Whether `new` begins with nodes of the same keys as `old`, in order (node_key). The children of one node
    are all turns or all ops: their keys are read in C (`attrgetter`), not a call of node_key per node (a change
    of a 16,000-turn trace compared every turn's key, ~40 ms of the UI thread; `otlp_big_run.py`'s keys row)."""
    if len(new) < len(old):
        return False
    head = new[: len(old)]
    kinds = set(map(type, old)) | set(map(type, head))
    getter = _TURN_KEY if kinds == {Turn} else _OP_KEY if kinds == {Op} else node_key
    return list(map(getter, old)) == list(map(getter, head))


def failed_inside(node: "Turn | Op") -> int:
    """How many failed ops a folded node hides: a turn's failed ops and those of its sub-agents, or a sub-agent
    op's (its child session's count, kept since the build). Labels are rebuilt every second while a session runs,
    so a turn's answer is kept and recounted only when its op list or its session's failed count has changed
    (a growing ledger appends to the same turn)."""
    if isinstance(node, Op):
        return node.child.counts.failed if node.child is not None else 0
    return remembered(node, "failed", (len(node.ops), node.session.counts.failed), lambda: sum(
        (op.status == "failed") + (op.child.counts.failed if op.child is not None else 0) for op in node.ops))


def remembered(node: "Session | Turn", name: str, key: tuple, read: Callable[[], R]) -> R:
    """`read()`, a walk of what is under `node`, kept on it by `name` with `key` (the counts it was read at) and
    read again once `key` changes. A running session's labels, totals and details are made again at each live
    change and every second, each walking its ops: 13 walks of 20,000 ops a change of a replayed session, ~120 ms
    of the UI thread (`live_run.py`'s UI tick)."""
    memo = node.memo
    if memo is None:
        memo = node.memo = {}
    kept = memo.get(name)
    if kept is not None and kept[0] == key:
        return kept[1]
    value = read()
    memo[name] = (key, value)
    return value


class LazySource(Protocol):
    """Where a node's dict comes from when it was read lazily (tui.formats.aiagent.heads): `load()` decodes it."""

    def load(self) -> object: ...


def _raw_of(node: "Session | Op") -> dict | None:
    raw = node._raw
    if raw is None and node._source is not None:
        raw = node._raw = _as_raw(node._source.load())
        node._source = None
    return raw


def _as_raw(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _set_raw(node: "Session | Op", value: dict | None) -> None:
    node._raw = value
    node._source = None


def set_lazy_raw(node: "Session | Op", source: LazySource) -> None:
    """The node's dict is decoded from `source` the first time `raw` is read, and kept."""
    node._raw = None
    node._source = source


KINDS = frozenset({"llm", "tool", "session", "system"})


def begin_session(parent_op: Op | None, prefix: str, depth: int) -> Session:
    """A new session where it sits (its op, path prefix and depth), counted once as a session and as an agent
    run: what every ai-agent reader (snapshots, ledgers) starts a session with."""
    s = Session()
    s.parent_op, s.depth, s.path_prefix = parent_op, depth, prefix
    s.counts.sessions = 1
    s.totals.agentsRun = 1
    return s


def begin_op(op: Op, node: object, counts: Counts) -> dict | None:
    """The fields every op reader shares (snapshots and ledgers): id and kind, counted; None if not an object."""
    if not isinstance(node, dict):
        counts.ops += 1
        op.problems.append(f"op is {type_name(node)}, expected an object")
        return None
    op.raw = node
    begin_op_fields(op, node.get("opId"), node.get("kind"), counts)
    return node


def begin_op_fields(op: Op, op_id: object, kind: object, counts: Counts) -> None:
    """begin_op for an op object whose `opId` and `kind` are read already (a lazily read snapshot's op)."""
    counts.ops += 1
    op.op_id = op_id if type(op_id) is str else as_str(op_id)
    if isinstance(kind, str) and kind in KINDS:
        op.kind = kind
        setattr(counts, kind, getattr(counts, kind) + 1)
    else:
        op.problems.append(f"kind is {kind!r}" if isinstance(kind, str) else f"kind is {type_name(kind)}")


def release_tree(root: Session) -> None:
    """Break the parent links of a tree nobody holds any more, so refcounting frees it at once.

    Session <-> Turn <-> Op <-> child Session are reference cycles: left alone, a dropped tree waits for the cyclic
    garbage collector, whose full passes over a big heap pause the UI (and never come for a frozen one).
    """
    stack = [root]
    while stack:
        session = stack.pop()
        for turn in session.turns:
            for op in turn.ops:
                if op.child is not None:
                    stack.append(op.child)
                    op.child = None
            turn.ops = []
            turn.extra_logs = []
        session.turns = []
        session.extra_logs = []
