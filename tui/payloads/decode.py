"""Turn capture bytes into the best view: JSON, SSE, NDJSON (+ reassembly), HTTP (headers + decoded body), text,
binary. What an LLM body says (its dialect, the reassembled answer, a request's model and counts) comes from
`tui.payloads`, told from the body itself, never from the op's provider.

`decode_bytes` never raises and is linear in its input; unreadable parts become notes on the view.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass, field
from typing import cast

import orjson

from tui.inputs import json_load
from tui.payloads import aiagent_turn
from tui.payloads.captures import UNAVAILABLE, Capture
from tui.payloads.refs import MAX_PAYLOAD_BYTES, PayloadError, gunzip_capped, read_ref
from tui.payloads import (
    Reassembled, RequestInfo, SseEvent, looks_like_sse, parse_sse, reassemble_events, reassemble_json,
    reassemble_values, request_info,
)
from tui.payloads import eventstream
from tui.payloads.detect import reassemble_eventstream
from tui.payloads.jsonseq import json_sequence
from tui.payloads.result import compact

__all__ = [
    "DecodedView", "PayloadError", "Reassembled", "RequestInfo", "SseEvent",
    "capture_bytes", "decode_bytes", "decode_capture", "placeholder_note", "sdk_side",
]

HUGE_JSON_BYTES = 50 * 1024 * 1024
_HEADER_SCAN = 1024 * 1024
_B64_STRIP = re.compile(r"\s+")
_URLSAFE = str.maketrans("-_", "+/")
_CTRL_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_JSON_START = frozenset(b'{["-0123456789tfn')
_BIG_INT = re.compile(rb"[0-9]{19}")
_REQUEST_LINE = re.compile(r"[A-Z][A-Z-]{1,15} \S+ HTTP/\d(?:\.\d)?")
_REQUEST_LINE_NOVER = re.compile(r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (?:/|https?://)\S*")
_STATUS_LINE = re.compile(r"HTTP/\d(?:\.\d)? \d{3}(?: .*)?")
_HEADER_LINE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+:.*")
_SSE_FIELDS = frozenset({"event", "data", "id", "retry"})
_JSON_HINTS = ("json", "jsonrpc", "sdk")  # `sdk`: the serialized SDK request/response, JSON
_NO_VALUE = object()
# What the producer stores instead of a body when it had none to give (tui/payloads/captures.py, formats.md).
PLACEHOLDERS = {
    UNAVAILABLE.encode(): f"capture bug in the producer: the stored body is the placeholder {UNAVAILABLE}, "
                          "not the payload",
    b"[streaming]": "the producer stored the placeholder [streaming] instead of the stream",
}


@dataclass(slots=True)
class DecodedView:
    kind: str  # "json" | "sse" | "ndjson" | "eventstream" | "http" | "text" | "binary" | "empty"
    size: int
    start_line: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    body_kind: str = ""
    pretty: str = ""
    events: list[SseEvent] = field(default_factory=list)
    reassembled: Reassembled | None = None  # the LLM answer or stream, whatever its dialect
    request: RequestInfo | None = None  # what an LLM request body is (dialect, model, counts)
    notes: list[str] = field(default_factory=list)
    data: bytes = field(default=b"", repr=False)
    pretty_is_stored: bool = False  # `pretty` is the payload's own text (so the raw view can share its lines)

    @property
    def dialect_line(self) -> str:
        """One line naming what the body speaks: `Anthropic Messages stream`, `dialect unknown`, or ""."""
        if self.reassembled is not None:
            r = self.reassembled
            return "stream dialect unknown" if r.dialect == "unknown" else r.label
        if self.request is not None:
            return self.request.line
        return ""

    def line_count_hex(self) -> int:
        return (len(self.data) + 15) // 16

    def hex_lines(self, start: int = 0, count: int = 100) -> list[str]:
        """`hexdump -C` style lines for 16-byte rows start .. start+count-1."""
        out: list[str] = []
        start = max(0, start)
        for row in range(start, min(start + max(0, count), self.line_count_hex())):
            off = row * 16
            chunk = self.data[off : off + 16]
            left = " ".join(f"{b:02x}" for b in chunk[:8])
            right = " ".join(f"{b:02x}" for b in chunk[8:])
            text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
            out.append(f"{off:08x}  {left:<23}  {right:<23}  |{text}|")
        return out


def _b64decode(value: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        pass
    # Tolerate newlines/whitespace, missing padding and the urlsafe alphabet.
    s = _B64_STRIP.sub("", value).translate(_URLSAFE).rstrip("=")
    if "=" in s:
        raise PayloadError("invalid base64: '=' padding in the middle of the data")
    if len(s) % 4 == 1:
        raise PayloadError(f"invalid base64: {len(s)} significant characters cannot be a whole number of bytes")
    try:
        return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
    except (binascii.Error, ValueError) as e:
        bad = next((ch for ch in s if not (ch.isascii() and (ch.isalnum() or ch in "+/"))), "")
        raise PayloadError(f"invalid base64: {f'unexpected character {bad!r}' if bad else e}") from None


def capture_bytes(c: Capture, sessions_dir=None) -> bytes:
    """The bytes of a capture. Raises PayloadError when they cannot be had (the message says why)."""
    if c.state == "inline":
        if not isinstance(c.value, str):
            raise PayloadError(f"inline capture value has wrong type {type(c.value).__name__}")
        if c.encoding == "text":
            return c.value.encode("utf-8", "surrogatepass")
        return _b64decode(c.value)
    if c.state == "ref":
        return read_ref(cast(dict, c.ref), sessions_dir)  # (a ref capture holds its ref)
    if c.state == "plain":
        if isinstance(c.plain, str):
            return c.plain.encode("utf-8", "surrogatepass")
        try:
            return orjson.dumps(c.plain, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            pass
        try:
            return json.dumps(c.plain, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
        except RecursionError:  # the file can nest 1,024 levels; writing them back recurses once a level
            raise PayloadError("payload nested too deeply to show as JSON") from None
    raise PayloadError(c.note or f"capture is {c.state or 'unknown'}")


def sdk_side(c: Capture) -> str:
    """The side of an ai-agent `sdk` capture (its TurnRequest or TurnResult), "" for any other capture."""
    return c.side if c.source == "sdk" else ""


def decode_capture(c: Capture, sessions_dir=None) -> DecodedView:
    data = capture_bytes(c, sessions_dir)
    hint = c.format
    if c.state == "plain":
        hint = "text" if isinstance(c.plain, str) else "json"
    view = decode_bytes(data, hint, sdk_side(c))
    if c.dialect and view.request is not None and isinstance(c.plain, dict):
        view.request = request_info(c.plain, dialect=c.dialect)
    return view


def placeholder_note(data: bytes) -> str:
    """The note for a body that is only a producer placeholder (`[unavailable]`, `[streaming]`), else ""."""
    if len(data) > 64:
        return ""
    return PLACEHOLDERS.get(data.strip(), "")


def decode_bytes(data: bytes, format_hint: str = "", sdk: str = "") -> DecodedView:
    """`sdk` is "request" / "response" for ai-agent's own TurnRequest / TurnResult (an `sdk` capture, or the format
    hint `sdk`): read as those (tui.payloads.aiagent_turn), never as a provider's body."""
    try:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        data = bytes(data)
    except Exception:  # noqa: BLE001 - not bytes-like at all
        return DecodedView("empty", 0, notes=[f"not bytes: {type(data).__name__}"])
    hint = format_hint.strip().lower() if isinstance(format_hint, str) else ""
    view = DecodedView("empty", len(data), data=data)
    if not data:
        return view
    try:
        if hint == "sdk" and not sdk:
            sdk = "?"  # ai-agent's, of an unknown side: named as neither, and as no provider's either
        if sdk or not _decode_http(view, data, hint):
            _decode_body(view, data, hint, sdk)
    except Exception as e:  # noqa: BLE001 - a viewer must show something for any input
        view.kind, view.pretty, view.events, view.reassembled, view.request = "binary", "", [], None, None
        view.pretty_is_stored = False
        view.notes.append(f"internal decoder error: {type(e).__name__}: {e}")
    return view


