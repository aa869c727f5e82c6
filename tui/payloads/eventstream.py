"""The binary `application/vnd.amazon.eventstream` framing (Bedrock ConverseStream and InvokeModelWithResponseStream):
bytes in, frames (headers + payload) out, every problem said instead of raised.

A message is a 12-byte prelude (total length and headers length, big-endian uint32, then the CRC32 of those 8
bytes), the headers (a name-length byte, the name, a type byte, the value), the payload, and the CRC32 of everything
before it (smithy's amazon-eventstream spec; botocore/eventstream.py reads it the same way). Lengths come from the
data, so none is trusted: a frame that claims more bytes than remain is a cut-off stream; a prelude whose CRC
fails or whose lengths cannot be (shorter than an empty frame, headers past the frame's end, more than remains and
past the spec's 24 MiB payload / 128 KiB headers) ends the reading there, since nothing after it can be found again
with confidence. A frame whose message CRC fails is kept and flagged (the prelude vouched for its length). Linear in
the input, one CRC pass per byte.

`events` turns frames into the (event name, object) pairs the stream dialects read: `:message-type` `event` with
`:event-type` X and a JSON payload P becomes {X: P} (the shape boto3 yields, so one reader serves both); an
InvokeModelWithResponseStream `chunk` ({"bytes": base64}) becomes the model's own chunk inside; `exception` and
`error` messages become error pairs.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from dataclasses import dataclass, field

import orjson

from tui.inputs import json_load

PRELUDE = 12
MIN_FRAME = PRELUDE + 4  # an empty frame: prelude and message CRC
MAX_HEADERS = 128 * 1024
MAX_PAYLOAD = 24 * 1024 * 1024
_FIXED = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}  # header value type -> size in bytes (0, 1: booleans, no bytes)
_INT = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}


@dataclass(slots=True)
class Frame:
    offset: int
    headers: dict[str, object]
    payload: bytes
    problem: str = ""  # message CRC mismatch, unreadable headers: the frame is shown, flagged


@dataclass(slots=True)
class Frames:
    frames: list[Frame] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # what ended or spoiled the reading


def _crc(data: bytes | memoryview, start: int = 0) -> int:
    return zlib.crc32(data, start) & 0xFFFFFFFF


def prelude_ok(data: bytes, pos: int = 0) -> bool:
    """Whether a frame's prelude starts at `pos`: its CRC holds and its lengths can be (a strong signature)."""
    if len(data) - pos < PRELUDE:
        return False
    total, hlen, crc = struct.unpack_from(">III", data, pos)
    return _crc(data[pos : pos + 8]) == crc and total >= MIN_FRAME and hlen <= total - MIN_FRAME


def looks_like_eventstream(data: bytes) -> bool:
    return prelude_ok(data, 0)


def read_frames(data: bytes) -> Frames:
    out = Frames()
    view = memoryview(data)
    pos, n = 0, len(data)
    while pos < n:
        left = n - pos
        if left < PRELUDE:
            out.problems.append(f"eventstream cut off: {left} byte{'s' if left != 1 else ''} at byte {pos} "
                                "are less than a frame's prelude")
            break
        total, hlen, crc = struct.unpack_from(">III", data, pos)
        computed = _crc(view[pos : pos + 8])
        if computed != crc:
            out.problems.append(f"eventstream frame {len(out.frames) + 1} at byte {pos}: prelude CRC mismatch "
                                f"(expected 0x{crc:08x}, computed 0x{computed:08x}): the last {left:,} bytes "
                                "are not read")
            break
        bad = _absurd(total, hlen, left)
        if bad:
            out.problems.append(f"eventstream frame {len(out.frames) + 1} at byte {pos}: {bad}: the last "
                                f"{left:,} bytes are not read")
            break
        if total > left:
            out.problems.append(f"eventstream cut off: frame {len(out.frames) + 1} at byte {pos} claims "
                                f"{total:,} bytes, {left:,} remain")
            break
        out.frames.append(_frame(data, view, pos, total, hlen, crc))
        pos += total
    return out


