"""Hypothesis strategies for the property tests: ai-agent inputs, valid and mutated.

- `session_trees()`: valid SessionNode trees (formats.md section 1, seed aiagent-optree-spec.md): turns (a system init
  turn 0, user turns from 1), v2 steps, llm/tool/session/system ops, sub-agents in `childSession`, logs, accounting in
  both cache-token dialects, reasoning, request/response captures (HTTP, SSE, JSON-RPC bodies as base64 objects or
  strings, `[unavailable]`, payload refs), `childSessionRef`, running sessions, stored totals right or stale.
  Timestamps are consistent (a clock walks the tree in order), ids unique.
- `snapshot_documents()`: (shape, value) for the four top-level shapes: v1 file, v2 file, live wire envelope, bare node.
- `mutated(value)`: random damage anywhere in a JSON value: wrong types, deletions, extra keys, grafted subtrees,
  hostile strings, huge numbers, deep nesting, broken base64 in captures. `encode()` turns the result into bytes
  (raw JSON tokens orjson cannot write, such as integers beyond 64 bits, are spliced in).
- `ledger_files(tree)`: the v3 ledgers (formats.md section 2) the producer would have written for a finished or
  running tree; `mutated_ledger_bytes()` damages records and lines (truncated last line, garbage, duplicates...).
- `event_streams()` / `mutated_frames()`: live event streams (formats.md section 4) and damaged ones.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import itertools
import re
from datetime import datetime, timezone

import orjson
from hypothesis import strategies as st

from helpers.naive_model import llm_usage, producer_totals

T0 = 1_770_000_000_000
SEVERITIES = ("VRB", "WRN", "ERR", "TRC", "THK", "FIN", "DBG", "INF")
HOSTILE_STRINGS = (
    "", "\x00", "\x1b[2J\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "a\rb", "line\nbreak", "\u2028\u2029", "\u202eevil",
    "\u200b", "\x7f\x9b", "\ufeff", "日本語", "🙂" * 3, "NaN", "Infinity", "-Infinity", "1e999", "12", "-1", "null",
    "[unavailable]", "../../../etc/passwd", "/etc/passwd", "session/../../x.jsonl", "x" * 400, "%s%n{0}", "</>",
)
NAMES = ("web__fetch", "agent__web-search", "bigquery__execute_sql", "agent__final_report", "fs__read",
         "agent__task_status")
MODELS = (("anthropic", "claude-sonnet-4"), ("openai", "gpt-4o"), ("openrouter", "qwen3"), ("google", "gemini-2.5"))

small_text = st.text(max_size=12)
int64 = st.integers(-(2**63), 2**63 - 1)  # what orjson writes; bigger integers go in as raw tokens
# Text of real logs and payloads: any characters, control characters included (they are valid JSON).
any_text = st.one_of(st.text(max_size=30), st.sampled_from(HOSTILE_STRINGS))


def weighted_bool(p_true: float) -> st.SearchStrategy[bool]:
    n = max(1, round(1 / p_true))
    return st.integers(0, n - 1).map(lambda k: k == 0)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


# capture bodies -----------------------------------------------------------------------------------------------


def _sse(events: list[tuple[str | None, object]]) -> bytes:
    out = []
    for name, data in events:
        if name:
            out.append(f"event: {name}")
        out.append("data: " + (data if isinstance(data, str) else orjson.dumps(data).decode()))
        out.append("")
    return ("\n".join(out) + "\n").encode()


@st.composite
def anthropic_stream(draw) -> tuple[bytes, dict]:
    """An Anthropic Messages SSE stream and what it says: {text, thinking, tool_calls}."""
    texts = draw(st.lists(small_text, max_size=3))
    thinking = draw(st.lists(small_text, max_size=2))
    args = draw(st.lists(st.sampled_from(['{"q":', ' "x"', "}", "", '{"a": [1, 2]}']), max_size=3))
    start = {"type": "message_start", "message": {"model": "claude", "usage": {"input_tokens": 5}}}
    ev: list[tuple[str | None, object]] = [("message_start", start)]
    block = 0
    if thinking:
        ev.append(("content_block_start", {"type": "content_block_start", "index": block,
                                           "content_block": {"type": "thinking"}}))
        ev += [("content_block_delta", {"type": "content_block_delta", "index": block,
                                        "delta": {"type": "thinking_delta", "thinking": t}}) for t in thinking]
        block += 1
    ev.append(("content_block_start", {"type": "content_block_start", "index": block,
                                       "content_block": {"type": "text"}}))
    ev += [("content_block_delta", {"type": "content_block_delta", "index": block,
                                    "delta": {"type": "text_delta", "text": t}}) for t in texts]
    tool = draw(st.sampled_from(NAMES))
    if args:
        block += 1
        ev.append(("content_block_start", {"type": "content_block_start", "index": block,
                                           "content_block": {"type": "tool_use", "name": tool}}))
        ev += [("content_block_delta", {"type": "content_block_delta", "index": block,
                                        "delta": {"type": "input_json_delta", "partial_json": a}}) for a in args]
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                 "usage": {"output_tokens": 3}}))
    if draw(weighted_bool(0.2)):
        ev.append(("error", {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    says = {"text": "".join(texts), "thinking": "".join(thinking),
            "tool_calls": [(tool, "".join(args))] if args else []}
    return _sse(ev), says


@st.composite
def openai_stream(draw) -> tuple[bytes, dict]:
    """An OpenAI Chat Completions SSE stream and what it says."""
    texts = draw(st.lists(small_text, max_size=3))
    ev: list[tuple[str | None, object]] = [(None, {"model": "gpt-4o", "choices": [{"delta": {"content": t}}]})
                                           for t in texts]
    ev.append((None, {"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3}}))
    ev.append((None, "[DONE]"))
    return _sse(ev), {"text": "".join(texts), "thinking": "", "tool_calls": []}


@st.composite
def json_body(draw) -> bytes:
    body = {"model": draw(st.sampled_from([m for _, m in MODELS])), "stream": draw(st.booleans()),
            "messages": [{"role": "user", "content": t} for t in draw(st.lists(small_text, max_size=3))]}
    return orjson.dumps(body)


def _chunked(body: bytes, size: int) -> bytes:
    out = b""
    for i in range(0, len(body), max(1, size)):
        part = body[i:i + max(1, size)]
        out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


@st.composite
def capture_body(draw, side: str) -> tuple[str, bytes]:
    """(format, bytes) of an LLM HTTP/SSE capture."""
    if side == "request":
        body = draw(json_body())
        if draw(st.booleans()):
            return "json", body
        head = b"POST /v1/messages HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n"
        return "http", head + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    if draw(weighted_bool(0.2)):
        return "jsonrpc", orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": draw(small_text)}})
    return draw(framed_stream())[:2]


@st.composite
def framed_stream(draw) -> tuple[str, bytes, dict]:
    """(format, bytes, what the stream says) of an LLM response stream: bare SSE or in an HTTP response (plain,
    chunked, gzip)."""
    stream, says = draw(st.one_of(anthropic_stream(), openai_stream()))
    return (*_framed(draw, stream), says)


def _framed(draw, stream: bytes) -> tuple[str, bytes]:
    style = draw(st.sampled_from(["sse", "http", "http-chunked", "http-gzip"]))
    if style == "sse":
        return "sse", stream
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    if style == "http-chunked":
        return "http", head + b"Transfer-Encoding: chunked\r\n\r\n" + _chunked(stream, draw(st.integers(1, 64)))
    if style == "http-gzip":
        packed = gzip.compress(stream)
        return "http", head + f"Content-Encoding: gzip\r\nContent-Length: {len(packed)}\r\n\r\n".encode() + packed
    return "http", head + b"\r\n" + stream


# An event nested past the 255 levels orjson writes (it reads 1,024).
DEEP_SSE_EVENT = b'\n\nevent: error\ndata: {"type":"error","error":{"e":' + b"[" * 300 + b"]" * 300 + b"}}\n\n"


@st.composite
def damaged_bytes(draw, data: bytes) -> bytes:
    """`data` cut short, with bytes flipped, inserted or repeated (a capture damaged on disk or in transit)."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(out)))
        how = draw(st.sampled_from(["cut", "flip", "insert", "repeat"]))
        if how == "cut":
            del out[i:]
        elif how == "flip" and i < len(out):
            out[i] ^= draw(st.integers(1, 255))
        elif how == "insert":
            out[i:i] = draw(st.one_of(st.binary(max_size=8), st.sampled_from([b"\r\n", b"\n\n", b"data: {", b"\x1f\x8b",
                                                                             b"event: error\n", b"0\r\n\r\n",
                                                                             DEEP_SSE_EVENT])))
        elif how == "repeat":
            out[i:i] = out[i:i + draw(st.integers(1, 64))]
    return bytes(out)


