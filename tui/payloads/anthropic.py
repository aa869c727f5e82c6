"""Anthropic Messages: the SSE stream (`message_start` ... `message_stop`) and the non-streaming `message` object.

Content blocks are keyed by their `index`: several thinking blocks stay apart, `redacted_thinking` becomes its own
block, `tool_use` / `server_tool_use` / `mcp_tool_use` collect `input_json_delta` parts, `citations_delta` and
`web_search_tool_result` blocks become citation / search-result lines. The results of the tools the provider runs
(web search and fetch, code execution, MCP) keep the id of the call they answer, so the messages view and the OTLP
export show them as that call's result, not as text the model wrote. A `compaction` block (streamed as
`compaction_delta`s) holds the summary of the context the server compacted; `usage.iterations` then lists each
sampling and compaction iteration's tokens (the top-level usage counts the last one only). A refusal ends with
stop_reason `refusal` (and, in newer API versions, `stop_details`). `ping` events carry nothing; `error` events are
collected by the caller.
"""

from __future__ import annotations

from tui.payloads.result import Builder, ToolCall, compact, d, lst, s, titled

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
        elif dt == "compaction_delta":
            b.append("compaction", s(delta.get("content")), key=key)
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
    elif bt == "compaction":  # content null: the compaction failed (the server treats the block as a no-op)
        b.block(key, "compaction").parts.append(s(block.get("content")))
    elif bt in _TOOL_BLOCKS:
        tc = b.tool(key, name=s(block.get("name")), id=s(block.get("id")), kind=_TOOL_BLOCKS[bt])
        inp = block.get("input")
        if inp:  # the whole input when not streamed (non-streaming message, or a block sent complete)
            tc.arguments = compact(inp)
            b.set_args(key, tc.arguments)
    elif bt in _RESULT_BLOCKS:
        _result(b, bt, block)


def _result(b: Builder, bt: str, block: dict) -> None:
    """A provider-run tool's result: one line per search result, else the result's text, tied to its call."""
    call = ToolCall(name=bt, id=s(block.get("tool_use_id")), kind="mcp" if bt.startswith("mcp") else "server",
                    error=block.get("is_error") is True)
    content = block.get("content")
    results = [content] if isinstance(content, (dict, str)) else lst(content)
    lines = [_result_line(bt, r) for r in results]
    kind = "search_result" if any(d(r).get("url") for r in results) or "search" in bt or "fetch" in bt \
        else "tool_result"
    for line in [ln for ln in lines if ln] or [f"{bt} (no results)"]:
        b.block(None, kind).parts.append(line)
        b.r.blocks[-1].tool = call


def _result_line(bt: str, r: object) -> str:
    if isinstance(r, str):
        return f"{bt}: {r}" if r else ""
    r = d(r)
    if r.get("error_code") or str(r.get("type", "")).endswith("_error"):
        call_error = s(r.get("error_code")) or compact(r)
        return f"{bt}: error {call_error}"
    if r.get("url") or r.get("title"):
        return titled(r)
    if isinstance(r.get("text"), str):  # MCP results: content blocks
        return f"{bt}: {r['text']}"
    outputs = [f"{name}:\n{r[name]}" for name in ("stdout", "stderr") if s(r.get(name))]
    if "return_code" in r or outputs:  # code execution (python, bash)
        return f"{bt}: return code {r.get('return_code')}" + "".join(f"\n{o}" for o in outputs)
    text = compact(r) if r else ""
    return f"{bt}: {text[:2000]}" if text else ""


def _citation(b: Builder, c: dict) -> None:
    if not c:
        return
    cited = s(c.get("cited_text")).strip().replace("\n", " ")
    where = titled(c) if (c.get("url") or c.get("title")) else s(c.get("document_title")) or s(c.get("type"))
    text = f"{where}: “{cited[:200]}”" if cited else where
    b.block(None, "citation").parts.append(text)


def _stop_details(b: Builder, details: object) -> None:
    if isinstance(details, dict) and details:
        parts = [f"{k} {v}" for k, v in details.items() if isinstance(v, (str, int, float)) and v != ""]
        b.r.stop_details = ", ".join(parts) or compact(details)
    elif isinstance(details, str) and details:
        b.r.stop_details = details
