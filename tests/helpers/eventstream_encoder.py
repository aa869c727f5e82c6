"""A tiny encoder of the binary `application/vnd.amazon.eventstream` framing, the layout smithy's amazon-eventstream
spec describes and botocore/eventstream.py reads: a prelude (total length, headers length: big-endian uint32, then
the CRC32 of those 8 bytes), string headers (name length byte, name, type 7, uint16 length, value), the payload, and
the CRC32 of everything before it. Real CRCs, so a decoder that checks them is really tested; `frame(..., crc=...)`
and byte surgery on the result make the broken variants.

`converse_stream()` is the Bedrock ConverseStream answer the fixture tests/fixtures/streams/
bedrock-converse-stream.eventstream holds (written by it: the tests check the file still equals it). The events and
their payloads follow the Bedrock Runtime API reference (ConverseStreamOutput: messageStart, contentBlockStart,
contentBlockDelta with text / reasoningContent / toolUse input, contentBlockStop, messageStop, metadata with usage
and metrics); each payload carries the `p` padding field the service adds.
"""

from __future__ import annotations

import json
import struct
import zlib

PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0"


def header(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return bytes([len(n)]) + n + b"\x07" + struct.pack(">H", len(v)) + v


def frame(headers: dict[str, str], payload: bytes, crc: int | None = None) -> bytes:
    """One message; `crc` replaces the computed message CRC (to break it)."""
    hbytes = b"".join(header(k, v) for k, v in headers.items())
    total = 12 + len(hbytes) + len(payload) + 4
    prelude = struct.pack(">II", total, len(hbytes))
    prelude += struct.pack(">I", zlib.crc32(prelude) & 0xFFFFFFFF)
    body = prelude + hbytes + payload
    return body + struct.pack(">I", (zlib.crc32(body) & 0xFFFFFFFF) if crc is None else crc)


def event(event_type: str, payload: dict) -> bytes:
    return frame({":event-type": event_type, ":content-type": "application/json", ":message-type": "event"},
                 json.dumps({**payload, "p": PAD[: 1 + len(event_type)]}, separators=(",", ":")).encode())


def exception(exception_type: str, message: str) -> bytes:
    return frame({":exception-type": exception_type, ":content-type": "application/json",
                  ":message-type": "exception"}, json.dumps({"message": message}).encode())


CONVERSE_EVENTS: list[tuple[str, dict]] = [
    ("messageStart", {"role": "assistant"}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "The user wants the "}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "most popular song."}}}),
    ("contentBlockDelta", {"contentBlockIndex": 0,
                           "delta": {"reasoningContent": {"signature": "ErcBCkgIAhABGAIiQMuHfb"}}}),
    ("contentBlockStop", {"contentBlockIndex": 0}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "I'll look up "}}),
    ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "the top song on WZPZ."}}),
    ("contentBlockStop", {"contentBlockIndex": 1}),
    ("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                                                                         "name": "top_song"}}}),
    ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"sign\": "}}}),
    ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "\"WZPZ\"}"}}}),
    ("contentBlockStop", {"contentBlockIndex": 2}),
    ("messageStop", {"stopReason": "tool_use"}),
    ("metadata", {"usage": {"inputTokens": 375, "outputTokens": 72, "totalTokens": 447},
                  "metrics": {"latencyMs": 1843}}),
]


def converse_stream() -> bytes:
    return b"".join(event(name, payload) for name, payload in CONVERSE_EVENTS)