@st.composite
def capture(draw, side: str) -> object:
    """A `payload.raw` / `payload.sdk` value in one of the shapes real files and the seeds use."""
    fmt, body = draw(capture_body(side))
    b64 = base64.b64encode(body).decode()
    shape = draw(st.sampled_from(["object", "object", "string", "unavailable", "ref", "text"]))
    if shape == "object":
        return {"format": fmt, "encoding": "base64", "value": b64}
    if shape == "string":
        return b64
    if shape == "unavailable":
        return "[unavailable]"
    if shape == "text":
        return {"format": fmt, "encoding": "utf8", "value": body.decode("utf-8", "replace")}
    packed = gzip.compress(body)
    ref = {"path": f"payloads/x/turn-0001/llm-0001-{side}.{fmt}.gz", "format": fmt, "compression": "gzip",
           "originalBytes": len(body), "compressedBytes": len(packed), "sha256": hashlib.sha256(body).hexdigest(),
           "captured": draw(weighted_bool(0.8)), "truncated": draw(weighted_bool(0.2)), "redacted": False}
    return {"format": fmt, "ref": ref}


# tree parts ---------------------------------------------------------------------------------------------------


@st.composite
def llm_entry(draw) -> dict:
    tin, tout, cache, write = (draw(st.integers(0, 200_000)) for _ in range(4))
    tokens = {"inputTokens": tin, "outputTokens": tout}
    dialect = draw(st.sampled_from(["anthropic", "openai", "both", "explicit-zero", "none"]))
    if dialect in ("anthropic", "both"):
        tokens["cacheReadInputTokens"] = cache
        tokens["cacheWriteInputTokens"] = write
    if dialect in ("openai", "both"):
        tokens["cachedTokens"] = draw(st.integers(0, 200_000))
    if dialect == "explicit-zero":  # the producer's `??` keeps an explicit 0
        tokens["cacheReadInputTokens"] = 0
        tokens["cachedTokens"] = cache
    tokens["totalTokens"] = tin + tout
    provider, model = draw(st.sampled_from(MODELS))
    entry = {"type": "llm", "status": draw(st.sampled_from(["ok", "ok", "failed"])),
             "latency": draw(st.integers(0, 9999)),
             "provider": provider, "model": model, "actualProvider": provider, "actualModel": model,
             "stopReason": "end_turn", "tokens": tokens, "agentId": "a", "callPath": "a", "txnId": "t"}
    cost = draw(st.one_of(st.none(), st.floats(0, 2, allow_nan=False, width=32), st.integers(0, 3),
                          st.sampled_from([0.1, 0.2, 0.3, 1e-5, 0.00005, 0.00015])))
    if cost is not None:
        entry["costUsd"] = cost
        entry["upstreamInferenceCostUsd"] = cost
    return entry


