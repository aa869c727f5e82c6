"""Log entries: normalised on demand from the raw `logs[]` of ops (never all at load time)."""

from __future__ import annotations

import heapq
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


def normalise(raw: object, op: Op | None, fallback_path: str = "") -> LogEntry:
    if not isinstance(raw, dict):
        return LogEntry(None, "???", f"[log entry is not an object: {str(raw)[:200]}]", fallback_path, op, None)
    severity = raw.get("severity")
    severity = severity.upper() if isinstance(severity, str) else "???"
    if raw.get("fatal") is True:
        severity = "FATAL"
    message = raw.get("message")
    if not isinstance(message, str):
        message = "" if message is None else str(message)
    return LogEntry(as_ms(raw.get("timestamp")), severity, message, as_str(raw.get("path")) or fallback_path, op, raw)


def op_logs(op: Op) -> list[LogEntry]:
    view = getattr(op, "view", None)  # Jules / Genkit ops make their own (tui.model.foreign)
    if view is not None:
        return view.logs(op)
    raw_logs = op.raw.get("logs") if op.raw is not None else None
    if not isinstance(raw_logs, list):
        return []
    return [normalise(item, op, op.path) for item in raw_logs]


def logs_under(node: Session | Turn | Op) -> list[LogEntry]:
    """The logs of a node and everything below it (sub-agents included), in time order."""
    runs: list[list[LogEntry]] = []
    _collect(node, runs)
    if len(runs) == 1:
        return sorted(runs[0], key=_key)
    return list(heapq.merge(*(sorted(run, key=_key) for run in runs), key=_key))


def _key(entry: LogEntry) -> int:
    return entry.ts if entry.ts is not None else 0


def _collect(node: Session | Turn | Op, runs: list[list[LogEntry]]) -> None:
    """Runs of log entries in tree order (pre-order, sub-agents right after their op), without recursion."""
    stack: list[Session | Turn | Op] = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, Op):
            logs = op_logs(node)
            if logs:
                runs.append(logs)
            if node.child is not None:
                stack.append(node.child)
            continue
        if node.extra_logs:
            runs.append(list(node.extra_logs))
        stack.extend(reversed(node.ops if isinstance(node, Turn) else node.turns))
