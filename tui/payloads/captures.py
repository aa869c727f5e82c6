"""Find the captured payloads of an operation (snapshot OperationNode or v3 ledger payloadRefs).

Real files and the seed specs disagree on shapes, so every known variant is accepted:
`payload.raw` / `payload.sdk` as `{format, encoding, value}` objects or bare base64 strings, the literal
`"[unavailable]"` (a producer capture bug; the producer base64-encodes it like any body, `W3VuYXZhaWxhYmxlXQ==`,
so both are recognised), `{format, ref: {...}}`, and `payload.ref` for a raw capture kept in a
file. Malformed input never raises: it becomes a Capture with state "invalid" and a note naming the problem.

Encoding: `value` always holds the stored string. `encoding` says how to turn it into bytes: "base64" (the
default) or "text" (the producer declared utf8/utf-8/text/none: the string is the payload itself).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import cast

from tui.model.capture import Capture

SIDES = ("request", "response")
KNOWN_FORMATS = frozenset({"http", "sse", "json", "jsonrpc", "text", "sdk"})  # sdk: the serialized SDK object
UNAVAILABLE = "[unavailable]"
_CAPTURE_KEYS = ("raw", "sdk", "ref")
_BASE64_ENC = frozenset({"base64", "b64", "base64url"})
_TEXT_ENC = frozenset({"utf8", "utf-8", "text", "none", "plain", "identity", ""})
_B64_RE = re.compile(r"[A-Za-z0-9+/=_\-\s]+")
_SHAPE_KEYS = ("format", "encoding", "value", "ref", "captured")
_URLSAFE = str.maketrans("-_", "+/")

# payloadRefs[].kind -> (side, source)
REF_KINDS: dict[str, tuple[str, str]] = {
    "llm_request": ("request", "raw"),
    "llm_response": ("response", "raw"),
    "sdk_request": ("request", "sdk"),
    "sdk_response": ("response", "sdk"),
    "tool_request": ("request", "raw"),
    "tool_response": ("response", "raw"),
    "reasoning_stream": ("response", "reasoning"),
}
_SOURCE_ORDER = {"raw": 0, "sdk": 1, "reasoning": 2, "payload": 3}
_SDK_FILE = re.compile(r"-sdk-(request|response)\.[^/]*$")  # payloads/<sid>/turn-NNNN/llm-NNNN-sdk-request.json.gz


def _tname(v: object) -> str:
    return "null" if v is None else type(v).__name__


def _int_or_none(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _norm_format(v: object, notes: list[str], what: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        notes.append(f"{what}.format has wrong type {_tname(v)}")
        return ""
    f = v.strip().lower()
    if f in KNOWN_FORMATS:
        return f
    if f:
        notes.append(f"{what}.format {v!r} is not a known format")
    return ""


def capture_for_ref(ref: dict, side: str, source: str) -> Capture:
    """A Capture for bytes stored in a payload file (`payload.ref`, `raw.ref`, a ledger payloadRef)."""
    if not isinstance(ref, dict):
        return Capture(side, source, "", "invalid", note=f"{source} ref has wrong type {_tname(ref)}")
    notes: list[str] = []
    fmt = _norm_format(ref.get("format"), notes, f"{source} ref")
    truncated = ref.get("truncated") is True
    size = _int_or_none(ref.get("originalBytes"))
    if ref.get("captured") is False:
        return Capture(side, source, fmt, "not_captured", ref=ref, note="captured: false: nothing was stored",
                       truncated=truncated, size=size)
    path = ref.get("path")
    if path is None or path == "":
        return Capture(side, source, fmt, "invalid", ref=ref, note=f"{source} ref has no path",
                       truncated=truncated, size=size)
    if not isinstance(path, str):
        return Capture(side, source, fmt, "invalid", ref=ref, note=f"{source} ref.path has wrong type {_tname(path)}",
                       truncated=truncated, size=size)
    if truncated:
        notes.append("truncated by producer")
    if ref.get("redacted") is True:
        notes.append("redacted by producer")
    return Capture(side, source, fmt, "ref", ref=ref, note="; ".join(notes), truncated=truncated, size=size)


def is_unavailable(value: str, encoding: str = "base64") -> bool:
    """True when a stored value is the producer's `[unavailable]` placeholder, literal or base64-encoded."""
    v = value.strip()
    if v == UNAVAILABLE:
        return True
    if encoding != "base64" or not 16 <= len(v) <= 24:
        return False
    try:
        return base64.b64decode(v.translate(_URLSAFE) + "=" * (-len(v) % 4)).strip() == UNAVAILABLE.encode()
    except (binascii.Error, ValueError):
        return False


