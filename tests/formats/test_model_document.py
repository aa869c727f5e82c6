"""Every input shape the producer writes opens into the same normalised tree."""

import gzip
import io
import sys

import orjson
import pytest

from helpers.builders import llm_acc, op, session, turn, write
from tui.formats.load import load
from tui.inputs.files import LoadError
from tui.model.document import LEDGER, SNAPSHOT
from tui.text.summary import summarise


def tree():
    child = session(turn(1, op("llm", accounting=[llm_acc(10, 5, cost=0.001)]), op("tool", status="failed")),
                    agent="child", trace="trace-c")
    return session(
        turn(0, op("system", label="init"), system=True),
        turn(1, op("llm", accounting=[llm_acc(100, 20, cache_read=7, cache_write=3, cost=0.01)]),
             op("session", child=child, name="agent__child")),
    )


@pytest.mark.parametrize("gz", [True, False])
@pytest.mark.parametrize("shape", ["v1", "v2", "envelope", "bare"])
def test_every_snapshot_shape_gives_the_same_summary(tmp_path, shape, gz):
    t = tree()
    value = {
        "v1": {"version": 1, "reason": "final", "opTree": t},
        "v2": {"version": 2, "reason": "final", "opTree": t, "sessionId": "s", "originId": "o", "timestamp": 9},
        "envelope": {"reason": "final", "sessionId": "s", "originId": "o", "timestamp": 9,
                     "snapshot": {"version": 2, "opTree": t}},
        "bare": t,
    }[shape]
    doc = load(str(write(tmp_path / ("x.json.gz" if gz else "x.json"), value, gz=gz)))
    assert doc.format == SNAPSHOT
    out = summarise(doc)
    # turns: the root's user turns (one meaning everywhere); turnNodes: every turn record in the tree
    assert out["counts"] == {"sessions": 2, "turns": 1, "steps": 0, "ops": 5, "llm": 2, "tool": 1, "session": 1,
                             "system": 1, "failed": 1, "logs": 0, "warnings": 0, "errors": 0, "turnNodes": 3}
    assert out["totals"] == {"tokensIn": 110, "tokensOut": 25, "tokensCacheRead": 7, "tokensCacheWrite": 3,
                             "costUsd": 0.011, "toolsRun": 1, "agentsRun": 2}
    assert out["maxDepth"] == 1
    assert out["root"]["traceId"] == "trace-1"
    if shape in ("envelope", "v2"):
        assert doc.origin_id == "o" and doc.reason == "final"


def test_stdin(monkeypatch):
    data = gzip.compress(orjson.dumps({"version": 1, "opTree": tree()}))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    doc = load("-")
    assert doc.root is not None and doc.root.counts.sessions == 2


def test_ledger_detected_by_content(tmp_path):
    (tmp_path / "session").mkdir()
    p = tmp_path / "session" / "a.jsonl"
    p.write_bytes(b'{"version":3,"recordType":"session_start","seq":1,"ts":"2026-01-01T00:00:00Z","sessionId":"a",'
                  b'"originId":"a","agentId":"x"}\n')
    doc = load(str(p))
    assert doc.format == LEDGER and doc.root.agent_id == "x" and doc.sessions_dir == tmp_path.resolve()


def test_accounting_jsonl(tmp_path):
    p = tmp_path / "accounting.jsonl"
    lines = [
        llm_acc(10, 2, cached=4, cost=0.5) | {"txnId": "a", "originTxnId": "a"},
        llm_acc(1, 1, cost=0.25) | {"txnId": "b", "originTxnId": "a", "status": "failed"},
        {"type": "tool", "mcpServer": "web", "status": "ok", "txnId": "b", "originTxnId": "a"},
    ]
    p.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    out = summarise(load(str(p)))
    assert out["format"] == "aiagent-accounting" and out["root"] is None
    assert out["totals"] == {"tokensIn": 11, "tokensOut": 3, "tokensCacheRead": 4, "tokensCacheWrite": 0,
                             "costUsd": 0.75, "toolsRun": 1, "agentsRun": 2}
    assert out["counts"]["llm"] == 2 and out["counts"]["tool"] == 1 and out["counts"]["failed"] == 1


@pytest.mark.parametrize(
    "content, reason",
    [
        (None, "no such file"),
        (b"", "empty file"),
        (gzip.compress(b'{"opTree": {"turns": []}}' * 50, mtime=0)[:30], "truncated gzip"),
        (b"\x1f\x8b\x08\x00garbage-garbage", "corrupt gzip"),
        (b"hello world", "not JSON"),
        (b'{"opTree": {"turns": [', "ends early"),
        (b"[1, 2, 3]", "top level is array"),
        (b'{"opTree": [1]}', "opTree is array"),
        (b'{"foo": 1}', "not an ai-agent snapshot"),
        (b'{"snapshot": {"version": 1}}', "envelope has no snapshot.opTree"),
    ],
)
def test_broken_files_give_one_clear_reason(tmp_path, content, reason):
    p = tmp_path / "broken.json.gz"
    if content is not None:
        p.write_bytes(content)
    with pytest.raises(LoadError) as info:
        load(str(p))
    assert reason in str(info.value)
    assert str(p) in str(info.value)
    assert "\n" not in str(info.value)


def test_gzip_bomb_is_capped(tmp_path):
    p = tmp_path / "bomb.json.gz"
    p.write_bytes(gzip.compress(b" " * (8 * 1024 * 1024)))
    with pytest.raises(LoadError, match="limit"):
        load(str(p), max_bytes=1024 * 1024)


def test_wrong_types_become_broken_nodes(tmp_path):
    t = session(turn(1, op("llm"), "not an op", op("tool", accounting="oops"), {"kind": 7}), "not a turn")
    t["turns"].append({"index": 2, "ops": {"a": 1}})
    t["totals"] = [1, 2]
    doc = load(str(write(tmp_path / "w.json.gz", {"opTree": t})))
    root = doc.root
    assert root.counts.ops == 4 and root.counts.turns == 3
    ops = root.turns[0].ops
    assert ops[1].problems == ["op is string, expected an object"]
    assert ops[2].problems == ["accounting is string, expected an array"] and ops[2].kind == "tool"
    assert ops[3].problems and ops[3].kind == "?"
    assert root.turns[1].problems == ["turn 1 is string, expected an object"]
    assert root.turns[2].problems == ["ops is object, expected an array"]
    assert "totals is array" in root.problems[0]
    assert summarise(doc)["storedTotals"] is None


def test_running_session(tmp_path):
    t = session(turn(1, op("llm", status=None, ended=None)), ended=None, success=None)
    root = load(str(write(tmp_path / "r.json.gz", {"opTree": t}))).root
    assert root.status == "running" and root.turns[0].ops[0].running


def test_child_session_ref_is_a_named_node_not_a_recursion(tmp_path):
    o = op("session", name="agent__far")
    o["childSessionRef"] = {"sessionId": "elsewhere", "agentId": "far"}
    root = load(str(write(tmp_path / "r.json.gz", {"opTree": session(turn(1, o))}))).root
    only = root.turns[0].ops[0]
    assert only.child is None and only.child_agent == "far" and root.counts.sessions == 1