# --- body (json / sse / text / binary) ---------------------------------------------------------------


def _decode_body(view: DecodedView, body: bytes, hint: str, sdk: str = "") -> str:
    """Fill view.kind/pretty/events/reassembled for a body; returns the kind."""
    kind = _body_into(view, body, hint, sdk)
    view.kind = kind
    return kind


def _body_into(view: DecodedView, body: bytes, hint: str, sdk: str = "") -> str:
    if not body:
        return "empty"
    if hint == "eventstream" or eventstream.looks_like_eventstream(body):
        kind = _eventstream_into(view, body)
        if kind:
            return kind
    note = placeholder_note(body)
    if note:
        view.notes.append(note)
    text = _utf8(body)
    stripped = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text is not None and stripped and stripped[0] in _JSON_START:
        err, value = _try_json(view, body, text)
        if err is None:
            _json_meaning(view, value, sdk)
            return "json"
        if hint != "text" and not sdk and _json_values(view, text):
            return "ndjson"
        if sdk or hint in _JSON_HINTS or (hint in ("", "http") and stripped[:1] in (b"{", b"[")):
            view.notes.append(f"body is not valid JSON: {err}")
    if text is None and _few_controls(body):
        replaced = body.decode("utf-8", "replace")
        if hint == "sse" or looks_like_sse(replaced):
            text = replaced
            view.notes.append("invalid UTF-8 in SSE stream replaced")
    if text is not None and not sdk and (hint == "sse" or looks_like_sse(text)):
        events = parse_sse(text)
        if events:
            view.pretty = text
            view.events = events
            view.reassembled = reassemble_events(events)
            return "sse"
        if not note:
            view.notes.append("no SSE events found" + (" although the format says sse" if hint == "sse" else ""))
    if text is not None and _few_controls(body):
        view.pretty = text[1:] if text.startswith("\ufeff") else text
        view.pretty_is_stored = not text.startswith("\ufeff")
        return "text"
    view.pretty = ""
    return "binary"


