"""Provider streams and answers written from the providers' API references and SDKs (tests/fixtures/streams,
README there), as an ai-agent LLM op captures them, and the four places a person reads them: the payload
screen's text view, its messages view, the `dump --payloads` line and the OTLP export's output messages."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from helpers.payloadfixtures import b64, llm_op, tree
from tui.formats.aiagent.snapshot import build_session
from tui.payloads.check import payload_problems
from tui.payloads.messages import conversation_lines, conversation_of
from tui.payloads.op_captures import decode_with_notes, op_captures, payload_views
from tui.text.otlp.messages import op_messages

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"


def fixture(name: str) -> bytes:
    return (STREAMS / name).read_bytes()


def capture_op(name: str, op_id: str = "op-7", request: dict | None = None) -> dict:
    """An LLM op whose raw response capture is the fixture (format `sse` or `json`, as ai-agent stores them)."""
    fmt = "sse" if name.endswith(".sse") else "json"
    req = None
    if request is not None:
        req = {"messages": 1, "raw": {"format": "json", "encoding": "base64", "value": b64(json.dumps(request))}}
    op = llm_op(req, {"raw": {"format": fmt, "encoding": "base64", "value": b64(fixture(name))}})
    op["opId"] = op_id
    return op


@dataclass
class Seen:
    text: list[str]  # the payload screen's text view of the response
    messages: list[str]  # its messages view
    dump: str  # the `dump --payloads` line of the response capture
    output: list[dict]  # the OTLP export's gen_ai.output.messages
    inputs: list[dict]  # ... and gen_ai.input.messages

    @property
    def parts(self) -> list[dict]:
        return [p for m in self.output for p in m["parts"]]


def seen(name: str, request: dict | None = None) -> Seen:
    op = build_session(tree(capture_op(name, request=request))).turns[1].ops[0]
    captures = op_captures(op)
    response = next(c for c in captures if c.side == "response")
    view, _notes = decode_with_notes(response, None)
    request_view = None
    if request is not None:
        request_view, _ = decode_with_notes(next(c for c in captures if c.side == "request" and c.source == "raw"),
                                            None)
    conv = conversation_of(request_view, view)
    assert conv is not None
    dump = next(line for line in payload_problems(op, None) if "response/raw" in line)
    exported = op_messages(op)
    return Seen(list(dict(payload_views(response, view))["text"]), conversation_lines(conv).lines, dump,
                json.loads(exported.output or "[]"), json.loads(exported.input or "[]"))
