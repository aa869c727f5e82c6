"""Log entries: normalised on demand from the raw `logs[]` of ops (never all at load time)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tui.model.fields import as_ms, as_str
from tui.model.nodes import Op, Session, Turn


@dataclass(slots=True)
class LogEntry:
    ts: int | None
    severity: str  # upper case; "FATAL" for ERR logs with fatal: true
    message: str
    path: str
    op: Op | None
    raw: dict | None

    @property
    def fatal(self) -> bool:
        return self.severity == "FATAL"


def join_log_path(prefix: str, path: str) -> str:
    """A log's `path` as the whole tree names it. The producer writes it relative to the tree of the session that
    logged it (inside the sub-agent of op `1-5`, `1-1`): joined with the sub-agent's op path it reads `1-5.1-1`,
    not the root's own op `1-1`. A path that already starts with the prefix and a dot (live events, older files) is
    kept; one equal to the prefix is a relative path that happens to match (op `1-2` inside the sub-agent of `1-2`)."""
    if not prefix or not path or path.startswith(prefix + "."):
        return path
    return f"{prefix}.{path}"


def normalise(raw: object, op: Op | None, fallback_path: str = "") -> LogEntry:
    if op is not None and op.log_heads is not None and not isinstance(raw, dict):
        raw = _entry_of(raw, op)
    if not isinstance(raw, dict):
        return LogEntry(None, "???", f"[log entry is not an object: {str(raw)[:200]}]", fallback_path, op, None)
    severity = raw.get("severity")
    severity = severity.upper() if isinstance(severity, str) else "???"
    if raw.get("fatal") is True:
        severity = "FATAL"
    message = raw.get("message")
    if not isinstance(message, str):
        message = "" if message is None else str(message)
    path = as_str(raw.get("path"))
    if path and op is not None:
        path = join_log_path(op.turn.session.path_prefix, path)
    return LogEntry(as_ms(raw.get("timestamp")), severity, message, path or fallback_path, op, raw)


def _entry_of(head: object, op: Op) -> object:
    """The log entry a lazily read op's log head stands for, from the op's dict (decoded now if not yet)."""
    position = getattr(head, "log_position", None)
    logs = op.raw.get("logs") if op.raw is not None else None
    if isinstance(position, int) and isinstance(logs, list) and position < len(logs):
        return logs[position]
    return head


def op_logs(op: Op) -> list[LogEntry]:
    view = getattr(op, "view", None)  # Jules / Genkit ops make their own (tui.model.foreign)
    if view is not None:
        return view.logs(op)
    raw_logs = op.raw.get("logs") if op.raw is not None else None
    if not isinstance(raw_logs, list):
        return []
    return [normalise(item, op, op.path) for item in raw_logs]



def logs_under(node: Session | Turn | Op) -> LogView:
    """The logs of a node and everything below it (sub-agents included), in time order (stable: equal times keep
    the tree's order). Entries are normalised when read: the root of a 100,000-op session has 100,000s of logs
    and a screen shows a few dozen."""
    raws: list = []
    owners: list = []
    _collect(node, raws, owners)
    keys = _sort_keys(raws)
    return LogView(raws, owners, sorted(range(len(raws)), key=keys.__getitem__))


def log_count(node: Session | Turn | Op) -> int:
    """About how many entries logs_under(node) has, from the counts made at load time (a ledger's few turn and
    session entries aside): whether gathering them is quick."""
    if isinstance(node, Op):
        return node.log_count + (node.child.counts.logs if node.child else 0)
    if isinstance(node, Turn):
        return sum(log_count(op) for op in node.ops)
    return node.counts.logs


class LogView(Sequence):
    """LogEntry objects in a given order over raw `logs[]` items (or ready LogEntry objects), built on access."""

    __slots__ = ("_raws", "_owners", "_order", "_severities", "_cache")

    def __init__(self, raws: list, owners: list, order: list[int]) -> None:
        self._raws = raws
        self._owners = owners
        self._order = order
        self._severities: list[str] | None = None  # per raw item, as normalise() says; made when first needed
        self._cache: dict[int, LogEntry] = {}

    def __len__(self) -> int:
        return len(self._order)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._order)))]
        i = self._order[index]
        entry = self._cache.get(i)
        if entry is None:
            raw, owner = self._raws[i], self._owners[i]
            entry = raw if isinstance(raw, LogEntry) else normalise(raw, owner, owner.path if owner else "")
            self._cache[i] = entry
        return entry

    def severities(self) -> list[str]:
        if self._severities is None:
            self._severities = _severities(self._raws)
        return self._severities

    def keep(self, severities: frozenset[str]) -> LogView:
        """The entries whose severity is in `severities`, in the same order (sharing the normalised ones)."""
        sev = self.severities()
        view = LogView(self._raws, self._owners, [i for i in self._order if sev[i] in severities])
        view._severities, view._cache = sev, self._cache
        return view

    def severity_counts(self) -> dict[str, int]:
        sev = self.severities()
        if len(self._order) == len(sev):
            return dict(Counter(sev))
        return dict(Counter(sev[i] for i in self._order))


def _sort_keys(raws: list) -> list[int]:
    """Each raw item's timestamp as normalise() reads it (0 when it has none), without building entries."""
    try:
        if raws and hasattr(raws[0], "log_position"):  # the heads of a lazily read snapshot's entries
            stamps = [raw.timestamp for raw in raws]
        else:
            stamps = [raw.get("timestamp") for raw in raws]
    except AttributeError:  # a LogEntry, a broken item or another kind among them
        stamps = [raw.ts if isinstance(raw, LogEntry) else raw.get("timestamp") if type(raw) is dict
                  else getattr(raw, "timestamp", None) for raw in raws]
    return [ts if type(ts) is int else as_ms(ts) or 0 for ts in stamps]


def _severities(raws: list) -> list[str]:
    out = []
    for raw in raws:
        if type(raw) is dict:
            severity = raw.get("severity")
            severity = severity.upper() if isinstance(severity, str) else "???"
            out.append("FATAL" if raw.get("fatal") is True else severity)
        elif hasattr(raw, "log_position"):  # the head of a lazily read op's entry
            severity = raw.severity
            severity = severity.upper() if isinstance(severity, str) else "???"
            out.append("FATAL" if raw.fatal is True else severity)
        else:
            out.append(raw.severity if isinstance(raw, LogEntry) else "???")
    return out


def _collect(node: Session | Turn | Op, raws: list, owners: list) -> None:
    """Raw log items and their ops in tree order (pre-order, sub-agents right after their op), without recursion:
    sub-agents can nest hundreds deep."""
    stack: list[Session | Turn | Op] = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, Op):
            logs: list | None
            if getattr(node, "view", None) is not None:  # Jules / Genkit ops make their own entries
                logs = op_logs(node)
            else:
                logs = node.lazy_logs
                if logs is None:
                    logs = node.raw.get("logs") if node.raw is not None else None
            if isinstance(logs, list) and logs:
                raws.extend(logs)
                owners.extend([node] * len(logs))
            if node.child is not None:
                stack.append(node.child)
            continue
        if node.extra_logs:
            raws.extend(node.extra_logs)
            owners.extend([None] * len(node.extra_logs))
        stack.extend(reversed(node.ops if isinstance(node, Turn) else node.turns))