def _eventstream_into(view: DecodedView, body: bytes) -> str:
    """A binary `application/vnd.amazon.eventstream` body: one event per frame, reassembled; what went wrong with
    the framing (a cut, a CRC, an absurd length) becomes notes. "" when not one frame could be read."""
    frames = eventstream.read_frames(body)
    view.notes.extend(frames.problems)
    view.notes.extend(f"eventstream frame {i} at byte {f.offset}: {f.problem}"
                      for i, f in enumerate(frames.frames, 1) if f.problem)
    if not frames.frames:
        return ""
    view.events, view.reassembled = reassemble_eventstream(frames.frames)
    return "eventstream"


def _json_meaning(view: DecodedView, value: object, sdk: str = "") -> None:
    """An LLM answer (or an array of stream chunks) is reassembled; a request body is named; ai-agent's own
    TurnRequest / TurnResult (`sdk`) are read as those, whatever they look like."""
    if value is _NO_VALUE:
        return
    if sdk:
        if sdk == "request":
            view.request = aiagent_turn.request_info(value)
        elif sdk == "response":
            view.reassembled = aiagent_turn.result_of(value)
        return
    view.reassembled = reassemble_json(value)
    if view.reassembled is None:
        view.request = request_info(value, view.start_line)
    elif isinstance(value, list):  # a stream stored as one JSON array (Gemini): one event per chunk
        view.events = [SseEvent("chunk", compact(v)) for v in value]


def _json_values(view: DecodedView, text: str) -> bool:
    """Several JSON values in a row (NDJSON, an array cut off mid-stream): one event per value, reassembled."""
    seq = json_sequence(text)
    if seq is None or not (len(seq.values) >= 2 or seq.array) or \
            not any(isinstance(v, (dict, list)) for v in seq.values):
        return False
    name = "chunk" if seq.array else "line"
    view.events = [SseEvent(name, text[a:b]) for a, b in seq.spans]
    view.reassembled = reassemble_values(seq.values)
    view.pretty = text[1:] if text.startswith("\ufeff") else text
    view.pretty_is_stored = not text.startswith("\ufeff")
    if seq.tail.strip():
        view.notes.append(f"the last {len(seq.tail.encode('utf-8', 'surrogatepass')):,} bytes are not JSON "
                          "(stream cut off?)")
    elif seq.array:
        view.notes.append("JSON array not closed (stream cut off?)")
    return True