def _looks_like_capture(v: object) -> bool:
    if isinstance(v, str):
        return is_unavailable(v) or bool(_B64_RE.fullmatch(v))
    return isinstance(v, dict) and any(k in v for k in _SHAPE_KEYS)


def _capture_from_value(v: object, side: str, source: str, truncated: bool, size: int | None) -> Capture:
    """Parse a `payload.raw` / `payload.sdk` value in any of its shapes."""
    if isinstance(v, str):
        if is_unavailable(v):
            return Capture(side, source, "", "unavailable", note=f"capture bug: {source} is {UNAVAILABLE}",
                           truncated=truncated, size=size)
        return Capture(side, source, "", "inline", value=v, truncated=truncated, size=size)
    if not isinstance(v, dict):
        return Capture(side, source, "", "invalid", note=f"{source} has wrong type {_tname(v)}",
                       truncated=truncated, size=size)

    notes: list[str] = []
    fmt = _norm_format(v.get("format"), notes, source)
    truncated = truncated or v.get("truncated") is True
    if "ref" in v:
        c = capture_for_ref(v["ref"], side, source)
        if not c.format:
            c.format = fmt
        c.truncated = c.truncated or truncated
        if c.size is None:
            c.size = size
        c.note = "; ".join(n for n in [*notes, c.note] if n)
        return c
    value = v.get("value")
    if isinstance(value, str) and value.strip() == UNAVAILABLE:
        notes.insert(0, f"capture bug: {source}.value is {UNAVAILABLE}")
        return Capture(side, source, fmt, "unavailable", note="; ".join(notes), truncated=truncated, size=size)
    if value is None:
        if v.get("captured") is False:
            return Capture(side, source, fmt, "not_captured", note="captured: false: nothing was stored",
                           truncated=truncated, size=size)
        notes.insert(0, f"{source} has no value")
        return Capture(side, source, fmt, "invalid", note="; ".join(notes), truncated=truncated, size=size)
    if not isinstance(value, str):
        notes.insert(0, f"{source}.value has wrong type {_tname(value)}")
        return Capture(side, source, fmt, "invalid", note="; ".join(notes), truncated=truncated, size=size)

    enc = v.get("encoding")
    if enc is None:
        encoding = "base64"
    elif not isinstance(enc, str):
        notes.insert(0, f"{source}.encoding has wrong type {_tname(enc)}")
        return Capture(side, source, fmt, "invalid", note="; ".join(notes), truncated=truncated, size=size)
    elif enc.strip().lower() in _BASE64_ENC:
        encoding = "base64"
    elif enc.strip().lower() in _TEXT_ENC:
        encoding = "text"
    else:
        notes.insert(0, f"{source}.encoding {enc!r} is not supported")
        return Capture(side, source, fmt, "invalid", note="; ".join(notes), truncated=truncated, size=size)
    if is_unavailable(value, encoding):
        notes.insert(0, f"capture bug: {source}.value is {UNAVAILABLE}")
        return Capture(side, source, fmt, "unavailable", note="; ".join(notes), truncated=truncated, size=size)
    return Capture(side, source, fmt, "inline", value=value, note="; ".join(notes), truncated=truncated,
                   size=size, encoding=encoding)


