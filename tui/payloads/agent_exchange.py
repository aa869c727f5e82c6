"""The request and response of a model call read from another agent's own session file (Codex CLI, Gemini CLI,
OpenCode), rebuilt for the payload viewer's messages view when the op is opened (pure: no Textual).

Those readers describe a session as SessionNode dicts (tui.formats.session_node); each llm op's dict carries an
`exchange`: `{"source": "codex" | "gemini-cli" | "opencode", "input": [the conversation items that came since the
previous call], "output": [this call's items], "reset": true after a compaction, "instructions": the system prompt,
on the first call only}` (`"reset": "compaction"`: OpenCode's, from its compaction request on), the file's own
parsed items held by reference (each item by one op only, so a tree written out holds each once). The request is
every earlier call's input and output in the same session (from the last reset) plus this call's input, in the
dialect the agent speaks: OpenAI Responses for Codex, Gemini generateContent for Gemini CLI, Anthropic Messages for
OpenCode (its parts map onto them one to one); the response is this call's output with the op's usage. Nothing is
built while a file loads. Tool results longer than RESULT_CHARS are cut and say so; an item of a kind nobody knows
is kept and shown as such.
"""

from __future__ import annotations

from tui.model.capture import EXCHANGE_TEXT_CHARS as RESULT_CHARS
from tui.model.capture import Capture
from tui.model.capture import cut_exchange_text as cut
from tui.model.fields import as_dict, as_int, as_list, as_str
from tui.model.nodes import Op

__all__ = ["RESULT_CHARS", "exchange_captures", "tool_note"]

REQUEST_NOTE = "rebuilt from the session file: the conversation the model was sent"


def _exchange(op: Op) -> dict | None:
    raw = op.raw
    ex = raw.get("exchange") if isinstance(raw, dict) else None
    return ex if isinstance(ex, dict) else None


def _conversation(op: Op) -> tuple[list, str]:
    """The items the call was sent (from the last reset) and the session's instructions."""
    items: list = []
    instructions = ""
    for turn in op.turn.session.turns:
        for other in turn.ops:
            ex = _exchange(other) if other.kind == "llm" else None
            if ex is None:
                continue
            if isinstance(ex.get("instructions"), str):
                instructions = ex["instructions"]
            if ex.get("reset") is True:
                items = []
            elif ex.get("reset") == "compaction":
                items = _from_compaction(items)
            items.extend(as_list(ex.get("input")))
            if other is op:
                return items, instructions
            items.extend(as_list(ex.get("output")))
    return items, instructions


def _from_compaction(items: list) -> list:
    """OpenCode after a compaction: the model is sent the user message that asked for it (its `compaction` part),
    the summary that answered, and what came after; nothing before (packages/opencode/src/session/message-v2.ts,
    filterCompacted: the messages back to a user message with a compaction part whose summary finished)."""
    for index in range(len(items) - 1, -1, -1):
        item = as_dict(items[index])
        kinds = {as_str(as_dict(p).get("type")) for p in as_list(item.get("parts"))}
        if item.get("role") == "user" and "compaction" in kinds:
            return items[index:]
    return items


def exchange_captures(op: Op) -> list[Capture] | None:
    """The rebuilt request and response of an agent's llm op, None when the op has no exchange."""
    ex = _exchange(op) if op.kind == "llm" else None
    if ex is None:
        return None
    source = as_str(ex.get("source"))
    build = _BUILDERS.get(source)
    if build is None:
        return None
    items, instructions = _conversation(op)
    request, response, dialect = build(op, items, as_list(ex.get("output")), instructions)
    return [Capture("request", "payload", "json", "plain", plain=request, note=REQUEST_NOTE, dialect=dialect),
            Capture("response", "payload", "json", "plain", plain=response)]


def tool_note(op: Op, captures: list[Capture]) -> list[Capture]:
    """A failed tool op of an agent's file: its result says it is an error (the viewer shows the note)."""
    if op.kind == "tool" and op.status == "failed":
        for c in captures:
            if c.side == "response":
                c.note = "; ".join(n for n in (c.note, f"tool result: an error ({op.error or 'failed'})") if n)
    return captures


