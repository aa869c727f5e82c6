"""The live thread parses a big tree frame while the UI thread keeps running (issue 29, point 1: no stall over
100 ms during a replay). orjson held the interpreter for a whole 52 MB frame (0.16-0.45 s by machine): the UI froze
that long. `json_load.loads_sharing` parses such a document with the standard library's parser and Python hooks,
where another thread can take the interpreter at each object, and must read every document as `loads` does."""

from __future__ import annotations

import sys

import orjson
import pytest

from tui.formats.aiagent.live.hub import LiveHub
from tui.inputs import json_load
from tui.inputs.json_load import loads, loads_sharing

AWKWARD = [  # each: a document both parsers could read differently; loads_sharing must answer as loads does
    b'{"n": 18446744073709551616, "m": -9223372036854775809, "k": 18446744073709551615}',  # past 64 bits: floats
    b'{"big": 1e999}', b'[-1E400]',  # an overflowing float: refused
    b'{"x": NaN}', b'[Infinity]', b'[-Infinity]',  # not JSON
    b'{"cut": "a \\ud83d", "pair": "\\ud83d\\ude00"}',  # a lone surrogate (U+FFFD) and a pair (the emoji)
    b'{"bad": "\xff\xfe"}', b'{"half": "\xe2\x82"}',  # not UTF-8
    b'\xef\xbb\xbf{"bom": 1}',  # a byte order mark
    b'{"a": 1, "a": 2}', b'[1, 2,]', b'{"ctl": "a\x01b"}', b'{"t": true, "f": false, "n": null, "e": 1.5e-7}',
    b'[' * 3000 + b']' * 3000,  # deeper than either parser goes
    b'{"unicode": "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \\u00e9 \\n \\"q\\""}',
    b'{"ends": 1} trailing', b'{"ends": 1}\xe2\x82',  # after the document: text, or a character cut short
]


def answer(parse, data):
    try:
        return "value", parse(data)
    except orjson.JSONDecodeError:
        return "error", None


@pytest.mark.parametrize("data", AWKWARD, ids=range(len(AWKWARD)))
def test_every_document_reads_as_loads_reads_it(monkeypatch, data):
    monkeypatch.setattr(json_load, "SHARE_BYTES", 0)  # the sharing parser for documents of any size
    for doc in (data, data.decode("utf-8", "surrogateescape")):
        if isinstance(doc, str) and any("\udc80" <= c <= "\udcff" for c in doc):
            continue  # (bytes that are not UTF-8 have no text form to test)
        want, got = answer(loads, doc), answer(loads_sharing, doc)
        assert got == want
        if want[0] == "value":
            assert type(got[1]) is type(want[1])
            assert orjson.dumps(got[1]) == orjson.dumps(want[1])  # floats stay floats, ints ints


def counting_calls(run, code=None):
    """run() and the Python function calls made meanwhile (of `code` only, when given): the points where another
    thread may take the interpreter."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event == "call" and (code is None or frame.f_code is code):
            calls += 1

    sys.setprofile(count)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return result, calls


def test_a_big_document_runs_python_code_at_each_object_where_another_thread_may_take_over():
    """The mechanism, counted instead of timed: orjson calls no Python code while it parses, so no other thread
    runs until it is done; the sharing parse calls its hook once per object at least (each call is a point where
    the interpreter switches threads)."""
    objects = 40_000
    doc = orjson.dumps({"turns": [{"id": i, "text": "x" * 200, "n": {"k": 1.5}} for i in range(objects // 2)]})
    assert len(doc) >= json_load.SHARE_BYTES
    got, calls = counting_calls(lambda: loads_sharing(doc))
    assert got == orjson.loads(doc)
    assert calls >= objects


def test_the_hubs_big_tree_frame_goes_through_the_sharing_parse(monkeypatch):
    """The hub parses a deferred tree frame (the biggest frames: whole trees) with the sharing parser when its
    session is built: its hook runs once per object of the tree, and the tree is the frame's."""
    from helpers.builders import op, session, turn

    tree = session(turn(1, *(op("tool", op_id=f"o{i}") for i in range(300))))
    frame = orjson.dumps({"type": "op_tree", "tree": tree, "meta": {"sessionId": "root", "originId": "root",
                                                                    "sequence": 1}})
    assert len(frame) >= 20_000
    hub = LiveHub()
    hub.feed(frame)
    monkeypatch.setattr(json_load, "SHARE_BYTES", 10_000)
    built, hooks = counting_calls(lambda: hub.build("root"), json_load._object.__code__)
    assert built.counts.ops == 300
    assert hooks >= 300
