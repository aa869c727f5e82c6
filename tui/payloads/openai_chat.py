"""OpenAI Chat Completions and every server that speaks it (OpenRouter, DeepSeek, vLLM, llama.cpp, Ollama /v1).

Stream: `data: {chat.completion.chunk}` lines ending with `data: [DONE]`. Each choice is kept apart by its `index`
(n > 1 interleaves them); `delta.content`, `delta.refusal`, `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp) and
`delta.reasoning` (OpenRouter, vLLM) accumulate per choice; tool-call deltas are keyed by (choice, tool index) and
their `function.arguments` pieces concatenated. The usage chunk has `choices: []`. OpenRouter adds `provider` (the
provider it routed to) and `usage.cost`; an error mid-stream is a chunk with an `error` object. Non-streaming: a
`chat.completion` object whose choices carry `message` instead of `delta`.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, idx, lst, s


def feed(b: Builder, obj: dict) -> None:
    b.model(obj.get("model"))
    if isinstance(obj.get("provider"), str) and obj["provider"]:
        b.r.provider = obj["provider"]
    b.set_usage(obj.get("usage"))
    if obj.get("error") is not None:
        b.error(obj)
    for pos, ch in enumerate(lst(obj.get("choices"))):
        ch = d(ch)
        choice = idx(ch.get("index"), pos)
        delta = ch.get("delta")
        _choice(b, choice, d(delta) if delta is not None else d(ch.get("message")))
        b.append("text", s(ch.get("text")), choice, key=("text", choice))  # legacy /v1/completions
        b.stop(ch.get("finish_reason"), choice)
        if ch.get("error") is not None:  # OpenRouter: finish_reason "error" with the error on the choice
            b.error(ch)


def message(b: Builder, obj: dict) -> None:
    """A non-streaming `chat.completion`: the same choices with whole messages."""
    b.r.streamed = False
    feed(b, obj)


def _choice(b: Builder, choice: int, m: dict) -> None:
    for field, kind in (("reasoning_content", "thinking"), ("reasoning", "thinking"), ("content", "text"),
                        ("refusal", "refusal")):
        value = m.get(field)
        if isinstance(value, list):  # content parts (some servers): [{type: "text", text}]
            value = "".join(s(d(p).get("text")) for p in value)
        b.append(kind, s(value), choice, key=(kind, choice))
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
