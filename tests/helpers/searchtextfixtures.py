"""Session files whose answers and tool results hold words found nowhere else in them (issue 31: the sessions
index searches answers and tool results), in the layouts the monitor discovers: an ai-agent snapshot written here,
and copies of real Claude Code and Codex fixtures (tests/fixtures/claude-code and tests/fixtures/codex: their
READMEs say where each came from)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from helpers.builders import op, session, turn

FIXTURES = Path(__file__).parents[1] / "fixtures"
# words of the ai-agent snapshot below, each in one place only
FINAL_WORD, LLM_WORD, TOOL_WORD, SUBAGENT_WORD = "zanzibarfinal", "narwhalanswer", "quokkaresult", "okapireport"
TURN_WORD, CHILD_TURN_WORD = "capybaraturn", "axolotlturn"  # a turn's attributes.assistant.content (root, sub-agent)
LATE_WORD = "pangolinlate"  # past the first few KB of a 10 MB tool result: never kept
HOSTILE = '"NEAR( AND OR NOT * ^ title: {x} ) \x00 \x02 \x03 \ud800 hostileword'
# Claude Code (real/tool_heavy.jsonl): one word only in an answer, one only in a tool result
CLAUDE_FILE, CLAUDE_ANSWER, CLAUDE_RESULT = "tool_heavy.jsonl", "servers", "archlinux"
# Codex (a redacted real rollout: the redaction's hashes are the words): only in an answer, only in a tool result
CODEX_FILE = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
CODEX_ANSWER, CODEX_RESULT = "886b43c3", "b2b9cdde"


def aiagent_dir(base: Path, *, huge: bool = False) -> Path:
    """A sessions directory with one snapshot: a final report, an LLM answer's preview, a tool result, a
    sub-agent's report; `huge`: the tool result is 10 MB with LATE_WORD at its end, and a hostile one follows."""
    directory = base / "sessions"
    directory.mkdir(parents=True)
    llm = op("llm", op_id="l1", provider="anthropic", model="claude")
    llm["response"] = {"payload": {"textPreview": f"the answer is {LLM_WORD}", "raw": {"format": "http",
                                                                                     "value": "aGk="}}}
    tool = op("tool", op_id="t1", name="lookup")
    tool["response"] = {"payload": (f"{TOOL_WORD} " + "x " * 5_000_000 + LATE_WORD) if huge else
                        f"rows: {TOOL_WORD}", "size": 10}
    child = session(turn(1, op("llm", op_id="c1")), agent="helper", trace="trace-c")
    child["turns"][0].setdefault("attributes", {})["assistant"] = {"content": f"helper turn: {CHILD_TURN_WORD}"}
    sub = op("session", op_id="s1", name="agent__helper", child=child)
    sub["response"] = {"payload": f"helper says {SUBAGENT_WORD}"}
    ops = [llm, tool, sub]
    if huge:
        bad = op("tool", op_id="t2", name="lookup")
        bad["response"] = {"payload": HOSTILE}
        ops.append(bad)
    root = session(turn(1, *ops), agent="main", sessionTitle="plain title",
                   finalReport={"format": "markdown", "content": f"## Report\n{FINAL_WORD}"})
    root["turns"][0]["attributes"] = {"prompts": {"user": "a plain question"},
                                      "assistant": {"content": f"the turn's answer: {TURN_WORD}"}}
    # (json, not orjson: a lone surrogate is written as the escape a producer in another language may write)
    data = json.dumps({"version": 2, "reason": "final", "sessionId": "s-1", "opTree": root}).encode()
    (directory / "s-1.json.gz").write_bytes(gzip.compress(data, 1))
    return directory


def claude_dir(base: Path) -> Path:
    """`<base>/.claude/projects` holding the real Claude Code fixture."""
    folder = base / ".claude" / "projects" / "-w-demo"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude-code" / "real" / CLAUDE_FILE, folder / CLAUDE_FILE)
    return folder.parent


def codex_dir(base: Path) -> Path:
    """`<base>/.codex/sessions` holding the real Codex rollout."""
    folder = base / ".codex" / "sessions" / "2026" / "02" / "23"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "codex" / CODEX_FILE, folder / CODEX_FILE)
    return folder.parent.parent.parent


# Gemini CLI (a real chat file of tests/fixtures/gemini-cli): only in an answer, only in a tool result
GEMINI_FILE = "session-2026-01-16T11-01-file-ops-37b7abef.json"
GEMINI_ANSWER, GEMINI_RESULT = "activate", "advisory"


def gemini_dir(base: Path) -> Path:
    """`<base>/.gemini/tmp` holding the real Gemini CLI chat."""
    folder = base / ".gemini" / "tmp" / "0123abcd" / "chats"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini-cli" / GEMINI_FILE, folder / GEMINI_FILE)
    return folder.parent.parent