@st.composite
def tool_entry(draw) -> dict:
    return {"type": "tool", "status": draw(st.sampled_from(["ok", "failed"])), "latency": draw(st.integers(0, 999)),
            "mcpServer": "srv", "command": draw(st.sampled_from(NAMES)), "charactersIn": draw(st.integers(0, 9999)),
            "charactersOut": draw(st.integers(0, 9999)), "costUsd": draw(st.sampled_from([0, 1, 0.5]))}


@st.composite
def log_entry(draw) -> dict:
    entry = {"severity": draw(st.sampled_from(SEVERITIES)), "message": draw(any_text), "turn": 1, "subturn": 0,
             "direction": draw(st.sampled_from(["request", "response"])),
             "type": draw(st.sampled_from(["llm", "tool"])),
             "remoteIdentifier": "anthropic:claude", "agentId": "a", "callPath": "a", "txnId": "t"}
    if draw(weighted_bool(0.1)):
        entry["fatal"] = True
    if draw(weighted_bool(0.3)):
        entry["details"] = {"k": draw(st.one_of(int64, st.booleans(), small_text))}
    return entry


def _maybe(draw, p: float, strategy, *, max_size: int = 3) -> list:
    return draw(st.lists(strategy, max_size=max_size)) if draw(weighted_bool(p)) else []


@st.composite
def operation(draw, depth: int, max_depth: int) -> dict:
    kinds = ["llm", "llm", "tool", "tool", "system"] + (["session", "session"] if depth < max_depth else ["session"])
    kind = draw(st.sampled_from(kinds))
    op: dict = {"opId": "", "kind": kind, "status": draw(st.sampled_from(["ok", "ok", "ok", "failed"])),
                "logs": _maybe(draw, 0.6, log_entry()), "accounting": []}
    attrs: dict = {}
    if kind == "llm":
        provider, model = draw(st.sampled_from(MODELS))
        attrs = {"provider": provider, "model": model, "latency": draw(st.integers(0, 9999)),
                 "isFinalTurn": draw(weighted_bool(0.2))}
        op["accounting"] = draw(st.lists(llm_entry(), max_size=2))
        if draw(weighted_bool(0.7)):
            op["request"] = {"kind": "llm", "size": 10, "payload": {
                "messages": draw(st.integers(0, 50)), "bytes": 10, "isFinalTurn": False,
                "raw": draw(capture("request")), **({"sdk": draw(capture("request"))} if draw(st.booleans()) else {})}}
            op["response"] = {"size": 10, "truncated": draw(weighted_bool(0.1)),
                              "payload": {"raw": draw(capture("response"))}}
        if draw(weighted_bool(0.3)):
            op["reasoning"] = {"chunks": [{"text": t, "ts": 0} for t in draw(st.lists(small_text, max_size=2))],
                               "final": draw(small_text)}
    elif kind in ("tool", "session"):
        name = draw(st.sampled_from(NAMES))
        attrs = {"name": name, "provider": "agent" if kind == "session" else "mcp",
                 "kind": "agent" if kind == "session" else draw(st.sampled_from(["mcp", "rest", "command"])),
                 "latency": draw(st.integers(0, 9999)), "size": draw(st.integers(0, 99999))}
        op["accounting"] = draw(st.lists(st.one_of(tool_entry(), llm_entry()), max_size=2))
        params = draw(st.dictionaries(st.sampled_from(["q", "url", "report_content", "report_format", "n"]),
                                      st.one_of(small_text, int64, st.lists(int64, max_size=3)),
                                      max_size=3))
        op["request"] = {"kind": "tool", "payload": params, "size": 5}
        op["response"] = {"payload": draw(st.one_of(any_text, st.dictionaries(small_text, small_text, max_size=2))),
                          "size": 5, "truncated": False}
        if kind == "session" and depth < max_depth and draw(weighted_bool(0.7)):
            op["childSession"] = draw(session_node(depth + 1, max_depth))
        elif kind == "session" and draw(weighted_bool(0.3)):
            op["childSessionRef"] = {"sessionId": "elsewhere", "agentId": "remote-agent"}
        elif kind == "tool" and depth < max_depth and draw(weighted_bool(0.05)):
            op["childSession"] = draw(session_node(depth + 1, max_depth))  # shown, never counted (producer rule)
    else:
        attrs = {"label": draw(st.sampled_from(["init", "mcp-connect", "compaction"]))}
    if op["status"] == "failed":
        attrs["error"] = draw(st.sampled_from(["token_budget_exceeded", "timeout", "tool_failed"]))
    op["attributes"] = attrs
    return op


