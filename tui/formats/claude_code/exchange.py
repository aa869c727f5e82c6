"""One Claude Code call as the payload viewer shows it: an Anthropic Messages request (the conversation the model
was sent, from the start or the last compaction) and the assistant message as its response.

Built when the viewer opens the op, from what the reader kept (tui.formats.claude_code.tree: the chain's user
contents and assistant Messages, shared by every call); the file is not read again. The file keeps no system
prompt and no tool list, so the request has neither. Tool results longer than RESULT_CHARS are cut (and say so);
a thinking block whose text is gone (only its signature is stored) is shown as redacted thinking.
"""

from __future__ import annotations

from tui.formats.claude_code.lines import Message
from tui.model.capture import EXCHANGE_TEXT_CHARS as RESULT_CHARS
from tui.model.capture import Capture
from tui.model.capture import cut_exchange_text as _cut
from tui.model.fields import as_dict, as_str

REQUEST_NOTE = "rebuilt from the session file: the conversation the model was sent (the file keeps no system prompt)"


def _block(block: object) -> object:
    """A content block as sent, with a huge tool result cut and an emptied thinking block said to be redacted."""
    if not isinstance(block, dict):
        return {"type": "text", "text": _cut(block)} if isinstance(block, str) else block
    kind = block.get("type")
    if kind == "thinking" and not as_str(block.get("thinking")) and block.get("signature"):
        return {"type": "redacted_thinking"}
    if kind == "text" and isinstance(block.get("text"), str) and len(block["text"]) > RESULT_CHARS:
        return {**block, "text": _cut(block["text"])}
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return {**block, "content": _cut(content)}
        if isinstance(content, list):
            return {**block, "content": [_block(b) for b in content]}
    return block


def _content(content: object) -> object:
    if isinstance(content, str):
        return _cut(content)
    if isinstance(content, list):
        return [_block(b) for b in content]
    return "" if content is None else content


def _summary_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(as_str(as_dict(b).get("text")) for b in content if isinstance(b, dict)) \
        if isinstance(content, list) else ""


def _message(role: str, value: object) -> dict:
    if role == "assistant" and isinstance(value, Message):
        return {"role": "assistant", "content": [_block(b) for b in value.blocks]}
    if role == "summary":
        return {"role": "user", "content": [{"type": "compaction", "content": _cut(_summary_text(value))}]}
    return {"role": "user", "content": _content(value)}


def call_captures(m: Message, history: list, context: tuple[int, int]) -> list[Capture]:
    """The request (history[context]) and the response (the message) of one call."""
    start, end = context
    request = {"model": m.model, "messages": [_message(role, value) for role, value in history[start:end]]}
    response = {"id": as_str(as_dict(m.line.get("message")).get("id")), "type": "message", "role": "assistant",
                "model": m.model, "content": [_block(b) for b in m.blocks], "stop_reason": m.stop_reason or None,
                "usage": m.usage}
    return [Capture("request", "payload", "json", "plain", plain=request, note=REQUEST_NOTE, dialect="anthropic"),
            Capture("response", "payload", "json", "plain", plain=response)]