def _absurd(total: int, hlen: int, left: int) -> str:
    """Why a prelude's lengths cannot be, or "". The spec's size limits are for services to enforce: a frame past
    them whose bytes are all there is read; one that claims more than remains is absurd, not merely cut off."""
    if total < MIN_FRAME:
        return f"total length {total} is shorter than an empty frame ({MIN_FRAME})"
    if hlen > total - MIN_FRAME:
        return f"headers length {hlen:,} runs past the frame's end (total {total:,})"
    if total > left and (hlen > MAX_HEADERS or total - hlen - MIN_FRAME > MAX_PAYLOAD):
        return f"absurd lengths (total {total:,}, headers {hlen:,}): above the format's limits"
    return ""


def _frame(data: bytes, view: memoryview, pos: int, total: int, hlen: int, prelude_crc: int) -> Frame:
    end = pos + total
    (msg_crc,) = struct.unpack_from(">I", data, end - 4)
    computed = _crc(view[pos + 8 : end - 4], prelude_crc)  # the prelude CRC seeds it: same as CRC of all bytes
    headers, problem = _headers(data, pos + PRELUDE, pos + PRELUDE + hlen)
    frame = Frame(pos, headers, bytes(view[pos + PRELUDE + hlen : end - 4]), problem)
    if computed != msg_crc:
        frame.problem = (f"message CRC mismatch (expected 0x{msg_crc:08x}, computed 0x{computed:08x})"
                         + (f"; {problem}" if problem else ""))
    return frame


def _headers(data: bytes, pos: int, end: int) -> tuple[dict[str, object], str]:
    """The headers between pos and end; a header that cannot be read ends them, said in the second value."""
    out: dict[str, object] = {}
    while pos < end:
        nlen = data[pos]
        if nlen == 0 or pos + 1 + nlen + 1 > end:
            return out, f"unreadable header at byte {pos}"
        name = data[pos + 1 : pos + 1 + nlen].decode("utf-8", "replace")
        kind = data[pos + 1 + nlen]
        pos += nlen + 2
        if kind in (0, 1):
            value: object = kind == 0
        elif kind in (6, 7):
            if pos + 2 > end or pos + 2 + int.from_bytes(data[pos : pos + 2], "big") > end:
                return out, f"header {name!r} runs past the headers' end"
            size = int.from_bytes(data[pos : pos + 2], "big")
            raw = data[pos + 2 : pos + 2 + size]
            value = raw.decode("utf-8", "replace") if kind == 7 else raw
            pos += 2 + size
        elif kind in _FIXED:
            size = _FIXED[kind]
            if pos + size > end:
                return out, f"header {name!r} runs past the headers' end"
            value = struct.unpack_from(_INT[kind], data, pos)[0] if kind in _INT else data[pos : pos + size].hex()
            pos += size
        else:
            return out, f"header {name!r} has unknown value type {kind}"
        if name in out:
            return out, f"duplicate header {name!r}"
        out[name] = value
    return out, ""


def events(frames: list[Frame]) -> list[tuple[str, object, str]]:
    """(event name, decoded object or None, payload text) per frame: see the module docstring for the shapes."""
    out: list[tuple[str, object, str]] = []
    for f in frames:
        h = f.headers
        kind = h.get(":message-type")
        text = f.payload.decode("utf-8", "replace")
        obj = _json(f.payload)
        if kind == "exception":
            name = str(h.get(":exception-type") or "exception")
            msg = obj.get("message") or obj.get("Message") if isinstance(obj, dict) else None
            out.append(("error", {"error": {"type": name, "message": msg if isinstance(msg, str) else text}}, text))
        elif kind == "error":
            out.append(("error", {"error": {"type": str(h.get(":error-code") or "error"),
                                            "message": str(h.get(":error-message") or text)}}, text))
        else:
            name = str(h.get(":event-type") or "")
            if name == "chunk" and isinstance(obj, dict) and isinstance(obj.get("bytes"), str):
                inner = _json(_b64(obj["bytes"]))
                out.append((name, inner, text))
            else:
                out.append((name, {name: obj} if name and obj is not None else obj, text))
    return out


def _json(raw: bytes) -> object:
    if raw.strip()[:1] not in (b"{", b"["):
        return None
    try:
        return json_load.loads(raw)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None


def _b64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return b""
