"""find_captures / capture_for_ref / captures_from_payload_refs over every payload shape seen or specified."""

from __future__ import annotations

import base64

import pytest

from tui.payloads.captures import Capture, capture_for_ref, captures_from_payload_refs, find_captures


def b64(s: str | bytes) -> str:
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


REQ_BODY = '{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}'
REF = {
    "path": "payloads/s1/turn-0001/llm-0001-request.http.gz",
    "format": "http",
    "compression": "gzip",
    "originalBytes": 812,
    "compressedBytes": 400,
    "sha256": "ab" * 32,
    "captured": True,
    "truncated": False,
    "redacted": False,
}


def llm_op(req_payload=None, resp_payload=None, **extra) -> dict:
    op = {"opId": "op-1", "kind": "llm", "attributes": {"provider": "anthropic", "model": "claude-sonnet-4-5"}}
    if req_payload is not None:
        op["request"] = {"kind": "llm", "payload": req_payload, "size": 812}
    if resp_payload is not None:
        op["response"] = {"payload": resp_payload, "size": 2048, "truncated": False}
    op.update(extra)
    return op


def test_raw_object_real_file_shape():
    op = llm_op(
        {"messages": 2, "bytes": 812, "isFinalTurn": False,
         "raw": {"format": "http", "encoding": "base64", "value": b64(REQ_BODY)},
         "sdk": {"format": "json", "encoding": "base64", "value": b64('{"sdk":1}')}},
        {"raw": {"format": "sse", "encoding": "base64", "value": b64("event: ping\ndata: {}\n\n")}},
    )
    caps = find_captures(op)
    assert [(c.side, c.source, c.format, c.state) for c in caps] == [
        ("request", "raw", "http", "inline"),
        ("request", "sdk", "json", "inline"),
        ("request", "payload", "json", "plain"),
        ("response", "raw", "sse", "inline"),
    ]
    assert caps[0].value == b64(REQ_BODY) and caps[0].encoding == "base64"
    assert caps[0].size == 812 and caps[3].size == 2048
    assert caps[2].plain == {"messages": 2, "bytes": 812, "isFinalTurn": False}


def test_raw_plain_base64_string_seed_shape():
    caps = find_captures(llm_op({"raw": b64(REQ_BODY), "sdk": b64("{}")}))
    assert [(c.source, c.format, c.state) for c in caps] == [("raw", "", "inline"), ("sdk", "", "inline")]
    assert caps[0].value == b64(REQ_BODY)


def test_raw_unavailable_is_capture_bug():
    caps = find_captures(llm_op({"raw": "[unavailable]", "messages": 3}))
    assert caps[0].state == "unavailable"
    assert "capture bug" in caps[0].note and "[unavailable]" in caps[0].note
    assert caps[1].state == "plain" and caps[1].plain == {"messages": 3}


def test_raw_value_unavailable():
    caps = find_captures(llm_op(None, {"raw": {"format": "sse", "encoding": "base64", "value": "[unavailable]"}}))
    assert len(caps) == 1
    c = caps[0]
    assert (c.side, c.source, c.format, c.state) == ("response", "raw", "sse", "unavailable")
    assert "capture bug" in c.note


def test_raw_with_ref_inside():
    caps = find_captures(llm_op({"raw": {"format": "http", "ref": dict(REF, format=None)}}))
    assert len(caps) == 1
    c = caps[0]
    assert (c.source, c.state, c.format) == ("raw", "ref", "http")
    assert c.ref["path"] == REF["path"] and c.size == 812


def test_payload_ref_for_raw():
    caps = find_captures(llm_op({"messages": 1, "ref": REF}))
    assert [(c.source, c.state, c.format) for c in caps] == [("raw", "ref", "http"), ("payload", "plain", "json")]
    assert caps[0].ref is REF and caps[1].plain == {"messages": 1}


def test_payload_ref_with_header_only_raw_merges():
    caps = find_captures(llm_op({"raw": {"format": "sse"}, "ref": dict(REF, format=None)}))
    assert [(c.source, c.state, c.format) for c in caps] == [("raw", "ref", "sse")]


def test_payload_ref_captured_false():
    caps = find_captures(llm_op(None, {"ref": {"format": "sse", "captured": False}}))
    assert len(caps) == 1
    c = caps[0]
    assert (c.side, c.source, c.state) == ("response", "raw", "not_captured")
    assert "captured: false" in c.note


def test_sdk_ref():
    caps = find_captures(llm_op(None, {"sdk": {"format": "json", "ref": dict(REF, format="json", truncated=True)}}))
    c = caps[0]
    assert (c.source, c.state, c.format, c.truncated) == ("sdk", "ref", "json", True)
    assert "truncated" in c.note


def test_text_encodings_kept_as_text():
    for enc in ("utf8", "utf-8", "text", "none", "UTF-8"):
        c = find_captures(llm_op({"raw": {"format": "json", "encoding": enc, "value": REQ_BODY}}))[0]
        assert (c.state, c.encoding, c.value) == ("inline", "text", REQ_BODY)


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (["a", "b"], "raw has wrong type list"),
        (42, "raw has wrong type int"),
        ({"format": "http", "encoding": "base64", "value": 12}, "raw.value has wrong type int"),
        ({"format": "http", "encoding": 5, "value": "QQ=="}, "raw.encoding has wrong type int"),
        ({"format": "http", "encoding": "rot13", "value": "QQ=="}, "not supported"),
        ({"format": "http", "encoding": "base64"}, "raw has no value"),
        ({"format": "http", "ref": "payloads/x.gz"}, "raw ref has wrong type str"),
        ({"format": "http", "ref": {"compression": "gzip"}}, "raw ref has no path"),
        ({"format": "http", "ref": {"path": 7}}, "ref.path has wrong type int"),
    ],
)
def test_wrong_types_become_invalid(raw, fragment):
    caps = find_captures(llm_op({"raw": raw}))
    assert caps[0].state == "invalid"
    assert fragment in caps[0].note


