"""The conversation of one LLM call, as Langfuse shows a generation: the request's messages, role by role, then the
answer as the last assistant message with its stop reason and usage (pure: no Textual).

`build_conversation(request_body, response)` reads a request body of any dialect `requests.request_info` names
(Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini generateContent, Ollama /api/chat and
/api/generate: read in `message_readers`; Bedrock Converse, Cohere v2 and unclear ones in `dialect_readers`) and the reassembled response (`result.Reassembled`), either of which may be missing, into one list
of `Message`s: a role (system / user / assistant / tool, plus the dialect's own word when it differs: developer,
model, function) and ordered `Part`s (text, thinking, tool call with its JSON arguments, tool result with its
call id, image / file / audio as one `[image …]` line: base64 data is never shown). `conversation_lines` lays
them out as plain lines (the widget makes them inert and wraps them), system messages folded to one line unless
asked to expand. Every shape the providers allow is read: content as a string or a list of parts, tool results
holding a list, roles missing, parts of a type nobody knows (shown as compact JSON, cut).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.payloads import aiagent_turn
from tui.payloads.decode import DecodedView
from tui.payloads.answer_parts import answer_messages
from tui.payloads.dialect_readers import READERS as MORE_READERS
from tui.payloads.lines import part_lines
from tui.payloads.message_readers import READERS, Message, Part, tool_names
from tui.payloads.op_captures import SECTION_PREFIX, parsed_json, reassembled_meta, usage_iterations, usage_line
from tui.payloads.requests import UNKNOWN, RequestInfo, request_info
from tui.payloads.result import DIALECT_LABELS, Reassembled

__all__ = [
    "Conversation", "Message", "MessageLines", "Part", "build_conversation", "conversation_lines", "conversation_of",
    "is_llm_view",
]

_PREVIEW_CHARS = 36  # the folded system line fits 80 columns
_READERS = {**READERS, aiagent_turn.DIALECT: aiagent_turn.request_messages}


@dataclass(slots=True)
class Conversation:
    dialect: str = ""  # of the request (else of the response)
    model: str = ""
    provider: str = ""  # the provider the request names, when it does (ai-agent's TurnRequest)
    tools: list[str] = field(default_factory=list)  # names of the tools the request offers
    messages: list[Message] = field(default_factory=list)
    has_request: bool = False
    has_response: bool = False

    @property
    def system_count(self) -> int:
        return sum(1 for m in self.messages if m.role == "system")


@dataclass(slots=True)
class MessageLines:
    """The laid-out conversation: plain lines, and which lines head a message (their role, for the colours)."""

    lines: list[str]
    heads: dict[int, str]  # line index -> role ("system", "user", ..., "meta")


# --- building from decoded captures ----------------------------------------------------------------------


def is_llm_view(view: DecodedView | None) -> bool:
    """A decoded capture that is an LLM request or answer of a dialect the messages view reads."""
    if view is None:
        return False
    if view.request is not None:
        return True
    r = view.reassembled
    return r is not None and r.dialect not in ("", "unknown", "generic")


def request_body(view: DecodedView | None) -> object:
    """The parsed JSON of an LLM request capture (its pretty text is JSON), else None."""
    if view is None or view.request is None or not view.pretty:
        return None
    return parsed_json(view)


def conversation_of(request: DecodedView | None, response: DecodedView | None) -> Conversation | None:
    """The conversation of a request capture and a response capture as decoded (either may be None or not an
    LLM's: then it is left out)."""
    return build_conversation(request_body(request), response.reassembled if response is not None else None,
                              request.request if request is not None else None)


# --- building -----------------------------------------------------------------------------------------


def build_conversation(request_body: object, response: Reassembled | None,
                       info: RequestInfo | None = None) -> Conversation | None:
    """The messages of a request body (of a known dialect) followed by the answer; None when neither is an LLM's.
    `info`: what the request was decoded as (its URL path may have named the dialect, its capture that it is
    ai-agent's TurnRequest), else told from the body."""
    info = info if info is not None and isinstance(request_body, dict) else request_info(request_body)
    answer = response if response is not None and response.dialect not in ("", "unknown", "generic") else None
    if info is None and answer is None:
        return None
    conv = Conversation()
    if info is not None and isinstance(request_body, dict):
        conv.dialect, conv.model, conv.has_request = info.dialect, info.model, True
        conv.provider = getattr(info, "provider", "")
        conv.tools = tool_names(request_body)
        reader = _READERS.get(info.dialect) or MORE_READERS.get(info.dialect)
        if reader is not None:
            conv.messages = reader(request_body)
    if answer is not None:
        conv.has_response = True
        conv.dialect = conv.dialect or answer.dialect
        conv.model = conv.model or answer.model
        conv.messages.extend(answer_messages(answer))
    return conv


# Laying out -------------------------------------------------------------------------------------------------


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW_CHARS else flat[: _PREVIEW_CHARS - 1].rstrip() + "…"


def _answer_word(dialect: str) -> str:
    """ai-agent's TurnResult is a result, never a provider's response."""
    return "result" if dialect == aiagent_turn.DIALECT else "response"


def _heading(m: Message, index: int) -> str:
    word = m.role if not m.label else f"{m.role} ({m.label})"
    if m.response is not None:
        word += f" · {_answer_word(m.response.dialect)}" + (f" (choice {m.choice})" if m.choice is not None else "")
    return f"{SECTION_PREFIX}{word}"


def conversation_lines(conv: Conversation, expand_system: bool = False) -> MessageLines:
    """Plain lines: a heading line per message (role, and for the answer its stop and usage), the parts below, a
    blank line between messages. System messages are one line (size and a preview) unless `expand_system`."""
    lines: list[str] = []
    heads: dict[int, str] = {}

    def head(text: str, role: str) -> None:
        heads[len(lines)] = role
        lines.append(text)

    what = DIALECT_LABELS.get(conv.dialect, conv.dialect or "LLM")
    answer = _answer_word(conv.dialect)
    sides = [side for side, has in (("request", conv.has_request), (answer, conv.has_response)) if has]
    meta = [f"{what} {' + '.join(sides)}" if conv.dialect != "error" else "error response"]
    if conv.dialect == UNKNOWN and conv.has_request:  # the request's dialect is unclear; the answer's may be known
        reply = next((m.response for m in conv.messages if m.response is not None), None)
        known = f" + {reply.label}" if reply is not None and reply.dialect not in ("", UNKNOWN) else ""
        meta = [f"unknown request dialect{known}"]
    if conv.provider:
        meta.append(f"provider {conv.provider}")
    if conv.model:
        meta.append(f"model {conv.model}")
    if conv.has_request:
        n = sum(1 for m in conv.messages if m.response is None and m.role != "system")
        meta.append(f"{n} message{'s' if n != 1 else ''}")
    if conv.tools:
        shown = ", ".join(conv.tools[:8]) + (f" +{len(conv.tools) - 8}" if len(conv.tools) > 8 else "")
        meta.append(f"tools: {shown}")
    head(" · ".join(meta), "meta")
    lines.append("")
    names = {p.call_id: p.name for m in conv.messages for p in m.parts if p.kind == "tool_call" and p.call_id}
    for index, m in enumerate(conv.messages):
        if m.role == "system" and not expand_system:
            text = "\n".join(p.text for p in m.parts)
            label = m.role if not m.label else f"{m.role} ({m.label})"
            head(f"▸ {label} · {len(text):,} chars · Enter expands · {_preview(text)}", "system")
            lines.append("")
            continue
        if m.role == "system":
            head(_heading(m, index).replace(SECTION_PREFIX, "▾ ", 1) + " · Enter collapses", "system")
        else:
            head(_heading(m, index), m.role)
        r = m.response
        if r is not None and m.role == "assistant":  # (a turn result's tool results are part of it: said once)
            lines.append(reassembled_meta(r))
            usage = usage_line(r)
            if usage:
                lines.append(usage)
                lines.extend(usage_iterations(r))
            lines.extend(f"error: {e}" for e in r.errors)
        for p in m.parts:
            lines.extend(part_lines(p, names))
        if not m.parts and (r is None or m.role != "assistant" or not r.errors):
            lines.append("(no content)")
        lines.append("")
    if conv.has_request and not conv.has_response:
        head(f"(no {answer} captured for this call)", "meta")
    return MessageLines(lines, heads)