@st.composite
def turn_node(draw, index: int, depth: int, max_depth: int, *, system: bool = False, step: bool = False) -> dict:
    turn: dict = {"id": "", "index": index,
                  "ops": draw(st.lists(operation(depth, max_depth), min_size=1 if system else 0, max_size=4))}
    if step:
        turn["kind"] = draw(st.sampled_from(["system", "user", "advisors", "router_handoff", "handoff", "internal"]))
        turn["attributes"] = {}
    elif system:
        turn["attributes"] = {"system": True, "label": "init"}
    else:
        turn["attributes"] = {"prompts": {"system": draw(any_text), "user": draw(any_text)}} if draw(
            weighted_bool(0.3)) else {}
    return turn


@st.composite
def session_node(draw, depth: int = 0, max_depth: int = 2, v2: bool = False) -> dict:
    """A SessionNode with placeholders for ids, times and totals (filled by `_finish`)."""
    node: dict = {"id": "", "traceId": "", "agentId": draw(st.sampled_from(["web-research", "web-search", "bigquery",
                                                                                "web-fetch", ""])),
                  "callPath": "", "sessionTitle": draw(st.one_of(st.just(""), any_text)),
                  "attributes": {"ingress": "cli"}, "turns": [],
                  "_success": draw(weighted_bool(0.8)), "_totals": draw(st.sampled_from(["right", "right", "absent",
                                                                                         "stale"]))}
    node["callPath"] = node["agentId"]
    if draw(weighted_bool(0.2)):
        node["latestStatus"] = draw(any_text)
    turns = []
    if draw(st.booleans()):
        turns.append(draw(turn_node(0, depth, max_depth, system=True)))
    count = draw(st.integers(0, 3 if depth == 0 else 2))
    turns += [draw(turn_node(i, depth, max_depth)) for i in range(1, count + 1)]
    node["turns"] = turns
    if v2 and draw(st.booleans()):
        node["steps"] = [draw(turn_node(i, depth, max_depth, step=True)) for i in range(1, draw(st.integers(1, 2)) + 1)]
        if draw(weighted_bool(0.2)):
            del node["turns"]  # a v2 tree may carry only steps
    if draw(weighted_bool(0.2)):
        node["finalReport"] = {"format": "markdown", "content": draw(any_text), "ts": 0}
    return node


def _finish(root: dict, gaps: list[int], running: bool) -> dict:
    """Give the tree unique ids, consistent timestamps (a clock walks it in order), log paths and stored totals.

    With `running`, the last turn and op of the root (and, down the chain, of the sub-agent that op runs) are
    still open, as in a snapshot taken mid-run."""
    step = itertools.cycle(gaps)
    clock = T0
    serial = itertools.count()

    def tick() -> int:
        nonlocal clock
        clock += next(step)
        return clock

    def session(node: dict, prefix: str, open_: bool) -> None:
        n = next(serial)
        node["id"] = f"{clock:x}-s{n}"
        node["traceId"] = f"00000000-0000-4000-8000-{n:012d}"
        node["startedAt"] = tick()
        containers = [("turns", t) for t in node.get("turns", [])] + [("steps", t) for t in node.get("steps", [])]
        for ci, (key, turn) in enumerate(containers):
            last_turn = ci == len(containers) - 1
            turn["id"] = f"{node['id']}-{key}{ci}"
            turn["startedAt"] = tick()
            seg = f"s{turn['index']}" if key == "steps" else str(turn["index"])
            for oi, op in enumerate(turn["ops"]):
                running_op = open_ and last_turn and oi == len(turn["ops"]) - 1
                path = f"{prefix}{seg}-{oi + 1}"
                op["opId"] = f"{node['id']}-op{ci}.{oi}"
                op["startedAt"] = tick()
                for log in op["logs"]:
                    log["timestamp"] = tick()
                    log["path"] = path
                child = op.get("childSession")
                if isinstance(child, dict):
                    session(child, path + ".", running_op and op["kind"] == "session")
                for entry in op["accounting"]:
                    entry["timestamp"] = tick()
                for chunk in op.get("reasoning", {}).get("chunks", []):
                    chunk["ts"] = op["startedAt"]
                if running_op:
                    for k in ("status", "response"):
                        op.pop(k, None)
                    op["attributes"].pop("error", None)
                else:
                    op["endedAt"] = tick()
            if not (open_ and last_turn):
                turn["endedAt"] = tick()
        success = node.pop("_success")
        mode = node.pop("_totals")
        if not open_:
            node["endedAt"] = tick()
            node["success"] = success
            if not success:
                node["error"] = "agent failed"
        else:
            node.pop("finalReport", None)
        if mode != "absent":
            totals = producer_totals(node)
            if mode == "stale":
                totals["tokensIn"] += 1
                totals["toolsRun"] += 1
            node["totals"] = totals

    session(root, "", running)
    return root


