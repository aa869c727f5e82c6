"""The lazy snapshot reader (tui.formats.aiagent.heads): the same document as the full parse, payloads decoded on
first use and only once, and the full parse for any shape it cannot take."""

from __future__ import annotations

import copy
import json
import sys

import orjson
import pytest
from helpers.builders import llm_acc, op, session, turn

from tui.demo import make_tree
from tui.formats.aiagent import heads
from tui.formats.load import _load_lazy, from_object
from tui.inputs import json_load
from tui.inputs.files import LoadError
from tui.model.insights import compute
from tui.model.logs import logs_under
from tui.model.session_dicts import export_session, session_node
from tui.text.export_markdown import render
from tui.text.summary import summarise

LONE = "@lone@"  # written as Node writes a string cut inside an emoji: a lone surrogate escape
WRONG = ["text", 7, -1.5, True, [], [1, "x"], {}, {"a": {"b": [None]}}, None, LONE, "\x1b[31m\\u0041"]


def _outputs(doc) -> bytes:
    root = doc.root
    parts = {"summary": summarise(doc), "export": export_session(root), "node": session_node(root),
             "insights": compute(root).as_dict(), "markdown": render(root, source="x")}
    return json.dumps(parts, default=repr).encode()  # json: any depth, lone surrogates


def _both(value: object, data: bytes | None = None) -> tuple[object, object]:
    data = orjson.dumps(value) if data is None else data
    lazy = _load_lazy(data, "s.json", None)
    try:
        full = from_object(json_load.loads(data), "s.json", None)
    except LoadError:
        full = None
    return lazy, full


def _same(value: object, data: bytes | None = None) -> object:
    lazy, full = _both(value, data)
    if full is None:
        assert lazy is None
    if lazy is not None:
        assert _outputs(lazy) == _outputs(full)
        assert lazy.version == full.version and lazy.shape == full.shape
    return lazy


def _file(tree: dict) -> dict:
    return {"version": 2, "reason": "final", "opTree": tree, "sessionId": "s", "originId": "o", "timestamp": 5}


def _rich() -> dict:
    child = session(turn(1, op("llm", op_id="c1", accounting=[llm_acc(5, 6, cost=0.5)])), agent="child")
    ops = [
        op("llm", op_id="a", accounting=[llm_acc(10, 20, cache_read=3, cost=0.25)], provider="p", model="m",
           logs=[{"severity": "WRN", "message": "w", "timestamp": 1500}, {"severity": "ERR", "message": "e"}]),
        op("tool", op_id="b", name="grep", accounting=[{"type": "tool", "charactersIn": 5, "charactersOut": 9}]),
        op("session", op_id="c", name="agent__child", child=child),
        op("system", op_id="d", status="failed", label="init", error="boom"),
    ]
    ops[0]["request"] = {"size": 12, "payload": {"messages": [{"role": "user", "content": "q \\\" \n \u2028"}]}}
    ops[0]["response"] = {"size": 34, "truncated": True, "payload": {"text": "x" * 5000}}
    ops[0]["reasoning"] = "thinking"
    return _file(session(turn(0, ops[3], system=True), turn(1, *ops[:3]), pluginMetas={"a": 1},
                         finalReport={"format": "markdown", "content": "done"}))


def test_generated_sessions_read_the_same() -> None:
    for seed in range(3):
        tree = make_tree(seed, ops=300, depth=2, payload_bytes=300, capture_rate=0.5)
        assert _same(_file(tree)) is not None


def test_a_rich_session_reads_the_same_and_its_payloads_on_demand() -> None:
    assert _same(_rich()) is not None
    doc = _load_lazy(orjson.dumps(_rich()), "s.json", None)
    a = doc.root.turns[1].ops[0]
    assert a._raw is None and a._source is not None  # nothing decoded yet
    assert a.raw["response"]["payload"]["text"] == "x" * 5000


