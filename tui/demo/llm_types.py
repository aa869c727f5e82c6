"""Data classes shared by the LLM body builders and the tree generator: tool calls, token usage, exchanges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Exchange", "ToolCall", "Usage", "dialect_of"]


@dataclass
class ToolCall:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class Usage:
    input: int  # uncached input tokens (Anthropic semantics) / prompt tokens (OpenAI semantics)
    output: int
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass
class Exchange:
    """One captured LLM round trip."""

    request_raw: bytes
    request_format: str  # "http" (the producer's format for a request body, with or without headers)
    response_raw: bytes
    response_format: str  # "sse" (text/event-stream) | "http" (anything else: JSON, NDJSON, a JSON array)
    sdk_request: bytes
    sdk_response: bytes
    messages: int
    request_body_bytes: int
    extra: dict[str, Any] = field(default_factory=dict)


def dialect_of(provider: str) -> str:
    """The wire dialect a provider speaks: ``anthropic``, ``gemini`` (google), ``ollama`` or ``openai`` (OpenAI,
    OpenRouter and the other OpenAI-compatible servers)."""
    return {"anthropic": "anthropic", "google": "gemini", "ollama": "ollama"}.get(provider, "openai")
