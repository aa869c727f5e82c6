"""OpenCode sessions (`~/.local/share/opencode/storage/session/<projectID>/<sessionID>.json` and the message and
part files it owns, tui.formats.opencode.storage) as one ai-agent-shaped session tree.

The shapes are OpenCode's own (sst/opencode, packages/opencode/src/session/message-v2.ts and session/index.ts):
a `user` message starts a turn (its text parts, synthetic file contents left out, are the prompt); an `assistant`
message holds one or more model calls, each from a `step-start` part to a `step-finish` part, which records that
call's `tokens {input, output, reasoning, cache {read, write}}` and `cost` (OpenCode prices every call itself, so
the cost is recorded, not estimated: a free model's 0 stays 0). `input` excludes the cached tokens (OpenCode's
getUsage takes them out); `reasoning` is kept as a detail and not added to `output`. Text and reasoning parts are a
call's answer and reasoning; a `tool` part is a tool op after the call that asked for it (`state.status` pending /
running: still running; error: failed; a `task` tool names the sub-agent's own session in `state.metadata
.sessionId`, read as that op's child session). An assistant message without step parts (older OpenCode) is one
call with the message's own tokens and cost. The message's `error` (aborted, API error, ...) fails its last call.

A session is running while its last assistant message has neither `time.completed` nor an error.
"""

from __future__ import annotations

import os
import re

import orjson

from tui.formats import session_node as sn
from tui.formats.agent_format import AgentFormat, AgentRead
from tui.formats.aiagent.snapshot import build_session
from tui.formats.opencode.database import OpenCodeDb, newest_root, open_db, session_key
from tui.formats.opencode.storage import StoredMessage, child_session_file, project_of, read_json, read_session
from tui.inputs import json_load
from tui.inputs.files import LoadError
from tui.model.agent_nodes import project_agent_id
from tui.model.fields import as_dict, as_int, as_ms, as_num, as_str, one_line

FORMAT_ID = "opencode-session"
KIND = "opencode"
MAX_CHILD_DEPTH = 4
_CUT_HEAD = re.compile(rb'^\s*\{\s*"id"\s*:\s*"ses_')
_QUIET_PARTS = frozenset({"step-start", "snapshot", "patch", "agent", "file", "compaction", "subtask"})


def looks_like_session_info(value: object) -> bool:
    """A session Info: an object whose `id` is a session id (`ses_...`) with a `projectID` and a `time` object
    (a message has `sessionID` and `role` instead)."""
    return (isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"].startswith("ses")
            and isinstance(value.get("projectID"), str) and isinstance(value.get("time"), dict)
            and "role" not in value)


def sniff(head: bytes) -> bool:
    """A session Info file: OpenCode writes its `id` (`ses_...`) first. A file cut while written (or a head cut by
    the sniffed length: a huge title) is told by that start alone, and read as far as it goes."""
    if _CUT_HEAD.match(head) is None:
        return False
    try:
        return looks_like_session_info(json_load.loads(head))
    except (orjson.JSONDecodeError, RecursionError):
        return True


def build(data: bytes, path: str) -> AgentRead:
    problems: list[str] = []
    try:
        info = json_load.loads(data)
    except (orjson.JSONDecodeError, RecursionError) as exc:
        info = None
        problems.append(f"the session file is not valid JSON ({str(exc)[:120]}), maybe cut while written")
    if not isinstance(info, dict):
        info = {"id": os.path.basename(path).removesuffix(".json")}
    return _read(session_tree(info, path, problems, 0), info, project_of(info, path))


def build_db(db_file: str, session_id: str = "") -> AgentRead:
    """Session `session_id` of an OpenCode database (tui.formats.opencode.database), by default its newest one that
    is not a sub-agent's: the same tree as from the JSON storage. LoadError when the database cannot be read."""
    with open_db(db_file) as db:
        sid = session_id or newest_root(db)
        info = db.session_info(sid) if sid else None
        if info is None:
            raise LoadError(db_file, f"no session {sid!r} in this OpenCode database" if session_id
                            else "no session in this OpenCode database")
        node = session_tree(info, session_key(db_file, sid), list(db.problems), 0, db)
        return _read(node, info, db.project_of(info))


def _read(node: dict, info: dict, project: str) -> AgentRead:
    attributes = node["attributes"]
    if project:
        attributes["project"] = project  # (tui.model.agent_nodes.session_project)
    root = build_session(node)
    root.problems.extend(attributes.get("problems") or [])
    root.head = {"attributes": attributes}
    shape = f"opencode {as_str(info.get('version'))}".strip()
    return AgentRead(root, list(attributes.get("problems") or []), root.id, shape)


FORMAT = AgentFormat(FORMAT_ID, KIND, "OpenCode", sniff, build)


