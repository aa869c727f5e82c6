"""Codex CLI and Gemini CLI sessions in the browser: their default roots are discovered, their files listed as rows
of their kind, and a file that records no cost shows its cost as unknown (None), never $0."""

from __future__ import annotations

import shutil
from pathlib import Path

from tui.catalog.scan import scan
from tui.catalog.session_row import fill_row
from tui.inputs.agent_roots import discovered_roots

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_codex_and_gemini_roots_are_discovered_listed_and_read(tmp_path):
    home = tmp_path / "home"
    codex = home / ".codex" / "sessions" / "2026" / "01" / "02"
    gemini = home / ".gemini" / "tmp" / "abc123" / "chats"
    codex.mkdir(parents=True)
    gemini.mkdir(parents=True)
    [rollout] = FIXTURES.glob("codex/rollout-2026-01-02*.jsonl")
    [chat] = FIXTURES.glob("gemini-cli/session-2026-01-16*.json")
    shutil.copy(rollout, codex)
    shutil.copy(chat, gemini)
    (gemini / "notes.txt").write_text("not a session")
    sessions = tmp_path / "sessions"
    sessions.mkdir()

    roots = tuple(discovered_roots(home))
    assert sorted(loc.kind for loc, _ in roots) == ["codex", "gemini-cli"]
    rows = [fill_row(row) for row in scan(sessions, roots=roots)]
    by_kind = {row.kind: row for row in rows}
    assert sorted(by_kind) == ["codex", "gemini-cli"]
    assert not any(row.broken for row in rows)
    codex_row, gemini_row = by_kind["codex"], by_kind["gemini-cli"]
    assert codex_row.title.startswith("what is current repository about")
    assert codex_row.tokens == 7_926 and codex_row.turns == 1
    # the files record no cost: estimated from the price table, and marked so
    assert codex_row.cost and codex_row.cost_estimated and gemini_row.cost and gemini_row.cost_estimated
    assert gemini_row.turns == 5
