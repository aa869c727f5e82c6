"""The sessions-index row of a plain snapshot read from its facts (tui.catalog.index.facts_fill) is the row its
tree gives, for every file the tests know; any other file is read through the tree, its content read once."""

from __future__ import annotations

import pytest
from helpers.factscases import write_all

from tui.catalog.index import facts_fill, indexer
from tui.catalog.index.facts_fill import fill_from_facts
from tui.catalog.scan import scan
from tui.catalog.session_row import RowKind


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> list:
    directory = tmp_path_factory.mktemp("facts-rows")
    write_all(directory)
    return scan(directory)


def _tree_row(monkeypatch: pytest.MonkeyPatch, path: str, kind: str) -> dict:
    with monkeypatch.context() as patch:
        patch.setattr(indexer, "fill_from_facts", lambda row, record: None)  # as before the facts: the tree
        return indexer.index_file(path, kind)


def _without_time(record: dict) -> dict:
    return {key: value for key, value in record.items() if key != "indexed_at"}


def test_every_file_gives_the_row_its_tree_gives(rows, monkeypatch: pytest.MonkeyPatch) -> None:
    read_by_facts: list[str] = []  # the files whose row index_file took from the facts (not from the tree)

    def counted(row, record):
        data = fill_from_facts(row, record)
        if row.loaded:
            read_by_facts.append(row.key)
        return data

    monkeypatch.setattr(indexer, "fill_from_facts", counted)
    for listed in rows:
        path = str(listed.path)
        assert _without_time(indexer.index_file(path, listed.kind)) == \
            _without_time(_tree_row(monkeypatch, path, listed.kind)), path
    assert len(read_by_facts) >= 300  # the generated files, the hand-made ones and most of their wrong-typed copies


def test_the_hand_made_row_holds_what_the_tree_finds(rows) -> None:
    path = next(str(row.path) for row in rows if row.path.name == "rich.json.gz")
    record = indexer.index_file(path, RowKind.SNAPSHOT)
    assert record["headend"] == "slack"  # the root's own op's log, not the sub-agent's
    assert record["models"].split("\n") == ["m-own", "m-step", "m-child", "m-deep", "m-tool"]
    assert record["tools"] == "grep lines\nrun-agent\ninner-tool"
    assert record["agents"] == "root\nchild\ngrandchild\nunder-a-tool"
    assert record["failed_ops"] == 4 and record["errors"].split("\n")[0] == "root failed"
    assert record["prompt"].split()[:2] == ["the", "first"] and record["title"].split()[:3] == ["the", "first", "prompt"]
    assert record["ended_ms"] is not None and record["duration_ms"] == 4000 and record["turns"] == 1
    answers = record["answers"].split("\n")  # the turns' answers, the root's first, a sub-agent's after its op
    assert "the root turn answers wombatturn" in answers and "the child turn answers koalaturn" in answers


def test_a_file_that_is_not_plain_is_read_once(rows, monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.formats import load

    path = next(str(row.path) for row in rows if row.path.name == "child-ref.json.gz")
    reads: list[str] = []
    for module in (facts_fill, load):
        real = module.read_source
        monkeypatch.setattr(module, "read_source", lambda *a, real=real, **k: reads.append(a[0]) or real(*a, **k))
    record = indexer.index_file(path, RowKind.SNAPSHOT)
    assert reads == [path] and not record["broken"] and record["tokens_in"]  # the tree was given the bytes