def _side_captures(op: dict, side: str) -> list[Capture]:
    if side not in op:
        return []
    side_obj = op.get(side)
    if side_obj is None:
        return []
    if not isinstance(side_obj, dict):
        return [Capture(side, "payload", "", "invalid", note=f"{side} has wrong type {_tname(side_obj)}")]
    size = _int_or_none(side_obj.get("size"))
    truncated = side_obj.get("truncated") is True
    if "payload" not in side_obj or side_obj.get("payload") is None:
        return []
    payload = side_obj["payload"]

    if isinstance(payload, str):
        return [Capture(side, "payload", "text", "plain", plain=payload, truncated=truncated, size=size)]
    if not isinstance(payload, dict):
        fmt = "json" if isinstance(payload, (list, int, float, bool)) else ""
        return [Capture(side, "payload", fmt, "plain", plain=payload, truncated=truncated, size=size)]

    is_tool = op.get("kind") == "tool"
    out: list[Capture] = []
    used: set[str] = set()

    raw = payload.get("raw")
    pref = payload.get("ref")
    raw_is_capture = raw is not None and (not is_tool or _looks_like_capture(raw))
    pref_is_capture = pref is not None and (not is_tool or isinstance(pref, dict) and "path" in pref)
    # `raw: {format}` with the bytes in `payload.ref`: one capture, format taken from raw.
    raw_is_header_only = isinstance(raw, dict) and not any(k in raw for k in ("value", "ref", "captured"))
    if raw_is_capture and not (pref_is_capture and raw_is_header_only):
        out.append(_capture_from_value(raw, side, "raw", truncated, size))
        used.add("raw")
    if pref_is_capture:
        c = capture_for_ref(cast(dict, pref), side, "raw")  # (pref_is_capture: a dict, or a tool op's any value)
        if raw_is_header_only:
            used.add("raw")
            if not c.format:
                c.format = _norm_format(cast(dict, raw).get("format"), [], "raw")
        c.truncated = c.truncated or truncated
        if c.size is None:
            c.size = size
        out.append(c)
        used.add("ref")

    sdk = payload.get("sdk")
    if sdk is not None and (not is_tool or _looks_like_capture(sdk)):
        out.append(_capture_from_value(sdk, side, "sdk", truncated, size))
        used.add("sdk")

    rest = {k: v for k, v in payload.items() if k not in used}
    if any(v is not None for v in rest.values()):
        out.append(Capture(side, "payload", "json", "plain", plain=rest, truncated=truncated, size=size))
    return out


def find_captures(op: dict) -> list[Capture]:
    """All captures of an op, per side (request then response): raw, sdk, then the plain payload."""
    if not isinstance(op, dict):
        return []
    out: list[Capture] = []
    for side in SIDES:
        out.extend(_side_captures(op, side))
    return out


def captures_from_payload_refs(refs: list) -> list[Capture]:
    """Captures for a v3 ledger op's `payloadRefs[]`, ordered like find_captures (side, then raw/sdk/reasoning)."""
    if not isinstance(refs, list):
        return []
    out: list[Capture] = []
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            out.append(Capture("request", "raw", "", "invalid", note=f"payloadRefs[{i}] has wrong type {_tname(ref)}"))
            continue
        kind = ref.get("kind")
        if isinstance(kind, str) and kind in REF_KINDS:
            side, source = REF_KINDS[kind]
            out.append(capture_for_ref(ref, side, source))
            continue
        named = _SDK_FILE.search(ref["path"]) if isinstance(ref.get("path"), str) else None
        if named:  # `*-sdk-request.*` / `*-sdk-response.*`: ai-agent's own turn request / result, whatever the kind
            side = named.group(1)
            c = capture_for_ref(ref, side, "sdk")
            c.note = "; ".join(n for n in [f"unknown payloadRef kind {kind!r}: its file name says sdk {side}", c.note] if n)
            out.append(c)
            continue
        side = "request" if isinstance(kind, str) and kind.endswith("_request") else "response"
        c = capture_for_ref(ref, side, "raw")
        c.note = "; ".join(n for n in [f"unknown payloadRef kind {kind!r}", c.note] if n)
        out.append(c)
    out.sort(key=lambda c: (SIDES.index(c.side), _SOURCE_ORDER.get(c.source, 9)))
    return out
