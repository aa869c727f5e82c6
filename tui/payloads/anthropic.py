"""Anthropic Messages: the SSE stream (`message_start` ... `message_stop`) and the non-streaming `message` object.

Content blocks are keyed by their `index`: several thinking blocks stay apart, `redacted_thinking` becomes its own
block, `tool_use` / `server_tool_use` / `mcp_tool_use` collect `input_json_delta` parts, `citations_delta` and
`web_search_tool_result` blocks become citation / search-result lines. A refusal ends with stop_reason `refusal`
(and, in newer API versions, `stop_details`). `ping` events carry nothing; `error` events are collected by the caller.
"""

from __future__ import annotations

from tui.payloads.result import Builder, compact, d, lst, s

STREAM_TYPES = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                          "message_delta", "message_stop"})
_TOOL_BLOCKS = {"tool_use": "", "server_tool_use": "server", "mcp_tool_use": "mcp"}
_RESULT_BLOCKS = ("web_search_tool_result", "web_fetch_tool_result", "mcp_tool_result", "code_execution_tool_result",
                  "tool_search_tool_result", "bash_code_execution_tool_result",
                  "text_editor_code_execution_tool_result")


def feed(b: Builder, obj: dict) -> None:
    t = s(obj.get("type"))
    if t == "message_start":
        msg = d(obj.get("message"))
        b.model(msg.get("model"))
        b.set_usage(msg.get("usage"))
        for i, block in enumerate(lst(msg.get("content"))):  # normally empty; a proxy may send it whole
            _block(b, ("m", i), d(block))
    elif t == "content_block_start":
        _block(b, ("a", obj.get("index")), d(obj.get("content_block")))
    elif t == "content_block_delta":
        key = ("a", obj.get("index"))
        delta = d(obj.get("delta"))
        dt = s(delta.get("type"))
        if dt == "text_delta":
            b.append("text", s(delta.get("text")), key=key)
        elif dt == "thinking_delta":
            b.append("thinking", s(delta.get("thinking")), key=key)
        elif dt == "input_json_delta":
            b.args(key, s(delta.get("partial_json")))
        elif dt == "citations_delta":
            _citation(b, d(delta.get("citation")))
    elif t == "message_delta":
        delta = d(obj.get("delta"))
        b.stop(delta.get("stop_reason"))
        _stop_details(b, delta.get("stop_details"))
        b.set_usage(obj.get("usage"))


def message(b: Builder, obj: dict) -> None:
    """A non-streaming Messages API answer: `{type: "message", content: [...], stop_reason, usage}`."""
    b.model(obj.get("model"))
    for i, block in enumerate(lst(obj.get("content"))):
        block = d(block)
        _block(b, ("m", i), block)
        for c in lst(block.get("citations")):
            _citation(b, d(c))
    b.stop(obj.get("stop_reason"))
    _stop_details(b, obj.get("stop_details"))
    b.set_usage(obj.get("usage"))


def _block(b: Builder, key: object, block: dict) -> None:
    bt = s(block.get("type"))
    if bt == "text":
        b.append("text", s(block.get("text")), key=key)
        if not s(block.get("text")):
            b.block(key, "text")
    elif bt == "thinking":
        b.block(key, "thinking").parts.append(s(block.get("thinking")))
    elif bt == "redacted_thinking":
        b.block(key, "redacted_thinking")
    elif bt in _TOOL_BLOCKS:
        tc = b.tool(key, name=s(block.get("name")), id=s(block.get("id")), kind=_TOOL_BLOCKS[bt])
        inp = block.get("input")
        if inp:  # the whole input when not streamed (non-streaming message, or a block sent complete)
            tc.arguments = compact(inp)
            b.set_args(key, tc.arguments)
    elif bt in _RESULT_BLOCKS:
        content = block.get("content")
        results = lst(content)
        if not results and isinstance(content, dict):
            results = [content]
        for r in results:
            r = d(r)
            if r.get("error_code") or str(r.get("type", "")).endswith("_error"):
                b.block(None, "search_result").parts.append(f"{bt}: error {s(r.get('error_code')) or compact(r)}")
            elif r.get("url") or r.get("title"):
                b.block(None, "search_result").parts.append(_titled(r))
            elif r:
                b.block(None, "search_result").parts.append(f"{bt}: {compact(r)[:200]}")
        if not results:
            b.block(None, "search_result").parts.append(f"{bt} (no results)")


def _citation(b: Builder, c: dict) -> None:
    if not c:
        return
    cited = s(c.get("cited_text")).strip().replace("\n", " ")
    where = _titled(c) if (c.get("url") or c.get("title")) else s(c.get("document_title")) or s(c.get("type"))
    text = f"{where}: “{cited[:200]}”" if cited else where
    b.block(None, "citation").parts.append(text)


def _titled(r: dict) -> str:
    title, url = s(r.get("title")), s(r.get("url"))
    return f"{title} <{url}>" if title and url else title or url


def _stop_details(b: Builder, details: object) -> None:
    if isinstance(details, dict) and details:
        parts = [f"{k} {v}" for k, v in details.items() if isinstance(v, (str, int, float)) and v != ""]
        b.r.stop_details = ", ".join(parts) or compact(details)
    elif isinstance(details, str) and details:
        b.r.stop_details = details
