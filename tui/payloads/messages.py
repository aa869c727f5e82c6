"""The conversation of one LLM call, as Langfuse shows a generation: the request's messages, role by role, then the
answer as the last assistant message with its stop reason and usage (pure: no Textual).

`build_conversation(request_body, response)` reads a request body of any dialect `requests.request_info` names
(Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini generateContent, Ollama /api/chat and
/api/generate) and the reassembled response (`result.Reassembled`), either of which may be missing, into one list
of `Message`s: a role (system / user / assistant / tool, plus the dialect's own word when it differs: developer,
model, function) and ordered `Part`s (text, thinking, tool call with its JSON arguments, tool result with its
call id, image / file / audio as one `[image …]` line: base64 data is never shown). `conversation_lines` lays
them out as plain lines (the widget makes them inert and wraps them), system messages folded to one line unless
asked to expand. Every shape the providers allow is read: content as a string or a list of parts, tool results
holding a list, roles missing, parts of a type nobody knows (shown as compact JSON, cut).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tui.inputs import json_load
from tui.payloads.decode import DecodedView
from tui.payloads.op_captures import SECTION_PREFIX, reassembled_meta, split_lines, usage_line
from tui.payloads.requests import request_info
from tui.payloads.result import DIALECT_LABELS, Reassembled, compact, d, lst, s

__all__ = [
    "Conversation", "Message", "MessageLines", "Part", "build_conversation", "conversation_lines", "conversation_of",
    "is_llm_view",
]

ROLES = ("system", "user", "assistant", "tool")
_ROLE_OF = {"developer": "system", "model": "assistant", "function": "tool", "ipython": "tool"}
_UNKNOWN_PART_CHARS = 2000
_PREVIEW_CHARS = 36  # the folded system line fits 80 columns
NO_ROLE = "no role"


@dataclass(slots=True)
class Part:
    kind: str  # "text" | "thinking" | "tool_call" | "tool_result" | "media" | "refusal" | "other"
    text: str = ""  # text, thinking, a tool call's arguments (JSON text), a tool result, a media line
    name: str = ""  # tool name
    call_id: str = ""
    error: bool = False  # a tool result the caller marked as an error


@dataclass(slots=True)
class Message:
    role: str  # one of ROLES: what the message is, for labels and colours
    parts: list[Part] = field(default_factory=list)
    label: str = ""  # the dialect's own role word when it differs from `role` (developer, model, no role)
    response: Reassembled | None = None  # set on the answer's assistant message(s)
    choice: int | None = None  # the answer's choice / candidate, when there are several

    @property
    def chars(self) -> int:
        return sum(len(p.text) for p in self.parts)


@dataclass(slots=True)
class Conversation:
    dialect: str = ""  # of the request (else of the response)
    model: str = ""
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
    try:
        return json_load.loads(view.pretty)
    except (ValueError, TypeError, RecursionError):
        return None


def conversation_of(request: DecodedView | None, response: DecodedView | None) -> Conversation | None:
    """The conversation of a request capture and a response capture as decoded (either may be None or not an
    LLM's: then it is left out)."""
    return build_conversation(request_body(request), response.reassembled if response is not None else None)


# --- building -----------------------------------------------------------------------------------------


def build_conversation(request_body: object, response: Reassembled | None) -> Conversation | None:
    """The messages of a request body (of a known dialect) followed by the answer; None when neither is an LLM's."""
    info = request_info(request_body)
    answer = response if response is not None and response.dialect not in ("", "unknown", "generic") else None
    if info is None and answer is None:
        return None
    conv = Conversation()
    if info is not None and isinstance(request_body, dict):
        conv.dialect, conv.model, conv.has_request = info.dialect, info.model, True
        conv.tools = _tool_names(request_body)
        reader = _READERS.get(info.dialect)
        if reader is not None:
            conv.messages = reader(request_body)
    if answer is not None:
        conv.has_response = True
        conv.dialect = conv.dialect or answer.dialect
        conv.model = conv.model or answer.model
        conv.messages.extend(_answer(answer))
    return conv


def _tool_names(body: dict) -> list[str]:
    names: list[str] = []
    for tool in lst(body.get("tools")):
        t = d(tool)
        decls = lst(t.get("functionDeclarations")) or lst(t.get("function_declarations"))
        if decls:
            names.extend(s(d(f).get("name")) or "?" for f in decls)
            continue
        name = s(t.get("name")) or s(d(t.get("function")).get("name"))
        names.append(name or s(t.get("type")) or next(iter(t), "?"))
    return names


def _role(raw: object, default: str = "user") -> tuple[str, str]:
    """(normalised role, the dialect's word when it differs)."""
    word = raw if isinstance(raw, str) else ""
    if not word:
        return default, NO_ROLE
    low = word.lower()
    if low in ROLES:
        return low, ""
    return _ROLE_OF.get(low, "user"), word


def _message(raw_role: object, parts: list[Part], default: str = "user") -> Message:
    role, label = _role(raw_role, default)
    return Message(role, parts, label)


def _text_parts(value: object) -> list[Part]:
    """A string, or a list of text parts / blocks (any dialect's), as text parts."""
    if isinstance(value, str):
        return [Part("text", value)]
    if isinstance(value, list):
        out: list[Part] = []
        for item in value:
            if isinstance(item, str):
                out.append(Part("text", item))
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                out.append(Part("text", item["text"]))
            elif item is not None:
                out.append(_other(item))
        return out
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return [Part("text", value["text"])]
    if value is None:
        return []
    return [_other(value)]


def _other(value: object) -> Part:
    """A part nobody here knows: its type and compact JSON, cut (it may hold megabytes)."""
    text = compact(value)
    if len(text) > _UNKNOWN_PART_CHARS:
        text = text[:_UNKNOWN_PART_CHARS] + f"… ({len(text):,} chars)"
    return Part("other", text, name=s(d(value).get("type")))


def _size(data: object) -> str:
    """How big base64 data is, never the data."""
    if not isinstance(data, str) or not data:
        return ""
    n = len(data) * 3 // 4 - (len(data) - len(data.rstrip("=")))
    return f"{n:,} bytes" if n < 10_000 else f"{n / 1024:,.0f} KiB" if n < 10_000_000 else f"{n / 1048576:,.1f} MiB"


def _media(kind: str, mime: str = "", url: str = "", data: object = None, name: str = "") -> Part:
    bits = [b for b in (mime, name) if b]
    if url:
        bits.append(url[:200] + "…" if len(url) > 200 else url)
    if url.startswith("data:"):
        bits[-1] = f"data: URL, {_size(url.partition(',')[2])}"
    size = _size(data)
    if size:
        bits.append(size)
    return Part("media", f"[{kind}{' ' if bits else ''}{', '.join(bits)}]")


def _args_text(value: object) -> str:
    """Tool arguments as JSON text: a string stays as sent (it may not even be JSON), anything else is dumped."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return compact(value)


# Anthropic Messages ------------------------------------------------------------------------------------


def _anthropic(body: dict) -> list[Message]:
    out: list[Message] = []
    system = body.get("system")
    if system is not None and system != "" and system != []:
        out.append(Message("system", _text_parts(system)))
    for m in lst(body.get("messages")):
        m = d(m)
        content = m.get("content")
        parts = [Part("text", content)] if isinstance(content, str) else \
            [_anthropic_block(b) for b in lst(content)] if isinstance(content, list) else _text_parts(content)
        out.append(_message(m.get("role"), parts))
    return out


def _anthropic_block(block: object) -> Part:
    b = d(block)
    t = s(b.get("type"))
    if t == "text" or (not t and isinstance(b.get("text"), str)):
        return Part("text", s(b.get("text")))
    if t == "thinking":
        return Part("thinking", s(b.get("thinking")))
    if t == "redacted_thinking":
        return Part("thinking", "[redacted thinking]")
    if t in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return Part("tool_call", _args_text(b.get("input")), s(b.get("name")), s(b.get("id")))
    if t == "tool_result" or t.endswith("_tool_result"):
        return Part("tool_result", _result_text(b.get("content")), "", s(b.get("tool_use_id")),
                    b.get("is_error") is True)
    if t in ("image", "document"):
        src = d(b.get("source"))
        return _media(t, s(src.get("media_type")), s(src.get("url")) or s(src.get("file_id")), src.get("data"),
                      s(b.get("title")))
    if t == "search_result":
        return Part("text", "\n".join(x for x in (s(b.get("title")), s(b.get("source")),
                                                   _result_text(b.get("content"))) if x))
    if isinstance(block, str):
        return Part("text", block)
    return _other(block)


def _result_text(content: object) -> str:
    """A tool result's content: a string, or a list of text / image / other blocks, as one text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for item in content:
            i = d(item)
            t = s(i.get("type"))
            if isinstance(item, str):
                pieces.append(item)
            elif isinstance(i.get("text"), str):
                pieces.append(i["text"])
            elif t in ("image", "document", "input_image", "input_file", "image_url"):
                pieces.append(_content_part(item).text)
            else:
                pieces.append(_other(item).text)
        return "\n".join(pieces)
    if content is None:
        return ""
    return json.dumps(content, indent=2, ensure_ascii=False) if isinstance(content, (dict, list)) else str(content)


# OpenAI Chat Completions (and Ollama /api/chat, which is its sibling) --------------------------------------


def _openai_chat(body: dict) -> list[Message]:
    out: list[Message] = []
    for m in lst(body.get("messages")):
        m = d(m)
        role, label = _role(m.get("role"))
        parts: list[Part] = []
        for key in ("reasoning_content", "reasoning", "thinking"):  # DeepSeek, OpenRouter, Ollama
            if isinstance(m.get(key), str) and m[key]:
                parts.append(Part("thinking", m[key]))
        content = m.get("content")
        if role == "tool":
            parts.append(Part("tool_result", _result_text(content), s(m.get("name")) or s(m.get("tool_name")),
                              s(m.get("tool_call_id"))))
        elif isinstance(content, list):
            parts.extend(_content_part(p) for p in content)
        else:
            parts.extend(_text_parts(content))
        if isinstance(m.get("refusal"), str) and m["refusal"]:
            parts.append(Part("refusal", m["refusal"]))
        for image in lst(m.get("images")):  # Ollama: base64 strings
            parts.append(_media("image", data=image))
        for tc in lst(m.get("tool_calls")):
            tc = d(tc)
            fn = d(tc.get("function"))
            parts.append(Part("tool_call", _args_text(fn.get("arguments")), s(fn.get("name")) or s(tc.get("type")),
                              s(tc.get("id"))))
        fc = d(m.get("function_call"))  # the legacy single call
        if fc:
            parts.append(Part("tool_call", _args_text(fc.get("arguments")), s(fc.get("name"))))
        out.append(Message(role, parts, label))
    return out


def _content_part(part: object) -> Part:
    """One part of a content list (Chat Completions, Responses)."""
    if isinstance(part, str):
        return Part("text", part)
    p = d(part)
    t = s(p.get("type"))
    if t in ("text", "input_text", "output_text", "summary_text", "reasoning_text") or (
            not t and isinstance(p.get("text"), str)):
        return Part("thinking" if t in ("summary_text", "reasoning_text") else "text", s(p.get("text")))
    if t == "refusal":
        return Part("refusal", s(p.get("refusal")))
    if t in ("image_url", "input_image"):
        url = p.get("image_url")
        url = s(d(url).get("url")) if isinstance(url, dict) else s(url)
        return _media("image", url=url or s(p.get("file_id")))
    if t in ("input_audio",):
        return _media("audio", s(d(p.get("input_audio")).get("format")), data=d(p.get("input_audio")).get("data"))
    if t in ("file", "input_file"):
        f = d(p.get("file")) or p
        return _media("file", name=s(f.get("filename")), url=s(f.get("file_id")) or s(f.get("file_url")),
                      data=f.get("file_data"))
    if t in ("image", "document"):
        return _anthropic_block(part)
    return _other(part)


# OpenAI Responses -----------------------------------------------------------------------------------------


_ASSISTANT_ITEMS = ("function_call", "custom_tool_call", "reasoning")


def _openai_responses(body: dict) -> list[Message]:
    out: list[Message] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        out.append(Message("system", [Part("text", instructions)]))
    elif isinstance(instructions, list):  # a reused prompt's instructions come back as input items
        out.extend(_response_items(instructions))
    inp = body.get("input")
    if isinstance(inp, str):
        out.append(Message("user", [Part("text", inp)]))
    elif isinstance(inp, list):
        out.extend(_response_items(inp))
    return out


def _response_items(items: list) -> list[Message]:
    out: list[Message] = []

    def assistant() -> Message:
        """Calls and reasoning join the assistant message before them, as the model produced them together."""
        if out and out[-1].role == "assistant" and not out[-1].label:
            return out[-1]
        out.append(Message("assistant"))
        return out[-1]

    for item in items:
        if isinstance(item, str):
            out.append(Message("user", [Part("text", item)]))
            continue
        i = d(item)
        t = s(i.get("type"))
        if "role" in i and t in ("", "message"):
            content = i.get("content")
            parts = [_content_part(p) for p in content] if isinstance(content, list) else _text_parts(content)
            msg = _message(i.get("role"), parts)
            if msg.role == "assistant" and not msg.label:
                assistant().parts.extend(parts)
            else:
                out.append(msg)
        elif t in ("function_call", "custom_tool_call"):
            args = i.get("arguments") if t == "function_call" else i.get("input")
            assistant().parts.append(Part("tool_call", _args_text(args), s(i.get("name")), s(i.get("call_id"))))
        elif t == "reasoning":
            texts = [s(d(x).get("text")) for x in lst(i.get("summary")) + lst(i.get("content"))]
            text = "\n\n".join(x for x in texts if x) or ("[encrypted reasoning]" if i.get("encrypted_content")
                                                          else "[reasoning]")
            assistant().parts.append(Part("thinking", text))
        elif t.endswith("_output"):  # function_call_output, custom_tool_call_output, computer_call_output...
            out.append(Message("tool", [Part("tool_result", _result_text(i.get("output")), "",
                                             s(i.get("call_id")))]))
        elif t.endswith("_call"):  # web_search_call, file_search_call, computer_call, mcp_call, local_shell_call
            rest = {k: v for k, v in i.items() if k not in ("type", "id", "status")}
            assistant().parts.append(Part("tool_call", compact(rest), t, s(i.get("call_id")) or s(i.get("id"))))
        elif t == "item_reference":
            out.append(Message("user", [Part("other", f"[item reference {s(i.get('id'))}]")], "reference"))
        else:
            out.append(Message("user", [_other(item)], t or NO_ROLE))
    return out


# Gemini generateContent --------------------------------------------------------------------------------------


def _gemini(body: dict) -> list[Message]:
    out: list[Message] = []
    system = body.get("systemInstruction", body.get("system_instruction"))
    if system is not None:
        parts = [_gemini_part(p) for p in lst(d(system).get("parts"))] if isinstance(system, dict) else \
            _text_parts(system)
        if parts:
            out.append(Message("system", parts))
    for c in lst(body.get("contents")):
        c = d(c)
        parts = [_gemini_part(p) for p in lst(c.get("parts"))]
        msg = _message(c.get("role"), parts)
        if parts and all(p.kind == "tool_result" for p in parts) and msg.role == "user":
            msg = Message("tool", parts, s(c.get("role")) or NO_ROLE)  # function responses ride as "user"
        out.append(msg)
    return out


def _gemini_part(part: object) -> Part:
    p = d(part)

    def get(camel: str, snake: str) -> dict:
        return d(p.get(camel, p.get(snake)))

    if isinstance(p.get("text"), str):
        return Part("thinking" if p.get("thought") is True else "text", p["text"])
    call = get("functionCall", "function_call")
    if call:
        return Part("tool_call", _args_text(call.get("args")), s(call.get("name")), s(call.get("id")))
    resp = get("functionResponse", "function_response")
    if resp:
        return Part("tool_result", _result_text(resp.get("response")), s(resp.get("name")), s(resp.get("id")))
    inline = get("inlineData", "inline_data")
    if inline:
        mime = s(inline.get("mimeType")) or s(inline.get("mime_type"))
        return _media("image" if mime.startswith("image/") else "file", mime, data=inline.get("data"))
    file = get("fileData", "file_data")
    if file:
        mime = s(file.get("mimeType")) or s(file.get("mime_type"))
        return _media("image" if mime.startswith("image/") else "file", mime,
                      s(file.get("fileUri")) or s(file.get("file_uri")))
    code = get("executableCode", "executable_code")
    if code:
        return Part("tool_call", s(code.get("code")), f"code ({s(code.get('language')) or '?'})")
    result = get("codeExecutionResult", "code_execution_result")
    if result:
        return Part("tool_result", s(result.get("output")), f"code {s(result.get('outcome'))}".strip())
    if isinstance(part, str):
        return Part("text", part)
    return _other(part)


# Ollama /api/generate -----------------------------------------------------------------------------------------


def _ollama_generate(body: dict) -> list[Message]:
    out: list[Message] = []
    if isinstance(body.get("system"), str) and body["system"]:
        out.append(Message("system", [Part("text", body["system"])]))
    parts = [Part("text", s(body.get("prompt")))]
    parts.extend(_media("image", data=image) for image in lst(body.get("images")))
    out.append(Message("user", parts))
    return out


_READERS = {
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "ollama-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "gemini": _gemini,
    "ollama-generate": _ollama_generate,
}


# The answer ---------------------------------------------------------------------------------------------------


def _answer(r: Reassembled) -> list[Message]:
    """One assistant message per choice / candidate, its blocks in the order the model produced them."""
    choices = r.choices
    several = len(choices) > 1
    out = []
    for choice in choices:
        parts: list[Part] = []
        for b in r.blocks:
            if b.choice != choice:
                continue
            if b.kind == "tool_call" and b.tool is not None:
                kind = f"{b.tool.kind} tool " if b.tool.kind else ""
                parts.append(Part("tool_call", b.tool.arguments, kind + (b.tool.name or ""), b.tool.id))
            elif b.kind in ("thinking", "redacted_thinking"):
                parts.append(Part("thinking", "[redacted thinking]" if b.kind == "redacted_thinking" else b.text))
            elif b.kind == "refusal":
                parts.append(Part("refusal", b.text))
            elif b.kind in ("citation", "search_result"):
                parts.append(Part("other", b.text, b.kind.replace("_", " ")))
            else:
                parts.append(Part("text", b.text))
        out.append(Message("assistant", parts, response=r, choice=choice if several else None))
    return out


# Laying out -------------------------------------------------------------------------------------------------


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW_CHARS else flat[: _PREVIEW_CHARS - 1].rstrip() + "…"


def _json_lines(text: str) -> list[str]:
    """Tool arguments pretty-printed when they are JSON, else as sent."""
    t = text.strip()
    if t[:1] in ("{", "["):
        try:
            return split_lines(json.dumps(json_load.loads(t), indent=2, ensure_ascii=False))
        except (ValueError, TypeError, RecursionError):
            pass
    return split_lines(text) or ["(no arguments)"]


def _part_lines(p: Part, names: dict[str, str]) -> list[str]:
    if p.kind == "text":
        return split_lines(p.text) or ["(empty text)"]
    if p.kind == "thinking":
        return ["· thinking", *(f"  {ln}" for ln in split_lines(p.text) or ["(empty)"])]
    if p.kind == "refusal":
        return ["· refusal", *split_lines(p.text)]
    if p.kind == "tool_call":
        ident = f"  [{p.call_id}]" if p.call_id else ""
        return [f"→ tool call {p.name or '(unnamed)'}{ident}", *(f"  {ln}" for ln in _json_lines(p.text))]
    if p.kind == "tool_result":
        name = p.name or names.get(p.call_id, "")
        what = " ".join(x for x in (name, f"[{p.call_id}]" if p.call_id else "") if x)
        head = f"← tool result{' ' + what if what else ''}{' (error)' if p.error else ''}"
        return [head, *(f"  {ln}" for ln in split_lines(p.text) or ["(empty)"])]
    if p.kind == "media":
        return [p.text]
    label = f"[{p.name}] " if p.name else ""
    return [f"{label}{ln}" for ln in split_lines(p.text)] or [label.strip() or "(empty part)"]


def _heading(m: Message, index: int) -> str:
    word = m.role if not m.label else f"{m.role} ({m.label})"
    if m.response is not None:
        word += " · response" + (f" (choice {m.choice})" if m.choice is not None else "")
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
    sides = [side for side, has in (("request", conv.has_request), ("response", conv.has_response)) if has]
    meta = [f"{what} {' + '.join(sides)}" if conv.dialect != "error" else "error response"]
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
        if r is not None:
            lines.append(reassembled_meta(r))
            usage = usage_line(r)
            if usage:
                lines.append(usage)
            lines.extend(f"error: {e}" for e in r.errors)
        for p in m.parts:
            lines.extend(_part_lines(p, names))
        if not m.parts and (r is None or not r.errors):
            lines.append("(no content)")
        lines.append("")
    if conv.has_request and not conv.has_response:
        head("(no response captured for this call)", "meta")
    return MessageLines(lines, heads)
