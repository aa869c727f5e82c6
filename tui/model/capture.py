"""One captured payload of an operation (a request or a response body), as every producer's reader describes it.

The record lives here, below both the format readers (Jules and Genkit trees attach captures to their ops) and the
payload decoders (`tui.payloads.captures` finds them in ai-agent ops; `tui.payloads.decode` reads them), so that
neither of those two sibling packages has to import the other.
"""

from __future__ import annotations

from dataclasses import dataclass


EXCHANGE_TEXT_CHARS = 200_000  # a text of an exchange rebuilt from an agent's session file, kept up to this


def cut_exchange_text(text: str) -> str:
    """A tool result or message text of a rebuilt exchange (tui.payloads.agent_exchange, Claude Code's
    tui.formats.claude_code.exchange): a huge one is cut, and says where and of how much."""
    if len(text) <= EXCHANGE_TEXT_CHARS:
        return text
    return text[:EXCHANGE_TEXT_CHARS] + f"\n… (cut at {EXCHANGE_TEXT_CHARS:,} of {len(text):,} characters)"


@dataclass(slots=True)
class Capture:
    side: str  # "request" | "response"
    source: str  # "raw" | "sdk" | "payload" | "reasoning"
    format: str  # "http" | "sse" | "json" | "jsonrpc" | "text" | "" (unknown)
    state: str  # "inline" | "ref" | "unavailable" | "not_captured" | "invalid" | "plain"
    value: str | None = None
    ref: dict | None = None
    plain: object = None
    note: str = ""
    truncated: bool = False
    size: int | None = None
    encoding: str = "base64"  # "base64" | "text": how `value` becomes bytes (state "inline" only)
    # a request body rebuilt from an agent's own session file (state "plain"): the dialect it is written in, said
    # rather than guessed from a shape that can be too thin to tell (a first call holds one user text)
    dialect: str = ""
