"""Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as one ai-agent-shaped session tree.

Each line is `{timestamp, type, payload}` with type `session_meta`, `turn_context`, `response_item`, `event_msg` or
`compacted` (codex-rs/protocol RolloutItem). What the file records and how it is read:

- a turn starts at each `event_msg user_message` (the prompt as typed; the `response_item` user messages also
  carry the environment context and AGENTS.md, so they do not start turns) or `task_started` / `turn_started`;
- a model call is the run of `response_item`s (reasoning, assistant message, tool calls) up to the next
  `token_count` whose running total grew: the file has no request record, so that is the one place a call shows.
  Codex writes every `token_count` twice (and one with `info: null` at a turn's start): a call's tokens are the
  growth of `total_token_usage`, never the sum of `last_token_usage`; OpenAI's input includes the cached tokens,
  so the cache read is taken out of the input (input + cache read = what Codex counts as input);
- `function_call` / `custom_tool_call` (apply_patch) / `local_shell_call` / `web_search_call` are tool ops,
  closed by their `*_output` with the same `call_id`; a failed exit code or `success: false` fails them; MCP calls
  (`mcp_tool_call_end`) keep their server as the tool's provider;
- reasoning shows its summary, or `[encrypted reasoning]` when only `encrypted_content` is stored;
- a `spawn_agent` call whose answer names a thread (`{"agent_id": ...}`) has that thread's own rollout as its
  sub-agent (tui.formats.codex.children); a rollout that is itself a spawned thread names its parent
  (`parentID`), and is shown inside its parent's tree;
- a compaction (a `compacted` line, its summary, and the `context_compacted` event after it) is one system op; `turn_aborted` ends the turn and fails the
  tool calls it cut; `error` events are failed system ops; any other line type is counted as a problem, never fatal.
"""

from __future__ import annotations

import re

import orjson

from tui.formats import session_node as sn
from tui.formats.codex.children import SubAgents, parent_of
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str

LINE_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
# newer line types (codex-rs RolloutItem) with nothing a session tree shows: skipped without a problem
_SILENT_LINES = frozenset({"world_state", "inter_agent_communication", "inter_agent_communication_metadata"})
ENCRYPTED = "[encrypted reasoning]"
_EXIT = re.compile(r"(?:Exit code|Process exited with code):? (-?\d+)")
_TOOL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call",
                         "tool_search_call"})
_OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
_SILENT_ITEMS = frozenset({"ghost_snapshot", "compaction", "compaction_summary"})
_SILENT_EVENTS = frozenset({"agent_message", "agent_reasoning", "agent_reasoning_raw_content", "user_message",
                            "token_count", "task_started", "turn_started", "task_complete", "turn_complete",
                            "exec_command_begin", "exec_command_end", "patch_apply_begin", "patch_apply_end",
                            "mcp_tool_call_begin", "web_search_begin", "web_search_end", "turn_diff",
                            "agent_reasoning_section_break", "plan_update", "entered_review_mode",
                            "exited_review_mode", "item_completed", "item_started", "reasoning_content_delta"})


_LEGACY_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "local_shell_call"})


def _legacy_meta(record: object) -> bool:
    """The first line of a rollout written before RolloutLine (Codex CLI up to mid-2025): `{id, timestamp,
    instructions?, git?}`, then bare ResponseItems and `{"record_type": "state"}` lines."""
    return (isinstance(record, dict) and "type" not in record and isinstance(record.get("id"), str)
            and isinstance(record.get("timestamp"), str) and ("instructions" in record or "git" in record))


