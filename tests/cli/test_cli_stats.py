"""`aiagent-monitor stats`: text and --json from a real index file in $XDG_CACHE_HOME, the accounting.jsonl column,
a missing index explained (exit 1), no textual import."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import orjson
import pytest

from helpers.indexdb import create, insert, session
from tui.catalog.index.reader import index_file
from tui.catalog.index.stats import parse_when


@pytest.fixture
def sessions_dir(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    directory = tmp_path / "sessions"
    directory.mkdir()
    path = index_file(directory)
    path.parent.mkdir(parents=True)
    now = int(time.time() * 1000)
    conn = create(path)
    insert(conn, [
        session(1, started_ms=now - 3_600_000, agent="web-research", models="claude-sonnet", cost_usd=1.25,
                headend="slack"),
        session(2, started_ms=now - 7_200_000, agent="web-research", models="gpt-5", cost_usd=0.5, status="failed",
                failed_ops=2, title="it broke"),
        session(3, started_ms=now - 30 * 86_400_000, agent="old-agent", cost_usd=9.0),
    ])
    conn.close()
    return directory


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tui", "stats", "--no-refresh", *args], capture_output=True,
                          timeout=60,
                          env={**os.environ, **(env or {})})


def test_text_table_by_agent(sessions_dir):
    result = run("--sessions-dir", str(sessions_dir), "--since", "7d", "--by", "agent",
                 env={"XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"]})
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "2 sessions, 1 failed (50%)" in text and "$1.7500" in text
    assert "web-research" in text and "old-agent" not in text.split("most expensive")[0]
    assert "most expensive" in text and "agents failing most" in text and "█" in text


def test_json_has_the_same_numbers(sessions_dir, capsys):
    from tui.cli.main import main

    assert main(["stats", "--no-refresh", "--sessions-dir", str(sessions_dir), "--json", "--by", "model"]) == 0
    out = orjson.loads(capsys.readouterr().out)
    assert out["totals"]["sessions"] == 3 and out["totals"]["cost_usd"] == pytest.approx(10.75)
    assert {g["key"] for g in out["by"]["model"]} == {"claude-sonnet", "gpt-5", "model-a"}
    assert sum(g["sessions"] for g in out["by"]["day"]) == 3
    assert out["top"]["expensive"][0]["cost_usd"] == 9.0
    assert out["top"]["failing_agents"][0]["key"] == "web-research"
    assert out["accounting"] is None


def test_accounting_is_a_second_column(sessions_dir, capsys):
    from tui.cli.main import main

    now = int(time.time() * 1000)
    lines = [{"type": "llm", "timestamp": now - 1000, "status": "ok", "latency": 1, "agentId": "web-research",
              "provider": "p", "model": "gpt-5", "tokens": {"inputTokens": 1, "outputTokens": 1}, "costUsd": 2.5},
             {"type": "tool", "timestamp": now, "status": "ok", "latency": 1, "mcpServer": "x", "command": "y",
              "charactersIn": 1, "charactersOut": 1}]
    (sessions_dir / "accounting.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines) + b"{bad\n")
    assert main(["stats", "--no-refresh", "--sessions-dir", str(sessions_dir), "--json", "--by", "agent", "--since", "1d"]) == 0
    out = orjson.loads(capsys.readouterr().out)
    assert out["totals"]["accounting_cost_usd"] == pytest.approx(2.5)
    assert out["by"]["agent"][0]["accounting_cost_usd"] == pytest.approx(2.5)
    assert main(["stats", "--no-refresh", "--sessions-dir", str(sessions_dir), "--by", "agent"]) == 0
    assert "acct.jsonl" in capsys.readouterr().out


def test_missing_index_says_how_to_build_it(tmp_path, monkeypatch, capsys):
    from tui.cli.main import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["stats", "--no-refresh", "--sessions-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no sessions index yet" in err and "run the monitor once" in err


def test_foreign_file_is_not_taken_for_an_index(tmp_path, monkeypatch, capsys):
    from tui.cli.main import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = index_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not sqlite at all" * 100)
    assert main(["stats", "--no-refresh", "--sessions-dir", str(tmp_path)]) == 1
    assert "cannot be read" in capsys.readouterr().err


def test_bad_time_is_one_line(sessions_dir, capsys):
    from tui.cli.main import main

    assert main(["stats", "--no-refresh", "--sessions-dir", str(sessions_dir), "--since", "last tuesday"]) == 2
    assert "not a time" in capsys.readouterr().err


def test_parse_when():
    assert parse_when("7d", now_s=1000 * 86400) == 993 * 86_400_000
    assert parse_when("90m", now_s=6000) == 600_000
    assert parse_when("2026-11-20") == int(time.mktime(time.strptime("2026-11-20", "%Y-%m-%d")) * 1000)
    with pytest.raises(ValueError):
        parse_when("d")


def test_never_imports_textual(sessions_dir):
    code = ("import sys; from tui.cli.main import main; main(['stats', '--no-refresh', '--sessions-dir', sys.argv[1]]); "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules, 'textual imported'")
    result = subprocess.run([sys.executable, "-c", code, str(sessions_dir)], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_stats_refresh_the_index_first(tmp_path, monkeypatch, capsys):
    """With the store's calls (tui.catalog.index.sync), a directory never indexed is indexed, then counted."""
    pytest.importorskip("tui.catalog.index.sync")
    from helpers.builders import op, turn, write
    from helpers.builders import session as tree
    from tui.cli.main import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    directory = tmp_path / "sessions"
    directory.mkdir()
    now = int(time.time() * 1000)
    write(directory / "one.json.gz", {"version": 1, "opTree": tree(turn(1, op("llm")), agent="solo",
                                                                   startedAt=now - 1000, endedAt=now)})
    assert main(["stats", "--sessions-dir", str(directory), "--json", "--by", "agent"]) == 0
    out = orjson.loads(capsys.readouterr().out)
    assert out["totals"]["sessions"] == 1 and out["by"]["agent"][0]["key"] == "solo"


def test_the_real_ledger_costs_what_the_real_sessions_do(tmp_path, capsys):
    """The real ai-agent's accounting.jsonl beside its sessions (each sub-agent's entries written 2 to 6 times):
    stats index the snapshot and read the ledger, and both say the same cost."""
    import shutil

    from helpers.realfixtures import REAL
    from tui.cli.main import main

    shutil.copytree(REAL / "master", tmp_path / "run")
    assert main(["stats", "--sessions-dir", str(tmp_path / "run" / "sessions"), "--json"]) == 0
    totals = orjson.loads(capsys.readouterr().out)["totals"]
    assert totals["sessions"] == 1 and totals["cost_usd"] == pytest.approx(0.063)
    assert totals["accounting_cost_usd"] == pytest.approx(totals["cost_usd"], abs=5e-5)
