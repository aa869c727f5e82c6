"""`aiagent-monitor dump --json` on other agents' own session files (Codex CLI, Gemini CLI), through the CLI."""

import subprocess
import sys

import orjson

from helpers.agentfixtures import CODEX_MCP, GEMINI_JSON, codex_hostile


def dump_json(path) -> dict:
    result = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(path)], capture_output=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout)


def test_codex_dump_json():
    out = dump_json(CODEX_MCP)
    assert out["format"] == "codex-session"
    assert out["totals"]["tokensIn"] + out["totals"]["tokensCacheRead"] == 298_373
    assert out["counts"]["llm"] == 6 and out["counts"]["tool"] == 5 and out["facts"]["userTurns"] == 1
    assert out["facts"]["costUsd"] == 0.1617 and out["facts"]["costEstimated"] is True  # not recorded: estimated


def test_gemini_dump_json_and_text():
    out = dump_json(GEMINI_JSON)
    assert out["format"] == "gemini-cli-session" and out["facts"]["failedOps"] == 2
    assert out["root"]["title"] == "create 2 hello world files"
    text = subprocess.run([sys.executable, "-m", "tui", "dump", str(GEMINI_JSON)], capture_output=True,
                          timeout=120).stdout.decode()
    assert "google:gemini-3-flash-preview" in text and "write_file" in text


def test_hostile_codex_dump_json_does_not_fail(tmp_path):
    out = dump_json(codex_hostile(tmp_path))
    assert out["format"] == "codex-session" and out["facts"]["failedOps"] >= 2


def test_replay_refuses_an_agent_file():
    result = subprocess.run([sys.executable, "-m", "tui", "replay", str(CODEX_MCP), "--to", "ws://127.0.0.1:9"],
                            capture_output=True, timeout=120)
    assert result.returncode == 2 and b"codex-session document is not an ai-agent session" in result.stderr