def as_rollout_lines(records: list[dict]) -> list[dict]:
    """The records of a legacy rollout in today's `{timestamp, type, payload}` shape (others as they are)."""
    if not records or not _legacy_meta(records[0]):
        return records
    ts = records[0]["timestamp"]
    out = [{"timestamp": ts, "type": "session_meta", "payload": records[0]}]
    for record in records[1:]:
        if record.get("record_type") == "state":
            continue
        if "payload" not in record and record.get("type") in _LEGACY_ITEMS:
            text = _content_text(record.get("content")) if record.get("role") == "user" else ""
            if text and not text.startswith("<"):  # a prompt (not environment context or user instructions)
                out.append({"timestamp": ts, "type": "event_msg",
                            "payload": {"type": "user_message", "message": text}})
            record = {"timestamp": ts, "type": "response_item", "payload": record}
        out.append(record)
    return out


def looks_like_codex(records: list) -> bool:
    """A rollout: its first object lines are `{timestamp, type, payload}` with a rollout line type (or it starts
    with a legacy rollout's session line)."""
    if records and _legacy_meta(records[0]) and len(records) > 1:
        return True
    seen = 0
    for record in records[:5]:
        if not isinstance(record, dict):
            continue
        seen += 1
        if record.get("type") not in LINE_TYPES | _SILENT_LINES or "payload" not in record:
            return False
    return seen > 0


class _Reader:
    """The walk over a rollout's lines; `root` is the SessionNode being filled in."""

    def __init__(self, children: SubAgents | None = None) -> None:
        self.children = children
        self.root = sn.root_node("codex", "", "", None, None)
        self.provider = "openai"
        self.model = ""
        self.turn: dict | None = None
        self.llm: dict | None = None  # the model call whose items are being read (its tokens come next)
        self.calls: dict[str, dict] = {}  # call_id -> tool op still waiting for its output
        self.total = (0, 0, 0, 0)  # running total_token_usage: input, cached, output, reasoning
        self.ops = 0
        self.last_ts: object = None
        self.unknown: dict[str, int] = {}
        self.problems: list[str] = []
        # the conversation items since the last call (prompts, context, tool outputs): the next call's `exchange`
        # input (tui.payloads.agent_exchange builds its request from them when the op is opened)
        self.pending: list = []
        self.reset = False  # a compaction: the next call's context starts over
        self.instructions = ""  # session_meta's instructions: the first call's

    def op_id(self) -> str:
        self.ops += 1
        return f"codex-{self.ops}"

    def current_turn(self, ts: object, prompt: str = "") -> dict:
        if self.turn is None:
            self.new_turn(ts, prompt)
        assert self.turn is not None
        return self.turn

    def new_turn(self, ts: object, prompt: str) -> None:
        self.close_llm()
        self.turn = sn.turn_node(len(self.root["turns"]) + 1, ts, prompt)
        self.root["turns"].append(self.turn)
        if prompt and not self.root["sessionTitle"]:
            self.root["sessionTitle"] = " ".join(prompt.split())[:200]

    def close_llm(self) -> None:
        self.llm = None

    def current_llm(self, ts: object) -> dict:
        if self.llm is None:
            turn = self.current_turn(ts)
            self.llm = sn.add_op(turn, sn.llm_op(self.op_id(), ts, self.provider, self.model))
            exchange: dict = {"source": "codex", "input": self.pending, "output": []}
            if self.reset:
                exchange["reset"] = True
            if self.instructions:
                exchange["instructions"] = self.instructions
            self.llm["exchange"] = exchange
            self.pending, self.reset, self.instructions = [], False, ""
        return self.llm

    def said(self, item: dict, ts: object) -> None:
        """An item of the conversation: what a call answered joins it, the rest is the next call's input."""
        kind = as_str(item.get("type"))
        if kind in ("reasoning", *_TOOL_ITEMS) or (kind == "message" and item.get("role") == "assistant"):
            self.current_llm(ts)["exchange"]["output"].append(item)
        elif kind not in ("ghost_snapshot",):
            self.pending.append(item)


