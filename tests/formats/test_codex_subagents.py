"""Codex CLI sub-agents: a thread spawned by `spawn_agent` writes its own rollout (session_meta source
`{"subagent": {"thread_spawn": {"parent_thread_id": ...}}}`); its parent reads it below the call that spawned it
(and one no call names at the end, even from the next day's folder); the browser lists the parent only, and a
change to a sub-agent's rollout is a change to its parent's row."""

from __future__ import annotations

import shutil
from pathlib import Path

from tui.catalog.scan import scan
from tui.catalog.session_row import RowKind, fill_row
from tui.formats.load import load
from tui.inputs.agent_roots import CODEX, session_file_of

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "codex" / "subagents"
PARENT = "019cd1a2-0000-7000-8000-00000000000a"
LEXER = "019cd1a2-1111-7000-8000-00000000000b"
PARSER = "019cd1b0-2222-7000-8000-00000000000c"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / ".codex" / "sessions"
    shutil.copytree(FIXTURES, root)
    return root


def _file(root: Path, thread: str) -> Path:
    return next(root.glob(f"*/*/*/rollout-*-{thread}.jsonl"))


def test_a_parent_reads_its_spawned_threads_below_their_calls(tmp_path):
    root = _root(tmp_path)
    s = load(str(_file(root, PARENT))).root
    ops = [op for turn in s.turns for op in turn.ops]
    spawn = next(op for op in ops if op.name == "spawn_agent")
    assert spawn.kind == "session" and spawn.child is not None and spawn.child.id == LEXER
    assert spawn.child.call_path == "codex->spawn_agent"
    assert [op.name for op in spawn.child.all_ops() if op.kind == "tool"] == ["shell"]
    unnamed = ops[-1]  # spawned, but no call's answer names it: still shown, at the end
    assert unnamed.kind == "session" and unnamed.child is not None and unnamed.child.id == PARSER
    # the parent's own calls (17,200 in, 9,000 of them cached) plus its sub-agents' (6,200 + 2,000 in)
    assert s.totals.tokensIn + s.totals.tokensCacheRead == 17_200 + 6_200 + 2_000
    assert s.totals.tokensOut == 300 + 120 + 40


def test_the_browser_lists_the_parent_only_and_a_child_change_is_the_parents(tmp_path):
    root = _root(tmp_path)
    rows = [fill_row(row) for row in scan(tmp_path / "none", roots=((CODEX, root),))]
    kinds = {"-".join(row.session_id.split("-")[-5:]): row.kind  # (the row id: the file name)
             for row in rows}
    assert kinds[PARENT] == "codex" and kinds[LEXER] == RowKind.CHILD and kinds[PARSER] == RowKind.CHILD
    parent = _file(root, PARENT)
    assert session_file_of(CODEX, root, _file(root, LEXER)) == parent
    assert session_file_of(CODEX, root, _file(root, PARSER)) == parent
    assert session_file_of(CODEX, root, parent) == parent
    alone = load(str(_file(root, LEXER))).root  # opened on its own, a sub-agent's rollout still reads
    assert alone.id == LEXER and alone.field("attributes")["parentID"] == PARENT


def test_a_spawned_thread_whose_parent_is_gone_is_a_row_of_its_own(tmp_path):
    root = _root(tmp_path)
    _file(root, PARENT).unlink()
    rows = [fill_row(row) for row in scan(tmp_path / "none", roots=((CODEX, root),))]
    assert sorted(row.kind for row in rows) == ["codex", "codex"]  # never hidden with nothing to show it
