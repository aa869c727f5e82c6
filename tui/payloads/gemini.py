"""Google Gemini `generateContent` / `streamGenerateContent` (GenerateContentResponse chunks).

A stream arrives either as SSE (`alt=sse`: `data: {candidates...}` lines, no event names) or as one JSON array of
chunks (the default, often pretty-printed); a non-streaming answer is one object. Each candidate is kept apart by its
`index`; `parts[]` hold `text` (thinking when `thought: true`), `functionCall {name, args, id?}`,
`executableCode` / `codeExecutionResult`. `finishReason`, `usageMetadata` (promptTokenCount,
candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount, totalTokenCount), `modelVersion` and
`promptFeedback.blockReason` complete the picture; an error is `{"error": {code, message, status}}`.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, idx, lst, s


def feed(b: Builder, obj: dict) -> None:
    if obj.get("error") is not None:
        b.error(obj)
    b.model(obj.get("modelVersion"))
    b.set_usage(obj.get("usageMetadata"), merge=False)  # each chunk carries the running totals
    feedback = d(obj.get("promptFeedback"))
    if feedback.get("blockReason"):
        b.stop(f"prompt blocked: {s(feedback.get('blockReason'))}")
    for pos, cand in enumerate(lst(obj.get("candidates"))):
        cand = d(cand)
        choice = idx(cand.get("index"), pos)
        for part in lst(d(cand.get("content")).get("parts")):
            _part(b, choice, d(part))
        b.stop(cand.get("finishReason"), choice)
        if s(cand.get("finishMessage")):
            b.r.stop_details = s(cand.get("finishMessage"))
        for c in lst(d(cand.get("citationMetadata")).get("citationSources") or
                     d(cand.get("citationMetadata")).get("citations")):
            c = d(c)
            _once(b, "citation", choice, s(c.get("uri")))
        for chunk in lst(d(cand.get("groundingMetadata")).get("groundingChunks")):
            web = d(d(chunk).get("web"))
            title, uri = s(web.get("title")), s(web.get("uri"))
            _once(b, "search_result", choice, f"{title} <{uri}>" if title and uri else title or uri)


def _once(b: Builder, kind: str, choice: int, text: str) -> None:
    """Sources repeat from chunk to chunk of a stream: each is listed once."""
    key = (kind, choice, text)
    if text and key not in b.by_key:
        b.block(key, kind, choice).parts.append(text)


def message(b: Builder, obj: dict) -> None:
    b.r.streamed = False
    feed(b, obj)


def _part(b: Builder, choice: int, part: dict) -> None:
    if isinstance(part.get("text"), str):
        kind = "thinking" if part.get("thought") is True else "text"
        b.append(kind, part["text"], choice, key=(kind, choice))
    fc = part.get("functionCall")
    if isinstance(fc, dict):
        tc = b.tool(None, choice, name=s(fc.get("name")), id=s(fc.get("id")))
        args = fc.get("args")
        tc.arguments = compact(args) if args is not None else ""
        b.r.blocks[-1].parts[:] = [tc.arguments] if tc.arguments else []
    code = part.get("executableCode")
    if isinstance(code, dict):
        b.tool(None, choice, name="code_execution", kind="code")
        b.r.blocks[-1].parts[:] = [s(code.get("code"))]
    result = part.get("codeExecutionResult")
    if isinstance(result, dict):
        b.block(None, "search_result", choice).parts.append(
            f"code execution {s(result.get('outcome'))}: {s(result.get('output'))}".rstrip(": "))
