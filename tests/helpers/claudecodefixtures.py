"""Claude Code session files for the tests: the fixtures of tests/fixtures/claude-code (README there says where
each came from), copied into a made-up `~/.claude/projects` tree, and a hostile file with a huge tool result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "claude-code"
SESSION_2X = "sess-2x"


def projects_tree(tmp: Path) -> Path:
    """`<tmp>/.claude/projects` holding the fixtures' project folder (sessions and sub-agent files)."""
    root = tmp / ".claude" / "projects"
    shutil.copytree(FIXTURES / "projects", root)
    shutil.copy(FIXTURES / "sidechain-1x.jsonl", root / "-w-demo" / "sidechain-1x.jsonl")
    return root


def huge_result_file(path: Path, chars: int = 3_000_000) -> Path:
    """A session whose one tool result is `chars` long."""
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "huge", "timestamp": "2025-01-01T00:00:00Z",
         "message": {"role": "user", "content": "read it"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "huge", "requestId": "r", "timestamp": "2025-01-01T00:00:01Z",
         "message": {"id": "m", "model": "claude-sonnet-4-5", "content": [
             {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "/big"}}],
             "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "user", "uuid": "u2", "sessionId": "huge", "timestamp": "2025-01-01T00:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x" * chars}]}},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path
