"""`aiagent-monitor stats --by project` (a subprocess, its index in a temporary $XDG_CACHE_HOME) over every agent's
sessions where the monitor discovers them and an ai-agent directory: each session is under the project its file
names ("(none)" for ai-agent's), and the project groups add up to the totals."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from helpers.projectfixtures import PROJECTS, agents_home


def stats(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", "stats", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_by_project_groups_every_agent_and_adds_up(tmp_path):
    env = {**agents_home(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    result = stats(env, "--json", "--by", "project")
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    groups = out["by"]["project"]
    assert {g["key"] for g in groups} == PROJECTS
    total = out["totals"]
    assert total["sessions"] == len(PROJECTS) + 1  # (two OpenCode sessions in /home/dev/calendar)
    for name in ("sessions", "failures", "failed_ops", "tokens_in", "tokens_out", "costed"):
        assert sum(g[name] for g in groups) == total[name], name
    assert sum(g["cost_usd"] for g in groups) == pytest.approx(total["cost_usd"])
    assert sum(g.get("estimated_cost_usd", 0.0) for g in groups) == pytest.approx(total["estimated_cost_usd"])
    text = stats(env, "--by", "project", "--no-refresh")
    assert text.returncode == 0, text.stderr
    assert "/home/dev/calendar" in text.stdout and "(none)" in text.stdout
    gemini = next(p for p in PROJECTS if len(p) > 28)
    assert f"…{gemini[-27:]} " in text.stdout  # a long key keeps its end, in the 28 cells of the column


def test_search_finds_every_agents_sessions_where_stats_counts_them(tmp_path):
    """`search` with no --sessions-dir reads the other agents' default roots into the index as `stats` does: it
    used to refresh the ai-agent directory alone, so on a fresh cache no Claude Code, Codex, Gemini or OpenCode
    session was ever found."""
    env = {**agents_home(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    found = subprocess.run([sys.executable, "-m", "tui", "search", "--json", "bun"], capture_output=True,
                           text=True, timeout=300, env=env)
    assert found.returncode == 0, found.stderr
    hits = [orjson.loads(line) for line in found.stdout.splitlines()]
    assert hits and all(".db#" in hit["path"] or "opencode" in hit["path"] for hit in hits), hits
    assert any(hit["field"] == "errors" and "[bun]" in hit["snippet"] for hit in hits), hits
