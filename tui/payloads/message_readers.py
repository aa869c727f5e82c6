"""Reading the messages of an LLM request body, dialect by dialect, into `Message`s of `Part`s (pure: no Textual);
`answer_parts` reads a reassembled answer into the same. `tui.payloads.messages` puts them together and lays them
out.

Written from the providers' documented request shapes: Anthropic Messages (`system` as a string or text blocks,
content blocks text / image / document / tool_use / tool_result / thinking), OpenAI Chat Completions (roles system,
developer, user, assistant, tool, function; content as a string, null or a list of parts; `tool_calls` with JSON
text arguments), OpenAI Responses (`instructions`, `input` as a string or items: messages, function_call,
function_call_output, reasoning, custom tool calls, item references), Gemini (`systemInstruction`, `contents` of
parts: text, thought, inlineData, fileData, functionCall, functionResponse, executable code; camelCase or
snake_case), Ollama /api/chat (`images`, `thinking`, `tool_calls` with object arguments, `tool_name`) and
/api/generate (`system`, `prompt`). Anything else is kept as compact JSON, cut: every shape is read, none raises.
Reasoning is read wherever a request sends it back: strings, OpenRouter's `reasoning_details[]`, Mistral's typed
`thinking` chunks; Anthropic's `compaction` block is a compaction summary.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tui.payloads import genai
from tui.payloads.openai_chat import detail_text, thinking_text
from tui.payloads.result import Reassembled, ToolCall, compact, d, lst, s

__all__ = ["NO_ROLE", "READERS", "ROLES", "Message", "Part", "tool_names"]

ROLES = ("system", "user", "assistant", "tool")
_ROLE_OF = {"developer": "system", "model": "assistant", "function": "tool", "ipython": "tool"}
_UNKNOWN_PART_CHARS = 2000
NO_ROLE = "no role"


@dataclass(slots=True)
class Part:
    kind: str  # "text" | "thinking" | "tool_call" | "tool_result" | "media" | "refusal" | "compaction" | "other"
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


def tool_names(body: dict) -> list[str]:
    names: list[str] = []
    for tool in lst(body.get("tools")) + lst(d(body.get("toolConfig")).get("tools")):  # Bedrock: toolConfig
        t = d(tool)
        decls = lst(t.get("functionDeclarations")) or lst(t.get("function_declarations"))
        if decls:
            names.extend(s(d(f).get("name")) or "?" for f in decls)
            continue
        name = s(t.get("name")) or s(d(t.get("function")).get("name")) or s(d(t.get("toolSpec")).get("name"))
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
    if t == "compaction":  # the summary a compaction wrote, sent back as context
        return Part("compaction", s(b.get("content")) or "[no summary: the compaction failed]")
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
        if not parts:  # OpenRouter / Snowflake: the reasoning sent back only as reasoning_details
            parts.extend(_reasoning_detail(x) for x in lst(m.get("reasoning_details")) if d(x))
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
    if t == "thinking":  # Mistral: {type: "thinking", thinking: [{type: "text", text}]}
        return Part("thinking", thinking_text(p.get("thinking")))
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
    if t in ("image", "document", "compaction"):  # Anthropic blocks, whichever reader met them
        return _anthropic_block(part)
    return _other(part)


def _reasoning_detail(item: object) -> Part:
    return Part("thinking", detail_text(d(item)) or "[redacted thinking]")


# OpenAI Responses -----------------------------------------------------------------------------------------


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


def _genai(body: dict) -> list[Message]:
    """OpenTelemetry GenAI messages (tui.payloads.genai): system instructions, then the input messages."""
    out = []
    system = genai.system_parts(body)
    if system:
        out.append(Message("system", [Part(k, text, name, call_id) for k, text, name, call_id in system]))
    for m in lst(body.get(genai.INPUT_KEY)):
        out.append(_message(d(m).get("role"), [Part(k, text, name, call_id) for k, text, name, call_id
                                                in genai.parts(m)]))
    return out


READERS = {
    "genai": _genai,
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "ollama-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "gemini": _gemini,
    "ollama-generate": _ollama_generate,
}