def read(records: list[dict], problems: list[str] | None = None, children: SubAgents | None = None) -> dict:
    """The SessionNode of a rollout's records (already parsed lines); `problems`: the lines that did not parse;
    `children`: where its spawned threads' rollouts are found (none: not looked for)."""
    r = _Reader(children)
    r.problems.extend(problems or [])
    for position, record in enumerate(as_rollout_lines(records)):
        kind = record.get("type")
        payload = record.get("payload")
        ts = record.get("timestamp")
        if isinstance(ts, str):
            r.last_ts = ts
            if r.root["startedAt"] is None:
                r.root["startedAt"] = as_ms(ts)
        if not isinstance(payload, dict):
            if kind in LINE_TYPES:
                r.problems.append(f"record {position + 1} ({kind}): payload is not an object")
            else:
                r.unknown[str(kind)] = r.unknown.get(str(kind), 0) + 1
            continue
        if kind == "session_meta":
            _session_meta(r, payload)
        elif kind == "turn_context":
            r.model = as_str(payload.get("model")) or r.model
        elif kind == "response_item":
            _response_item(r, payload, ts)
        elif kind == "event_msg":
            _event(r, payload, ts)
        elif kind == "compacted":
            turn = r.current_turn(ts)
            r.close_llm()
            _compacted(r, payload)
            sn.add_op(turn, sn.system_op(r.op_id(), ts, "compaction", as_str(payload.get("message"))))
        elif kind not in _SILENT_LINES:
            r.unknown[str(kind)] = r.unknown.get(str(kind), 0) + 1
    r.root["endedAt"] = as_ms(r.last_ts)
    _unclaimed_children(r)
    for kind, count in sorted(r.unknown.items()):
        r.problems.append(f"{count} line{'s' if count != 1 else ''} of unknown type {kind[:60]!r}: skipped")
    if r.problems:
        r.root["attributes"]["problems"] = r.problems
    return sn.finish(r.root)


def _compacted(r: _Reader, payload: dict) -> None:
    """The next call's context: the history the compaction left (`replacement_history`), else its summary."""
    history = payload.get("replacement_history")
    summary = {"type": "message", "role": "user",
               "content": [{"type": "compaction", "content": as_str(payload.get("message"))}]}
    r.pending = list(history) if isinstance(history, list) else [summary]
    r.reset = True


def _session_meta(r: _Reader, payload: dict) -> None:
    meta = as_dict(payload.get("meta")) or payload  # (a newer SessionMetaLine nests it beside `git`)
    if not r.root["id"]:
        sid = as_str(meta.get("id"))
        r.root["id"] = r.root["traceId"] = sid
    r.provider = as_str(meta.get("model_provider")) or r.provider
    r.instructions = as_str(meta.get("instructions")) or as_str(as_dict(meta.get("base_instructions")).get("text"))
    attributes = r.root["attributes"]
    for key, name in (("cwd", "cwd"), ("cli_version", "cliVersion"), ("originator", "originator"),
                      ("source", "source")):
        value = meta.get(key)
        if isinstance(value, str) and value and name not in attributes:
            attributes[name] = value
    if "cwd" in attributes:
        attributes["project"] = attributes["cwd"]  # (the session's project: tui.model.agent_nodes.session_project)
    if isinstance(meta.get("model"), str):
        r.model = r.model or meta["model"]
    parent = parent_of(meta)
    if parent:  # a spawned thread: shown inside its parent's tree (tui.catalog.session_row)
        attributes["parentID"] = parent


def _response_item(r: _Reader, item: dict, ts: object) -> None:
    kind = item.get("type")
    r.said(item, ts)
    if kind == "message":
        if item.get("role") == "assistant":
            sn.set_answer(r.current_llm(ts), _content_text(item.get("content")))
        return  # user / developer messages: the prompt comes from `user_message`, the rest is context
    if kind == "reasoning":
        text = "\n".join(as_str(as_dict(s).get("text")) for s in as_list(item.get("summary"))).strip()
        if not text:
            text = "\n".join(as_str(as_dict(c).get("text")) for c in as_list(item.get("content"))).strip()
        if not text and item.get("encrypted_content"):
            text = ENCRYPTED
        sn.add_reasoning(r.current_llm(ts), text or "[reasoning]", ts)
        return
    if kind in _TOOL_ITEMS:
        _tool_call(r, item, ts)
        return
    if kind in _OUTPUT_ITEMS:
        _tool_output(r, item, ts)
        return
    if kind not in _SILENT_ITEMS:
        r.unknown[f"response_item/{kind}"] = r.unknown.get(f"response_item/{kind}", 0) + 1


