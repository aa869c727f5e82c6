"""The answer of an LLM call (a reassembled response, `result.Reassembled`) as assistant `Message`s of `Part`s, the
shape `message_readers` gives a request (pure: no Textual): one message per choice / candidate, its blocks in the
order the model produced them. Adjacent text blocks are one text (Anthropic splits an answer wherever a citation
starts or ends), the citations that split them follow it; a provider-run tool's results (web search, code
execution, MCP, Gemini's grounding) are one tool result of that call, not text the model wrote.
"""

from __future__ import annotations

from tui.payloads.message_readers import Message, Part
from tui.payloads.result import Block, Reassembled, ToolCall

__all__ = ["answer_messages"]


def answer_messages(r: Reassembled) -> list[Message]:
    """One assistant message per choice / candidate, its blocks in the order the model produced them: adjacent text
    blocks as one text (the citations that split them follow it), a provider-run tool's results as one result of
    its call."""
    choices = r.choices
    several = len(choices) > 1
    out = []
    for choice in choices:
        picked = choice if several else None
        out.append(Message("assistant", _answer_parts(r, choice), response=r, choice=picked))
        if r.dialect == "aiagent":  # ai-agent's turn result holds the results of the agent's own tools: after it
            for b in r.blocks:
                if b.choice == choice and b.kind in _OWN_RESULTS:
                    tool = b.tool or ToolCall()
                    part = Part("tool_result", b.text, tool.name, tool.id, b.kind == "tool_error")
                    out.append(Message("tool", [part], response=r, choice=picked))
    return out


_OWN_RESULTS = ("tool_result", "tool_error")


def _answer_parts(r: Reassembled, choice: int) -> list[Part]:
    parts: list[Part] = []
    sources: list[Part] = []  # citations of the text being read: after it, so it stays one text
    flowing = False
    own_results = _OWN_RESULTS if r.dialect == "aiagent" else ()  # (answer_messages lists them apart)
    for b in r.blocks:
        if b.choice != choice or b.kind in own_results:
            continue
        if b.kind == "citation":
            sources.append(Part("other", b.text, "citation"))
            continue
        if b.kind == "text":
            if flowing:
                parts[-1].text += b.text
            else:
                parts.append(Part("text", b.text))
            flowing = True
            continue
        parts.extend(sources)
        sources, flowing = [], False
        part = _answer_part(b, parts[-1] if parts else None)
        if not parts or part is not parts[-1]:
            parts.append(part)
    parts.extend(sources)
    return parts


def _answer_part(b: Block, last: Part | None) -> Part:
    """The part of one non-text block; a result line of the same provider-run call as `last` joins it (returned)."""
    tool = b.tool
    if b.kind == "tool_call" and tool is not None:
        kind = f"{tool.kind} tool " if tool.kind else ""
        return Part("tool_call", tool.arguments, kind + (tool.name or ""), tool.id)
    if b.kind in ("thinking", "redacted_thinking"):
        return Part("thinking", "[redacted thinking]" if b.kind == "redacted_thinking" else b.text)
    if b.kind == "refusal":
        return Part("refusal", b.text)
    if b.kind == "compaction":
        return Part("compaction", b.text or "[no summary: the compaction failed]")
    if b.kind in ("search_result", "tool_result") and tool is not None:  # a provider-run tool's result
        name = "" if tool.id else f"{tool.kind} tool {tool.name}" if tool.kind else tool.name  # the call's, by id
        text = b.text.removeprefix(f"{tool.name}: ")  # the line says whose result it is: the part does already
        if last is not None and last.kind == "tool_result" and last.name == name and last.call_id == tool.id:
            last.text += "\n" + text
            return last
        return Part("tool_result", text, name, tool.id, tool.error)
    if b.kind in ("citation", "search_result", "tool_result"):
        return Part("other", b.text, b.kind.replace("_", " "))
    return Part("text", b.text)
