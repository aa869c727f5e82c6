"""Gemini CLI chat files (`~/.gemini/tmp/<project hash>/chats/session-*.json` / `.jsonl`) as one ai-agent-shaped
session tree.

Two shapes, both written by gemini-cli's ChatRecordingService: the older file is one ConversationRecord
`{sessionId, projectHash, startTime, lastUpdated, messages[], summary?, kind?}`; the newer is a log replayed line by
line: a metadata line (sessionId + projectHash), message records keyed by `id` (a message is written again whole,
same id, when its tool calls finish or its tokens arrive: the last copy wins, counted once, in the place of the
first), `{"$set": {...}}` metadata updates (a `messages` array there is a checkpoint that replaces them all) and
`{"$rewindTo": id}` (that message and every later one are dropped; all of them when the id is unknown, as
gemini-cli's own loader does).

A `user` message starts a turn (its `content`: a string or a list of parts); a `gemini` message is one model call
(`model`, `tokens {input, output, cached, thoughts, tool, total}`: `input` includes `cached`, so the cache read is
taken out of it; thoughts are output tokens), its `thoughts` the reasoning, its `toolCalls[]` the tool ops
(`status` error / cancelled fail them); `info` / `warning` / `error` messages are system ops (errors failed).
A tool call that ran a sub-agent names it (`agentId`); the sub-agent's own chat (`kind: "subagent"`, in
`chats/<parent session id>/<agentId>.jsonl`) is that op's child session when `children` finds it.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson

from tui.formats import session_node as sn
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str

Children = Callable[[str], "dict | None"]
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})


def looks_like_chat(value: object) -> bool:
    """A ConversationRecord: an object with `sessionId` and a `messages` array (or a JSONL metadata line)."""
    return (isinstance(value, dict) and isinstance(value.get("sessionId"), str)
            and (isinstance(value.get("messages"), list) or "projectHash" in value))


def looks_like_chat_log(records: list) -> bool:
    """A JSONL chat: a metadata line first, or message / `$set` / `$rewindTo` records."""
    first = next((r for r in records[:3] if isinstance(r, dict)), None)
    if first is None:
        return False
    if looks_like_chat(first):
        return True
    return "$set" in first or "$rewindTo" in first or (
        isinstance(first.get("id"), str) and first.get("type") in MESSAGE_TYPES and "timestamp" in first)


def replay(records: list[dict]) -> tuple[dict, list[str]]:
    """The ConversationRecord a JSONL chat log ends as, and what had to be skipped."""
    meta: dict = {}
    order: list[str] = []
    messages: dict[str, dict] = {}
    problems: list[str] = []

    def keep(message: object) -> None:
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            problems.append("a message without an id: skipped")
            return
        if message["id"] not in messages:
            order.append(message["id"])
        messages[message["id"]] = message

    for record in records:
        if "$set" in record:
            update = as_dict(record["$set"])
            if isinstance(update.get("messages"), list):
                order, messages = [], {}
                for m in update["messages"]:
                    keep(m)
            meta.update((k, v) for k, v in update.items() if k != "messages")
        elif "$rewindTo" in record:
            target = record["$rewindTo"]
            cut_at = order.index(target) if target in messages else 0  # (an unknown id: gemini-cli drops all)
            for mid in order[cut_at:]:
                del messages[mid]
            del order[cut_at:]
        elif isinstance(record.get("id"), str) and "sessionId" not in record:
            keep(record)
        elif isinstance(record.get("sessionId"), str):
            meta.update((k, v) for k, v in record.items() if k != "messages")
            for m in as_list(record.get("messages")):
                keep(m)
        else:
            problems.append(f"a line with keys {', '.join(list(record)[:5])[:80]}: skipped")
    meta["messages"] = [messages[mid] for mid in order]
    return meta, problems


def project_folder(path: str) -> str:
    """The `<hash>` of `~/.gemini/tmp/<hash>/chats/<file>` (a sub-agent's `chats/<session>/<agent>.jsonl` too),
    the project a file without projectHash belongs to; "" when the file is not in a chats folder."""
    parts = path.replace("\\", "/").split("/")[:-1]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "chats":
            return parts[i - 1]
    return ""


def read(conversation: dict, problems: list[str] | None = None, children: Children | None = None,
         path: str = "") -> dict:
    """The SessionNode of a ConversationRecord (read from the JSON file, or replayed from the JSONL one);
    `children`: the SessionNode of a sub-agent's chat by its agentId, or None when there is none; `path`: the
    file's (its project folder, when the record has no projectHash)."""
    sid = as_str(conversation.get("sessionId"))
    root = sn.root_node("gemini-cli", sid, as_str(conversation.get("summary")), conversation.get("startTime"),
                        conversation.get("lastUpdated"))
    attributes = root["attributes"]
    for key in ("projectHash", "kind"):
        if isinstance(conversation.get(key), str):
            attributes[key] = conversation[key]
    project = as_str(attributes.get("projectHash")) or project_folder(path)
    if project:
        attributes["project"] = project  # (tui.model.agent_nodes.session_project)
    all_problems = list(problems or [])
    turn: dict | None = None
    seen: set[str] = set()
    pending: list = []  # the messages since the last model call: the next call's `exchange` input
    for position, message in enumerate(as_list(conversation.get("messages"))):
        if not isinstance(message, dict):
            all_problems.append(f"message {position + 1} is not an object: skipped")
            continue
        mid = as_str(message.get("id")) or f"message-{position + 1}"
        if mid in seen:
            continue  # (a JSON file that kept both copies of a rewritten message: the first one is the one read)
        seen.add(mid)
        kind = message.get("type")
        ts = message.get("timestamp")
        if kind != "gemini":
            pending.append(message)
        if kind == "user":
            text = _text(message.get("content"))
            turn = sn.turn_node(len(root["turns"]) + 1, ts, text)
            root["turns"].append(turn)
            if not root["sessionTitle"] and text:
                root["sessionTitle"] = " ".join(text.split())[:200]
            continue
        if turn is None:
            turn = sn.turn_node(1, ts, "")
            root["turns"].append(turn)
        if kind == "gemini":
            _model_call(turn, message, mid, ts, children)["exchange"] = {"source": "gemini-cli", "input": pending,
                                                                         "output": [message]}
            pending = []
        elif kind in ("info", "warning", "error"):
            text = _text(message.get("content"))
            sn.add_op(turn, sn.system_op(mid, ts, str(kind), text, error=(text or "error") if kind == "error" else ""))
        else:
            all_problems.append(f"message {position + 1} of unknown type {str(kind)[:40]!r}: shown as a system op")
            sn.add_op(turn, sn.system_op(mid, ts, f"unknown: {str(kind)[:40]}", _text(message.get("content"))))
    if all_problems:
        attributes["problems"] = all_problems
    return sn.finish(root)


def _model_call(turn: dict, message: dict, mid: str, ts: object, children: Children | None) -> dict:
    model = as_str(message.get("model"))
    thoughts = as_list(message.get("thoughts"))
    # the request went out when the turn's previous step ended (the prompt, or the last tool result); the message
    # is stamped when its answer was recorded
    at, before = as_ms(ts), turn.get("endedAt")
    started = before if isinstance(before, int) and at is not None and before <= at else at
    op = sn.add_op(turn, sn.llm_op(mid, started, "google", model))
    for thought in thoughts:
        t = as_dict(thought)
        text = "\n".join(x for x in (as_str(t.get("subject")), as_str(t.get("description"))) if x)
        sn.add_reasoning(op, text or "[thought]", t.get("timestamp"))
    sn.set_answer(op, _text(message.get("content")))
    tokens = message.get("tokens")
    if isinstance(tokens, dict):
        tin, cached = as_int(tokens.get("input")), as_int(tokens.get("cached"))
        cached = min(cached, tin)
        usage = {"inputTokens": tin - cached, "cacheReadInputTokens": cached,
                 "outputTokens": as_int(tokens.get("output")) + as_int(tokens.get("thoughts")),
                 "reasoningTokens": as_int(tokens.get("thoughts")), "toolTokens": as_int(tokens.get("tool")),
                 "totalTokens": as_int(tokens.get("total"))}
        sn.set_tokens(op, ts, usage, "google", model)
    op["endedAt"] = as_ms(ts) if as_ms(ts) is not None else op["startedAt"]
    sn.extend(turn, op)  # (the next call of the turn starts when this one ended)
    for position, call in enumerate(as_list(message.get("toolCalls"))):
        _tool_call(turn, as_dict(call), f"{mid}-tool-{position + 1}", ts, children)
    return op


def _tool_call(turn: dict, call: dict, op_id: str, ts: object, children: Children | None) -> None:
    name = as_str(call.get("name")) or as_str(call.get("displayName")) or "?"
    op = sn.add_op(turn, sn.tool_op(as_str(call.get("id")) or op_id, ts, name, call.get("args")))
    agent_id = call.get("agentId")
    child = children(agent_id) if children is not None and isinstance(agent_id, str) and agent_id else None
    if child is not None:  # a sub-agent: its tokens count in the parent's, as an ai-agent sub-agent's do
        op["kind"] = "session"
        child["callPath"] = f"gemini-cli->{name}"
        op["childSession"] = child
    status = as_str(call.get("status"))
    if status in ("", "scheduled", "validating", "executing", "awaiting_approval"):
        return  # still running (not finished when the message was written)
    output = _result_text(call.get("result"))
    if not output:
        display = call.get("resultDisplay")
        output = display if isinstance(display, str) else "" if display is None else _json(display)
    error = ""
    if status in ("error", "cancelled"):
        error = (output.strip().splitlines() or [status])[0][:300] if status == "error" else "cancelled"
    ended, began = as_ms(call.get("timestamp")), op.get("startedAt")
    if ended is None or (isinstance(began, int) and ended < began):  # (stamped a moment before its message)
        ended = began
    sn.set_output(op, ended, output, error)


def _result_text(result: object) -> str:
    """A tool call's `result`: Part objects whose functionResponse.response holds `output` or `error`."""
    texts: list[str] = []
    for part in as_list(result) if isinstance(result, list) else [result]:
        if isinstance(part, str):
            texts.append(part)
            continue
        response = as_dict(as_dict(as_dict(part).get("functionResponse")).get("response"))
        for key in ("output", "error", "content"):
            value = response.get(key)
            if isinstance(value, str):
                texts.append(value)
                break
        else:
            if response:
                texts.append(_json(response))
            elif isinstance(as_dict(part).get("text"), str):
                texts.append(as_dict(part)["text"])
    return "\n".join(texts)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(as_str(as_dict(p).get("text")) for p in as_list(content) if isinstance(p, dict)).strip()


def _json(value: object) -> str:
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)