def test_a_payload_is_decoded_at_most_once(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _load_lazy(orjson.dumps(_rich()), "s.json", None)
    decoded: list[int] = []
    for cls in (heads.OpSource, heads.SessionSource):
        real = cls.load
        monkeypatch.setattr(cls, "load", lambda self, real=real: decoded.append(id(self)) or real(self))
    ops = [*doc.root.all_ops(), *doc.root.turns[1].ops[2].child.all_ops()]
    assert decoded == []
    for _ in range(3):
        for o in ops:
            assert isinstance(o.raw, dict)
        render(doc.root)
        export_session(doc.root)
        compute(doc.root)
    assert len(decoded) == len(set(decoded)) == len(ops)  # each op once; the sessions' own fields never


def test_the_child_op_keeps_every_field_but_its_sub_agent() -> None:
    doc = _load_lazy(orjson.dumps(_rich()), "s.json", None)
    c = doc.root.turns[1].ops[2]
    assert c.child is not None and "childSession" not in c.raw and c.raw["opId"] == "c"


@pytest.mark.parametrize("where", ["envelope", "session", "turn", "op", "log", "accounting", "request", "attrs"])
def test_wrong_types_in_every_field_read_as_the_full_parse_does(where: str) -> None:
    base = _rich()
    targets = {"envelope": lambda v: v, "session": lambda v: v["opTree"],
               "turn": lambda v: v["opTree"]["turns"][1], "op": lambda v: v["opTree"]["turns"][1]["ops"][0],
               "log": lambda v: v["opTree"]["turns"][1]["ops"][0]["logs"][0],
               "accounting": lambda v: v["opTree"]["turns"][1]["ops"][0]["accounting"][0],
               "request": lambda v: v["opTree"]["turns"][1]["ops"][0]["request"],
               "attrs": lambda v: v["opTree"]["turns"][1]["ops"][0]["attributes"]}
    keys = sorted({*targets[where](base), "childSession", "turns", "steps", "ops", "tokens", "size", "severity"})
    for key in keys:
        for wrong in WRONG:
            value = copy.deepcopy(base)
            target = targets[where](value)
            target[key] = wrong
            _same(value, orjson.dumps(value).replace(b'"@lone@"', b'"\\ud83d"').replace(b'"@big@"', b"1180591620717411303424"))


def test_odd_items_fall_back_to_the_full_parse() -> None:
    for value in (_file(session(turn(1, "not an op"))), _file(session("not a turn")),
                  _file(session(turn(1, op("llm", logs=["odd log"])))), _file("tree"), {"opTree": []},
                  {"recordType": "x", "opTree": {}}, [1, 2], {"snapshot": {"opTree": session()}}):
        lazy, full = _both(value) if isinstance(value, dict) and isinstance(value.get("opTree"), dict) else (
            _load_lazy(orjson.dumps(value), "s", None), None)
        if isinstance(value, dict) and isinstance(value.get("opTree"), dict) and "recordType" not in value:
            assert lazy is None or _outputs(lazy) == _outputs(full)
        else:
            assert lazy is None


@pytest.fixture
def deep_recursion():
    """json.dumps needs a higher recursion limit; it is put back after (orjson reads deeper with a higher one,
    which other tests pin)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    yield
    sys.setrecursionlimit(before)


def test_hostile_strings_escapes_and_depth(deep_recursion) -> None:
    # the readers recurse not at all (orjson, msgspec: in C)
    deep: object = "leaf"
    for _ in range(100):
        deep = {"d": [deep]}
    tree = session(turn(1, op("llm", op_id="\u202e\x1b[31m", accounting=[llm_acc(1, 1)], name="n\\u0000\"\t",
                              deep=deep, huge="y" * 2_000_000)))
    _same(_file(tree))
    nested = session(agent="leaf")
    for depth in range(200):
        nested = session(turn(1, op("session", op_id=f"s{depth}", child=nested)), agent=f"a{depth}")
    data = json.dumps(_file(nested)).encode()  # deeper than orjson writes (it reads up to 1,024 levels)
    assert _same(None, data).root.max_depth == 200


def test_a_lone_surrogate_reads_as_the_full_parse_reads_it() -> None:
    data = orjson.dumps(_rich()).replace(b'"thinking"', b'"think\\ud83d"').replace(b'"grep"', b'"gr\\ud83dep"')
    lazy, full = _both(None, data)
    assert lazy is None or _outputs(lazy) == _outputs(full)
    assert full.root.turns[1].ops[1].name == "gr\ufffdep"


def test_bad_utf8_in_a_field_it_reads_falls_back() -> None:
    data = orjson.dumps(_rich()).replace(b'"grep"', b'"gr\xff\xfep"')
    assert _load_lazy(data, "s.json", None) is None


def test_the_logs_of_a_big_node_are_sorted_and_counted_without_decoding_its_ops() -> None:
    data = orjson.dumps(_rich())
    lazy, full = _load_lazy(data, "s.json", None), from_object(json_load.loads(data), "s.json", None)
    view, expected = logs_under(lazy.root), logs_under(full.root)
    assert view.severity_counts() == expected.severity_counts()
    assert all(op._raw is None for op in lazy.root.all_ops())
    first = view[0]
    assert (first.ts, first.severity, first.message, first.path) == (expected[0].ts, expected[0].severity,
                                                                     expected[0].message, expected[0].path)
    assert isinstance(first.raw, dict)
    assert sum(op._raw is not None for op in lazy.root.all_ops()) == 1  # the drawn entry's op, and only it
    assert [(e.ts, e.severity, e.message, e.path) for e in view] == [(e.ts, e.severity, e.message, e.path)
                                                                      for e in expected]


def test_the_tree_as_opened_is_decoded_only_when_asked() -> None:
    doc = _load_lazy(orjson.dumps(_rich()), "s.json", None)
    later = doc.root.raw_later()
    assert doc.root._raw is None and doc.root._source is not None
    assert later() == orjson.loads(orjson.dumps(_rich()))["opTree"]
    assert doc.root._raw is None  # the call decoded a copy for its caller, the session keeps its bytes only
