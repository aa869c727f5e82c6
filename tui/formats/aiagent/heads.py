"""The shapes of a snapshot the monitor reads when it opens one, for msgspec to decode at C speed.

Opening a 100,000-op snapshot with a full parse builds a Python object for every string in it, and most of its
bytes are payloads (request/response captures, tool outputs, prompts) and log messages that nobody looks at until
an op is opened. These structs name only what the tree, the totals and the counts need; msgspec skips every other
field without building it, and leaves each op's payloads in the file's bytes (`msgspec.Raw` slices), decoded with
the one JSON parser (tui.inputs.json_load), the first time something reads `op.raw` (Op.raw is a memo): one pass
over the file builds the tree; an op's bytes are found when it is opened (Locator: one skipping scan of its
session, kept).

The structs are kept out of the cyclic collector (`gc=False`): decoded JSON holds no cycles. Every field is `Any` (decoded as JSON would be) unless it is a container the walk descends into: a value of the
wrong type there (an op that is a string, a request that is a list) makes msgspec refuse the file, and the loader
then takes the tolerant path (tui.formats.aiagent.snapshot over a full parse), which reports such parts as
problems. Absent and null read alike (None), as the tolerant walk's `dict.get` reads them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tui.inputs import json_load

Raw = msgspec.Raw
EMPTY = msgspec.Raw()


class Head(msgspec.Struct, gc=False):
    """A struct the tolerant walk can read like the dict it stands for (`get`)."""

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None)
        return default if value is None else value


class LogHead(Head):
    """A log entry as the logs pane sorts and counts it (tui.model.logs); the entry itself is read from its op's
    dict, at `log_position` in its `logs`, when it is drawn."""

    severity: Any = None
    timestamp: Any = None
    fatal: Any = None
    headendId: Any = None  # where the session came from: the sessions index reads it (a snapshot's node has none)
    log_position: int = msgspec.field(default=0, name="§position")  # set by the walk; no producer writes it


class AccountingHead(Head):
    """An accounting entry: what the totals add up (its other fields stay in the op's bytes)."""

    type: Any = None
    timestamp: Any = None
    tokens: Any = None
    costUsd: Any = None
    charactersIn: Any = None
    charactersOut: Any = None
    error: Any = None


class SizeHead(Head):
    """A request or response: only its `size` (its payload stays in the op's bytes)."""

    size: Any = None


class OpHead(msgspec.Struct, gc=False):
    opId: Any = None
    kind: Any = None
    status: Any = None
    startedAt: Any = None
    endedAt: Any = None
    attributes: Any = None
    error: Any = None
    request: SizeHead | None = None
    response: SizeHead | None = None
    payloadRefs: Any = None
    accounting: list[AccountingHead] | None = None
    logs: list[LogHead] | None = None
    childSession: SessionHead | None = None
    childSessionRef: Any = None
    childSessionSummary: Any = None


class TurnHead(msgspec.Struct, gc=False):
    id: Any = None
    index: Any = None
    startedAt: Any = None
    endedAt: Any = None
    kind: Any = None
    attributes: Any = None
    system: Any = None
    label: Any = None
    ops: list[OpHead] | None = None


class SessionHead(msgspec.Struct, gc=False):
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
    finalReport: Any = None
    totals: Any = None
    attributes: Any = None
    pluginMetas: Any = None
    turns: list[TurnHead] | None = None
    steps: list[TurnHead] | None = None


class EnvelopeHead(msgspec.Struct, gc=False):
    """A snapshot file's top level; the fast path takes only the `opTree` shape (anything else: the full parse)."""

    version: Any = None
    reason: Any = None
    sessionId: Any = None
    originId: Any = None
    timestamp: Any = None
    recordType: Any = None
    type: Any = None
    opTree: SessionHead | None = None


# The skeletons that find an op's bytes when it is opened: one scan of its session, skipping every op.
class _TurnOps(msgspec.Struct, gc=False):
    ops: list[Raw] | None = None


class _SessionOps(msgspec.Struct, gc=False):
    turns: list[_TurnOps] | None = None
    steps: list[_TurnOps] | None = None


class _ChildOf(msgspec.Struct, gc=False):
    childSession: Raw = EMPTY


class _TreeOf(msgspec.Struct, gc=False):
    opTree: Raw = EMPTY


_decode_envelope = msgspec.json.Decoder(EnvelopeHead).decode
_decode_fields = msgspec.json.Decoder(dict[str, Raw]).decode
_decode_session_ops = msgspec.json.Decoder(_SessionOps).decode
_decode_child_of = msgspec.json.Decoder(_ChildOf).decode
_decode_tree_of = msgspec.json.Decoder(_TreeOf).decode
_as_dict = msgspec.structs.asdict
# A head's values in the order of its fields (__struct_fields__): how the walk reads an op or an accounting entry
# without building a dict of it.
as_tuple = msgspec.structs.astuple

# what msgspec raises for a file it cannot take (bad UTF-8 in a string it decodes is a UnicodeDecodeError)
DecodeError = (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError)
_LOAD_ERRORS = (json_load.JSONDecodeError, *DecodeError, IndexError, TypeError)


def envelope(data: bytes | bytearray | memoryview) -> tuple[EnvelopeHead, Locator] | None:
    """The top level when it is a snapshot file (an object with an `opTree` object) and where its tree's bytes
    are; None for any other shape."""
    if not object_first(data):
        return None
    env = _decode_envelope(data)
    if not snapshot_envelope(env):
        return None
    return env, Locator(data, None, "", 0, 0)


def object_first(data: bytes | bytearray | memoryview) -> bool:
    """The bytes start with an object (a snapshot file may; a ledger, an array or a scalar is read elsewhere)."""
    return bytes(data[:64]).lstrip()[:1] == b"{"


def snapshot_envelope(env: Any) -> bool:
    """A decoded top level (an EnvelopeHead, or the facts reader's, tui.formats.aiagent.facts) is a snapshot
    file's: an `opTree` object, and not a ledger record or a live event that happens to carry one."""
    return env.opTree is not None and env.recordType is None and env.type not in ("llm", "tool")


def envelope_fields(env: EnvelopeHead) -> dict:
    return _as_dict(env)


def session_head(head: SessionHead, where: Locator) -> tuple[dict, SessionSource]:
    """A session node's own fields as the dict the walk reads (its turns still TurnHeads), and its lazy source."""
    return _as_dict(head), SessionSource(where)


def turn_fields(head: TurnHead) -> dict:
    """A turn's own fields (without its ops): what Turn.raw holds for a snapshot turn."""
    fields = _as_dict(head)
    return {key: value for key, value in fields.items() if value is not None and key != "ops"}


class Locator:
    """Where a session node's bytes are: the document (the root: its `opTree`), or the `childSession` of an op of
    the parent session. Found on first need, by scans that skip everything else at C speed, and kept, with the
    bytes of the session's ops, so that each session is scanned once however many of its ops are opened."""

    __slots__ = ("data", "parent", "key", "turn", "position", "raw", "ops")

    def __init__(self, data: bytes | bytearray | memoryview | None, parent: Locator | None, key: str, turn: int,
                 position: int) -> None:
        self.data = data
        self.parent = parent
        self.key, self.turn, self.position = key, turn, position
        self.raw: Raw | None = None
        self.ops: _SessionOps | None = None

    def child(self, key: str, turn: int, position: int) -> Locator:
        return Locator(None, self, key, turn, position)

    def node(self) -> Raw:
        """Found from the nearest ancestor already found, downwards: a session 150 levels deep whose bytes are
        wanted first (a screen opened on it before its parents) takes no frame per level."""
        if self.raw is not None:
            return self.raw
        chain, above = [], self
        while above.raw is None and above.parent is not None:
            chain.append(above)
            above = above.parent
        raw = above.raw
        if raw is None:
            raw = above.raw = _decode_tree_of(above.data or b"{}").opTree
        for where in reversed(chain):
            raw = where.raw = _decode_child_of(above.op(where.key, where.turn, where.position)).childSession
            above = where
        return raw

    def op(self, key: str, turn: int, position: int) -> Raw:
        if self.ops is None:
            self.ops = _decode_session_ops(self.node())
        turns = self.ops.turns if key == "turns" else self.ops.steps
        ops = turns[turn].ops  # type: ignore[index]
        return ops[position]  # type: ignore[index]


class SessionSource:
    """A session node; `load()`: the whole node (sub-agents and all) as the full parse gives it."""

    __slots__ = ("where",)

    def __init__(self, where: Locator) -> None:
        self.where = where

    def load(self) -> object:
        try:
            return json_load.loads(memoryview(self.where.node()))
        except _LOAD_ERRORS:  # bytes the skip let through (bad UTF-8): nothing more to show
            return {}


class OpSource:
    """An op; `load()`: the op as the full parse gives it, without its `childSession` (the built child Session
    stands for it: decoding it again would cost as much as the sub-agent's whole subtree)."""

    __slots__ = ("where", "key", "turn", "position", "has_child")

    def __init__(self, where: Locator, key: str, turn: int, position: int, has_child: bool) -> None:
        self.where = where
        self.key, self.turn, self.position = key, turn, position
        self.has_child = has_child

    def child(self) -> Locator:
        return self.where.child(self.key, self.turn, self.position)

    def load(self) -> object:
        try:
            raw = self.where.op(self.key, self.turn, self.position)
            if not self.has_child:
                return json_load.loads(memoryview(raw))
            return {key: json_load.loads(memoryview(value))
                    for key, value in _decode_fields(raw).items() if key != "childSession"}
        except _LOAD_ERRORS:  # bytes the skip let through (bad UTF-8): no payloads
            return {}
