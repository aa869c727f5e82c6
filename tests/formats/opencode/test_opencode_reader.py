"""OpenCode sessions read from their storage folder (session Info, message and part files): prompts, model calls
with their recorded tokens and cost, tool calls and their errors, a sub-agent's session below its task call, a
running session, and the awkward files (a cut part, a cut message, an unknown part type) shown, never fatal."""

from __future__ import annotations

from pathlib import Path

from helpers.opencodefixtures import CHILD, MAIN, OLD, RUNNING, session_file, storage_tree
from tui.formats.agents import detect
from tui.formats.load import load
from tui.inputs.agent_roots import OPENCODE, discovered_roots, session_file_of, session_files
from tui.model.session_facts import session_facts


def _ops(session):
    return [op for turn in session.turns for op in turn.ops]


def test_a_finished_session_reads_prompts_calls_tools_and_its_sub_agent(tmp_path):
    root = storage_tree(tmp_path)
    doc = load(str(session_file(root, MAIN)))
    s = doc.root
    assert doc.format == "opencode-session" and s.id == MAIN and s.title == "Fix the failing date test"
    assert s.agent_id == "opencode/calendar"
    assert [t.prompts["user"] for t in s.turns] == [
        "The date test fails on leap years, please fix it\n[file: date.ts]", "Now run the linter"]
    ops = _ops(s)
    assert [(op.kind, op.name if op.kind != "llm" else op.model) for op in ops] == [
        ("llm", "claude-sonnet-4-5-20250929"), ("tool", "read"), ("llm", "claude-sonnet-4-5-20250929"),
        ("tool", "bash"), ("llm", "claude-sonnet-4-5-20250929"), ("session", "task"),
        ("llm", "claude-sonnet-4-5-20250929"), ("system", "message without its info")]
    bash = ops[3]
    assert bash.status == "failed" and bash.error == "Error: bun: command not found"
    # the step-finish parts' tokens and cost, each call once: cost recorded by OpenCode, not estimated
    assert [(op.tokens_in, op.tokens_out, op.cache_read) for op in ops if op.kind == "llm"] == [
        (1200, 150, 4000), (900, 80, 4000), (500, 90, 2000), (500, 100, 2000)]
    facts = session_facts(s)
    assert facts.cost == 0.0391 and not facts.cost_estimated and facts.status == "ok"
    child = ops[5].child
    assert child is not None and child.id == CHILD and child.call_path == "opencode->task"
    assert [op.name for op in _ops(child) if op.kind == "tool"] == ["grep"]
    assert child.totals.costUsd == 0 and session_facts(child).cost == 0  # a free model's recorded 0 stays 0
    assert s.totals.tokensIn == 3100 + 800 and s.totals.tokensOut == 420 + 40
    # the cut part file and the cut message file are said, and the cut message's part still shows
    assert any("prt_a1000000115" in p and "not valid JSON" in p for p in doc.problems)
    assert any("msg_a1000000202aCuTmEsSaGe0001.json" in p for p in doc.problems)
    assert ops[7].raw["response"]["payload"] == "Lint is clean."


def test_a_running_session_and_an_older_one(tmp_path):
    root = storage_tree(tmp_path)
    running = load(str(session_file(root, RUNNING))).root
    assert session_facts(running).status == "running"
    llm, bash = _ops(running)
    assert bash.kind == "tool" and bash.status is None and bash.ended_at is None  # still running
    assert llm.tokens_in == 0 and llm.raw["response"]["payload"]["textPreview"] == "Running the build now."
    doc = load(str(session_file(root, OLD)))
    answer, aborted = _ops(doc.root)
    assert (answer.tokens_in, answer.tokens_out, answer.cost) == (1500, 300, 0.0075)  # the message's own usage
    assert aborted.status == "failed" and aborted.error.startswith("MessageAbortedError")
    assert doc.root.agent_id == "opencode/scratch"
    assert any("'sparkle'" in p for p in doc.problems)


def test_hostile_session_files_never_crash(tmp_path):
    root = storage_tree(tmp_path)
    main = session_file(root, MAIN)
    cut = main.read_bytes()[:60]  # a session Info cut while written
    main.write_bytes(cut)
    doc = load(str(main))
    assert doc.format == "opencode-session" and doc.root.id == MAIN  # its id from its file name
    assert any("not valid JSON" in p for p in doc.problems)
    alone = tmp_path / "ses_alone.json"  # a copy outside a storage folder: its messages cannot be found
    alone.write_bytes(session_file(root, RUNNING).read_bytes())
    doc = load(str(alone))
    assert doc.root.turns == [] and any("storage folder" in p for p in doc.problems)
    part = next(root.glob("part/msg_a0900000003aRuNaSsIsT0001/*bAsH*.json"))
    part.write_bytes(rb'{"id": "x", "type": "tool", "state": "\ud800 not an object", "tool": 7}')
    ops = [op for turn in load(str(session_file(root, RUNNING))).root.turns for op in turn.ops]
    assert [op.kind for op in ops] == ["llm", "tool"]  # a tool part of absurd fields: still a tool op


def test_sniff_tells_a_session_info_from_a_message(tmp_path):
    root = storage_tree(tmp_path)
    assert detect(session_file(root, MAIN).read_bytes()) is not None
    message = next(root.glob("message/*/*.json"))
    assert detect(message.read_bytes()) is None
    assert detect(b'{"id": "ses_x", "projectID": "p", "title": "' + b"x" * 70_000 + b'"') is not None


def test_the_storage_root_is_discovered_and_listed_and_changes_map_to_their_session(tmp_path, monkeypatch):
    root = storage_tree(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("AIAGENT_MONITOR_DISCOVER", raising=False)
    assert [(loc.kind, path) for loc, path in discovered_roots(tmp_path / "nohome")] == [("opencode", root)]
    names = sorted(path.name for _, path in session_files(OPENCODE, root))
    assert names == sorted(f"{sid}.json" for sid in (MAIN, CHILD, RUNNING, OLD))
    main = session_file(root, MAIN)
    part = next(root.glob("part/msg_a1000000005aAsSiStAnT0001/*.json"))
    assert session_file_of(OPENCODE, root, part) == main
    assert session_file_of(OPENCODE, root, root / "message" / RUNNING / "msg_new.json") == session_file(root, RUNNING)
    # a sub-agent's message belongs to its parent's row (the sub-agent is shown inside it)
    child_part = next(root.glob("part/msg_a1000000302aChIlDaSsIsT01/*.json"))
    assert session_file_of(OPENCODE, root, child_part) == main
    assert session_file_of(OPENCODE, root, session_file(root, CHILD)) == main
    assert session_file_of(OPENCODE, root, session_file(root, OLD)) == session_file(root, OLD)
    assert session_file_of(OPENCODE, root, root / "todo" / f"{MAIN}.json") is None
    assert session_file_of(OPENCODE, root, Path(root / "part" / "x" / "missing.json")) is None


def test_a_sub_agent_session_is_a_child_row_unless_its_parent_is_gone(tmp_path):
    from tui.catalog.scan import scan
    from tui.catalog.session_row import RowKind, fill_row

    root = storage_tree(tmp_path)

    def kinds() -> dict:
        return {row.session_id: row.kind for row in map(fill_row, scan(tmp_path / "none", roots=((OPENCODE, root),)))}

    assert kinds()[CHILD] == RowKind.CHILD and kinds()[MAIN] == "opencode"
    session_file(root, MAIN).unlink()
    assert kinds()[CHILD] == "opencode"
