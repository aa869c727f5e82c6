"""`aiagent-monitor stats --by kind` (a subprocess, its index in a temporary $XDG_CACHE_HOME): the sessions of an
ai-agent snapshot, a real Claude Code file and a real Codex rollout are grouped under their agent kind, the browser's
Kind column, and the kind groups add up to the totals."""

from __future__ import annotations

import os
import subprocess
import sys

import orjson
import pytest

from helpers import searchtextfixtures as fx


def stats(directory, cache, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", "stats", "--sessions-dir", str(directory), *args],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "XDG_CACHE_HOME": str(cache)})


@pytest.mark.parametrize(("make", "kind"), [
    (fx.aiagent_dir, "ai-agent"),
    (fx.claude_dir, "claude-code"),
    (fx.codex_dir, "codex"),
])
def test_by_kind_groups_each_agent_and_adds_up(tmp_path, make, kind):
    directory = make(tmp_path)
    cache = tmp_path / "cache"
    result = stats(directory, cache, "--json", "--by", "kind")
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    groups = out["by"]["kind"]
    assert [g["key"] for g in groups] == [kind]
    total = out["totals"]
    assert total["sessions"] >= 1
    for name in ("sessions", "tokens_in", "tokens_out"):
        assert sum(g[name] for g in groups) == total[name]
    assert sum(g["cost_usd"] for g in groups) == pytest.approx(total["cost_usd"])
    text = stats(directory, cache, "--by", "kind")
    assert text.returncode == 0, text.stderr
    assert kind in text.stdout