def _tokens(op: Op) -> dict:
    raw = op.raw if isinstance(op.raw, dict) else {}
    entry = as_dict(next(iter(as_list(raw.get("accounting"))), None))
    return as_dict(entry.get("tokens"))


# Codex: OpenAI Responses items as they are ------------------------------------------------------------------


def _codex_item(item: object) -> object:
    i = as_dict(item)
    if as_str(i.get("type")).endswith("_output") and isinstance(i.get("output"), str) and \
            len(i["output"]) > RESULT_CHARS:
        return {**i, "output": cut(i["output"])}
    return item


def _codex(op: Op, items: list, output: list, instructions: str) -> tuple[dict, dict, str]:
    request: dict = {"model": op.model}
    if instructions:
        request["instructions"] = instructions
    request["input"] = [_codex_item(i) for i in items]
    t = _tokens(op)
    cached = as_int(t.get("cacheReadInputTokens"))
    usage = {"input_tokens": as_int(t.get("inputTokens")) + cached, "input_tokens_details": {"cached_tokens": cached},
             "output_tokens": as_int(t.get("outputTokens")),
             "output_tokens_details": {"reasoning_tokens": as_int(t.get("reasoningTokens"))},
             "total_tokens": as_int(t.get("totalTokens"))}
    response = {"object": "response", "model": op.model, "status": "completed",
                "output": [_codex_item(i) for i in output], **({"usage": usage} if t else {})}
    return request, response, "openai-responses"


# Gemini CLI: message records as Gemini contents -------------------------------------------------------------


def _gemini_text_parts(content: object) -> list:
    if isinstance(content, str):
        return [{"text": cut(content)}] if content else []
    parts = []
    for p in as_list(content):
        if isinstance(p, dict) and isinstance(p.get("text"), str):
            parts.append({**p, "text": cut(p["text"])})
        elif isinstance(p, dict):
            parts.append(p)
    return parts


def _gemini_model_parts(message: dict) -> list:
    parts: list = []
    for thought in as_list(message.get("thoughts")):
        t = as_dict(thought)
        text = "\n".join(x for x in (as_str(t.get("subject")), as_str(t.get("description"))) if x)
        parts.append({"text": text or "[thought]", "thought": True})
    parts.extend(_gemini_text_parts(message.get("content")))
    for call in as_list(message.get("toolCalls")):
        c = as_dict(call)
        parts.append({"functionCall": {"id": as_str(c.get("id")), "name": as_str(c.get("name")),
                                       "args": c.get("args") if isinstance(c.get("args"), dict) else {}}})
    return parts


def _gemini_results(message: dict) -> list:
    parts: list = []
    for call in as_list(message.get("toolCalls")):
        c = as_dict(call)
        for part in as_list(c.get("result")):
            p = as_dict(part)
            fr = as_dict(p.get("functionResponse"))
            if fr:
                response = {k: cut(v) if isinstance(v, str) else v for k, v in as_dict(fr.get("response")).items()}
                parts.append({"functionResponse": {**fr, "response": response}})
            elif isinstance(p.get("text"), str):
                parts.append({"text": cut(p["text"])})
    return parts


def _gemini(op: Op, items: list, output: list, instructions: str) -> tuple[dict, dict, str]:
    contents: list = []
    for item in items:
        m = as_dict(item)
        kind = m.get("type")
        if kind == "gemini":
            contents.append({"role": "model", "parts": _gemini_model_parts(m)})
            results = _gemini_results(m)
            if results:
                contents.append({"role": "user", "parts": results})
        elif kind == "user":
            contents.append({"role": "user", "parts": _gemini_text_parts(m.get("content"))})
        else:  # info / warning / error / unknown: what it is, as the agent wrote it
            contents.append({"role": as_str(kind) or "unknown", "parts": _gemini_text_parts(m.get("content"))})
    request: dict = {"model": op.model, "contents": contents}
    if instructions:
        request["systemInstruction"] = {"parts": [{"text": instructions}]}
    message = as_dict(next(iter(output), None))
    raw_tokens = as_dict(message.get("tokens"))
    usage = {"promptTokenCount": as_int(raw_tokens.get("input")),
             "cachedContentTokenCount": as_int(raw_tokens.get("cached")),
             "candidatesTokenCount": as_int(raw_tokens.get("output")),
             "thoughtsTokenCount": as_int(raw_tokens.get("thoughts")),
             "toolUsePromptTokenCount": as_int(raw_tokens.get("tool")),
             "totalTokenCount": as_int(raw_tokens.get("total"))}
    response = {"candidates": [{"content": {"role": "model", "parts": _gemini_model_parts(message)}, "index": 0}],
                "modelVersion": op.model, **({"usageMetadata": usage} if raw_tokens else {})}
    return request, response, "gemini"


