"""Server-sent events for the model layer: the framing and the reassembly now live in `tui.payloads` (one module
per provider dialect); this module keeps the names the rest of the model imports.
"""

from __future__ import annotations

from tui.payloads.detect import reassemble_events
from tui.payloads.result import Reassembled, ToolCall
from tui.payloads.sse import SseEvent, looks_like_sse, parse_sse

__all__ = ["Reassembled", "SseEvent", "ToolCall", "looks_like_sse", "parse_sse", "reassemble"]


def reassemble(events: list[SseEvent]) -> Reassembled:
    """Reassemble a stream in whatever dialect its data shows (`dialect == "unknown"` when none)."""
    return reassemble_events(events)