@st.composite
def session_trees(draw, max_depth: int = 2, v2: bool | None = None, running: bool | None = None) -> dict:
    v2 = draw(st.booleans()) if v2 is None else v2
    tree = draw(session_node(0, max_depth, v2))
    gaps = draw(st.lists(st.integers(0, 3000), min_size=1, max_size=6))
    running = draw(weighted_bool(0.25)) if running is None else running
    return _finish(tree, gaps, running)


@st.composite
def snapshot_documents(draw, **kwargs) -> tuple[str, dict]:
    """(shape, top-level value) of a snapshot file: v1, v2, the live wire envelope, or a bare SessionNode."""
    shape = draw(st.sampled_from(["v1", "v2", "envelope", "bare"]))
    tree = draw(session_trees(v2=False if shape == "v1" else None, **kwargs))
    reason = draw(st.sampled_from(["final", "subagent_finish"])) if "endedAt" in tree else "subagent_finish"
    if shape == "v1":
        return shape, {"version": 1, "reason": reason, "opTree": tree}
    if shape == "v2":
        return shape, {"version": 2, "reason": reason, "opTree": tree, "sessionId": tree["traceId"],
                       "originId": tree["traceId"], "originTxnId": "txn", "parentId": None, "parentTxnId": None,
                       "timestamp": T0}
    if shape == "envelope":
        return shape, {"reason": reason, "sessionId": tree["traceId"], "originId": tree["traceId"], "timestamp": T0,
                       "snapshot": {"version": 2, "opTree": tree}}
    if "turns" not in tree:
        tree["turns"] = []  # a bare node is "an object with turns" (formats.md)
    return shape, tree


def tree_of(shape: str, value: dict) -> dict:
    if shape == "envelope":
        return value["snapshot"]["opTree"]
    return value if shape == "bare" else value["opTree"]


# mutation ------------------------------------------------------------------------------------------------------

# Tokens orjson cannot write (or that break the document on purpose), spliced into the bytes by `encode`.
_RAW = re.compile(rb'"@@RAW@@([a-z]+):(\d+)"')
RAW_TOKENS = {
    b"bigint": lambda n: b"123456789012345678901234567890",
    b"negbig": lambda n: b"-123456789012345678901234567890",
    b"overflow": lambda n: b"1e400",
    b"deeplist": lambda n: b"[" * n + b"]" * n,
    b"deepobj": lambda n: b'{"a":' * n + b"1" + b"}" * n,
}


def raw_token(name: str, n: int = 0) -> str:
    return f"@@RAW@@{name}:{n}"


def encode(value: object) -> bytes:
    """JSON bytes of a (possibly mutated) value, with raw tokens spliced in."""
    data = orjson.dumps(value)
    return _RAW.sub(lambda m: RAW_TOKENS[m.group(1)](int(m.group(2))), data)


weird_scalars = st.one_of(
    st.sampled_from([None, True, False, 0, -1, 1.5, -0.0, 2**63 - 1, 2**64 - 1, -(2**63), 1e308, -1e308, 5e-324]),
    st.sampled_from(HOSTILE_STRINGS),
    int64, st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
    st.sampled_from([raw_token("bigint"), raw_token("negbig"), raw_token("deeplist", 40), raw_token("deepobj", 40),
                     raw_token("deeplist", 400), raw_token("deepobj", 300), raw_token("overflow")]),
)
weird_values = st.one_of(
    weird_scalars,
    st.lists(weird_scalars, max_size=3),
    st.dictionaries(st.sampled_from(["kind", "type", "turns", "ops", "x", ""]), weird_scalars, max_size=3),
)
_EXTRA_KEYS = ("childSession", "childSessionRef", "kind", "turns", "steps", "ops", "totals", "logs", "accounting",
               "tokens", "type", "status", "endedAt", "startedAt", "severity", "raw", "sdk", "ref", "payload", "x", "",
               "\x00", "über")


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, prefix + (i,))
    return out


