"""What one OTLP export request may cost the monitor, told from its bytes before anything is decoded.

The memory budget (tui.inputs.stream.limits) counted a request's body bytes, but decoding builds objects per span
or log record whatever their size on the wire: an empty span is 2 bytes of protobuf and ~440 bytes once decoded
(protobuf's message plus our Span), so one 16 MB request of 8 million empty spans peaked at 3.5 GB. So the
receivers (otlp_http, otlp_grpc) ask `request_cost` first: a protobuf body's spans or log records are counted by
walking the wire format down to them (three levels, one step per span, never into a span: cheap, and it stops at
the cap), a JSON body's objects by counting its `{` (every span and attribute is one; C speed). More than
MAX_REQUEST_ITEMS spans or log records (MAX_JSON_OBJECTS JSON objects) is refused as too big (HTTP 413, gRPC
RESOURCE_EXHAUSTED); otherwise the body bytes plus ITEM_COST per item (JSON_OBJECT_COST per object) are what the
request holds in the budget while it is decoded and handed over.
"""

from __future__ import annotations

MAX_REQUEST_ITEMS = 100_000  # spans or log records in one export request (SDK batches hold 512; collectors ~8,192)
ITEM_COST = 512  # bytes charged per span or log record before decoding (an empty one decodes to ~440)
MAX_JSON_OBJECTS = 1_000_000  # `{` in an OTLP/JSON body (a span with 10 attributes is ~21)
JSON_OBJECT_COST = 200  # bytes charged per JSON object (a small dict and its list slot, then what it becomes)


class TooManyItems(Exception):
    """The request holds more spans or log records than one request may (the message says how many, at least)."""


def request_cost(body: bytes | bytearray, encoding: str) -> int:
    """Bytes the request is charged while decoded (its own included): TooManyItems past the caps, ValueError for
    protobuf that is not even well-formed on the wire."""
    if encoding == "json":
        objects = body.count(b"{")
        if objects > MAX_JSON_OBJECTS:
            raise TooManyItems(f"{objects:,} JSON objects (at most {MAX_JSON_OBJECTS:,} per request)")
        return len(body) + objects * JSON_OBJECT_COST
    return len(body) + count_items(body) * ITEM_COST


def count_items(body: bytes | bytearray) -> int:
    """The spans (or log records) of an Export{Trace,Logs}ServiceRequest: the same three levels in both, field 1
    repeated (resource_spans / resource_logs), in each field 2 repeated (scope_spans / scope_logs), in each field
    2 repeated (spans / log_records). TooManyItems as soon as the count passes MAX_REQUEST_ITEMS."""
    count = 0
    view = memoryview(body)
    for start, end in _fields(view, 0, len(view), 1):
        for scope_start, scope_end in _fields(view, start, end, 2):
            for _ in _fields(view, scope_start, scope_end, 2):
                count += 1
                if count > MAX_REQUEST_ITEMS:
                    raise TooManyItems(f"more than {MAX_REQUEST_ITEMS:,} spans or log records in one request")
    return count


def _fields(buf: memoryview, pos: int, end: int, wanted: int):
    """(start, end) of each length-delimited field number `wanted` of the message in buf[pos:end]; the other
    fields are stepped over. ValueError for bytes that are not protobuf."""
    while pos < end:
        key, pos = _varint(buf, pos, end)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(buf, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            size, pos = _varint(buf, pos, end)
            if pos + size > end:
                raise ValueError("not protobuf: a field runs past its message")
            if key >> 3 == wanted:
                yield pos, pos + size
            pos += size
        else:
            raise ValueError(f"not protobuf: wire type {wire}")
        if pos > end:
            raise ValueError("not protobuf: a field runs past its message")


def _varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while pos < end:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            break
    raise ValueError("not protobuf: a broken varint")
