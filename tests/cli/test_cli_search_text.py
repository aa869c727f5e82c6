"""`aiagent-monitor search` (a subprocess, its index in a temporary $XDG_CACHE_HOME) finds words that are only in
an answer or only in a tool result, of an ai-agent snapshot, a real Claude Code file and a real Codex rollout."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from helpers import searchtextfixtures as fx


def run(directory, query: str, cache) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "tui", "search", "--sessions-dir", str(directory), "--json", query],
                            capture_output=True, timeout=120, env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert result.returncode in (0, 1), result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize(("make", "answer", "result"), [
    (fx.aiagent_dir, fx.LLM_WORD, fx.TOOL_WORD),
    (fx.claude_dir, fx.CLAUDE_ANSWER, fx.CLAUDE_RESULT),
    (fx.codex_dir, fx.CODEX_ANSWER, fx.CODEX_RESULT),
])
def test_search_finds_answers_and_tool_results(tmp_path, make, answer, result):
    directory = make(tmp_path)
    cache = tmp_path / "cache"
    assert [hit["field"] for hit in run(directory, answer, cache)] == ["answers"]
    assert [hit["field"] for hit in run(directory, result, cache)] == ["results"]
    (hit,) = run(directory, f"result:{result}", cache)
    assert f"[{result}" in hit["snippet"].lower()
    assert run(directory, f"answer:{result}", cache) == []


def test_hostile_result_never_breaks_the_command(tmp_path):
    directory = fx.aiagent_dir(tmp_path, huge=True)
    cache = tmp_path / "cache"
    assert [hit["field"] for hit in run(directory, "hostileword", cache)] == ["results"]
    assert run(directory, fx.LATE_WORD, cache) == []
    assert run(directory, '"NEAR( AND', cache) is not None