def _get(value: object, path: tuple) -> object:
    for key in path:
        value = value[key]
    return value


def _set(root: object, path: tuple, new: object) -> object:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


def _case(value: object) -> object:
    return value.swapcase() if isinstance(value, str) else value


def _bad_base64(draw) -> object:
    return draw(st.one_of(
        st.sampled_from(["!!!!", "abc", "ab=c", "a", "====", "QUJD\x00", "QUJDRA", "QUJD RA==\n", "-_-_", "日本"]),
        st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()),  # valid base64 of garbage bytes
        st.text(max_size=20),
    ))


@st.composite
def mutated(draw, value: object, max_mutations: int = 4) -> object:
    """`value` (a JSON value) with 1..max_mutations random mutations applied anywhere."""
    value = orjson.loads(orjson.dumps(value))
    for _ in range(draw(st.integers(1, max_mutations))):
        paths = _paths(value)
        if draw(st.booleans()):  # half the time, aim at a container: structure breaks are the interesting ones
            containers = [p for p in paths if isinstance(_get(value, p), (dict, list))]
            paths = containers or paths
        path = draw(st.sampled_from(paths))
        target = _get(value, path)
        how = draw(st.sampled_from(["replace", "replace", "delete", "extra", "retype", "wrap", "dup", "graft", "case",
                                    "base64", "deep"]))
        if how == "replace":
            value = _set(value, path, draw(weird_values))
        elif how == "delete" and path:
            parent = _get(value, path[:-1])
            del parent[path[-1]]
        elif how == "extra" and isinstance(target, dict):
            source = draw(st.sampled_from(paths))
            extra = draw(st.one_of(weird_values, st.just(orjson.loads(orjson.dumps(_get(value, source))))))
            target[draw(st.sampled_from(_EXTRA_KEYS))] = extra
        elif how == "retype":
            if isinstance(target, dict):
                value = _set(value, path, list(target.values()))
            elif isinstance(target, list):
                value = _set(value, path, {str(i): v for i, v in enumerate(target)})
            else:
                value = _set(value, path, [target])
        elif how == "wrap":
            value = _set(value, path, draw(st.sampled_from([[target], {"value": target}])))
        elif how == "dup" and isinstance(target, list) and target:
            i = draw(st.integers(0, len(target) - 1))
            target.insert(i, orjson.loads(orjson.dumps(target[i])))
        elif how == "graft":
            source = draw(st.sampled_from(paths))
            if path[: len(source)] != source:  # never graft a node into itself
                value = _set(value, path, orjson.loads(orjson.dumps(_get(value, source))))
        elif how == "case":
            value = _set(value, path, _case(target))
        elif how == "base64":
            captures = [p for p in paths if isinstance(_get(value, p), dict) and "value" in _get(value, p)]
            if captures:
                _get(value, draw(st.sampled_from(captures)))["value"] = _bad_base64(draw)
            else:
                value = _set(value, path, _bad_base64(draw))
        elif how == "deep" and draw(st.booleans()):
            payloads = [p for p in paths if p and p[-1] in ("payload", "params", "attributes")] or paths
            deep = raw_token("deeplist", draw(st.sampled_from([300, 1000])))
            value = _set(value, draw(st.sampled_from(payloads)), deep)
        elif how == "deep":
            # 256..1023 levels: orjson reads them but cannot write them; 2000: the document cannot be read
            value = _set(value, path, draw(st.sampled_from([raw_token("deeplist", 200), raw_token("deepobj", 120),
                                                            raw_token("deeplist", 1000), raw_token("deeplist", 2000)])))
    return value


def deep_chain(tree: dict, levels: int) -> bytes:
    """A v1 snapshot file whose opTree is a chain of `levels` sessions (one session op each) with `tree` as the
    innermost sub-agent. Written as text: orjson cannot write nesting this deep."""
    head = b"".join(
        b'{"id":"chain%d","traceId":"chain-%d","turns":[{"index":1,"ops":[{"opId":"c%d","kind":"session","logs":[],'
        b'"accounting":[],"childSession":' % (n, n, n) for n in range(levels))
    return b'{"version":1,"opTree":' + head + encode(tree) + b"}]}]}" * levels + b"}"


# v3 ledgers ----------------------------------------------------------------------------------------------------


