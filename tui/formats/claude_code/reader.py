"""Claude Code session files: the reader tui.formats.agents calls (sniff, build) and what the screens show of an op.

Sub-agents come three ways and each is read once: 1.0.x writes them inline (`isSidechain: true` lines, one chain per
Task call, matched to it by prompt, else in order); 2.x writes each to `<session>/subagents/agent-<id>.jsonl`
(matched by the `agentId` its Task result names; `agent-acompact-*` files are compaction calls) and echoes its
messages into the parent as `progress` lines, which are skipped (the sub-agent's own file is what counts).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

from tui.formats.agent_format import AgentFormat, AgentRead
from tui.formats.claude_code.exchange import call_captures
from tui.formats.claude_code.lines import block_text, read_lines
from tui.formats.claude_code.tree import Builder, OpInfo, adopt, finish
from tui.inputs import json_load
from tui.model.agent_nodes import AgentOp, mark_agent_tree, project_agent_id
from tui.model.capture import Capture
from tui.model.fields import as_dict, as_ms, as_str, one_line
from tui.model.logs import LogEntry
from tui.model.nodes import ORPHANS, Op, Session, Turn

FORMAT_ID = "claude-code-jsonl"
KIND = "claude-code"
SUBAGENT_MAX_BYTES = 256 * 1024 * 1024
SUBAGENT_FILES_MAX = 500
LINE_TYPES = ("user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation", "progress")
# a first line longer than the sniffed head (a huge pasted prompt): told by its leading fields
_CUT_HEAD = re.compile(rb'^\s*\{.{0,400}?"type"\s*:\s*"(?:' + "|".join(LINE_TYPES).encode() + rb')"', re.DOTALL)


def sniff(head: bytes) -> bool:
    """A Claude Code file: its first complete line is an object of a Claude Code line type with one of the fields
    every such line has (sessionId, uuid, leafUuid, messageId); a first line cut by the sniffed head is told by
    its `type` and `sessionId` fields near its start."""
    for raw in head.split(b"\n")[:5]:
        raw = raw.strip()
        if not raw:
            continue
        try:
            value = json_load.loads(raw)
        except (orjson.JSONDecodeError, RecursionError):
            cut = b"\n" not in head.strip()
            return cut and _CUT_HEAD.match(raw) is not None and b'"sessionId"' in raw and b'"recordType"' not in raw
        if not isinstance(value, dict) or "recordType" in value:
            return False
        return value.get("type") in LINE_TYPES and any(k in value for k in ("sessionId", "uuid", "leafUuid",
                                                                           "messageId"))
    return False


def build(data: bytes, path: str) -> AgentRead:
    root = Session()
    lines = read_lines(data)
    stem = os.path.basename(path).removesuffix(".jsonl")
    root.id = root.trace_id = lines.session_id or stem
    folder = os.path.basename(os.path.dirname(path))  # ~/.claude/projects/<slug>/: the project, when no cwd says
    root.agent_id = project_agent_id(KIND, lines.cwd, folder)
    root.call_path = lines.cwd
    main = [e for e in lines.entries if e.get("isSidechain") is not True]
    side = [e for e in lines.entries if e.get("isSidechain") is True]
    built = Builder(root, CLAUDE_VIEW).run(main)
    problems = list(lines.problems)
    estimated = built.estimated
    children = _sidechains(root, built, side) + _subagent_files(root, built, path, problems)
    estimated = estimated or any(c for c in children)
    finish(root, built, lines.first_ms, lines.last_ms)
    if not root.title and lines.summaries:
        root.title = one_line(lines.summaries[-1], 200)
    root.problems = problems + root.problems
    mark_agent_tree(root, KIND, estimated, version=lines.version, cwd=lines.cwd, progressLines=lines.progress,
                    project=lines.cwd or folder)
    shape = f"claude-code {lines.version}".strip()
    return AgentRead(root, root.problems, root.id, shape, lines)


def _child(parent: AgentOp) -> Session:
    s = Session()
    s.depth = parent.turn.session.depth + 1
    s.path_prefix = parent.path
    s.parent_op = parent
    info = parent.info
    s.agent_id = (info.subagent_type if isinstance(info, OpInfo) else "") or "sub-agent"
    return s


def _read_child(parent: AgentOp, entries: list[dict], first_ms, last_ms, problems: list[str]) -> bool:
    """Build a sub-agent under `parent`; whether its cost is estimated."""
    child = _child(parent)
    child.id = child.trace_id = as_str(entries[0].get("agentId")) if entries else ""
    built = Builder(child, CLAUDE_VIEW).run(entries)
    finish(child, built, first_ms, last_ms)
    problems.extend(f"sub-agent {parent.path}: {p}" for p in child.problems[:5])
    adopt(parent, child)
    return built.estimated


def _orphan_op(root: Session, name: str) -> AgentOp:
    """A session op in the made-up turn of sub-agents tied to no Task call."""
    turn = next((t for t in root.turns if t.kind == ORPHANS), None)
    if turn is None:
        turn = Turn(root, ORPHANS, len(root.turns))
        turn.index = len(root.turns)
        root.turns.append(turn)
    op = AgentOp(turn, f"{turn.index}-{len(turn.ops) + 1}", CLAUDE_VIEW, OpInfo())
    op.kind, op.name, op.status = "session", name, "ok"
    turn.ops.append(op)
    return op


def _sidechains(root: Session, built, side: list[dict]) -> list[bool]:
    """1.0.x inline sub-agents: chains of sidechain lines (a line whose parent is not a sidechain line starts
    one), each matched to the Task call with the same prompt, else to the next Task call without a child."""
    if not side:
        return []
    chains: list[list[dict]] = []
    where: dict[str, int] = {}
    for line in side:
        parent = as_str(line.get("parentUuid"))
        if parent in where:
            index = where[parent]
        else:
            chains.append([])
            index = len(chains) - 1
        chains[index].append(line)
        uuid = as_str(line.get("uuid"))
        if uuid:
            where[uuid] = index
    out = []
    free = [op for op in built.tasks if op.child is None]
    for chain in chains:
        prompt = block_text(as_dict(chain[0].get("message")).get("content")).strip()
        op = next((t for t in free if isinstance(t.info, OpInfo) and t.info.prompt.strip() == prompt), None)
        if op is None:
            op = free[0] if free else _orphan_op(root, "sidechain")
        if op in free:
            free.remove(op)
        times = [t for t in (_ms(e) for e in chain) if t is not None]
        out.append(_read_child(op, chain, min(times, default=None), max(times, default=None), root.problems))
    return out


def _ms(line: dict) -> int | None:
    return as_ms(line.get("timestamp"))


def _subagent_files(root: Session, built, path: str, problems: list[str]) -> list[bool]:
    """2.x sub-agents: `<session>/subagents/agent-<id>.jsonl` beside the file, each under the Task call whose
    result names its id (compaction calls, `agent-acompact-*`, under the compactions in order)."""
    if path == "-" or not path.endswith(".jsonl"):
        return []
    folder = Path(path[: -len(".jsonl")]) / "subagents"
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.startswith("agent-") and e.name.endswith(".jsonl"))
    except OSError:
        return []
    by_id = {op.info.agent_id: op for op in built.tasks if isinstance(op.info, OpInfo) and op.info.agent_id}
    compactions = [op for op in built.compactions if op.child is None]
    out = []
    for name in names[:SUBAGENT_FILES_MAX]:
        agent_id = name[len("agent-"): -len(".jsonl")]
        try:
            with open(folder / name, "rb") as fh:
                data = fh.read(SUBAGENT_MAX_BYTES + 1)
        except OSError as exc:
            problems.append(f"sub-agent file {name}: {exc.strerror or exc}")
            continue
        if len(data) > SUBAGENT_MAX_BYTES:
            problems.append(f"sub-agent file {name}: larger than {SUBAGENT_MAX_BYTES:,} bytes, not read")
            continue
        lines = read_lines(data)
        op = by_id.pop(agent_id, None)
        compaction = agent_id.startswith("acompact")
        if op is None and compaction and compactions:
            op = compactions.pop(0)
            op.kind = "session"
        if op is None or op.child is not None:
            op = _orphan_op(root, f"agent-{agent_id}")
        out.append(_read_child(op, lines.entries, lines.first_ms, lines.last_ms, problems))
        if op.child is not None:
            op.child.id = op.child.trace_id = agent_id
            if compaction:
                op.child.agent_id = "compaction"
            op.child.problems = list(lines.problems) + op.child.problems
    return out


class ClaudeCodeView:
    """What the payload viewer and the logs show of a Claude Code op: the exchange, as Anthropic messages."""

    tree_title = "Claude Code session"

    def sections(self, node: object) -> list:
        return []

    def captures(self, op: Op) -> list[Capture]:
        info = getattr(op, "info", None)
        if not isinstance(info, OpInfo):
            return []
        if info.message is not None:
            asked = info.request if isinstance(info.request, list) else []
            history = info.history if info.history is not None else [("user", c) for c in asked]
            return call_captures(info.message, history, info.context if info.history is not None
                                 else (0, len(history)))
        out = []
        if info.request is not None:
            out.append(Capture("request", "payload", "json", "plain", plain=info.request, note="tool input"))
        if info.response is not None:
            failed = op.status == "failed" and op.kind != "system"
            out.append(Capture("response", "payload", "text" if isinstance(info.response, str) else "json",
                               "plain", plain=info.response,
                               note="tool result: an error (is_error)" if failed else "tool result"))
        return out

    def op_text(self, op: Op) -> str:
        """An assistant message's text blocks (not its thinking), or a tool's result text."""
        info = getattr(op, "info", None)
        if not isinstance(info, OpInfo):
            return ""
        if info.message is not None:
            return "\n".join(as_str(b.get("text")) for b in info.message.blocks
                             if isinstance(b, dict) and b.get("type") == "text")
        return info.response if isinstance(info.response, str) else ""

    def logs(self, op: Op) -> list[LogEntry]:
        info = getattr(op, "info", None)
        if not isinstance(info, OpInfo):
            return []
        entries = []
        if info.message is not None:
            for block in info.message.blocks:
                kind = as_str(block.get("type"))
                if kind in ("text", "thinking"):
                    text = block_text([block])
                    entries.append(LogEntry(op.ended_at, "VRB" if kind == "thinking" else "INF",
                                            f"{kind}: {one_line(text, 2000)}", op.path, op, None))
                elif kind == "tool_use":
                    entries.append(LogEntry(op.ended_at, "INF", f"tool_use {as_str(block.get('name'))}", op.path, op,
                                            None))
        elif isinstance(info.response, str):
            severity = "ERR" if op.failed else "INF"
            entries.append(LogEntry(op.ended_at, severity, one_line(info.response, 2000), op.path, op, None))
        return entries


CLAUDE_VIEW = ClaudeCodeView()
FORMAT = AgentFormat(FORMAT_ID, KIND, "Claude Code", sniff, build)
