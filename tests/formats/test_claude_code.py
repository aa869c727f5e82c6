"""Claude Code session files read into the normalised tree (tui.formats.claude_code): prompts, tools, sub-agents
in their three forms, tokens counted once per message, recorded and estimated cost, hostile lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers.claudecodefixtures import FIXTURES, huge_result_file, projects_tree
from tui.catalog.scan import scan
from tui.catalog.session_row import fill_row
from tui.formats.load import load
from tui.inputs.agent_roots import CLAUDE_CODE, location_of_root
from tui.model.prices import estimate
from tui.model.search import walk_ops
from tui.model.session_facts import session_facts

SESSION_2X = FIXTURES / "projects" / "-w-demo" / "sess-2x.jsonl"


def _ops(root):
    return list(walk_ops(root))


def test_2x_session_prompts_tools_subagent_file_and_compaction():
    doc = load(str(SESSION_2X))
    root = doc.root
    assert doc.format == "claude-code-jsonl"
    assert [t.prompts["user"] for t in root.turns] == ["Survey the repo with a sub-agent", "Now run the tests"]
    task = next(op for op in root.all_ops() if op.name == "Task")
    assert task.kind == "session" and task.child is not None
    assert task.child.agent_id == "Explore" and [op.name for op in task.child.all_ops() if op.kind == "tool"] == ["Glob"]
    bash = next(op for op in root.all_ops() if op.name == "Bash")
    assert bash.failed and "Exit code 2" in bash.error
    assert [op.name for op in root.all_ops() if op.kind == "system"] == ["compaction", "compaction"]
    assert root.status == "ok" and root.counts.failed == 1


def test_tokens_counted_once_per_message_with_the_largest_usage_and_progress_echoes_skipped():
    root = load(str(SESSION_2X)).root
    first = next(op for op in root.all_ops() if op.kind == "llm")
    assert (first.tokens_in, first.tokens_out, first.cache_read, first.cache_write) == (100, 80, 10000, 2000)
    # main: 100 + 50 + 60; the sub-agent's file: 500 + 560; the progress line's echo (500 again) is not counted
    assert root.totals.tokensIn == 1270
    assert root.totals.tokensOut == 80 + 30 + 12 + 40 + 10
    assert root.counts.llm == 5


def test_estimated_cost_is_marked_and_matches_the_price_table():
    root = load(str(SESSION_2X)).root
    expected = sum(estimate(op.model, op.tokens_in, op.tokens_out, op.cache_read, op.cache_write) or 0
                   for op in _ops(root) if op.kind == "llm")
    facts = session_facts(root)
    assert facts.cost_estimated and facts.as_dict()["costEstimated"] is True
    assert abs(root.totals.costUsd - expected) < 1e-9 and facts.cost_text.startswith("~$")


def test_1x_inline_sidechain_and_recorded_cost():
    root = load(str(FIXTURES / "sidechain-1x.jsonl")).root
    task = next(op for op in root.all_ops() if op.name == "Task")
    assert task.child is not None and task.child.title == "Count the files in src"
    assert [t.prompts["user"] for t in root.turns] == ["How many files are there?"]  # the sidechain is not a turn
    facts = session_facts(root)
    assert facts.cost == 0.012 and not facts.cost_estimated  # costUSD recorded (0.0 stays 0)
    assert "costEstimated" not in facts.as_dict()


def test_real_claude_code_log_fixture():
    doc = load(str(FIXTURES / "representative_messages.jsonl"))
    root = doc.root
    assert root.turns and root.turns[0].prompts["user"].startswith("Hello Claude! Can you help me")
    assert root.counts.llm >= 1 and root.totals.tokensOut > 0
    edge = load(str(FIXTURES / "edge_cases.jsonl")).root  # claude-code-log's edge cases: open, whatever they hold
    assert edge.turns and edge.counts.ops >= 1


def test_hostile_lines_are_problems_never_fatal(tmp_path):
    root = load(str(FIXTURES / "hostile.jsonl")).root
    text = " ".join(root.problems)
    assert "not JSON" in text and "brand-new-line" in text and "not an object" in text
    assert "\ufffd" in root.title  # the lone surrogate escape
    huge = load(str(huge_result_file(tmp_path / "huge.jsonl"))).root
    read = next(op for op in huge.all_ops() if op.name == "Read")
    assert len(read.info.response) < 300_000 and "cut at" in read.info.response


def test_dump_json_through_the_cli():
    out = subprocess.run([sys.executable, "-m", "tui", "dump", str(SESSION_2X), "--json"], capture_output=True,
                         check=True, cwd=Path(__file__).resolve().parents[2], timeout=120)
    summary = json.loads(out.stdout)
    assert summary["format"] == "claude-code-jsonl"
    assert summary["facts"]["costEstimated"] is True and summary["facts"]["userTurns"] == 2
    assert summary["totals"]["tokensIn"] == 1270 and summary["counts"]["sessions"] == 2


def test_scan_lists_a_claude_projects_root_once_and_fills_rows(tmp_path):
    root = projects_tree(tmp_path)
    assert location_of_root(root) is CLAUDE_CODE
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    rows = scan(sessions, roots=((CLAUDE_CODE, root), (CLAUDE_CODE, root)))
    assert sorted(r.session_id for r in rows) == ["sess-2x", "sidechain-1x"]  # sub-agent files are not rows
    row = fill_row(next(r for r in rows if r.session_id == "sess-2x"))
    assert row.kind == "claude-code" and row.cost_estimated and row.turns == 2 and row.status == "ok"
    assert row.tokens == 1270 + 172
    assert sorted(r.session_id for r in scan(root)) == ["sess-2x", "sidechain-1x"]  # --sessions-dir at the root


REAL = FIXTURES / "real"


def test_real_2x_session_with_its_subagent_and_compaction_files():
    """marot/spotter's real session (Claude Code 2.1.x): 221 messages over 1,000s of lines, counted once each
    (output summed from each message's largest usage: 49,482; the first line of each says far less), the Explore
    sub-agent under its Task call, the compaction call under the compaction, `progress` echoes not counted."""
    root = load(str(REAL / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")).root
    assert root.counts.llm == 221
    assert (root.totals.tokensIn, root.totals.tokensOut) == (2653, 49482)
    assert session_facts(root).turns == 3  # two prompts and a /compact; its printed output is not a prompt
    children = {op.child.id: op for op in walk_ops(root) if op.child is not None}
    assert children["aac57f5"].name == "Task" and children["aac57f5"].child.agent_id != "compaction"
    assert children["acompact-946d2b"].name == "compaction" and children["acompact-946d2b"].child.agent_id == "compaction"
    assert root.max_depth == 1 and session_facts(root).cost_estimated


def test_real_small_sessions_open():
    for name, prompts in (("short.jsonl", 1), ("tool_heavy.jsonl", 3)):  # (Esc and /mcp output: no prompts)
        root = load(str(REAL / name)).root
        assert session_facts(root).turns == prompts and root.counts.llm >= 1 and not root.problems


def test_stats_cli_discovers_claude_projects_and_groups_by_agent_kind(tmp_path):
    import os

    projects_tree(tmp_path)
    (tmp_path / "sessions").mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "AI_AGENT_SESSIONS_DIR": str(tmp_path / "sessions")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("AIAGENT_MONITOR_DISCOVER", None)
    out = subprocess.run([sys.executable, "-m", "tui", "stats", "--by", "headend", "--since", "3000d", "--json"],
                         capture_output=True, check=True, cwd=Path(__file__).resolve().parents[2], env=env,
                         timeout=120)
    stats = json.loads(out.stdout)
    assert stats["totals"]["sessions"] == 2
    assert [g["key"] for g in stats["by"]["headend"]] == ["claude-code"]
    assert stats["totals"]["estimated_cost_usd"] > 0 and stats["totals"]["cost_usd"] > stats["totals"][
        "estimated_cost_usd"]  # sidechain-1x's cost is recorded: told apart


def test_messages_view_shows_the_exchange_of_an_assistant_message():
    from tui.payloads.decode import decode_capture
    from tui.payloads.messages import conversation_lines, conversation_of
    from tui.payloads.op_captures import op_captures

    root = load(str(SESSION_2X)).root
    op = [o for o in root.all_ops() if o.kind == "llm"][1]
    caps = {c.side: decode_capture(c) for c in op_captures(op)}
    conv = conversation_of(caps["request"], caps["response"])
    # the call after the compaction is sent its summary, then the prompt (issue 31: the conversation as sent)
    assert conv is not None and [m.role for m in conv.messages] == ["user", "user", "assistant"]
    assert conv.messages[0].parts[0].kind == "compaction"
    text = "\n".join(conversation_lines(conv).lines)
    assert "Now run the tests" in text and "tool call Bash" in text and "make test" in text


def test_sessions_dir_repeated_and_discovered_roots(tmp_path, monkeypatch):
    from tui.cli.main import app_parser
    from tui.cli.run import agent_roots, build_app, chosen_sessions_dir

    root = projects_tree(tmp_path)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    args = app_parser().parse_args(["--sessions-dir", str(sessions), "--sessions-dir", str(root)])
    assert chosen_sessions_dir(args) == (sessions, True)
    assert agent_roots(args) == ((CLAUDE_CODE, root),)
    app = build_app(args, watch=False)
    assert not isinstance(app, int) and app.agent_roots == ((CLAUDE_CODE, root),)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("AIAGENT_MONITOR_DISCOVER", raising=False)
    assert agent_roots(app_parser().parse_args([])) == ((CLAUDE_CODE, root),)  # nothing given: discovered
    monkeypatch.setenv("AIAGENT_MONITOR_DISCOVER", "0")
    assert agent_roots(app_parser().parse_args([])) == ()


def test_a_first_line_longer_than_the_sniffed_head_is_still_claude_code(tmp_path):
    path = tmp_path / "long.jsonl"
    first = {"type": "user", "uuid": "u1", "sessionId": "long", "timestamp": "2025-01-01T00:00:00Z",
             "message": {"role": "user", "content": "paste " + "y" * 200_000}}
    path.write_text(json.dumps(first) + "\n")
    root = load(str(path)).root
    assert root.title.startswith("paste yyy") and load(str(path)).format == "claude-code-jsonl"


def test_a_second_sessions_dir_that_is_no_agent_root_is_refused(tmp_path, capsys):
    from tui.cli.main import app_parser
    from tui.cli.run import build_app

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    args = app_parser().parse_args(["--sessions-dir", str(tmp_path / "a"), "--sessions-dir", str(tmp_path / "b")])
    assert build_app(args, watch=False) == 2
    assert "another agent's session root" in capsys.readouterr().err


def test_an_api_error_message_is_a_failed_llm_op(tmp_path):
    path = tmp_path / "err.jsonl"
    lines = [{"type": "user", "uuid": "u1", "sessionId": "e", "timestamp": "2025-01-01T00:00:00Z",
              "message": {"role": "user", "content": "hi"}},
             {"type": "assistant", "uuid": "a1", "sessionId": "e", "timestamp": "2025-01-01T00:00:05Z",
              "isApiErrorMessage": True,
              "message": {"id": "x", "model": "<synthetic>", "role": "assistant",
                          "content": [{"type": "text", "text": "API Error: 529 overloaded"}],
                          "usage": {"input_tokens": 0, "output_tokens": 0}}}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    root = load(str(path)).root
    op = next(root.all_ops())
    assert op.failed and "529" in op.error and root.counts.failed == 1 and not root.problems
