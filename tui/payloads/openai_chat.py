"""OpenAI Chat Completions and every server that speaks it (OpenRouter, DeepSeek, vLLM, llama.cpp, Ollama /v1).

Stream: `data: {chat.completion.chunk}` lines ending with `data: [DONE]`. Each choice is kept apart by its `index`
(n > 1 interleaves them); `delta.content`, `delta.refusal`, `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp) and
`delta.reasoning` (OpenRouter, vLLM) accumulate per choice; tool-call deltas are keyed by (choice, tool index) and
their `function.arguments` pieces concatenated. The usage chunk has `choices: []`. OpenRouter adds `provider` (the
provider it routed to) and `usage.cost`; Groq puts the usage in `x_groq.usage`, Moonshot on the choice; an error
mid-stream is a chunk with an `error` object. Non-streaming: a `chat.completion` object whose choices carry `message`
instead of `delta`.

Reasoning comes in any of three carriers: `reasoning_content` / `reasoning` strings, `reasoning_details[]` (OpenRouter,
Snowflake: `reasoning.text` / `reasoning.summary` items, `reasoning.encrypted` shown as redacted; read when a delta
has no reasoning string, as OpenRouter sends both with the same text), or typed content chunks (Mistral:
`content: [{type: "thinking", thinking: [{type: "text", text}]}, {type: "text", text}]`). Sources: `annotations`
(`url_citation` with `{url, title}` nested, as OpenAI sends them once at the end, or repeated by compatible servers)
and Perplexity's top-level `citations` / `search_results`, each listed once.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, idx, lst, s, titled


def feed(b: Builder, obj: dict) -> None:
    b.model(obj.get("model"))
    if isinstance(obj.get("provider"), str) and obj["provider"]:
        b.r.provider = obj["provider"]
    b.set_usage(obj.get("usage"))
    b.set_usage(d(obj.get("x_groq")).get("usage"))  # Groq: the usage of a stream rides in its last chunk's x_groq
    for url in lst(obj.get("citations")):  # Perplexity: the sources of the answer, on every chunk
        b.once("citation", s(url) or titled(d(url)))
    for result in lst(obj.get("search_results")):
        b.once("search_result", titled(d(result)))
    if obj.get("error") is not None:
        b.error(obj)
    for pos, ch in enumerate(lst(obj.get("choices"))):
        ch = d(ch)
        choice = idx(ch.get("index"), pos)
        delta = ch.get("delta")
        _choice(b, choice, d(delta) if delta is not None else d(ch.get("message")))
        b.append("text", s(ch.get("text")), choice, key=("text", choice))  # legacy /v1/completions
        b.stop(ch.get("finish_reason"), choice)
        b.set_usage(ch.get("usage"))  # Moonshot: the last chunk's usage on its choice
        if ch.get("error") is not None:  # OpenRouter: finish_reason "error" with the error on the choice
            b.error(ch)


def message(b: Builder, obj: dict) -> None:
    """A non-streaming `chat.completion`: the same choices with whole messages."""
    b.r.streamed = False
    feed(b, obj)


def _choice(b: Builder, choice: int, m: dict) -> None:
    reasoned = False
    for field in ("reasoning_content", "reasoning"):
        reasoned = reasoned or bool(s(m.get(field)))
        b.append("thinking", s(m.get(field)), choice, key=("thinking", choice))
    if not reasoned:
        _reasoning_details(b, choice, lst(m.get("reasoning_details")))
    content = m.get("content")
    if isinstance(content, list):  # typed content chunks (Mistral, some servers): text, thinking, references
        for part in content:
            part = d(part)
            if part.get("type") == "thinking":
                b.append("thinking", thinking_text(part.get("thinking")), choice, key=("thinking", choice))
            else:
                b.append("text", s(part.get("text")), choice, key=("text", choice))
    else:
        b.append("text", s(content), choice, key=("text", choice))
    b.append("refusal", s(m.get("refusal")), choice, key=("refusal", choice))
    for ann in lst(m.get("annotations")):
        ann = d(ann)
        b.once("citation", titled(d(ann.get(s(ann.get("type")))) or ann), choice)
    for pos, tc in enumerate(lst(m.get("tool_calls"))):
        tc = d(tc)
        i, tid = tc.get("index"), s(tc.get("id"))
        if isinstance(i, int) and not isinstance(i, bool):
            key: object = ("tool", choice, i)
        elif tid:
            key = ("tool-id", choice, tid)
        else:  # neither index nor id (some compatible servers): a continuation of the choice's last call
            key = b.by_key.get(("last-tool", choice)) or ("tool", choice, pos)
        fn = d(tc.get("function"))
        custom = d(tc.get("custom"))
        b.tool(key, choice, name=s(fn.get("name")) or s(custom.get("name")), id=tid,
               kind="custom" if custom else "")
        args = fn.get("arguments") if fn else custom.get("input")
        if isinstance(args, dict):  # a few servers send the object itself
            args = compact(args)
        b.args(key, args if isinstance(args, str) else "", choice)
        b.by_key.set_plain(("last-tool", choice), key)
    fc = d(m.get("function_call"))  # the pre-tools API
    if fc:
        b.tool(("fc", choice), choice, name=s(fc.get("name")))
        b.args(("fc", choice), s(fc.get("arguments")), choice)


def thinking_text(value: object) -> str:
    """The text of a typed thinking chunk: Mistral nests `[{type: "text", text}]`; a plain string also goes."""
    if isinstance(value, str):
        return value
    return "".join(s(item) or s(d(item).get("text")) for item in lst(value))


def detail_text(item: dict) -> str:
    """The text of a `reasoning_details` item: `text` (reasoning.text), `summary` (reasoning.summary), or the
    `thinking` / `content` a proxy of Anthropic-shaped reasoning uses; "" for an encrypted one."""
    return next((s(item.get(k)) for k in ("text", "summary", "thinking", "content") if s(item.get(k))), "")


def _reasoning_details(b: Builder, choice: int, details: list) -> None:
    """`reasoning_details[]`: text and summaries are thinking, an encrypted item is redacted thinking (once)."""
    for item in details:
        item = d(item)
        text = detail_text(item)
        kind = s(item.get("type"))
        if not text and ("encrypted" in kind or "redacted" in kind or item.get("data")):
            b.block(("redacted", choice, item.get("index")), "redacted_thinking", choice)
        else:
            b.append("thinking", text, choice, key=("thinking", choice))
