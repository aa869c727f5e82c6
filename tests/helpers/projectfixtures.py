"""A home directory holding every agent's sessions where the monitor discovers them (Claude Code, Codex, Gemini CLI,
OpenCode: copies of the real fixtures of tests/fixtures, whose READMEs say where each came from) and an ai-agent
sessions directory, with the environment that points the monitor at them: stats by project over every agent."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson

from helpers import searchtextfixtures as fx

FIXTURES = Path(__file__).parents[1] / "fixtures"
# the projects their files name (tests/formats/test_agent_project.py checks each reader's rule)
PROJECTS = {
    "/home/marco/projects/spotter",  # Claude Code: the lines' cwd
    "/redacted/path/ea96e59ed9",  # Codex: session_meta.payload.cwd
    "907f20644716c92a8309a8b7c1ceec79d422233ff220b7fdb8772b360bd8273f",  # Gemini CLI: projectHash
    "/home/dev/calendar",  # OpenCode: its project's worktree
    "global",  # OpenCode: a session outside any git repository
    "",  # ai-agent: none recorded
}


def agents_home(base: Path) -> dict[str, str]:
    """The environment of a monitor run over `<base>/home` (every agent) and `<base>/sessions` (ai-agent)."""
    home = base / "home"
    home.mkdir()
    fx.claude_dir(home)
    fx.codex_dir(home)
    fx.gemini_dir(home)
    shutil.copytree(FIXTURES / "opencode" / "storage", home / ".local" / "share" / "opencode" / "storage",
                    copy_function=shutil.copy)
    sessions = fx.aiagent_dir(base)
    return {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
            "AI_AGENT_SESSIONS_DIR": str(sessions), "AIAGENT_MONITOR_DISCOVER": "1"}


def claude_session_with_cwd(tmp_path: Path, cwd: str) -> Path:
    """The real short Claude Code session in a project folder of its own, every `cwd` in it replaced by `cwd`
    (a hostile one, for the tests of what a project may show and be stored as)."""
    folder = tmp_path / ".claude" / "projects" / "-x"
    folder.mkdir(parents=True)
    lines = []
    for raw in (FIXTURES / "claude-code" / "real" / "short.jsonl").read_bytes().splitlines():
        value = orjson.loads(raw)
        if "cwd" in value:
            value["cwd"] = cwd
        lines.append(orjson.dumps(value))
    path = folder / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path
