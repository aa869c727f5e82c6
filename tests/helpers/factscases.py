"""Files for the tests of the facts reader (tui.formats.aiagent.facts) and the index rows read with it
(tui.catalog.index.facts_fill): every kind of file the tests know (the hostile corpus, generated sessions of every
shape, hand-made trees for the rules a generated one never exercises, and each of them with a wrong type in a
field), so that "facts == the tree" is checked where the two could part."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
from helpers.builders import llm_acc, op, session, turn, write
from helpers.corpus import build_corpus

from tui.demo import make_tree, write_snapshot

# values of the wrong type for a field (a lone surrogate and a huge number are written into the bytes)
WRONG = ["text", 7, -1.5, True, [], [1, "x"], {}, None, "@lone@", "@big@", 1e300]


def envelope(tree: object) -> dict:
    return {"version": 2, "reason": "final", "opTree": tree, "sessionId": "s", "originId": "o", "timestamp": 5}


def file_bytes(value: object) -> bytes:
    return orjson.dumps(value).replace(b'"@lone@"', b'"\\ud83d"').replace(b'"@big@"', b"1180591620717411303424")


def rich() -> dict:
    """A snapshot with one of each: own and nested models, cache tokens, tool chars, a counted sub-agent, one under
    a tool op (shown, not counted), a failed op with an error, logs with a headendId, prompts, v2 steps."""
    nested_tool_child = session(turn(1, op("llm", op_id="n1", accounting=[llm_acc(7, 8, cost=0.3)], model="m-tool"),
                                     op("tool", op_id="n2", name="inner-tool")), agent="under-a-tool")
    grandchild = session(turn(1, op("llm", op_id="g1", accounting=[llm_acc(1, 2, cost=0.1)], model="m-deep",
                                    status="failed", error="deep\nerror")), agent="grandchild")
    child = session(turn(1, op("llm", op_id="c1", accounting=[llm_acc(5, 6, cached=2, cost=0.5)], model="m-child",
                               logs=[{"severity": "ERR", "message": "x", "headendId": "nested-headend"}]),
                         op("session", op_id="c2", name="agent__grand", child=grandchild)), agent="child",
                    totals={"tokensIn": 6, "costUsd": 0.6})
    ops = [
        op("llm", op_id="a", accounting=[llm_acc(10, 20, cache_read=3, cache_write=4, cost=0.25),
                                         llm_acc(1, 1, cost=0.1)], provider="p", model="m-own",
           logs=[{"severity": "WRN", "message": "w", "timestamp": 1500},
                 {"severity": "ERR", "message": "e", "headendId": "slack"}]),
        op("tool", op_id="b", name="grep\nlines", accounting=[{"type": "tool", "charactersIn": 5, "charactersOut": 9}]),
        op("session", op_id="c", name="agent__child", child=child, started=900, ended=9000),
        op("tool", op_id="t", name="run-agent", child=nested_tool_child, status="failed"),
        op("llm", op_id="e", model="m-own", accounting=[{"type": "llm", "costUsd": 0.1}], error="attr error"),
    ]
    ops[0]["request"] = {"size": 12, "payload": {"messages": [{"role": "user", "content": "q"}]}}
    ops[0]["response"] = {"size": 34, "payload": {"text": "x" * 500}}
    first = turn(1, *ops)
    first["attributes"]["prompts"] = {"user": "  the first\nprompt  " + "p" * 9000, "system": "sys"}
    # the turns' answers (ai-agent's endTurn: attributes.assistant.content), the root's and a sub-agent's
    first["attributes"]["assistant"] = {"content": "the root turn answers wombatturn"}
    child["turns"][0].setdefault("attributes", {})["assistant"] = {"content": "the child turn answers koalaturn"}
    system = turn(0, op("system", op_id="d", status="failed", label="init", error="boom"), system=True)
    system["attributes"]["prompts"] = {"user": "a system turn's prompt is not the title"}
    steps = [{"index": 1, "kind": "user", "ops": [op("llm", op_id="s1", model="m-step",
                                                     accounting=[llm_acc(2, 2, cost=0.05)])]},
             {"index": 2, "kind": "assistant", "label": "step", "ops": []}]
    return envelope(session(system, first, steps=steps, pluginMetas={"a": 1},
                            totals={"tokensIn": 9, "costUsd": 1.0, "toolsRun": 2}, error="root failed",
                            success=False, finalReport={"format": "markdown", "content": "done"}))


def _targets(value: dict) -> dict:
    tree = value["opTree"]
    first = tree["turns"][1]
    return {"session": tree, "turn": first, "step": tree["steps"][0], "op": first["ops"][0],
            "attrs": first["ops"][0]["attributes"], "accounting": first["ops"][0]["accounting"][0],
            "tokens": first["ops"][0]["accounting"][0]["tokens"], "log": first["ops"][0]["logs"][1],
            "child": first["ops"][2]["childSession"], "child turn": first["ops"][2]["childSession"]["turns"][0],
            "child op": first["ops"][2]["childSession"]["turns"][0]["ops"][0]}


def wrong_type_variants() -> list[tuple[str, bytes]]:
    """(what, the file's bytes) for rich() with each field the readers look at set to each wrong value.

    The field is set in one tree, its bytes written, and put back as it was (or taken out, where rich() has no such
    field): the bytes a fresh copy per variant gave, without 1,584 deep copies."""
    out = []
    base = rich()
    for where, target in _targets(base).items():
        keys = sorted({*target, "childSession", "childSessionRef", "turns", "steps", "ops", "severity", "size"})
        for key in keys:
            had, before = key in target, target.get(key)
            for wrong in WRONG:
                target[key] = wrong
                out.append((f"{where}.{key}={wrong!r}", file_bytes(base)))
            if had:
                target[key] = before
            else:
                del target[key]
    return out


# tokens and a cost that are not numbers in an entry that is not an llm one: the tree does not read them, the
# facts reader (which takes every entry's as numbers) leaves such a file to the tree
ODD_TOOL_USAGE = [{"tokens": {"inputTokens": "12"}}, {"tokens": [1]}, {"costUsd": "0.1"}, {"costUsd": True}]


# a byte that is not UTF-8 in a field the facts reader skips but the tree's reader decodes (the tree: a broken row)
BAD_UTF8_OP_ID = b'{"opTree": {"turns": [{"ops": [{"opId": "a\xff", "kind": "llm"}]}]}}'


def deep(levels: int) -> bytes:
    """A root with sub-agents nested `levels` deep (each with one LLM call), written without recursion."""
    head, tail = [], []
    for depth in range(levels):
        node = session(turn(1, op("llm", op_id=f"l{depth}", accounting=[llm_acc(1, 1, cost=0.01)], model="m"),
                            op("session", op_id=f"s{depth}", child={})), agent=f"a{depth}")
        text = json.dumps(node)
        cut = text.index('"childSession": {}') + len('"childSession": ')
        head.append(text[:cut])
        tail.append(text[cut + 2:])
    leaf = json.dumps(session(agent="leaf"))
    return json.dumps(envelope(None)).replace("null", "".join(head) + leaf + "".join(reversed(tail))).encode()


def write_all(directory: Path) -> list[Path]:
    """Fill `directory` with every case: the corpus (snapshots, ledgers, broken files), generated sessions, the
    hand-made ones; the snapshot files' paths (the corpus' ledgers are found by a scan)."""
    build_corpus(directory, bomb_bytes=1, payload_bomb_bytes=1)
    paths = []
    for seed in range(12):
        tree = make_tree(seed, ops=200, depth=seed % 4, payload_bytes=100, capture_rate=0.3, running=seed % 5 == 1,
                         failed=seed % 7 == 2, mismatch=seed % 3 == 0, version=1 + seed % 2, hostile_rate=0.2)
        shape = "file" if seed % 4 else ["envelope", "bare", "file"][seed // 4]
        paths.append(write_snapshot(directory, tree, version=1 + seed % 2, name=f"gen{seed}.json.gz", shape=shape))
    paths.append(write(directory / "rich.json.gz", rich()))
    ref = rich()
    ref["opTree"]["turns"][1]["ops"].append({**op("session", op_id="r"), "childSessionRef": {"ledgerPath": "x.jsonl"}})
    paths.append(write(directory / "child-ref.json.gz", ref))
    for position, usage in enumerate(ODD_TOOL_USAGE):  # the facts reader leaves these to the tree: same row
        odd = rich()
        odd["opTree"]["turns"][1]["ops"][1]["accounting"][0].update(usage)
        paths.append(write(directory / f"odd-tool-usage-{position}.json.gz", odd))
    (directory / "bad-utf8-op-id.json").write_bytes(file_bytes(rich()).replace(b'"opId":"a"', b'"opId":"a\xff"', 1))
    (directory / "deep-100.json").write_bytes(deep(100))
    (directory / "deep-3000.json").write_bytes(deep(3000))
    paths += [directory / "deep-100.json", directory / "deep-3000.json"]
    for position, (_, data) in enumerate(wrong_type_variants()):
        path = directory / f"wrong-{position}.json"
        path.write_bytes(data)
        paths.append(path)
    return paths
