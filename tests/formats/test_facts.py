"""The facts reader (tui.formats.aiagent.facts): for every file the tests know, the summary `dump --json` gives
from it is the tree's, and any file that is not a plain snapshot is left to the tree."""

from __future__ import annotations

import orjson
import pytest
from helpers.builders import llm_acc, op, session, turn
from helpers.corpusfix import run_cli
from helpers.factscases import BAD_UTF8_OP_ID, WRONG, envelope, file_bytes, rich, wrong_type_variants, write_all

from tui.formats.aiagent.facts import snapshot_facts
from tui.formats.load import load, load_bytes
from tui.inputs.files import LoadError, read_source
from tui.model.document import SNAPSHOT
from tui.text.summary import summarise, tree_summary


def _facts_summary(data: bytes) -> dict | None:
    root = snapshot_facts(data)
    return tree_summary(SNAPSHOT, root) if root is not None else None


def _tree_summary(data: bytes) -> dict:
    return summarise(load_bytes(data, "s.json"))


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list:
    directory = tmp_path_factory.mktemp("facts")
    write_all(directory)
    return sorted(p for p in directory.rglob("*") if p.is_file())


def test_every_file_the_facts_read_sums_up_as_its_tree(cases) -> None:
    read = 0
    for path in cases:
        try:
            data = read_source(str(path))
        except LoadError:
            continue
        summary = _facts_summary(data)
        if summary is None:
            continue
        read += 1
        assert summary == summarise(load(str(path))), path.name
    assert read >= 300  # the generated files, the hand-made ones and most of their wrong-typed copies


def test_the_hand_made_tree_is_read_and_its_rules_hold() -> None:
    data = file_bytes(rich())
    summary = _facts_summary(data)
    assert summary == _tree_summary(data)
    assert summary["totals"]["toolsRun"] == 2  # b and t: not the tool under the sub-agent of the tool op t
    assert summary["totals"]["agentsRun"] == 3  # root, child, grandchild: not the sub-agent of a tool op
    assert summary["totals"]["tokensIn"] == 10 + 1 + 5 + 1 + 2
    assert summary["counts"]["sessions"] == 4 and summary["maxDepth"] == 2
    assert summary["totalsMismatch"] is True


@pytest.mark.parametrize("change", [
    lambda t: t["turns"][1]["ops"][0].update(status=3),  # the tree says "status is a number"
    lambda t: t["turns"][1]["ops"][0].update(kind="weird"),
    lambda t: t["turns"][1]["ops"][0]["accounting"][0]["tokens"].update(inputTokens="12"),
    lambda t: t["turns"][1]["ops"][0]["accounting"][0].update(costUsd="0.1"),
    lambda t: t["turns"][1]["ops"][0]["attributes"].update(model=["m"]),
    lambda t: t["turns"][1]["ops"][0].update(startedAt="2026-01-01T00:00:00Z"),  # a time the tree converts
    lambda t: t["turns"][1].update(index="1"),
    lambda t: t["turns"][1]["ops"][2]["childSession"].update(agentId=5),
    lambda t: t["turns"][1]["ops"][2]["childSession"]["turns"][0].update(attributes="x"),
    lambda t: t["turns"][1]["ops"].append({**op("session", op_id="r"), "childSessionRef": {"ledgerPath": "x.jsonl"}}),
    lambda t: t["turns"][1]["ops"].append({**op("session", op_id="r"), "childSessionSummary": {"agentId": "x"}}),
    lambda t: t["turns"][1]["ops"][1]["accounting"][0].update(tokens={"inputTokens": "12"}),  # a tool entry's
    lambda t: t["turns"][1]["ops"][1]["accounting"][0].update(costUsd="0.1"),
    lambda t: t["turns"][1]["ops"][0].pop("kind"),
    lambda t: t["turns"][1]["ops"][2]["childSession"]["turns"][0].update(index=True),
    lambda t: t["turns"][1]["ops"][2]["childSession"]["turns"][0]["attributes"].update(status=1),
    lambda t: t.update(totals=[1]),
    lambda t: t.update(success="yes"),
])
def test_a_tree_that_is_not_plain_is_left_to_the_tree(change) -> None:
    value = rich()
    change(value["opTree"])
    assert snapshot_facts(file_bytes(value)) is None


@pytest.mark.parametrize("value", [
    {"opTree": []}, {"recordType": "x", "opTree": session()}, {"type": "llm", "opTree": session()},
    {"snapshot": {"opTree": session()}}, session(), [1, 2], "text",
])
def test_what_is_not_a_snapshot_file_is_left_to_the_loader(value) -> None:
    assert snapshot_facts(orjson.dumps(value)) is None


@pytest.mark.parametrize("data", [b"", b"{", b"\xff\xfe", b'{"opTree": {"turns": [{"ops": [1]}]}}',
                                  b'{"opTree": {"id": "a\xff"}}', BAD_UTF8_OP_ID])
def test_bytes_it_cannot_take_are_left_to_the_loader(data) -> None:
    assert snapshot_facts(data) is None


def test_a_wrong_type_anywhere_never_changes_the_answer() -> None:
    read = 0
    variants = wrong_type_variants()
    for what, data in variants:
        summary = _facts_summary(data)
        if summary is not None:
            read += 1
            assert summary == _tree_summary(data), what
    assert 0 < read < len(variants)


def test_sub_agents_thousands_deep_cost_no_recursion() -> None:
    from helpers.factscases import deep

    for levels in (100, 3000):  # msgspec refuses to decode past ~1,000 levels: then the tree is built
        data = deep(levels)
        summary = _facts_summary(data)
        assert summary is not None or levels > 1000
        if summary is not None:
            assert summary == _tree_summary(data)
            assert summary["maxDepth"] == levels


def test_costs_add_up_in_the_producers_order() -> None:
    costs = [0.1, 0.2, 0.3, 1e-17, 0.7, 1e16, -1e16, 0.05]  # a float sum that depends on its order
    nested = session(turn(1, *(op("llm", op_id=f"n{i}", accounting=[llm_acc(1, 1, cost=c)]) for i, c in
                               enumerate(costs))), agent="n")
    tree = session(turn(1, op("llm", op_id="a", accounting=[llm_acc(cost=0.1)]),
                        op("session", op_id="s", child=nested), op("llm", op_id="b", accounting=[llm_acc(cost=0.2)])))
    data = file_bytes(envelope(tree))
    assert _facts_summary(data) == _tree_summary(data)


def test_dump_json_gives_the_same_object_read_either_way(tmp_path) -> None:
    fast = tmp_path / "rich.json"
    fast.write_bytes(file_bytes(rich()))
    value = rich()
    value["opTree"]["turns"][1]["ops"][0]["status"] = 3
    slow = tmp_path / "odd.json"
    slow.write_bytes(file_bytes(value))
    for path in (fast, slow):
        out = run_cli("dump", "--json", str(path))
        assert out.returncode == 0, out.stderr
        assert orjson.loads(out.stdout) == orjson.loads(orjson.dumps(summarise(load(str(path)))))


def test_wrong_values_cover_what_the_tree_reports() -> None:
    assert None in WRONG and "@lone@" in WRONG  # absent reads as None; a lone surrogate as the tree reads it
