"""Google Gemini `generateContent` / `streamGenerateContent` (GenerateContentResponse chunks).

A stream arrives either as SSE (`alt=sse`: `data: {candidates...}` lines, no event names) or as one JSON array of
chunks (the default, often pretty-printed); a non-streaming answer is one object. Each candidate is kept apart by its
`index`; `parts[]` hold `text` (thinking when `thought: true`), `functionCall {name, args, id?}`,
`executableCode` / `codeExecutionResult`. `finishReason`, `usageMetadata` (promptTokenCount,
candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount, totalTokenCount) and `modelVersion` complete
the picture; an error is `{"error": {code, message, status}}`. A prompt the provider refused has no candidates but
`promptFeedback {blockReason, blockReasonMessage, safetyRatings}`; a candidate cut short says why in
`finishMessage` (and its blocked safety ratings): both become the stop's details and `blocked`. Code execution
results and grounding sources are results of tools the provider ran (the call they answer rides on the block), not
text the model wrote.
"""

from __future__ import annotations

from tui.payloads.result import Builder, ToolCall, compact, d, idx, lst, s, titled


def feed(b: Builder, obj: dict) -> None:
    if obj.get("error") is not None:
        b.error(obj)
    b.model(obj.get("modelVersion"))
    b.set_usage(obj.get("usageMetadata"), merge=False)  # each chunk carries the running totals
    _prompt_feedback(b, d(obj.get("promptFeedback")))
    for pos, cand in enumerate(lst(obj.get("candidates"))):
        cand = d(cand)
        choice = idx(cand.get("index"), pos)
        for part in lst(d(cand.get("content")).get("parts")):
            _part(b, choice, d(part))
        b.stop(cand.get("finishReason"), choice)
        why = s(cand.get("finishMessage")) or _blocked_ratings(cand.get("safetyRatings"))
        if why:
            b.r.stop_details = why
        for c in lst(d(cand.get("citationMetadata")).get("citationSources") or
                     d(cand.get("citationMetadata")).get("citations")):
            b.once("citation", s(d(c).get("uri")), choice)
        search = ToolCall(name="google_search", kind="server", choice=choice)
        for chunk in lst(d(cand.get("groundingMetadata")).get("groundingChunks")):
            chunk = d(chunk)
            b.once("search_result", titled(d(chunk.get("web")) or d(chunk.get("retrievedContext"))
                                           or d(chunk.get("maps"))), choice, search)


def _prompt_feedback(b: Builder, feedback: dict) -> None:
    """A refused prompt: `prompt blocked: SAFETY` as the stop, the message (or the blocking ratings) as details."""
    reason = s(feedback.get("blockReason"))
    if not reason:
        return
    b.stop(f"prompt blocked: {reason}")
    why = s(feedback.get("blockReasonMessage")) or _blocked_ratings(feedback.get("safetyRatings"))
    if why:
        b.r.stop_details = why
    b.r.blocked = f"prompt blocked: {reason}" + (f" ({why})" if why else "")


def _blocked_ratings(ratings: object) -> str:
    """The safety categories that blocked (`HARM_CATEGORY_HARASSMENT HIGH`), when a rating says `blocked`."""
    out = [f"{s(d(r).get('category'))} {s(d(r).get('probability'))}".strip() for r in lst(ratings)
           if d(r).get("blocked") is True]
    return ", ".join(x for x in out if x)


def message(b: Builder, obj: dict) -> None:
    b.r.streamed = False
    feed(b, obj)


def _part(b: Builder, choice: int, part: dict) -> None:
    """One part; text and thoughts continue across chunks until a call or a code result comes between them."""
    segment = b.by_key.get(("segment", choice)) or 0
    if isinstance(part.get("text"), str):
        kind = "thinking" if part.get("thought") is True else "text"
        b.append(kind, part["text"], choice, key=(kind, choice, segment))
    if any(isinstance(part.get(k), dict) for k in ("functionCall", "executableCode", "codeExecutionResult")):
        b.by_key.set_plain(("segment", choice), segment + 1)
    fc = part.get("functionCall")
    if isinstance(fc, dict):
        tc = b.tool(None, choice, name=s(fc.get("name")), id=s(fc.get("id")))
        args = fc.get("args")
        tc.arguments = compact(args) if args is not None else ""
        b.r.blocks[-1].parts[:] = [tc.arguments] if tc.arguments else []
    code = part.get("executableCode")
    if isinstance(code, dict):
        b.tool(None, choice, name="code_execution", id=s(code.get("id")), kind="code")
        b.r.blocks[-1].parts[:] = [s(code.get("code"))]
    result = part.get("codeExecutionResult")
    if isinstance(result, dict):
        call = ToolCall(name="code_execution", id=s(result.get("id")), kind="code", choice=choice,
                        error=s(result.get("outcome")) not in ("", "OUTCOME_OK"))
        b.block(None, "tool_result", choice).parts.append(
            f"code execution {s(result.get('outcome'))}: {s(result.get('output'))}".rstrip(": "))
        b.r.blocks[-1].tool = call