def ledger_files(tree: dict) -> dict[str, list[dict]]:
    """The ledgers (path relative to the sessions dir -> records) the producer writes for a tree of turns: the root's
    and one per sub-agent (children on non-session ops and v2 steps have no ledger form and are left out)."""
    files: dict[str, list[dict]] = {}

    def path_of(node: dict) -> str:
        return f"session/{node['traceId']}.jsonl"

    def write(node: dict, parent: dict | None, parent_op: str | None) -> None:
        sid, origin = node["traceId"], tree["traceId"]
        seq = itertools.count(1)

        def rec(kind: str, ts: int, **fields) -> dict:
            return {"version": 3, "recordType": kind, "seq": next(seq), "ts": iso(ts), "originId": origin,
                    "sessionId": sid, **fields}

        records = [rec("session_start", node["startedAt"], agentId=node.get("agentId"), callPath=node.get("callPath"),
                       parentSessionId=parent["traceId"] if parent else None, parentOpId=parent_op, headendId="cli",
                       capturePayloads=True, attributes={"ledgerPath": path_of(node)})]
        files[path_of(node)] = records
        for turn in node.get("turns", []):
            records.append(rec("turn_start", turn["startedAt"], turn=turn["index"]))
            if "endedAt" not in turn:
                continue  # ops appear only when their turn ends
            ops = []
            warnings, errors = [], []
            for i, op in enumerate(turn["ops"]):
                usage = [llm_usage(e) for e in op["accounting"] if e.get("type") == "llm"]
                out = {"opId": op["opId"], "opIndex": i + 1, "kind": op["kind"], "status": op.get("status", "running"),
                       "startedAt": iso(op["startedAt"]), "name": op["attributes"].get("name"),
                       "provider": op["attributes"].get("provider"), "model": op["attributes"].get("model"),
                       "payloadRefs": [], "childSessions": [], "attributes": op["attributes"]}
                if "endedAt" in op:
                    out["endedAt"] = iso(op["endedAt"])
                    out["durationMs"] = op["endedAt"] - op["startedAt"]
                if usage:
                    out["accounting"] = {"tokensIn": sum(u[0] for u in usage), "tokensOut": sum(u[1] for u in usage),
                                         "tokensCacheRead": sum(u[2] for u in usage),
                                         "tokensCacheWrite": sum(u[3] for u in usage),
                                         "costUsd": sum(u[4] for u in usage)}
                child = op.get("childSession")
                if op["kind"] == "session" and isinstance(child, dict) and "turns" in child:
                    write(child, node, op["opId"])
                    out["childSessions"].append({"sessionId": child["traceId"], "originId": tree["traceId"],
                                                 "parentSessionId": sid, "parentOpId": op["opId"],
                                                 "ledgerPath": path_of(child), "status": "ok",
                                                 "agentId": child.get("agentId"), "callPath": child.get("callPath")})
                for log in op["logs"]:
                    if log["severity"] == "WRN":
                        warnings.append(log["message"])
                    elif log["severity"] == "ERR":
                        errors.append(log["message"])
                ops.append(out)
            records.append(rec("turn_end", turn["endedAt"], turn=turn["index"], status="ok", ops=ops,
                               warnings=warnings, errors=errors))
        if "endedAt" in node:
            if node.get("success") is False and node["endedAt"] % 2:
                records.append(rec("session_error", node["endedAt"], error=node.get("error", "failed")))
            else:
                records.append(rec("session_summary", node["endedAt"],
                                   status="ok" if node.get("success") else "failed",
                                   childSessions=[ref for r in records if r["recordType"] == "turn_end"
                                                  for op in r["ops"] for ref in op["childSessions"]],
                                   finalReport={"format": "json", "captured": True}))

    write(tree, None, None)
    return files


def ledger_bytes(records: list[object]) -> bytes:
    return b"".join(encode(r) + b"\n" for r in records)


