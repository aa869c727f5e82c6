"""A Claude Code conversation (its lines, tui.formats.claude_code.lines) as a Session tree.

A prompt starts a turn; each assistant message is an llm op (model, usage counted once per message id, cost
recorded by 1.0.x or estimated from tui.model.prices); each tool_use is a tool op that its tool_result ends
(`is_error`: failed); a Task / Agent call is a session op whose child is the sub-agent; a compaction
(`compact_boundary`, or a user line marked `isCompactSummary`) is a system op.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.formats.claude_code.lines import Message, block_text, merge_assistant
from tui.model.agent_nodes import AgentOp, AgentView, add_op_totals
from tui.model.fields import as_dict, as_int, as_ms, as_str, one_line
from tui.model.nodes import Op, Session, Turn
from tui.model.prices import estimate

TASK_TOOLS = frozenset({"Task", "Agent"})
INTERRUPTED = "[Request interrupted by user"
NOT_PROMPTS = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>")
RESULT_CHARS = 200_000  # a tool result kept for the screens (a huge one is cut, and says so)


@dataclass(slots=True)
class OpInfo:
    """What an op came from: the request side (the prompt / tool input) and the answer side."""

    request: object = None
    response: object = None
    message: Message | None = None
    agent_id: str = ""  # a Task / Agent call: the sub-agent's id (2.x: its file's name)
    prompt: str = ""  # a Task / Agent call: the prompt it gave the sub-agent
    subagent_type: str = ""


@dataclass(slots=True)
class Built:
    session: Session
    tools: dict[str, AgentOp] = field(default_factory=dict)  # tool_use id -> op
    tasks: list[AgentOp] = field(default_factory=list)  # Task / Agent calls, in order
    compactions: list[AgentOp] = field(default_factory=list)
    estimated: bool = False  # some cost came from the price table
    unpriced: set[str] = field(default_factory=set)  # models with tokens and no price
    pending: bool = False  # waiting for an answer or a tool result: still running


class Builder:
    def __init__(self, s: Session, view: AgentView) -> None:
        self.out = Built(s)
        self.view = view
        self.turn: Turn | None = None
        self.messages: dict[str, Message] = {}
        self.msg_ops: dict[str, AgentOp] = {}
        self.previous_ms: int | None = None
        self.prompt_turns = 0
        self.since_answer: list = []  # user content since the last assistant message (an llm op's request)

    def run(self, entries: list[dict]) -> Built:
        for line in entries:
            kind = line.get("type")
            if kind == "user":
                self._user(line)
            elif kind == "assistant":
                self._assistant(line)
            elif kind == "system":
                self._system(line)
            ts = as_ms(line.get("timestamp"))
            if ts is not None:
                self.previous_ms = ts
        for key, op in self.msg_ops.items():
            self._usage(op, self.messages[key])
        return self.out

    # -- lines ----------------------------------------------------------------------------------------------
    def _new_turn(self, prompt: str, ts: int | None) -> Turn:
        s = self.out.session
        self.prompt_turns += 1
        turn = Turn(s, "turn", len(s.turns))
        turn.index = self.prompt_turns
        turn.started_at = turn.ended_at = ts
        turn.prompts = {"user": prompt}
        turn.label = one_line(prompt, 50)
        s.turns.append(turn)
        self.turn = turn
        if not s.title:
            s.title = one_line(prompt, 200)
        return turn

    def _current(self, ts: int | None) -> Turn:
        if self.turn is None:  # ops before any prompt (a resumed file): a turn 0 holds them
            s = self.out.session
            turn = Turn(s, "turn", 0)
            turn.index, turn.system, turn.started_at = 0, True, ts
            s.turns.append(turn)
            self.turn = turn
        return self.turn

    def _op(self, kind: str, name: str, ts: int | None, info: OpInfo) -> AgentOp:
        turn = self._current(ts)
        s = self.out.session
        op = AgentOp(turn, f"{s.path_prefix + '.' if s.path_prefix else ''}{turn.index}-{len(turn.ops) + 1}",
                     self.view, info)
        op.kind, op.name, op.started_at, op.status = kind, name, ts, "ok"
        turn.ops.append(op)
        turn.ended_at = ts if ts is not None else turn.ended_at
        return op

    def _user(self, line: dict) -> None:
        ts = as_ms(line.get("timestamp"))
        content = as_dict(line.get("message")).get("content")
        if line.get("isCompactSummary"):
            op = self._op("system", "compaction", ts, OpInfo(response=block_text(content)))
            op.label = "conversation summarised (compaction)"
            op.ended_at = ts
            self.out.compactions.append(op)
            return
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
            if isinstance(content, list) else []
        for block in results:
            self._result(block, line, ts)
        if results or line.get("isMeta"):
            self.since_answer.append(content)
            return
        text = block_text(content)
        if not text or text.lstrip().startswith(NOT_PROMPTS):  # a slash command's output: not a prompt
            self.since_answer.append(content)
            return
        if text.startswith(INTERRUPTED):  # Esc: the turn ends there, nothing more is coming for it
            self.since_answer.append(content)
            if self.turn is not None:
                self.turn.label = one_line(f"{self.turn.label} (interrupted)", 60)
            self.out.pending = False
            return
        self.since_answer = [content]
        self._new_turn(text, ts)
        self.out.pending = True

    def _result(self, block: dict, line: dict, ts: int | None) -> None:
        op = self.out.tools.get(as_str(block.get("tool_use_id")))
        if op is None:
            return
        info = op.info
        assert isinstance(info, OpInfo)
        text = block_text(block.get("content"), RESULT_CHARS + 1)
        if len(text) > RESULT_CHARS:
            text = text[:RESULT_CHARS] + f"\n… (cut at {RESULT_CHARS:,} characters)"
        info.response = text
        op.ended_at = ts
        op.status = "ok"
        if block.get("is_error") is True:
            op.status = "failed"
            op.error = one_line(text, 300) or "tool error"
        extra = line.get("toolUseResult")
        agent_id = as_str(as_dict(extra).get("agentId"))
        if not agent_id and "agentId: " in text:  # 2.x writes it in the result text too
            words = text.split("agentId: ", 1)[1].split()
            agent_id = words[0].strip("(),.") if words else ""
        info.agent_id = info.agent_id or agent_id
        self.out.pending = any(o.ended_at is None for o in self.out.tools.values())

    def _assistant(self, line: dict) -> None:
        ts = as_ms(line.get("timestamp"))
        m, new = merge_assistant(self.messages, line, self.previous_ms)
        if new:
            op = self._op("llm", m.model or "assistant", m.started_ms, OpInfo(request=self.since_answer, message=m))
            op.provider = "anthropic"
            self.msg_ops[m.key] = op
            self.since_answer = []
        op = self.msg_ops[m.key]
        op.ended_at = ts if ts is not None else op.ended_at
        op.model = m.model
        if line.get("isApiErrorMessage") is True:  # Claude Code's own message for a failed call ("API Error: 529 …")
            op.status = "failed"
            op.error = one_line(block_text(as_dict(line.get("message")).get("content")), 300) or "API error"
        content = as_dict(line.get("message")).get("content")
        tools = False
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tid = as_str(block.get("id"))
            if not tid or tid in self.out.tools:
                continue
            tools = True
            name = as_str(block.get("name"), "tool")
            inp = as_dict(block.get("input"))
            info = OpInfo(request=block.get("input"), prompt=as_str(inp.get("prompt")),
                          subagent_type=as_str(inp.get("subagent_type")))
            tool = self._op("session" if name in TASK_TOOLS else "tool", name, ts, info)
            tool.op_id = tid
            tool.status = None  # until its result comes
            tool.raw = block
            tool.label = one_line(as_str(inp.get("description")) or as_str(inp.get("command"))
                                  or as_str(inp.get("file_path")) or as_str(inp.get("pattern")), 80)
            self.out.tools[tid] = tool
            if name in TASK_TOOLS:
                self.out.tasks.append(tool)
        self.out.pending = tools or any(o.ended_at is None for o in self.out.tools.values())

    def _system(self, line: dict) -> None:
        ts = as_ms(line.get("timestamp"))
        subtype = as_str(line.get("subtype"))
        if subtype == "compact_boundary":
            meta = as_dict(line.get("compactMetadata"))
            op = self._op("system", "compaction", ts, OpInfo(request=meta, response=as_str(line.get("content"))))
            pre = as_int(meta.get("preTokens"))
            op.label = f"compaction ({as_str(meta.get('trigger'), 'auto')}" + (f", {pre:,} tokens before)" if pre
                                                                              else ")")
            op.ended_at = ts
            self.out.compactions.append(op)
        elif subtype == "api_error" or as_str(line.get("level")) == "error":
            op = self._op("system", subtype or "error", ts, OpInfo(response=line))
            op.status, op.ended_at = "failed", ts
            op.error = one_line(as_str(line.get("content")) or as_str(as_dict(line.get("error")).get("message"))
                                or "error", 300)

    def _usage(self, op: AgentOp, m: Message) -> None:
        u = m.usage
        op.tokens_in = as_int(u.get("input_tokens"))
        op.tokens_out = as_int(u.get("output_tokens"))
        op.cache_read = as_int(u.get("cache_read_input_tokens"))
        op.cache_write = as_int(u.get("cache_creation_input_tokens"))
        op.started_at = m.started_ms
        op.ended_at = m.ended_ms
        if m.cost is not None:  # recorded (1.0.x costUSD): kept as it is, 0 stays 0
            op.cost = m.cost
            return
        tokens = op.tokens_in + op.tokens_out + op.cache_read + op.cache_write
        if not tokens:
            return
        cost = estimate(m.model, op.tokens_in, op.tokens_out, op.cache_read, op.cache_write)
        if cost is None:
            self.out.unpriced.add(m.model or "(no model)")
            return
        op.cost = cost
        self.out.estimated = True


def finish(s: Session, built: Built, first_ms: int | None, last_ms: int | None) -> None:
    """Counts, totals and times of a session whose ops (and children) are in place."""
    s.counts.sessions = 1
    s.counts.turns = len(s.turns)
    s.totals.agentsRun = 1
    s.started_at = first_ms
    if not built.pending:
        s.ended_at, s.success = last_ms, True
    for turn in s.turns:
        for op in turn.ops:
            s.counts.ops += 1
            if op.kind in ("llm", "tool", "session", "system"):
                setattr(s.counts, op.kind, getattr(s.counts, op.kind) + 1)
            if op.status == "failed":
                s.counts.failed += 1
                s.counts.errors += 1
            add_op_totals(s, op)
            if op.child is not None:
                s.counts.add(op.child.counts)
                s.totals.add(op.child.totals)
                s.max_depth = max(s.max_depth, op.child.depth, op.child.max_depth)
    for model in sorted(built.unpriced):
        s.problems.append(f"no price known for model {model}: its cost is not estimated")


def adopt(parent: Op, child: Session) -> None:
    """Hang a sub-agent's session under its Task / Agent op."""
    parent.child = child
    child.parent_op = parent