# OpenCode: parts as Anthropic content blocks ----------------------------------------------------------------


def _opencode_blocks(parts: list) -> tuple[list, list]:
    """An assistant step's parts as (assistant blocks, tool_result blocks)."""
    blocks: list = []
    results: list = []
    for part in parts:
        p = as_dict(part)
        kind = as_str(p.get("type"))
        if kind == "text":
            blocks.append({"type": "text", "text": cut(as_str(p.get("text")))})
        elif kind == "reasoning":
            text = as_str(p.get("text"))
            blocks.append({"type": "thinking", "thinking": text} if text else {"type": "redacted_thinking"})
        elif kind == "tool":
            state = as_dict(p.get("state"))
            call_id = as_str(p.get("callID")) or as_str(p.get("id"))
            blocks.append({"type": "tool_use", "id": call_id, "name": as_str(p.get("tool")),
                           "input": state.get("input") if isinstance(state.get("input"), dict) else {}})
            status = as_str(state.get("status"))
            if status in ("completed", "error"):
                out = state.get("output") if status == "completed" else state.get("error")
                results.append({"type": "tool_result", "tool_use_id": call_id, "is_error": status == "error",
                                "content": cut(out) if isinstance(out, str) else cut(str(out or ""))})
        elif kind not in ("step-start", "step-finish", "snapshot", "patch"):
            blocks.append(p)  # unknown to the monitor: shown as it is
    return blocks, results


def _opencode_user(parts: list) -> list:
    blocks: list = []
    for part in parts:
        p = as_dict(part)
        kind = as_str(p.get("type"))
        if kind == "text" and not p.get("ignored"):
            blocks.append({"type": "text", "text": cut(as_str(p.get("text")))})
        elif kind == "file":
            name = as_str(p.get("filename")) or as_str(p.get("url"))[:200]
            blocks.append({"type": "text", "text": f"[file: {name}]"})
        elif kind == "compaction":  # (what OpenCode sends for it: message-v2.ts toModelMessages)
            blocks.append({"type": "text", "text": "What did we do so far?"})
        elif kind not in ("step-start", "step-finish", "snapshot", "patch"):
            blocks.append(p)
    return blocks


def _opencode(op: Op, items: list, output: list, instructions: str) -> tuple[dict, dict, str]:
    messages: list = []
    for item in items:
        entry = as_dict(item)
        if entry.get("role") == "assistant":
            blocks, results = _opencode_blocks(as_list(entry.get("parts")))
            messages.append({"role": "assistant", "content": blocks})
            if results:
                messages.append({"role": "user", "content": results})
        else:
            messages.append({"role": "user", "content": _opencode_user(as_list(entry.get("parts")))})
    request: dict = {"model": op.model, "messages": messages}
    if instructions:
        request["system"] = instructions
    blocks, _ = _opencode_blocks([p for e in output for p in as_list(as_dict(e).get("parts"))])
    t = _tokens(op)
    usage = {"input_tokens": as_int(t.get("inputTokens")), "output_tokens": as_int(t.get("outputTokens")),
             "cache_read_input_tokens": as_int(t.get("cacheReadInputTokens")),
             "cache_creation_input_tokens": as_int(t.get("cacheWriteInputTokens"))}
    response = {"type": "message", "role": "assistant", "model": op.model, "content": blocks,
                **({"usage": usage} if t else {})}
    return request, response, "anthropic"


_BUILDERS = {"codex": _codex, "gemini-cli": _gemini, "opencode": _opencode}
