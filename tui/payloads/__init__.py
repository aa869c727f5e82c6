"""Payload decoding for every LLM provider's stream and answer: pure Python (stdlib + orjson), no Textual or Rich.

`sse` frames server-sent events; `eventstream` the binary amazon eventstream; `jsonseq` reads NDJSON and cut-off
JSON arrays; one module per dialect (`anthropic`, `openai_chat`, `openai_responses`, `gemini`, `ollama`, `cohere`,
`converse`) feeds the common `result.Builder`; `detect`
tells the dialect from the data's shapes and runs the right one; `requests` names the dialect of a request body.
`tui.payloads.decode` turns capture bytes into views with these.
"""

from tui.payloads.detect import reassemble_events, reassemble_json, reassemble_values
from tui.payloads.requests import RequestInfo, request_info
from tui.payloads.result import DIALECT_LABELS, Block, Reassembled, ToolCall
from tui.payloads.sse import SseEvent, looks_like_sse, parse_sse

__all__ = [
    "DIALECT_LABELS", "Block", "Reassembled", "RequestInfo", "SseEvent", "ToolCall", "looks_like_sse",
    "parse_sse", "reassemble_events", "reassemble_json", "reassemble_values", "request_info",
]
