"""OpenAI Responses API: the typed SSE stream (`response.*` events) and the non-streaming `response` object.

Output items are keyed by `output_index` (falling back to `item_id`): message text (`response.output_text.delta`),
refusals (`response.refusal.delta`), reasoning summaries and reasoning text (thinking), function calls
(`response.function_call_arguments.delta`), custom tool calls (`response.custom_tool_call_input.delta`), and the
built-in tool items (web_search_call, file_search_call, code_interpreter_call, ...) from `response.output_item.*`.
A `.done` event or the final `output_item.done` fills in what deltas did not carry. Annotations (`url_citation`
{url, title}, `file_citation` {filename}) arrive in `output_text.annotation.added` and again in `content_part.done`,
`output_item.done` and the final response: each source is listed once. `response.completed`,
`response.incomplete` and `response.failed` carry usage, the incomplete reason and the error; an `error` event is
collected by the caller.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, lst, s, titled

_TOOL_ITEMS = {"function_call": "", "custom_tool_call": "custom", "web_search_call": "web_search",
               "file_search_call": "file_search", "code_interpreter_call": "code_interpreter",
               "image_generation_call": "image_generation", "mcp_call": "mcp", "computer_call": "computer",
               "local_shell_call": "local_shell", "shell_call": "shell", "apply_patch_call": "apply_patch",
               "tool_search_call": "tool_search"}


def _key(b: Builder, obj: dict, kind: str) -> object:
    oi = obj.get("output_index")
    item = s(obj.get("item_id"))
    key = (kind, oi if oi is not None else item)
    if key not in b.by_key and item and (kind, item) in b.by_key:
        key = (kind, item)
    return key


def feed(b: Builder, obj: dict) -> None:
    t = s(obj.get("type"))
    if t in ("response.output_text.delta", "response.refusal.delta"):
        kind = "text" if t == "response.output_text.delta" else "refusal"
        b.append(kind, s(obj.get("delta")), key=_key(b, obj, kind))
    elif t in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        sub = "summary" if "summary" in t else "text"
        key: object = ("thinking", obj.get("output_index"), sub, obj.get("summary_index", obj.get("content_index")))
        b.append("thinking", s(obj.get("delta")), key=key)
    elif t in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta",
               "response.mcp_call_arguments.delta", "response.code_interpreter_call_code.delta"):
        b.args(_key(b, obj, "tool"), s(obj.get("delta")))
    elif t == "response.function_call_arguments.done":
        b.set_args(_key(b, obj, "tool"), s(obj.get("arguments")))
    elif t == "response.custom_tool_call_input.done":
        b.set_args(_key(b, obj, "tool"), s(obj.get("input")))
    elif t in ("response.output_text.done", "response.refusal.done"):
        kind = "text" if t == "response.output_text.done" else "refusal"
        key = _key(b, obj, kind)
        full = s(obj.get("text")) or s(obj.get("refusal"))
        if full and key not in b.by_key:
            b.append(kind, full, key=key)
    elif t == "response.output_text.annotation.added":
        _annotation(b, d(obj.get("annotation")))
    elif t == "response.content_part.done":  # the finished part carries its annotations too
        for ann in lst(d(obj.get("part")).get("annotations")):
            _annotation(b, d(ann))
    elif t in ("response.output_item.added", "response.output_item.done"):
        _item(b, obj.get("output_index"), d(obj.get("item")), done=t.endswith(".done"))
    elif t in ("response.created", "response.in_progress", "response.completed", "response.incomplete",
               "response.failed", "response.queued"):
        _response_state(b, d(obj.get("response")), final=t not in ("response.created", "response.in_progress",
                                                                     "response.queued"))


def message(b: Builder, obj: dict) -> None:
    """A non-streaming `response` object: its `output[]` items, usage, status and error."""
    b.r.streamed = False
    for i, item in enumerate(lst(obj.get("output"))):
        _item(b, i, d(item), done=True)
    _response_state(b, obj, final=True)


def _response_state(b: Builder, r: dict, final: bool) -> None:
    if not r:
        return
    b.model(r.get("model"))
    b.set_usage(r.get("usage"), merge=False)
    if final:
        inc = d(r.get("incomplete_details"))
        b.stop(s(inc.get("reason")) or s(r.get("status")))
        if not b.r.blocks:  # a stream that carried no deltas: take the final output
            for i, item in enumerate(lst(r.get("output"))):
                _item(b, i, d(item), done=True)
    if r.get("error"):
        b.error(r)


def _item(b: Builder, oi: object, item: dict, done: bool) -> None:
    it = s(item.get("type"))
    item_id = s(item.get("id"))
    if it in _TOOL_ITEMS:
        key: tuple = ("tool", oi if oi is not None else item_id)
        b.tool(key, name=s(item.get("name")) or it, id=s(item.get("call_id")) or item_id, kind=_TOOL_ITEMS[it])
        if item_id:
            b.by_key.setdefault(("tool", item_id), b.by_key[key])
        full = _tool_input(it, item)
        block = b.by_key[key]
        if full and (done or not block.parts):
            block.parts[:] = [full]
    elif it == "message":
        for part in lst(item.get("content")):
            part = d(part)
            kind = "refusal" if part.get("type") == "refusal" else "text"
            key = (kind, oi if oi is not None else item_id)
            if key not in b.by_key and item_id and (kind, item_id) in b.by_key:
                key = (kind, item_id)
            if done and key not in b.by_key:  # deltas never came: the item carries the whole text
                b.append(kind, s(part.get("text")) or s(part.get("refusal")), key=key)
            for ann in lst(part.get("annotations")) if done else []:
                _annotation(b, d(ann))
        if item_id and oi is not None:
            for kind in ("text", "refusal"):
                if (kind, oi) in b.by_key:
                    b.by_key.setdefault((kind, item_id), b.by_key[(kind, oi)])
    elif it == "reasoning" and done:
        for sub, field in (("summary", "summary"), ("text", "content")):
            for i, part in enumerate(lst(item.get(field))):
                key = ("thinking", oi, sub, i)
                if key not in b.by_key:
                    b.append("thinking", s(d(part).get("text")), key=key)
        if item.get("encrypted_content") and not any(k[0] == "thinking" and k[1] == oi for k in b.by_key
                                                     if isinstance(k, tuple) and len(k) > 1):
            b.block(("thinking", oi, "redacted", 0), "redacted_thinking")


def _annotation(b: Builder, ann: dict) -> None:
    """A source of the text: `url_citation` {url, title}, `file_citation` / `container_file_citation` {filename,
    file_id}; listed once (the stream's `annotation.added`, the part's and the item's copies are the same)."""
    where = titled(ann) or s(ann.get("filename")) or s(ann.get("file_id"))
    b.once("citation", where)


def _tool_input(it: str, item: dict) -> str:
    if it == "function_call":
        return s(item.get("arguments"))
    if it == "custom_tool_call":
        return s(item.get("input"))
    if it == "web_search_call":
        action = d(item.get("action"))
        return compact(action) if action else ""
    if it == "file_search_call":
        q = item.get("queries")
        return compact({"queries": q}) if q else ""
    for field in ("arguments", "input", "code", "action"):
        v = item.get(field)
        if isinstance(v, str) and v:
            return v
        if isinstance(v, dict) and v:
            return compact(v)
    return ""
