"""The project each agent's reader decides from its own file (tui.model.agent_nodes.session_project), on the real
fixtures of tests/fixtures (their READMEs say where each came from): Claude Code's cwd (else its project folder),
Codex's session_meta cwd, Gemini CLI's projectHash (else its tmp folder), OpenCode's project worktree (else its
projectID); none for ai-agent's files. A hostile project never reaches a row unescaped or uncut."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson

from helpers import searchtextfixtures as fx
from helpers.projectfixtures import claude_session_with_cwd
from tui.catalog.session_row import RowKind, fill_row, row_from_entry
from tui.formats.load import load
from tui.model.agent_nodes import PROJECT_MAX, session_project

FIXTURES = Path(__file__).parents[1] / "fixtures"
OPENCODE_SESSIONS = FIXTURES / "opencode" / "storage" / "session"
CALENDAR = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"


def project(path: Path | str) -> str:
    doc = load(str(path))
    assert doc.root is not None
    return session_project(doc.root)


def row_project(path: Path, kind: str) -> str:
    row = fill_row(row_from_entry(path, path.stat().st_mtime, path.stat().st_size, kind))
    assert not row.broken, row.broken
    return row.project


def test_claude_code_project_is_the_lines_cwd():
    path = FIXTURES / "claude-code" / "real" / "tool_heavy.jsonl"
    assert project(path) == "/home/marco/projects/spotter"
    assert row_project(path, RowKind.SNAPSHOT) == "/home/marco/projects/spotter"


def test_claude_code_without_a_cwd_takes_its_project_folder(tmp_path):
    folder = tmp_path / ".claude" / "projects" / "-home-dev-shop"
    folder.mkdir(parents=True)
    lines = []
    for raw in (FIXTURES / "claude-code" / "real" / "short.jsonl").read_bytes().splitlines():
        value = orjson.loads(raw)
        value.pop("cwd", None)
        lines.append(orjson.dumps(value))
    (folder / "s.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    assert project(folder / "s.jsonl") == "-home-dev-shop"


def test_codex_project_is_session_meta_cwd():
    path = FIXTURES / "codex" / "rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
    assert project(path) == "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
    assert project(FIXTURES / "codex" / fx.CODEX_FILE) == "/redacted/path/ea96e59ed9"


def test_gemini_cli_project_is_the_project_hash_else_its_tmp_folder(tmp_path):
    path = FIXTURES / "gemini-cli" / fx.GEMINI_FILE
    assert project(path) == "907f20644716c92a8309a8b7c1ceec79d422233ff220b7fdb8772b360bd8273f"
    chats = tmp_path / ".gemini" / "tmp" / "0123abcd" / "chats"
    chats.mkdir(parents=True)
    value = json.loads(path.read_text())
    del value["projectHash"]
    (chats / fx.GEMINI_FILE).write_text(json.dumps(value))
    assert project(chats / fx.GEMINI_FILE) == "0123abcd"


def test_opencode_project_is_the_worktree_else_the_project_id(tmp_path):
    session = OPENCODE_SESSIONS / CALENDAR / "ses_5f1e2d3c4001Qw8ErT6yUiOpAs.json"
    assert project(session) == "/home/dev/calendar"  # (storage/project/<projectID>.json's worktree)
    assert project(OPENCODE_SESSIONS / "global" / "ses_5f0a1b2c3001GlObAlOlDsTyLe.json") == "global"
    storage = tmp_path / "storage"
    shutil.copytree(FIXTURES / "opencode" / "storage", storage)
    shutil.rmtree(storage / "project")  # an older storage, or the project file gone: its id
    assert project(storage / "session" / CALENDAR / session.name) == CALENDAR


def test_aiagent_sessions_have_no_project(tmp_path):
    directory = fx.aiagent_dir(tmp_path)
    path = directory / "s-1.json.gz"
    assert project(path) == ""
    assert row_project(path, RowKind.SNAPSHOT) == ""


def test_a_hostile_project_is_escaped_and_cut(tmp_path):
    hostile = "\x1b]0;pwned\x07\x1b[31m/home/\u202eevil\n" + "d" * 10_000 + "/tail-of-path"
    path = claude_session_with_cwd(tmp_path, hostile)
    for shown in (project(path), row_project(path, "claude-code")):
        assert len(shown) <= PROJECT_MAX
        assert shown.endswith("/tail-of-path")  # (a path's end tells projects apart)
        assert not any(ord(c) < 32 or c in "\x7f\u202e" for c in shown), shown