def _utf8(b: bytes) -> str | None:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _few_controls(b: bytes) -> bool:
    ctrl = len(b) - len(b.translate(None, _CTRL_BYTES))
    return ctrl * 100 < len(b)


def _try_json(view: DecodedView, body: bytes, text: str) -> tuple[str | None, object]:
    """Parse + pretty-print; returns (None, the value) on success or (the parse error, _NO_VALUE)."""
    if len(body) > HUGE_JSON_BYTES:
        # Re-indenting would hold a second, larger copy, and even parsing to validate holds the interpreter for
        # the better part of a second (the screen would stall): shown as stored, the text shared with the raw view.
        view.pretty = text[1:] if text.startswith("\ufeff") else text
        view.pretty_is_stored = not text.startswith("\ufeff")
        view.notes.append(f"large JSON ({len(body) // (1024 * 1024)} MiB): shown as stored, "
                          "not re-indented or validated")
        return None, _NO_VALUE
    src = text.lstrip("\ufeff").strip()
    # orjson turns integers past 64 bits into floats; keep them exact with the stdlib parser.
    if not _BIG_INT.search(body):
        try:
            obj = json_load.loads(src)
            view.pretty = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode("utf-8")
            return None, obj
        except orjson.JSONDecodeError as e:
            return str(e), _NO_VALUE
        except (TypeError, ValueError, RecursionError):
            pass
    try:
        obj = json.loads(json_load.without_lone_surrogates(src) or src)  # U+FFFD, as everywhere else
        view.pretty = json.dumps(obj, indent=2, ensure_ascii=False)
        return None, obj
    except (ValueError, RecursionError) as e:
        return str(e), _NO_VALUE


# --- HTTP --------------------------------------------------------------------------------------------


def _header_block(data: bytes, hint: str) -> tuple[str, list[str], int, bool] | None:
    """(start line, header lines, body offset, blank line seen) if data starts like an HTTP message, else None."""
    pos = 0
    while pos < min(len(data), 16) and data[pos] in (13, 10):
        pos += 1
    nl = data.find(b"\n", pos, pos + 8192)
    first = data[pos : nl if nl >= 0 else min(len(data), pos + 8192)].rstrip(b"\r").decode("latin-1")
    has_start = bool(
        _REQUEST_LINE.fullmatch(first) or _STATUS_LINE.fullmatch(first) or _REQUEST_LINE_NOVER.fullmatch(first)
    )
    if has_start:
        if nl < 0:
            return first, [], len(data), False
        hstart = nl + 1
    elif hint == "http":
        hstart = pos
    else:
        return None
    # `end` is where the empty line that closes the header block starts.
    if data.startswith((b"\r\n", b"\n"), hstart):
        end = hstart
    else:
        limit = hstart + _HEADER_SCAN
        found = [i for i in (data.find(b"\n\n", hstart, limit), data.find(b"\n\r\n", hstart, limit)) if i >= 0]
        if found:
            end = min(found) + 1
        elif has_start:
            end = len(data)
        else:
            return None
    blank = end < len(data)
    body_at = end + (2 if data.startswith(b"\r\n", end) else 1) if blank else len(data)
    lines = [ln.rstrip("\r") for ln in data[hstart:end].decode("latin-1").split("\n")]
    lines = [ln for ln in lines if ln]
    if not has_start:
        if not lines or not all(_HEADER_LINE.fullmatch(ln) for ln in lines):
            return None
        if {ln.split(":", 1)[0].strip().lower() for ln in lines} <= _SSE_FIELDS:
            return None  # an SSE event, not headers
    return (first if has_start else ""), lines, body_at, blank