@st.composite
def mutated_ledger_bytes(draw, records: list[dict]) -> bytes:
    """A ledger whose records and lines are damaged: mutated records, garbage or duplicated lines, CRLF, a last line
    cut short (a writer caught mid-append)."""
    records = list(records)
    if records and draw(st.booleans()):
        i = draw(st.integers(0, len(records) - 1))
        records[i] = draw(mutated(records[i], 3))
    lines = [encode(r) for r in records]
    for _ in range(draw(st.integers(0, 3))):
        how = draw(st.sampled_from(["garbage", "dup", "swap", "delete", "blank"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if how == "garbage":
            lines.insert(i, draw(st.sampled_from([b"{", b"[1,2]", b"null", b'"text"', b"\xff\xfe\x00", b"{}",
                                                  b'{"recordType": 7}', b"1e400", b"NaN"])))
        elif lines and how == "dup":
            lines.insert(i, lines[i])
        elif len(lines) > 1 and how == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif lines and how == "delete":
            del lines[i]
        elif how == "blank":
            lines.insert(i, draw(st.sampled_from([b"", b"   ", b"\t"])))
    sep = b"\r\n" if draw(weighted_bool(0.2)) else b"\n"
    data = b"".join(line + sep for line in lines)
    ending = draw(st.sampled_from(["complete", "complete", "no-newline", "cut"]))
    if ending == "no-newline":
        data = data.rstrip(b"\r\n")
    elif ending == "cut" and lines:
        last = lines[-1]
        data = b"".join(line + sep for line in lines[:-1]) + last[: draw(st.integers(0, max(0, len(last) - 1)))]
    return data


# live event streams --------------------------------------------------------------------------------------------

EVENT_TYPES = ("op_tree", "snapshot", "log", "accounting", "accounting_flush", "turn_started", "progress", "status",
               "output", "thinking", "final_report", "handoff")


@st.composite
def extra_event(draw, session_ids: list[str], origin: str) -> dict:
    """One event of any type from the wire protocol, for a session of the stream (not part of a replay)."""
    kind = draw(st.sampled_from(EVENT_TYPES))
    sid = draw(st.sampled_from(session_ids))
    meta = {"sessionId": sid, "originId": origin, "agentId": "a", "callPath": "a", "isMaster": sid == origin,
            "isFinal": False, "source": "test"}
    ev: dict = {"type": kind, "meta": meta}
    if kind == "log":
        ev["entry"] = draw(log_entry()) | {"timestamp": T0, "path": "1-1"}
    elif kind == "accounting":
        ev["entry"] = draw(st.one_of(llm_entry(), tool_entry())) | {"timestamp": T0}
    elif kind == "accounting_flush":
        ev["payload"] = {"sessionId": sid, "originId": origin, "timestamp": T0,
                         "entries": draw(st.lists(tool_entry(), max_size=2))}
    elif kind == "turn_started":
        ev |= {"turn": draw(st.integers(0, 9)), "attempt": 1, "isRetry": draw(st.booleans()),
               "isFinalTurn": draw(st.booleans()), "retrySlugs": ["x"]}
    elif kind in ("progress", "status"):
        ev["event"] = {"type": draw(st.sampled_from(["agent_started", "agent_update", "agent_finished", "agent_failed",
                                                     "tool_started", "tool_finished"])),
                       "callPath": "a", "agentId": "a", "agentPath": "a", "timestamp": T0,
                       "message": draw(any_text), "tool": {"name": "web__fetch", "provider": "mcp"}}
    elif kind in ("output", "thinking"):
        ev["text"] = draw(any_text)
    elif kind in ("final_report", "handoff"):
        ev["report"] = {"format": "markdown", "content": draw(any_text), "ts": T0}
    elif kind == "op_tree":
        ev["tree"] = {"id": sid, "traceId": sid, "startedAt": T0, "turns": []}
    else:
        ev["payload"] = {"reason": "subagent_finish", "sessionId": sid, "originId": origin, "timestamp": T0,
                         "snapshot": {"version": 2,
                                      "opTree": {"id": sid, "traceId": sid, "startedAt": T0, "turns": []}}}
    return ev


MALFORMED_FRAMES = (b"", b"{", b'{"type": "log"', b"not json", b"\xff\xfe\xfd", b"[]", b"null", b"42", b'"op_tree"',
                    b"{}", b'{"type": null}', b'{"type": ["log"]}', b'{"type": "nonsense", "meta": {"sessionId": "x"}}',
                    b'{"type": "log", "meta": {}}', b'{"type": "op_tree", "tree": 5}', b"1e400", b"NaN")


@st.composite
def mutated_frames(draw, events: list[dict]) -> list[bytes]:
    """Frames of a stream after loss and damage: dropped, duplicated, reordered, malformed frames, unknown types,
    wrong field types (anywhere in an event, meta included)."""
    frames: list[object] = list(events)
    for _ in range(draw(st.integers(1, 8))):
        how = draw(st.sampled_from(["drop", "dup", "swap", "malformed", "unknown", "mutate", "mutate", "truncate",
                                    "meta"]))
        if not frames:
            frames.append(draw(st.sampled_from(MALFORMED_FRAMES)))
            continue
        i = draw(st.integers(0, len(frames) - 1))
        if how == "drop":
            del frames[i]
        elif how == "dup":
            frames.insert(i, frames[i])
        elif how == "swap":
            j = draw(st.integers(0, len(frames) - 1))
            frames[i], frames[j] = frames[j], frames[i]
        elif how == "malformed":
            frames.insert(i, draw(st.one_of(st.sampled_from(MALFORMED_FRAMES), st.binary(max_size=20))))
        elif how == "unknown" and isinstance(frames[i], dict):
            frames[i] = dict(frames[i], type=draw(st.one_of(st.sampled_from(["Log", "op-tree", "", "snapshots"]),
                                                            weird_scalars)))
        elif how == "mutate" and isinstance(frames[i], dict):
            frames[i] = draw(mutated(frames[i], 2))
        elif how == "truncate":
            data = frames[i] if isinstance(frames[i], bytes) else encode(frames[i])
            frames[i] = data[: draw(st.integers(0, max(0, len(data) - 1)))]
        elif how == "meta" and isinstance(frames[i], dict):
            meta = dict(frames[i].get("meta") or {}) if isinstance(frames[i].get("meta"), dict) else {}
            key = draw(st.sampled_from(["sequence", "sessionId", "parentId", "originId"]))
            meta[key] = draw(st.one_of(weird_scalars, st.sampled_from(
                [meta.get("sessionId"), meta.get("originId"), "ghost"])))
            frames[i] = dict(frames[i], meta=meta)
    return [f if isinstance(f, bytes) else encode(f) for f in frames]