def _tool_call(r: _Reader, item: dict, ts: object) -> None:
    kind = item.get("type")
    r.current_llm(ts)  # the call that asked for it
    name = as_str(item.get("name"))
    arguments: object = item.get("arguments") if "arguments" in item else item.get("input")
    if kind == "local_shell_call":
        name, arguments = "local_shell", item.get("action")
    elif kind == "web_search_call":
        name, arguments = "web_search", item.get("action")
    if isinstance(arguments, str):
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            pass  # (kept as the text the model wrote: apply_patch's input is a patch, not JSON)
    op = sn.add_op(r.current_turn(ts), sn.tool_op(r.op_id(), ts, name or as_str(kind), arguments))
    call_id = as_str(item.get("call_id")) or as_str(item.get("id"))
    status = as_str(item.get("status"))
    if kind == "web_search_call" or (kind == "local_shell_call" and status in ("completed", "failed")):
        sn.set_output(op, ts, "", "" if status != "failed" else "failed")
    elif call_id:
        r.calls[call_id] = op


def _tool_output(r: _Reader, item: dict, ts: object) -> None:
    op = r.calls.pop(as_str(item.get("call_id")), None)
    if op is None:
        r.problems.append(f"a tool output for call {as_str(item.get('call_id'))[:60]!r} with no call before it")
        return
    output = item.get("output")
    text, error = _output_text(output)
    sn.set_output(op, ts, text, error)
    if r.children is not None and op["attributes"].get("name") == "spawn_agent" and text.startswith("{"):
        try:
            agent_id = as_dict(orjson.loads(text)).get("agent_id")
        except orjson.JSONDecodeError:
            agent_id = None
        child = r.children.take(r.root["id"], agent_id) if isinstance(agent_id, str) and agent_id else None
        if child is not None:
            _adopt(op, child)


def _adopt(op: dict, child: dict) -> None:
    """A spawned thread's rollout as the op's sub-agent (its tokens count in its parent's, as a sub-agent's do)."""
    op["kind"] = "session"
    child["callPath"] = f"codex->{op['attributes'].get('name') or 'sub-agent'}"
    op["childSession"] = child


def _unclaimed_children(r: _Reader) -> None:
    """The spawned threads no call's answer named: shown at the end of the session, each as a sub-agent op."""
    if r.children is None or not r.root["id"]:
        return
    for child in r.children.rest(r.root["id"]):
        turn = r.current_turn(child.get("startedAt"))
        op = sn.add_op(turn, sn.tool_op(r.op_id(), child.get("startedAt"), "sub-agent", None))
        sn.set_output(op, child.get("endedAt"), "")
        _adopt(op, child)


def _output_text(output: object) -> tuple[str, str]:
    """The output's text and, when it says it failed, why."""
    success: object = None
    if isinstance(output, dict):  # FunctionCallOutputPayload {content, success}
        success = output.get("success")
        output = output.get("content") if "content" in output else orjson.dumps(output).decode()
    if isinstance(output, list):  # content items
        output = "\n".join(as_str(as_dict(c).get("text")) for c in output)
    text = output if isinstance(output, str) else ("" if output is None else str(output))
    exit_code: int | None = None
    if text.startswith("{"):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            code = as_dict(value.get("metadata")).get("exit_code")
            exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
            if isinstance(value.get("output"), str):
                text = value["output"]
    if exit_code is None:
        found = _EXIT.search(text[:400])
        exit_code = int(found.group(1)) if found else None
    if success is False:
        return text, "failed"
    if exit_code:
        return text, f"exit code {exit_code}"
    return text, ""


