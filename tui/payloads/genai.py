"""The OpenTelemetry GenAI semantic conventions' message shape, as an LLM call's request and answer (pure).

An instrumented framework sends a call's messages as span attributes: `gen_ai.system_instructions` (a list of
parts, or a string), `gen_ai.input.messages` and `gen_ai.output.messages`, each message `{role, parts: [...],
name?, finish_reason?}` with parts `{type: "text", content}`, `{type: "reasoning", content}`,
`{type: "tool_call", id, name, arguments}`, `{type: "tool_call_response", id, response}`, `{type: "blob" |
"file" | "uri", mime_type, modality, ...}` or anything else (kept as compact JSON). tui.formats.otlp.ops stores
them as an op's captures: the request body `{"gen_ai.request.model", "gen_ai.system_instructions",
"gen_ai.input.messages"}` and the answer `{"gen_ai.response.model", "gen_ai.output.messages",
"gen_ai.response.finish_reasons"}` (the attributes' own names, so no provider's body is mistaken for one). The
request is read by tui.payloads.message_readers ("genai"), the answer reassembled here.
"""

from __future__ import annotations

from tui.payloads.result import Builder, Reassembled, compact, d, lst, s

INPUT_KEY, OUTPUT_KEY, SYSTEM_KEY = "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"
DIALECT = "genai"
_OTHER_CHARS = 2000


def is_request(body: object) -> bool:
    return isinstance(body, dict) and (INPUT_KEY in body or SYSTEM_KEY in body) and OUTPUT_KEY not in body


def is_answer(body: object) -> bool:
    return isinstance(body, dict) and OUTPUT_KEY in body


def text_of(value: object) -> str:
    """A part's content (or a tool's arguments / response): a string as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else compact(value)


def parts(message: object) -> list[tuple[str, str, str, str]]:
    """(kind, text, name, call id) for each part of a message; kinds as message_readers.Part names them."""
    if isinstance(message, str):
        return [("text", message, "", "")]
    m = d(message)
    raw = m.get("parts")
    if raw is None and "content" in m:  # an older shape: {role, content}
        raw = [{"type": "text", "content": m.get("content")}] if isinstance(m.get("content"), str) else m["content"]
    out = []
    for part in lst(raw) if not isinstance(raw, str) else [raw]:
        if isinstance(part, str):
            out.append(("text", part, "", ""))
            continue
        p = d(part)
        kind = s(p.get("type"))
        if kind == "text":
            out.append(("text", text_of(p.get("content", p.get("text"))), "", ""))
        elif kind in ("reasoning", "thinking"):
            out.append(("thinking", text_of(p.get("content", p.get("text"))), "", ""))
        elif kind == "tool_call":
            out.append(("tool_call", text_of(p.get("arguments")), s(p.get("name")), s(p.get("id"))))
        elif kind == "tool_call_response":
            out.append(("tool_result", text_of(p.get("response", p.get("result"))), "", s(p.get("id"))))
        elif kind in ("blob", "file", "uri", "image", "audio", "video"):
            what = s(p.get("modality")) or kind
            bits = [b for b in (s(p.get("mime_type")), s(p.get("uri")), s(p.get("file_id"))) if b]
            out.append(("media", f"[{what}{' ' if bits else ''}{', '.join(bits)[:300]}]", "", ""))
        else:
            text = compact(part)
            cut = text if len(text) <= _OTHER_CHARS else text[:_OTHER_CHARS] + f"… ({len(text):,} chars)"
            out.append(("other", cut, kind, ""))
    return out


def system_parts(body: dict) -> list[tuple[str, str, str, str]]:
    value = body.get(SYSTEM_KEY)
    if value is None:
        return []
    if isinstance(value, str):
        return [("text", value, "", "")]
    return parts({"parts": value if isinstance(value, list) else [value]})


def answer(body: dict) -> Reassembled:
    """The output messages as a reassembled answer: one choice per assistant message."""
    b = Builder(DIALECT, streamed=False)
    b.model(body.get("gen_ai.response.model"))
    reasons = [s(r) for r in lst(body.get("gen_ai.response.finish_reasons")) if s(r)]
    for choice, message in enumerate(lst(body.get(OUTPUT_KEY))):
        for kind, text, name, call_id in parts(message):
            if kind == "tool_call":
                b.tool(None, choice, name=name, id=call_id)
                b.r.blocks[-1].parts.append(text)  # (the call's block: its arguments, as the other dialects)
            else:
                b.block(None, "thinking" if kind == "thinking" else "text", choice).parts.append(text)
        reason = s(d(message).get("finish_reason")) or (reasons[choice] if choice < len(reasons) else "")
        b.stop(reason, choice)
    return b.result()