def session_tree(info: dict, path: str, problems: list[str], depth: int, db: OpenCodeDb | None = None) -> dict:
    """The SessionNode of one OpenCode session (and, below its task calls, its sub-agents' sessions), from its
    JSON storage, or from the database `db` when given (`path` is then `<db file>#<session id>`)."""
    stored = db.read_session(info) if db is not None else read_session(info, path)
    sid = as_str(info.get("id")) or os.path.basename(path).removesuffix(".json")
    when = as_dict(info.get("time"))
    root = sn.root_node(KIND, sid, as_str(info.get("title")), when.get("created"), when.get("updated"))
    directory = as_str(info.get("directory"))
    root["agentId"] = project_agent_id(KIND, directory, as_str(info.get("projectID")))
    root["headendId"] = KIND
    attributes = root["attributes"]
    attributes.update(costRecorded=True, costUnknown=False, source=KIND, costEstimated=False)
    for key in ("projectID", "directory", "version", "parentID", "slug"):
        if isinstance(info.get(key), str):
            attributes[key] = info[key]
    builder = _Builder(root, path, depth, db)
    for message in stored.messages:
        builder.message(message)
    all_problems = problems + stored.problems + builder.problems
    if builder.running:
        root["endedAt"] = None
    elif root["endedAt"] is None or (builder.last_ms is not None and builder.last_ms > root["endedAt"]):
        root["endedAt"] = builder.last_ms
    if all_problems:
        attributes["problems"] = all_problems
    return sn.finish(root)


