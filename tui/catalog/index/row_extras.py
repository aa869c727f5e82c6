"""What a sessions-index row holds beyond a browser row (tokens split, first prompt, headend, failed ops, errors,
tools, agents, the answers' and tool results' text searched): the one set of rules, fed by either reader of a file
(the tree, tui.catalog.index.indexer, or the facts of a plain snapshot, tui.catalog.index.facts_fill), so that
both give the same row."""

from __future__ import annotations

from tui.catalog.row_facts import first_prompt, row_name
from tui.model.fields import one_line
from tui.model.nodes import Op, Session

PROMPT_MAX = 4096  # the first prompt, searched: a few KiB
ERRORS_MAX = 4096  # error messages, '\n'-joined
LIST_MAX = 64  # distinct tools or agents kept per row
HEADEND_MAX = 40
# The answers' and the tool results' text, searched (issue 31): the first OP_TEXT_MAX characters of each op's, up
# to TEXT_MAX characters a column per session (at most ~8 KiB of ASCII text a session): the index of a 300,000-file
# directory must stay a cache, not a copy. The index of 1,000 generated sessions: 1.3 MB without them; 9.5 MB with
# 1,024 / 4,096, 13.3 MB with 1,024 / 8,192, 6.4 MB with 512 / 2,048 (too little: a tool result's words past its
# first half KiB are lost); the bound per session is what counts
OP_TEXT_MAX = 1024
TEXT_MAX = 4096
TEXT_KINDS = frozenset({"llm", "tool", "session"})  # ops whose response is searched: answers, results, sub-agents'


def empty_extras() -> dict:
    """The extra columns of a row before its file is read (what a broken file keeps)."""
    return {"tokens_in": None, "tokens_out": None, "tokens_cache_read": None, "tokens_cache_write": None,
            "prompt": "", "headend": "", "failed_ops": 0, "errors": "", "tools": "", "agents": "",
            "answers": "", "results": ""}


class OpTally:
    """Failed ops, errors, tools and agents over every op of a tree, given one op at a time in tree order
    (sub-agents right after their op, as tui.model.search.walk_ops goes)."""

    __slots__ = ("failed", "errors", "tools", "agents", "answers", "results")

    def __init__(self, root: Session) -> None:
        self.answers = BoundedText()
        self.results = BoundedText()
        report = root.final_report  # (v2 snapshots: the session's own final report, not an op's)
        content = report.get("content") if isinstance(report, dict) else None
        if isinstance(content, str):
            self.answers.add(content)
        for turn in root.turns:  # the session's own turns' answers (a sub-agent's: add_turn_answers, by its op)
            self.add_turn_answer(turn.raw.get("attributes") if isinstance(turn.raw, dict) else None)
        self.failed = 0
        self.errors: list[str] = [root.error] if root.error else []
        self.tools: dict[str, None] = {}
        self.agents: dict[str, None] = {root.agent_id: None} if root.agent_id else {}

    def wants_text(self, kind: str) -> bool:
        """Whether an op of this kind's text would still be kept (else it need not be decoded)."""
        return (self.results if kind == "tool" else self.answers).size < TEXT_MAX

    def add_text(self, kind: str, text: str) -> None:
        """An op's answer (kind llm, or a sub-agent's report: kind session) or tool result (kind tool): kept,
        bounded, for the search."""
        if text:
            if kind == "tool":
                self.results.add(text)
            elif kind in TEXT_KINDS:
                self.answers.add(text)

    def add_turn_answer(self, attributes: object) -> None:
        """A turn's `attributes.assistant.content`: ai-agent keeps the turn's last assistant message there when
        the turn ends (session-turn-runner.ts, endTurn), the answer a person searches for even when no op's
        preview holds it whole."""
        assistant = attributes.get("assistant") if isinstance(attributes, dict) else None
        content = assistant.get("content") if isinstance(assistant, dict) else None
        if isinstance(content, str) and content and self.answers.size < TEXT_MAX:
            self.answers.add(content)

    def add_turn_answers(self, turns: object) -> None:
        """The answers of a sub-agent's turns (its session's `turns`: Turn objects of a tree, or the facts
        reader's turn records), given right after its op's own text, by either reader."""
        for turn in turns if isinstance(turns, list) else ():
            raw = getattr(turn, "raw", None)
            self.add_turn_answer(raw.get("attributes") if isinstance(raw, dict) else getattr(turn, "attributes",
                                                                                               None))

    def add(self, status: str | None, error: str, kind: str, name: str, child_agent: str) -> None:
        """One op: its status, error (Op.error), kind, name, and its sub-agent's agent id ("" when none). Nothing
        to do for an op that did not fail, has no error, is not a tool and has no sub-agent (the facts walk,
        tui.catalog.index.facts_fill, skips the call for those)."""
        if status == "failed" or error:
            self.failed += 1
            if error and len(self.errors) < LIST_MAX:
                self.errors.append(error)
        if kind == "tool" and name and len(self.tools) < LIST_MAX:
            self.tools[row_name(name)] = None  # (row_name remembers a name flattened: a repeat costs a lookup)
        if child_agent and len(self.agents) < LIST_MAX:
            self.agents[row_name(child_agent)] = None