def _event(r: _Reader, event: dict, ts: object) -> None:
    kind = event.get("type")
    if kind == "user_message":
        message = as_str(event.get("message"))
        turn = r.turn
        if turn is not None and not turn["ops"] and not turn["attributes"].get("prompts"):
            turn["attributes"] = sn.turn_node(0, ts, message)["attributes"]  # the task_started turn's prompt
            if message and not r.root["sessionTitle"]:
                r.root["sessionTitle"] = " ".join(message.split())[:200]
        else:
            r.new_turn(ts, message)
    elif kind in ("task_started", "turn_started"):
        if r.turn is None or r.turn["ops"]:
            r.new_turn(ts, "")
    elif kind == "token_count":
        _token_count(r, event, ts)
    elif kind == "turn_aborted":
        _aborted(r, event, ts)
    elif kind == "context_compacted":
        r.close_llm()
        turn = r.current_turn(ts)
        last = turn["ops"][-1] if turn["ops"] else {}
        if last.get("kind") != "system" or last["attributes"].get("label") != "compaction":  # (its `compacted`)
            sn.add_op(turn, sn.system_op(r.op_id(), ts, "compaction"))
    elif kind in ("error", "stream_error"):
        message = as_str(event.get("message")) or "error"
        sn.add_op(r.current_turn(ts), sn.system_op(r.op_id(), ts, "error", message, error=message))
    elif kind == "mcp_tool_call_end":
        _mcp_end(r, event)
    elif kind not in _SILENT_EVENTS:
        r.unknown[f"event_msg/{kind}"] = r.unknown.get(f"event_msg/{kind}", 0) + 1


def _token_count(r: _Reader, event: dict, ts: object) -> None:
    total = as_dict(as_dict(event.get("info")).get("total_token_usage"))
    if not total:
        return  # (the turn-start line with `info: null`: rate limits only)
    now = (as_int(total.get("input_tokens")), as_int(total.get("cached_input_tokens")),
           as_int(total.get("output_tokens")), as_int(total.get("reasoning_output_tokens")))
    if now == r.total:
        return  # the second copy of the same count
    before = r.total if all(n >= b for n, b in zip(now, r.total)) else (0, 0, 0, 0)  # (a resumed process)
    r.total = now
    d_in, d_cached, d_out, d_reasoning = (n - b for n, b in zip(now, before))
    cached = min(d_cached, d_in)
    tokens = {"inputTokens": d_in - cached, "cacheReadInputTokens": cached, "outputTokens": d_out,
              "reasoningTokens": d_reasoning, "totalTokens": d_in + d_out}
    llm = r.current_llm(ts)
    sn.set_tokens(llm, ts, tokens, r.provider, r.model)
    llm["attributes"]["model"] = llm["attributes"]["model"] or r.model
    r.close_llm()


def _aborted(r: _Reader, event: dict, ts: object) -> None:
    reason = as_str(event.get("reason")) or "aborted"
    turn = r.current_turn(ts)
    turn["attributes"]["label"] = f"aborted: {reason}"[:80]
    for op in r.calls.values():
        sn.end_unfinished(op, ts, f"turn aborted ({reason})")
    r.calls.clear()
    sn.add_op(turn, sn.system_op(r.op_id(), ts, "aborted", reason, error=f"turn aborted ({reason})"))
    r.close_llm()


def _mcp_end(r: _Reader, event: dict) -> None:
    """An MCP call's server: its op (a function_call of `server__tool`) names the server as provider."""
    op = r.calls.get(as_str(event.get("call_id")))
    server = as_str(as_dict(event.get("invocation")).get("server"))
    if op is not None and server:
        op["attributes"]["provider"] = server


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(as_str(as_dict(part).get("text")) for part in as_list(content)).strip()
