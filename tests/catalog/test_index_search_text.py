"""The sessions index searches answers and tool results (issue 31): of an ai-agent snapshot (final report, an LLM
answer's preview, a sub-agent's report, a tool result), a real Claude Code file and a real Codex rollout, with the
field filters; hostile text in a result (FTS5 syntax, NUL, the snippet markers, a lone surrogate, 10 MB) is bounded
and never breaks a query."""

from __future__ import annotations

import pytest

from helpers import searchtextfixtures as fx
from helpers.builders import op, session, turn
from tui.catalog.index import search
from tui.catalog.index.reader import ask, index_file
from tui.catalog.index.row_extras import OP_TEXT_MAX, TEXT_MAX, BoundedText
from tui.catalog.index.sync import update_index
from tui.formats.aiagent.snapshot import build_session


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def find(directory, text: str) -> list[search.Hit]:
    index, notice, _ = update_index(directory, pool=False)
    assert index is not None, notice
    index.close()
    hits, problem = ask(index_file(directory), lambda conn: search.search(conn, text), "cannot search")
    assert hits is not None, problem
    return hits


def fields(directory, text: str) -> list[str]:
    return [hit.field for hit in find(directory, text)]


def test_aiagent_snapshot_answers_and_results(tmp_path):
    directory = fx.aiagent_dir(tmp_path)
    assert fields(directory, fx.FINAL_WORD) == ["answers"]  # the final report
    assert fields(directory, fx.LLM_WORD) == ["answers"]  # an LLM answer's textPreview
    assert fields(directory, fx.SUBAGENT_WORD) == ["answers"]  # a sub-agent's report
    assert fields(directory, fx.TOOL_WORD) == ["results"]
    assert fields(directory, fx.TURN_WORD) == ["answers"]  # a turn's attributes.assistant.content
    assert fields(directory, fx.CHILD_TURN_WORD) == ["answers"]  # a sub-agent's turn's
    (hit,) = find(directory, fx.TOOL_WORD)
    assert search.segments(hit.snippet)[-1] == (fx.TOOL_WORD, True)


def test_field_filters(tmp_path):
    directory = fx.aiagent_dir(tmp_path)
    assert fields(directory, f"answer:{fx.LLM_WORD}") == ["answers"]
    assert fields(directory, f"answers:{fx.FINAL_WORD}") == ["answers"]
    assert fields(directory, f"result:{fx.TOOL_WORD}") == ["results"]
    assert fields(directory, f"results:{fx.TOOL_WORD}") == ["results"]
    assert fields(directory, f"result:{fx.LLM_WORD}") == []
    assert fields(directory, f"answer:{fx.TOOL_WORD}") == []
    assert fields(directory, "tool:lookup") == ["tools"]  # the old filters still hold
    assert fields(directory, "title:plain") == ["title"]
    assert fields(directory, "prompt:question") == ["prompt"]
    assert fields(directory, "agent:helper") == ["agents"]
    assert fields(directory, f"error:{fx.TOOL_WORD}") == []


def test_claude_code_answer_and_tool_result(tmp_path):
    directory = fx.claude_dir(tmp_path)
    assert fields(directory, fx.CLAUDE_ANSWER) == ["answers"]
    assert fields(directory, fx.CLAUDE_RESULT) == ["results"]
    assert fields(directory, f"answer:{fx.CLAUDE_RESULT}") == []


def test_codex_answer_and_tool_result(tmp_path):
    directory = fx.codex_dir(tmp_path)
    assert fields(directory, fx.CODEX_ANSWER) == ["answers"]
    assert fields(directory, fx.CODEX_RESULT) == ["results"]
    assert fields(directory, f"result:{fx.CODEX_ANSWER}") == []


def test_hostile_results_are_bounded_and_never_break_a_query(tmp_path):
    directory = fx.aiagent_dir(tmp_path, huge=True)
    assert fields(directory, fx.TOOL_WORD) == ["results"]  # the start of a 10 MB result is kept ...
    assert find(directory, fx.LATE_WORD) == []  # ... its end is not
    (hit,) = find(directory, "hostileword")
    assert hit.field == "results" and "\x00" not in hit.snippet
    assert hit.snippet.count(search.HIT_START) == hit.snippet.count(search.HIT_END) == 1
    for word in fx.HOSTILE.split():
        find(directory, word)  # never an sqlite3 error
    _, _, _ = update_index(directory, pool=False)
    sizes, _ = ask(index_file(directory), lambda conn: conn.execute(
        "SELECT length(answers), length(results) FROM sessions").fetchone(), "")
    assert sizes is not None and max(sizes) <= TEXT_MAX and sizes[1] <= 2 * OP_TEXT_MAX + 1


def test_bounded_text():
    text = BoundedText()
    text.add("a\ud800b\x02c\x03d\x00e")  # a lone surrogate cannot be bound by sqlite3: replaced
    text.add("y" * 10_000_000)
    for _ in range(100):
        text.add("z" * OP_TEXT_MAX)
    kept = text.text()
    kept.encode("utf-8")
    assert kept.startswith("a?b c d e\n" + "y" * OP_TEXT_MAX + "\n")
    assert len(kept) <= TEXT_MAX


def test_locate_opens_an_answer_at_an_llm_op_and_a_result_at_a_tool_op():
    root = build_session(session(turn(0, op("system", op_id="a", name="init"), system=True),
                                 turn(1, op("tool", op_id="t", name="lookup"), op("llm", op_id="l"))))
    assert search.locate(root, "answers", "anything") == "1-2"
    assert search.locate(root, "results", "result:anything") == "1-1"


def test_gemini_cli_answer_and_tool_result(tmp_path):
    directory = fx.gemini_dir(tmp_path)
    assert fields(directory, fx.GEMINI_ANSWER) == ["answers"]
    assert fields(directory, fx.GEMINI_RESULT) == ["results"]