class _Builder:
    """Messages in id order into turns and ops."""

    def __init__(self, root: dict, path: str, depth: int, db: OpenCodeDb | None) -> None:
        self.root, self.path, self.depth, self.db = root, path, depth, db
        self.turn: dict | None = None
        self.problems: list[str] = []
        self.running = False
        self.last_ms: int | None = None
        self.unknown: dict[str, int] = {}
        self.pending: list = []  # the messages since the last call (prompts): the next call's `exchange` input
        self.compaction_asked = ""  # the last user message holding a `compaction` part
        self.compacted = False  # its summary was written: the next call is sent the context from that message on

    def seen(self, *times: object) -> None:
        for value in times:
            ms = as_ms(value)
            if ms is not None and (self.last_ms is None or ms > self.last_ms):
                self.last_ms = ms

    def current_turn(self, ts: object) -> dict:
        if self.turn is None:
            self.turn = sn.turn_node(len(self.root["turns"]) + 1, ts, "")
            self.root["turns"].append(self.turn)
        return self.turn

    def message(self, m: StoredMessage) -> None:
        role = m.info.get("role")
        when = as_dict(m.info.get("time"))
        self.seen(when.get("created"), when.get("completed"))
        if role == "user":
            self.running = False
            self.user(m, when.get("created"))
        elif role == "assistant":
            self.running = when.get("completed") is None and not m.info.get("error")
            self.assistant(m, when)
        else:
            what = "has no readable message file" if not m.info else f"has role {str(role)[:40]!r}"
            self.problems.append(f"message {m.message_id} {what}: its {len(m.parts)} parts shown as a system op")
            text = "\n".join(as_str(p.get("text")) for p in m.parts if isinstance(p.get("text"), str))
            ts = min((as_ms(as_dict(p.get("time")).get("start")) or 0 for p in m.parts), default=0) or None
            sn.add_op(self.current_turn(ts), sn.system_op(m.message_id, ts, "message without its info", text))

    def user(self, m: StoredMessage, ts: object) -> None:
        texts = [p for p in m.parts if p.get("type") == "text" and isinstance(p.get("text"), str)
                 and not p.get("ignored")]
        typed = [as_str(p["text"]) for p in texts if not p.get("synthetic")] or [as_str(p["text"]) for p in texts]
        prompt = "\n".join(t for t in typed if t)
        if not prompt:
            task = next((p for p in m.parts if p.get("type") == "subtask"), None)
            prompt = as_str(task.get("prompt")) if task else ""
        files = [as_str(p.get("filename")) or as_str(p.get("url"))[:200] for p in m.parts if p.get("type") == "file"]
        if files:
            prompt += ("\n" if prompt else "") + "\n".join(f"[file: {f}]" for f in files)
        self.pending.append({"role": "user", "parts": m.parts})
        self.turn = sn.turn_node(len(self.root["turns"]) + 1, ts, prompt)
        self.root["turns"].append(self.turn)
        if not self.root["sessionTitle"] and prompt:
            self.root["sessionTitle"] = one_line(prompt, 200)
        for part in m.parts:
            if part.get("type") == "compaction":
                self.compaction_asked = m.message_id
                label = "compaction (auto)" if part.get("auto") else "compaction"
                sn.add_op(self.turn, sn.system_op(as_str(part.get("id")) or m.message_id, ts, label))

    def assistant(self, m: StoredMessage, when: dict) -> None:
        info = m.info
        turn = self.current_turn(when.get("created"))
        call = _Call(turn, info, as_ms(when.get("created")), self.pending)
        call.reset, self.compacted = self.compacted, False
        for part in m.parts:
            kind = as_str(part.get("type"))
            if kind == "step-start":
                call.close()
                call.open(as_str(part.get("id")), step=True)
            elif kind in ("text", "reasoning"):
                call.content(part, kind)
            elif kind == "tool":
                call.ask(part)
                self.tool(turn, part, call.message_done)
            elif kind == "step-finish":
                call.finish(part)
            elif kind == "retry":
                error = _error_text(part.get("error")) or "retried"
                ts = as_dict(part.get("time")).get("created")
                sn.add_op(turn, sn.system_op(as_str(part.get("id")), ts, f"retry {as_int(part.get('attempt'))}",
                                             error=error))
            elif kind not in _QUIET_PARTS:
                self.unknown[kind[:40]] = self.unknown.get(kind[:40], 0) + 1
        call.end_message(m.message_id)
        if info.get("summary") is True and not info.get("error") and (info.get("finish") or when.get("completed")) \
                and self.compaction_asked and info.get("parentID") == self.compaction_asked:
            self.compacted = True  # (message-v2.ts filterCompacted: a finished summary of a compaction request)
        for kind, count in self.unknown.items():
            self.problems.append(f"{count} part{'s' if count != 1 else ''} of unknown type {kind!r}: skipped")
        self.unknown.clear()

    def tool(self, turn: dict, part: dict, message_done: bool) -> None:
        state = as_dict(part.get("state"))
        times = as_dict(state.get("time"))
        name = as_str(part.get("tool")) or "?"
        op_id = as_str(part.get("callID")) or as_str(part.get("id"))
        op = sn.add_op(turn, sn.tool_op(op_id, times.get("start"), name, state.get("input")))
        self.seen(times.get("start"), times.get("end"))
        child_id = as_dict(state.get("metadata")).get("sessionId")
        if isinstance(child_id, str) and child_id:
            child = self.child(child_id, name)
            if child is not None:
                op["kind"] = "session"
                op["childSession"] = child
        status = as_str(state.get("status"))
        if status == "completed":
            output = state.get("output")
            if as_ms(times.get("compacted")) is not None and not output:
                output = "[Old tool result content cleared]"
            sn.set_output(op, times.get("end"), output if isinstance(output, str) else _json(output))
        elif status == "error":
            error = as_str(state.get("error")) or "error"
            sn.set_output(op, times.get("end"), error, one_line(error, 300))
        elif message_done:  # pending / running in a message that ended: OpenCode's own words for it
            sn.end_unfinished(op, times.get("start"), "[Tool execution was interrupted]")

    def child(self, child_id: str, name: str) -> dict | None:
        if self.depth >= MAX_CHILD_DEPTH:
            return None
        problems: list[str] = []
        if self.db is not None:  # (a sub-agent's session is in the same database)
            info: object = self.db.session_info(child_id)
            path = session_key(self.db.path, child_id)
        else:
            file = child_session_file(self.path, child_id)
            if file is None:
                return None
            info, path = read_json(file, problems, "sub-agent session"), str(file)
        if not isinstance(info, dict):
            self.problems.extend(problems)
            return None
        node = session_tree(info, path, problems, self.depth + 1, self.db)
        node["callPath"] = f"{KIND}->{name}"
        return node