def test_wrong_format_type_is_noted_but_decodable():
    c = find_captures(llm_op({"raw": {"format": ["http"], "encoding": "base64", "value": "QQ=="}}))[0]
    assert (c.state, c.format) == ("inline", "")
    assert "raw.format has wrong type list" in c.note


@pytest.mark.parametrize("op", [None, "op", 3, [], ["request"], True])
def test_op_not_a_dict(op):
    assert find_captures(op) == []


def test_side_wrong_type_and_missing_payload():
    caps = find_captures({"kind": "llm", "request": "oops", "response": {"size": 3}})
    assert len(caps) == 1
    assert (caps[0].side, caps[0].state) == ("request", "invalid")
    assert "request has wrong type str" in caps[0].note
    assert find_captures({"kind": "llm", "request": {"payload": None}, "response": None}) == []


def test_payload_wrong_types_never_raise():
    weird = [0, 1.5, True, [], [1, 2], {"raw": None}, {"raw": {}}, {"sdk": []}, {"ref": 3}, {"ref": {}}]
    for p in weird:
        for c in find_captures({"kind": "llm", "request": {"payload": p, "size": "big"}, "response": {"payload": p}}):
            assert isinstance(c, Capture)
            assert c.size is None or isinstance(c.size, int)


def test_tool_payloads_are_plain():
    op = {
        "kind": "tool",
        "attributes": {"name": "web_search"},
        "request": {"kind": "tool", "payload": {"query": "ai agents", "max_results": 5}, "size": 40},
        "response": {"payload": "1. Result one\n2. Result two", "size": 26, "truncated": True},
    }
    caps = find_captures(op)
    assert [(c.side, c.source, c.format, c.state) for c in caps] == [
        ("request", "payload", "json", "plain"),
        ("response", "payload", "text", "plain"),
    ]
    assert caps[0].plain == {"query": "ai agents", "max_results": 5}
    assert caps[1].plain == "1. Result one\n2. Result two" and caps[1].truncated


def test_tool_param_named_raw_is_not_a_capture():
    op = {"kind": "tool", "request": {"payload": {"raw": "not base64!", "ref": "main"}}}
    caps = find_captures(op)
    assert [(c.source, c.state) for c in caps] == [("payload", "plain")]
    assert caps[0].plain == {"raw": "not base64!", "ref": "main"}


def test_tool_payload_with_real_capture():
    op = {"kind": "tool", "request": {"payload": {"raw": {"format": "jsonrpc", "encoding": "base64",
                                                        "value": b64('{"jsonrpc":"2.0"}')}}}}
    caps = find_captures(op)
    assert [(c.source, c.format, c.state) for c in caps] == [("raw", "jsonrpc", "inline")]


def test_list_payload_is_plain_json():
    caps = find_captures({"kind": "tool", "response": {"payload": [{"type": "text", "text": "ok"}]}})
    assert [(c.format, c.state) for c in caps] == [("json", "plain")]


def test_capture_for_ref_variants():
    c = capture_for_ref(REF, "request", "raw")
    assert (c.state, c.format, c.size, c.note) == ("ref", "http", 812, "")
    c = capture_for_ref(dict(REF, redacted=True), "request", "raw")
    assert "redacted" in c.note
    c = capture_for_ref({"captured": False, "format": "json"}, "request", "sdk")
    assert (c.state, c.format) == ("not_captured", "json")
    c = capture_for_ref("payloads/x", "request", "raw")  # type: ignore[arg-type]
    assert c.state == "invalid" and "wrong type str" in c.note
    c = capture_for_ref(dict(REF, format="protobuf"), "request", "raw")
    assert c.format == "" and "protobuf" in c.note


def test_captures_from_payload_refs_kinds():
    def pref(kind, fmt, **kw):
        return {"kind": kind, "opId": "op-1", "turn": 1, "opIndex": 1, "format": fmt, "compression": "gzip",
                "path": f"payloads/s/turn-0001/{kind}.gz", "captured": True, **kw}

    refs = [
        pref("reasoning_stream", "text"),
        pref("llm_response", "sse"),
        pref("sdk_response", "json"),
        pref("sdk_request", "json", captured=False),
        pref("llm_request", "http"),
    ]
    caps = captures_from_payload_refs(refs)
    assert [(c.side, c.source, c.format, c.state) for c in caps] == [
        ("request", "raw", "http", "ref"),
        ("request", "sdk", "json", "not_captured"),
        ("response", "raw", "sse", "ref"),
        ("response", "sdk", "json", "ref"),
        ("response", "reasoning", "text", "ref"),
    ]
    tool = captures_from_payload_refs([pref("tool_response", "text"), pref("tool_request", "json")])
    assert [(c.side, c.source) for c in tool] == [("request", "raw"), ("response", "raw")]


def test_captures_from_payload_refs_malformed():
    assert captures_from_payload_refs(None) == []  # type: ignore[arg-type]
    assert captures_from_payload_refs({"kind": "llm_request"}) == []  # type: ignore[arg-type]
    caps = captures_from_payload_refs(["x", {"kind": "blob_request", "path": "p.gz"}, {"kind": 3}])
    assert len(caps) == 3
    assert any(c.state == "invalid" and "payloadRefs[0]" in c.note for c in caps)
    unknown = [c for c in caps if "unknown payloadRef kind 'blob_request'" in c.note]
    assert unknown and unknown[0].side == "request" and unknown[0].state == "ref"
