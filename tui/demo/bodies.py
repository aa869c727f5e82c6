"""Realistic LLM HTTP request/response bodies, SSE streams and SDK captures.

Pure Python + orjson; every function takes a seeded ``random.Random`` so the output is deterministic.
All builders return ``bytes``.

Four wire dialects are produced:

* Anthropic Messages (``POST /v1/messages``), streamed as ``event:``/``data:`` SSE with thinking, text and
  tool_use content blocks;
* OpenAI Chat Completions (``POST /v1/chat/completions``; also used for OpenRouter and other
  OpenAI-compatible providers), streamed as ``data: {...}`` chunks ending with a usage chunk and ``[DONE]``;
* Google Gemini ``streamGenerateContent``: SSE with ``alt=sse`` (CRLF events) or one JSON array;
* Ollama ``/api/chat``: NDJSON lines ending with a ``done: true`` object.

Plus the ``sdk`` capture (the serialized SDK request/response as JSON), non-stream JSON responses, captures
without HTTP headers, and the odd binary blob.

The code lives in small modules; this one re-exports all of it (import from here):

* ``prose`` - prose text, sentences, random ids, binary blobs, ``HOSTILE_STRINGS``;
* ``llm_types`` - ``ToolCall``, ``Usage``, ``Exchange``, ``dialect_of``;
* ``framing`` - HTTP request/response framing and stream chunk splitting;
* ``conversation`` - tool definitions and the synthetic conversation history of request bodies;
* ``anthropic_bodies`` / ``openai_bodies`` / ``gemini_bodies`` / ``ollama_bodies`` - each dialect's request body,
  stream and JSON response;
* ``exchange`` - ``llm_exchange`` (one full round trip) and ``sdk_response``.
"""

from __future__ import annotations

# ruff: noqa: F401  (a facade: every import is a re-export; private ones keep working for existing importers)
from .anthropic_bodies import (
    _anthropic_req_headers,
    _ev,
    anthropic_json_response,
    anthropic_request_body,
    anthropic_sse,
)
from .conversation import _history, tool_definitions
from .exchange import _OA_FINISH, _SDK_FINISH, llm_exchange, sdk_response
from .framing import _pieces, _split_n, http_request, http_response
from .gemini_bodies import gemini_chunks, gemini_json_array, gemini_request_body, gemini_response, gemini_sse
from .llm_types import Exchange, ToolCall, Usage, dialect_of
from .ollama_bodies import ollama_chat_lines, ollama_ndjson, ollama_request_body, ollama_response
from .openai_bodies import _oa_usage, _openai_req_headers, openai_json_response, openai_request_body, openai_sse
from .prose import (
    _B36,
    _B62,
    _CORPUS_WORDS,
    _WORDS,
    HOSTILE_STRINGS,
    _corpus,
    _get_corpus,
    binary_blob,
    rand_id,
    sentence,
    text,
)

__all__ = [
    "HOSTILE_STRINGS",
    "Exchange",
    "ToolCall",
    "Usage",
    "anthropic_json_response",
    "anthropic_request_body",
    "anthropic_sse",
    "binary_blob",
    "dialect_of",
    "http_request",
    "http_response",
    "llm_exchange",
    "openai_json_response",
    "openai_request_body",
    "openai_sse",
    "rand_id",
    "sdk_response",
    "sentence",
    "text",
    "tool_definitions",
]