class _Call:
    """The model calls of one assistant message: a step-start opens one, a step-finish closes it with its tokens
    and cost. Times: OpenCode stamps text, reasoning and tool parts, not steps: a call starts when the previous one
    ended (or the message was created) and ends at its last stamped part (or when a tool it asked for started)."""

    def __init__(self, turn: dict, info: dict, created: int | None, pending: list) -> None:
        self.turn, self.info = turn, info
        self.pending = pending  # the builder's: what the conversation said since the last call
        self.provider = as_str(info.get("providerID"))
        self.model = as_str(info.get("modelID"))
        self.cursor = created
        self.op: dict | None = None
        self.last: dict | None = None
        self.steps = 0  # step parts read (none: older OpenCode, the message's own tokens and cost are its one call's)
        self.message_done = as_dict(info.get("time")).get("completed") is not None or bool(info.get("error"))
        self.reset = False  # the first call is the first after a compaction's summary (its exchange says so)

    def open(self, op_id: str = "", step: bool = False) -> dict:
        self.steps += step
        index = sum(1 for op in self.turn["ops"] if op.get("kind") == "llm") + 1
        self.op = sn.add_op(self.turn, sn.llm_op(op_id or f"{self.turn['id']}-call-{index}", self.cursor,
                                                 self.provider, self.model))
        self.op["exchange"] = {"source": "opencode", "input": list(self.pending),
                               "output": [{"role": "assistant", "parts": []}]}
        if self.reset:
            self.op["exchange"]["reset"] = "compaction"
            self.reset = False
        self.pending.clear()
        self.last = self.op
        return self.op

    def touch(self, value: object) -> None:
        ms = as_ms(value)
        if ms is not None and self.op is not None and (self.op["endedAt"] is None or ms > self.op["endedAt"]):
            self.op["endedAt"] = ms
            self.cursor = ms

    def said(self, op: dict | None, part: dict) -> None:
        """A part of the call that wrote it (its exchange output), else of the conversation the next call is sent."""
        if op is not None and "exchange" in op:
            op["exchange"]["output"][0]["parts"].append(part)
        else:
            self.pending.append({"role": "assistant", "parts": [part]})

    def content(self, part: dict, kind: str) -> None:
        op = self.op or self.open()
        self.said(op, part)
        times = as_dict(part.get("time"))
        text = as_str(part.get("text"))
        if kind == "text":
            sn.set_answer(op, text)
        elif text:
            sn.add_reasoning(op, text, times.get("start"))
        self.touch(times.get("end") or times.get("start"))

    def ask(self, part: dict) -> None:
        """A tool part: the call that asked for it ended when the tool began; the next call starts once the tool
        has ended."""
        self.said(self.op or self.last, part)
        times = as_dict(as_dict(part.get("state")).get("time"))
        start, end = as_ms(times.get("start")), as_ms(times.get("end"))
        if self.op is not None and start is not None and (self.op["startedAt"] is None or
                                                           start >= self.op["startedAt"]):
            self.touch(start)
        self.close()
        for ms in (start, end):
            if ms is not None and (self.cursor is None or ms > self.cursor):
                self.cursor = ms

    def close(self) -> None:
        if self.op is not None:
            sn.extend(self.turn, self.op)
        self.op = None

    def finish(self, part: dict) -> None:
        op = self.op or self.last or self.open()
        _usage(op, part, self.provider, self.model)
        self.steps += 1
        self.close()

    def end_message(self, message_id: str) -> None:
        """After the last part: the message's tokens when no step recorded any, its error, its end."""
        self.close()
        op = self.last
        if not self.steps and (op is not None or as_dict(self.info.get("tokens")) or self.info.get("cost")):
            op = op or self.open(message_id)
            _usage(op, self.info, self.provider, self.model)
            self.close()
        error = _error_text(self.info.get("error"))
        if error:
            op = op or self.open(message_id)
            op["status"] = "failed"
            op["attributes"]["error"] = error[:500]
        completed = as_ms(as_dict(self.info.get("time")).get("completed"))
        if op is not None and completed is not None and (op["endedAt"] is None or op["endedAt"] < completed) \
                and op is self.last and self.turn["ops"] and self.turn["ops"][-1] is op:
            op["endedAt"] = completed  # (the last call of a finished message ends with it)
        if self.info.get("summary") is True and op is not None:
            op["attributes"]["label"] = "compaction summary"


def _usage(op: dict, source: dict, provider: str, model: str) -> None:
    """A step-finish part's (or an assistant message's) tokens and cost as the call's accounting entry."""
    tokens = as_dict(source.get("tokens"))
    cache = as_dict(tokens.get("cache"))
    usage = {"inputTokens": as_int(tokens.get("input")), "outputTokens": as_int(tokens.get("output")),
             "cacheReadInputTokens": as_int(cache.get("read")), "cacheWriteInputTokens": as_int(cache.get("write")),
             "reasoningTokens": as_int(tokens.get("reasoning"))}
    if isinstance(tokens.get("total"), (int, float)):
        usage["totalTokens"] = as_int(tokens.get("total"))
    ended = op.get("endedAt")
    sn.set_tokens(op, ended, usage, provider, model)
    cost = source.get("cost")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost == cost and 0 <= cost < 1e9:
        op["accounting"][0]["costUsd"] = as_num(cost)
    if source.get("reason"):
        op["attributes"]["finishReason"] = as_str(source.get("reason"))[:80]


def _error_text(error: object) -> str:
    """A NamedError (`{name, data: {message}}`) as one line: `MessageAbortedError: ...`."""
    if isinstance(error, str):
        return one_line(error, 500)
    if not isinstance(error, dict):
        return ""
    name = as_str(error.get("name")) or "error"
    message = as_str(as_dict(error.get("data")).get("message"))
    return one_line(f"{name}: {message}" if message else name, 500)


def _json(value: object) -> str:
    if value is None:
        return ""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)