def _parse_headers(lines: list[str], notes: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for ln in lines:
        if ln[:1] in (" ", "\t") and out:  # obsolete line folding
            name, value = out[-1]
            out[-1] = (name, f"{value} {ln.strip()}")
            continue
        name, sep, value = ln.partition(":")
        if not sep:
            notes.append(f"malformed header line: {ln[:80]!r}")
            continue
        out.append((name.strip(), value.strip()))
    return out


def _dechunk(body: bytes) -> tuple[bytes, str]:
    """Undo chunked transfer-encoding; returns (bytes, note). A body that is not chunked is left alone."""
    parts: list[bytes] = []
    pos, n = 0, len(body)
    while True:
        nl = body.find(b"\n", pos, pos + 1024)
        size_field = body[pos : nl if nl >= 0 else pos + 1024].split(b";", 1)[0].strip()
        try:
            if nl < 0 or not size_field or len(size_field) > 16:
                raise ValueError
            size = int(size_field, 16)
        except ValueError:
            if not parts:
                return body, "transfer-encoding: chunked declared but the body is not chunked: shown as stored"
            if pos >= n:
                return b"".join(parts), "chunked transfer-encoding decoded (no final 0-size chunk)"
            parts.append(body[pos:])
            return b"".join(parts), f"broken chunked encoding at byte {pos}: rest kept as is"
        if size == 0:
            return b"".join(parts), "chunked transfer-encoding decoded"
        start = nl + 1
        if start + size > n:
            parts.append(body[start:])
            return b"".join(parts), "chunked transfer-encoding decoded (last chunk truncated)"
        parts.append(body[start : start + size])
        pos = start + size
        if body[pos : pos + 2] == b"\r\n":
            pos += 2
        elif body[pos : pos + 1] == b"\n":
            pos += 1


def _content_decode(body: bytes, encodings: list[str], notes: list[str]) -> bytes:
    for enc in reversed(encodings):
        if enc in ("", "identity"):
            continue
        if enc in ("gzip", "x-gzip"):
            if not body.startswith(b"\x1f\x8b"):
                notes.append("content-encoding gzip declared but the body is not gzip (already decoded?)")
                return body
            try:
                body, warns = gunzip_capped(body, MAX_PAYLOAD_BYTES)
                notes.append("gzip content-encoding decoded")
                notes.extend(warns)
            except PayloadError as e:
                notes.append(f"gzip content-encoding could not be decoded: {e}")
                return body
        elif enc == "deflate":
            try:
                body = _inflate(body)
                notes.append("deflate content-encoding decoded")
            except (zlib.error, PayloadError) as e:
                notes.append(f"deflate content-encoding could not be decoded: {e}")
                return body
        else:
            notes.append(f"content-encoding {enc} is not supported: body shown as stored")
            return body
    return body


def _inflate(body: bytes) -> bytes:
    for wbits in (zlib.MAX_WBITS, -zlib.MAX_WBITS):  # zlib-wrapped, then raw deflate
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(body, MAX_PAYLOAD_BYTES + 1)
        except zlib.error:
            continue
        if len(out) > MAX_PAYLOAD_BYTES:
            raise PayloadError(f"body exceeds the {MAX_PAYLOAD_BYTES:,} byte cap once decompressed")
        return out
    raise zlib.error("not zlib or raw deflate data")


def _decode_http(view: DecodedView, data: bytes, hint: str) -> bool:
    block = _header_block(data, hint)
    if block is None:
        return False
    start, lines, body_at, blank = block
    view.kind = "http"
    view.start_line = start
    view.headers = _parse_headers(lines, view.notes)
    if not blank:
        view.notes.append("no blank line after the headers: no body captured")
    body = data[body_at:]
    hdr: dict[str, str] = {}
    for name, value in view.headers:
        key = name.lower()
        hdr[key] = f"{hdr[key]}, {value}" if key in hdr else value
    if "chunked" in hdr.get("transfer-encoding", "").lower() and body:
        body, note = _dechunk(body)
        view.notes.append(note)
    encodings = [e.strip().lower() for e in hdr.get("content-encoding", "").split(",") if e.strip()]
    if encodings and body:
        body = _content_decode(body, encodings, view.notes)
    ctype = hdr.get("content-type", "").lower()
    body_hint = "sse" if "event-stream" in ctype else "json" if "json" in ctype and "ndjson" not in ctype else ""
    if "amazon.eventstream" in ctype:
        body_hint = "eventstream"
    view.body_kind = _body_into(view, body, body_hint)
    return True
