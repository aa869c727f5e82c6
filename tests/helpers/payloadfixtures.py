"""Hand-written LLM ops with captured payloads (an HTTP request, an SSE response), shared by the payload tests."""

from __future__ import annotations

import base64
import json


def b64(s: str | bytes) -> str:
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


SSE = "".join(
    f"event: {name}\ndata: {json.dumps(data)}\n\n"
    for name, data in [
        ("message_start", {"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 5}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "thinking", "thinking": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "thinking_delta", "thinking": "pondering"}}),
        ("content_block_start", {"type": "content_block_start", "index": 1,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1,
                                 "delta": {"type": "text_delta", "text": "Hello "}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1,
                                 "delta": {"type": "text_delta", "text": "world\nline two"}}),
        ("content_block_start", {"type": "content_block_start", "index": 2,
                                 "content_block": {"type": "tool_use", "name": "search", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 2,
                                 "delta": {"type": "input_json_delta", "partial_json": "{\"q\": "}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 2,
                                 "delta": {"type": "input_json_delta", "partial_json": "\"cats\"}"}}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        ("message_stop", {"type": "message_stop"}),
    ]
)


HTTP_REQ = (
    "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nContent-Type: application/json\r\n\r\n"
    '{"model":"claude-x","messages":[{"role":"user","content":"hi"}]}'
)


def tree(*ops: dict) -> dict:
    return {"id": "s", "traceId": "t", "agentId": "agent", "turns": [
        {"id": "t0", "index": 0, "attributes": {"system": True}, "ops": []},
        {"id": "t1", "index": 1, "ops": list(ops)},
    ]}


def llm_op(req=None, resp=None) -> dict:
    op = {"opId": "op-7", "kind": "llm", "status": "ok", "attributes": {"provider": "anthropic", "model": "claude-x"}}
    if req is not None:
        op["request"] = {"kind": "llm", "payload": req, "size": 100}
    if resp is not None:
        op["response"] = {"payload": resp, "size": 200, "truncated": False}
    return op
