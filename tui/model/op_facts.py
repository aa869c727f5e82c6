"""The sizes and time of an op, read the same way by `dump`, `export` and the details panel.

Tool accounting entries count the characters a tool got and gave (`charactersIn`/`charactersOut`); snapshots keep
the request and response sizes (`request.size`, `response.size`), v3 ledgers the size of each captured payload
(`payloadRefs[].originalBytes`). Some ops have no `startedAt`: they still happened at a known time, the one of their
ledger record (`ts`), of their first accounting entry or of their first log, and a timeline should place them there
instead of at "no time". The loaders fill the Op fields they can; what a ledger op leaves empty is read here from
its payloadRefs and the record of its turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.model.format import fmt_bytes, fmt_ts
from tui.model.nodes import Op

_REQUEST_KINDS = ("llm_request", "tool_request")
_RESPONSE_KINDS = ("llm_response", "tool_response")


@dataclass(slots=True)
class OpFacts:
    chars_in: int | None
    chars_out: int | None
    request_bytes: int | None
    response_bytes: int | None
    when: int | None  # started_at, else the stand-in time
    when_source: str  # "" when the op has its own start; else "record" | "accounting/log"

    def as_dict(self) -> dict:
        return {"charactersIn": self.chars_in, "charactersOut": self.chars_out, "requestBytes": self.request_bytes,
                "responseBytes": self.response_bytes, "time": self.when, "timeSource": self.when_source or None}


def op_facts(op: Op) -> OpFacts:
    request, response = op.request_bytes, op.response_bytes
    refs = op.payload_refs
    if refs and (request is None or response is None):
        ref_request, ref_response = _ref_bytes(refs)
        request = request if request is not None else ref_request
        response = response if response is not None else ref_response
    when, source = op.started_at, ""
    if op.ts_fallback is not None and _from_ledger(op):  # no time of its own: the turn_end record's stands in
        when, source = op.ts_fallback, "record"
    elif when is None:
        ledger = _from_ledger(op)
        if op.ts_fallback is not None:
            when, source = op.ts_fallback, "record" if ledger else "accounting/log"
        elif ledger and op.turn.ended_at is not None:  # a ledger op arrives with its turn_end record
            when, source = op.turn.ended_at, "record"
    return OpFacts(op.chars_in, op.chars_out, request, response, when, source)


def _from_ledger(op: Op) -> bool:
    """A v3 ledger op: its turn was built from ledger records (they have a recordType)."""
    raw = op.turn.raw
    return isinstance(raw, dict) and "recordType" in raw


def _ref_bytes(refs: list) -> tuple[int | None, int | None]:
    """The originalBytes of the request and response payload files (the SDK's copies when only they exist)."""
    sizes: dict[str, int] = {}
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        kind, size = ref.get("kind"), ref.get("originalBytes")
        if isinstance(kind, str) and type(size) is int and size >= 0:
            sizes[kind] = sizes.get(kind, 0) + size
    request = next((sizes[k] for k in _REQUEST_KINDS if k in sizes), sizes.get("sdk_request"))
    response = next((sizes[k] for k in _RESPONSE_KINDS if k in sizes), sizes.get("sdk_response"))
    return request, response


def facts_parts(facts: OpFacts, *, time: bool = True) -> list[str]:
    """Compact text for a one-line op summary: `chars in=1,200 out=34`, `req 2.0 KiB`, `resp 40.1 KiB`, and the
    stand-in time of an op without a start (`at 12:00:01 (record ts)`)."""
    parts = []
    if facts.chars_in is not None or facts.chars_out is not None:
        parts.append(f"chars in={_n(facts.chars_in)} out={_n(facts.chars_out)}")
    if facts.request_bytes is not None:
        parts.append(f"req {fmt_bytes(facts.request_bytes)}")
    if facts.response_bytes is not None:
        parts.append(f"resp {fmt_bytes(facts.response_bytes)}")
    if time and facts.when_source and facts.when is not None:
        parts.append(f"at {fmt_ts(facts.when)} ({facts.when_source} ts)")
    return parts


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"
