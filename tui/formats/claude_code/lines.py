"""Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`): the lines, read and grouped.

One JSON object a line, `type` saying what it is: `user` (a prompt, or tool results), `assistant` (one message;
streaming writes one line per content block, all with the same `message.id`, the early ones with partial output
counts), `system` (`compact_boundary` marks a compaction), `summary` (1.0.x: a compaction's or the session's
summary), `progress` (2.x: a running sub-agent's messages echoed into its parent: not counted, the sub-agent's own
file has them), and housekeeping (`file-history-snapshot`, `queue-operation`, ...): skipped. A line with
`isSidechain: true` (1.0.x) belongs to a sub-agent written inline. Bad lines (cut, not JSON, not an object) and
unknown types become problems, never an error.

Usage is counted as ccusage counts it: once per message, keyed by `message.id` + `requestId`; of the lines of one
message, the largest usage (the final output count) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from tui.inputs import json_load
from tui.model.fields import as_dict, as_int, as_ms, as_str

HOUSEKEEPING = frozenset({"file-history-snapshot", "file-history-delta", "queue-operation", "custom-title", "agent-name", "last-prompt",
                          "pr-link", "tag", "attachment", "worktree-state"})
KNOWN = frozenset({"user", "assistant", "system", "summary", "progress"}) | HOUSEKEEPING
MAX_PROBLEMS = 20


@dataclass(slots=True)
class Message:
    """One assistant message: its lines merged (content blocks in order, the largest usage)."""

    key: str
    line: dict  # the last line read of it
    blocks: list = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    model: str = ""
    started_ms: int | None = None  # the line before it (the request was sent then)
    ended_ms: int | None = None
    cost: float | None = None  # costUSD (1.0.x wrote it; later versions do not)
    stop_reason: str = ""
    lines: int = 0


@dataclass(slots=True)
class Lines:
    entries: list[dict] = field(default_factory=list)  # the conversation's lines, in file order
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # housekeeping and unknown types, counted
    progress: int = 0  # 2.x progress lines (sub-agents' echoes): not counted
    summaries: list[str] = field(default_factory=list)
    version: str = ""
    session_id: str = ""
    cwd: str = ""
    first_ms: int | None = None
    last_ms: int | None = None

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)
        elif len(self.problems) == MAX_PROBLEMS:
            self.problems.append("… more problems not listed")


def read_lines(data: bytes) -> Lines:
    out = Lines()
    complete = data.endswith(b"\n")
    for number, raw in enumerate(data.split(b"\n"), 1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            value = json_load.loads(raw)
        except (orjson.JSONDecodeError, RecursionError) as exc:
            why = "cut short: the file is still being written, or was truncated" if not complete else str(exc)
            out.problem(f"line {number}: not JSON ({why})")
            continue
        if not isinstance(value, dict):
            out.problem(f"line {number}: not an object")
            continue
        kind = as_str(value.get("type"))
        ts = as_ms(value.get("timestamp"))
        if ts is not None:
            out.first_ms = ts if out.first_ms is None else min(out.first_ms, ts)
            out.last_ms = ts if out.last_ms is None else max(out.last_ms, ts)
        if kind == "summary":
            text = as_str(value.get("summary"))
            if text:
                out.summaries.append(text)
            continue
        if kind == "progress":
            out.progress += 1
            continue
        if kind not in KNOWN:
            out.skipped[kind or "(no type)"] = out.skipped.get(kind or "(no type)", 0) + 1
            continue
        if kind in HOUSEKEEPING:
            continue
        out.version = out.version or as_str(value.get("version"))
        out.session_id = out.session_id or as_str(value.get("sessionId"))
        out.cwd = out.cwd or as_str(value.get("cwd"))
        out.entries.append(value)
    unknown = {k: n for k, n in out.skipped.items()}
    if unknown:
        out.problem("unknown line types skipped: " + ", ".join(f"{k} ({n})" for k, n in list(unknown.items())[:8]))
    return out


def message_key(line: dict) -> str:
    """ccusage's key of a message: message.id + requestId (a line without a message id is its own message)."""
    message = as_dict(line.get("message"))
    mid = as_str(message.get("id"))
    if not mid:
        return "uuid:" + as_str(line.get("uuid"), str(id(line)))
    return f"{mid}:{as_str(line.get('requestId'))}"


def usage_size(usage: dict) -> tuple[int, int]:
    """Which of two usages of the same message is the fuller one: the output count first, then the whole."""
    out = as_int(usage.get("output_tokens"))
    whole = out + as_int(usage.get("input_tokens")) + as_int(usage.get("cache_read_input_tokens")) + as_int(
        usage.get("cache_creation_input_tokens"))
    return out, whole


def merge_assistant(messages: dict[str, Message], line: dict, previous_ms: int | None) -> tuple[Message, bool]:
    """Add an assistant line to its message (made when new): (the message, whether it is new)."""
    key = message_key(line)
    message = as_dict(line.get("message"))
    ts = as_ms(line.get("timestamp"))
    m = messages.get(key)
    new = m is None
    if m is None:
        m = messages[key] = Message(key, line, started_ms=previous_ms if previous_ms is not None else ts)
    m.line = line
    m.lines += 1
    m.ended_ms = ts if ts is not None else m.ended_ms
    m.model = as_str(message.get("model")) or m.model
    m.stop_reason = as_str(message.get("stop_reason")) or m.stop_reason
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}] if isinstance(
        content, str) else []
    seen = {id(b) for b in m.blocks}
    for block in blocks:
        if isinstance(block, dict) and id(block) not in seen and block not in m.blocks:
            m.blocks.append(block)
    usage = as_dict(message.get("usage"))
    if usage and usage_size(usage) > usage_size(m.usage):
        m.usage = usage
    cost = line.get("costUSD")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost >= 0:
        m.cost = max(float(cost), m.cost or 0.0)
    return m, new


def block_text(content: object, limit: int = 100_000) -> str:
    """The text of a message's or tool result's content: a string, or text blocks joined."""
    if isinstance(content, str):
        return content[:limit]
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                kind = block.get("type")
                if kind == "text":
                    parts.append(as_str(block.get("text")))
                elif kind == "thinking":
                    parts.append(as_str(block.get("thinking")))
                elif kind == "image":
                    parts.append("[image]")
                elif kind == "tool_result":
                    parts.append(block_text(block.get("content"), limit))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(p for p in parts if p)[:limit]
    return ""
