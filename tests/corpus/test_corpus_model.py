"""The corpus through the model: broken files are refused with their reason, degraded ones load and say what is
wrong where it is wrong, hostile text comes out inert, and the browser's row summary marks broken files."""

from __future__ import annotations

import pytest

from helpers.corpus import HOSTILE
from helpers.corpusfix import (  # noqa: F401 - fixtures
    assert_inert, case_names, corpus, node_at, other_user, problems_of, small_cap,
)
from tui.catalog.scan import scan
from tui.catalog.session_row import RowKind, fill_row, row_from_entry
from tui.formats.load import load
from tui.inputs.files import LoadError
from tui.model.fields import one_line, printable
from tui.model.search import walk_ops
from tui.payloads.check import payload_problems
from tui.text.ascii_tree import render

BROKEN = case_names("broken")
DEGRADED = case_names("degraded")


@pytest.mark.parametrize("name", BROKEN)
def test_broken_file_is_refused_with_its_reason(corpus, small_cap, name):
    directory, cases = corpus
    with other_user(), pytest.raises(LoadError) as caught:
        load(str(directory / name))
    assert cases[name].reason in str(caught.value)
    assert_inert(str(caught.value), name)


@pytest.mark.parametrize("name", BROKEN)
def test_browser_row_of_a_broken_file_carries_the_reason(corpus, small_cap, name):
    directory, cases = corpus
    with other_user():
        rows = {row.path.name: row for row in scan(directory)}
        row = rows.get(name.rsplit("/", 1)[-1]) or row_from_entry(directory / name, 0.0, 1, RowKind.SNAPSHOT)
        fill_row(row)
    assert cases[name].reason in row.broken
    assert_inert(row.broken, name)


@pytest.mark.parametrize("name", DEGRADED)
def test_degraded_file_loads_and_reports_each_problem_where_it_is(corpus, name):
    directory, cases = corpus
    with other_user():
        doc = load(str(directory / name))
        for where, fragment in cases[name].problems:
            node = node_at(doc.root, where)
            found = problems_of(node)
            if not any(fragment in p for p in found) and hasattr(node, "payload_refs"):
                found += payload_problems(node, doc.sessions_dir)
            assert any(fragment in p for p in found), f"{where}: {fragment!r} not in {found}"


def test_unreadable_payload_is_reported(corpus):
    directory, _ = corpus
    with other_user():
        doc = load(str(directory / "bad-refs.json.gz"))
        problems = payload_problems(node_at(doc.root, "1-8"), doc.sessions_dir)
    assert any("Permission denied" in p for p in problems), problems


def test_good_payload_beside_bad_ones_reads_fine(corpus):
    directory, _ = corpus
    doc = load(str(directory / "bad-refs.json.gz"))
    lines = payload_problems(node_at(doc.root, "1-10"), doc.sessions_dir)
    assert lines == ["· payload response/raw: json"]  # named, not a problem


def test_hostile_text_is_inert_in_every_dump_line(corpus):
    directory, _ = corpus
    for name in ("hostile-text.json.gz", "session/hostile-ledger.jsonl"):
        doc = load(str(directory / name))
        lines = list(render(doc.root))
        for line in lines:
            assert_inert(line, name)
        text = "\n".join(lines)
        assert printable(HOSTILE)[:40] in text  # shown, escaped, not dropped
        assert "[bold magenta]MARKUP[/]" in text


def test_hostile_fields_all_reach_the_model_intact(corpus):
    """The model keeps the data as it is (escaping is the display's job): every field holds the hostile string."""
    directory, _ = corpus
    root = load(str(directory / "hostile-text.json.gz")).root
    assert HOSTILE in (root.title, root.agent_id, root.call_path, root.error)
    ops = list(walk_ops(root))
    assert all(HOSTILE in op.name or HOSTILE in op.label for op in ops if op.raw and op.kind != "llm")
    assert any(op.child is not None and op.child.agent_id == HOSTILE for op in ops)


def test_broken_rows_do_not_stop_the_others(corpus, small_cap):
    directory, cases = corpus
    with other_user():
        rows = [fill_row(row) for row in scan(directory)]
    by_name = {row.path.name: row for row in rows}
    for name, case in cases.items():
        row = by_name.get(name.rsplit("/", 1)[-1])
        if case.kind in ("good", "degraded", "hostile", "deep") and row is not None:
            assert not row.broken, f"{name}: {row.broken}"
            assert row.status in ("ok", "failed", "running"), name
    assert sum(1 for row in rows if row.broken) == sum(1 for c in cases.values() if c.kind == "broken")
    assert all(row.kind in (RowKind.SNAPSHOT, RowKind.LEDGER) for row in rows)


def test_one_line_labels_flatten_tabs_and_line_breaks_to_spaces():
    assert one_line("Title tab\there\r\nnext\nlast\rcr") == "Title tab here next last\\x0dcr"