def write_extras(record: dict, root: Session, headend: str, tally: OpTally) -> None:
    """The extra columns of the row of `root` (a tree's, or one read by tui.formats.aiagent.facts) into `record`."""
    totals = root.totals
    record["tokens_in"], record["tokens_out"] = totals.tokensIn, totals.tokensOut
    record["tokens_cache_read"], record["tokens_cache_write"] = totals.tokensCacheRead, totals.tokensCacheWrite
    record["prompt"] = first_prompt_full(root)
    record["headend"] = headend
    record["failed_ops"] = tally.failed
    record["errors"] = "\n".join(one_line(e, 300) for e in tally.errors)[:ERRORS_MAX]
    record["tools"] = "\n".join(tally.tools)
    record["agents"] = "\n".join(tally.agents)
    record["answers"] = tally.answers.text()
    record["results"] = tally.results.text()


def payload_text(payload: object) -> str:
    """The inline text of an op's response payload (a tool's result string, an LLM answer's `textPreview`); ""
    when it holds none (captures are never decoded for it)."""
    if isinstance(payload, str):
        return payload
    preview = payload.get("textPreview") if isinstance(payload, dict) else None
    return preview if isinstance(preview, str) else ""


def op_text(op: Op) -> str:
    """What an op of a tree answered (kind llm) or returned (kind tool), as the facts walk reads it of a plain
    snapshot (tui.catalog.index.facts_fill): its response payload's inline text; another agent's op asks its
    reader's view (tui.model.agent_nodes.AgentView.op_text)."""
    view = getattr(op, "view", None)
    read = getattr(view, "op_text", None)
    if read is not None:
        return str(read(op) or "")
    raw = op.raw
    response = raw.get("response") if isinstance(raw, dict) else None
    return payload_text(response.get("payload")) if isinstance(response, dict) else ""


def headend_value(value: object) -> str:
    """A `headendId` as a row keeps it; "" when it is not one."""
    return one_line(value, HEADEND_MAX) if isinstance(value, str) and value else ""


def headend_of(s: Session) -> str:
    """Where a session came from (cli, api, web, slack, ...). A v3 ledger's session_start says it; a snapshot's
    session node does not: the producer stamps `headendId` on every log entry (ai-agent.ts), so the first of the
    session's own ops' logs that carries one says it. Never decodes a lazily read node for it (Session.field)."""
    found = headend_value(s.field("headendId"))
    if found:
        return found
    for turn in s.turns:
        for op in turn.ops:
            logs = op.log_heads if op.log_heads is not None else (op.raw or {}).get("logs") if op.log_count else None
            for entry in logs if isinstance(logs, list) else ():
                found = headend_value(entry.get("headendId") if hasattr(entry, "get") else None)
                if found:
                    return found
    return ""


def first_prompt_full(s: Session) -> str:
    """The first user prompt, longer than a row's title keeps (searched by the index), on one line."""
    prompt = first_prompt(s)
    if not prompt:
        return ""
    for turn in s.turns:  # first_prompt cuts to a title's width: take the same prompt longer
        user = turn.prompts.get("user") if turn.prompts and not turn.system else None
        if isinstance(user, str) and user.strip():
            return one_line(user[: PROMPT_MAX * 2], PROMPT_MAX)
    return prompt


class BoundedText:
    """Texts of a session kept for the search, at most OP_TEXT_MAX characters of each and TEXT_MAX in all, cut at
    a character boundary, in text SQLite can bind (lone surrogates replaced) and never holding the snippet
    markers of tui.catalog.index.search (nor NUL). A 10 MB tool result costs the slice of its first characters,
    never a scan of the whole. Line breaks are kept: FTS5 splits words on them, and a hit's snippet is put on one
    line and made inert when shown (tui.catalog.index.search._clean); not calling one_line here keeps this to a
    tenth of a row's indexing time less (14,600 texts of 600 generated files: 0.24 s with it)."""

    __slots__ = ("parts", "size", "seen")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.seen: set[str] = set()

    def add(self, text: str) -> None:
        room = min(OP_TEXT_MAX, TEXT_MAX - self.size)
        if room <= 0:
            return
        text = text[:room]
        if text in self.seen:  # (a turn's answer is often its last call's answer too: kept once)
            return
        self.seen.add(text)
        if not text.isascii():
            text = text.encode("utf-8", "replace").decode("utf-8")
        if "\x00" in text or "\x02" in text or "\x03" in text:
            text = text.translate(_UNSEARCHED)
        self.parts.append(text)
        self.size += len(text) + 1

    def text(self) -> str:
        return "\n".join(self.parts)[:TEXT_MAX]


_UNSEARCHED = {0: " ", 2: " ", 3: " "}  # NUL and the snippet markers (tui.catalog.index.search.HIT_START/END)
