"""The config file (issue 30, point 3): a broken one is one line on stderr and exit 2 before anything starts,
never a traceback; a missing default file is no config; `--config PATH` must exist."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run([sys.executable, "-m", "tui", "--sessions-dir", str(tmp_path / "missing"), *args],
                          capture_output=True, timeout=60, env=env)


def write_config(tmp_path, text: bytes):
    path = tmp_path / "config" / "aiagent-monitor" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return path


@pytest.mark.parametrize("text, says", [
    (b"theme = \n", "not valid TOML"),
    (b"\xff\xfe\x00", "not UTF-8 text"),
    (b"colour = 'red'\n", "unknown setting 'colour'"),
    (b"theme = 3\n", "theme must be a string"),
    (b"theme = 'no-such-theme'\n", "not a theme (one of "),
    (b"sort = 'price'\n", "sort = 'price': not a sort"),
    (b"stale_after = 'soon'\n", "stale_after = 'soon': not a time span"),
    (b"stats_range = '2y'\n", "stats_range = '2y': one of 1d, 7d, 30d, all"),
    (b"keys = 'o'\n", "keys must be a table"),
    (b"[keys]\n'browser.nothing' = 'o'\n", "keys: no binding 'browser.nothing'"),
    (b"[keys]\n'browser.cycle_sort' = ''\n", "keys.browser.cycle_sort must name a key"),
    (b"prices = 3\n", "prices must be a table"),
    (b"[prices]\n'gpt-5' = { input = -1.0 }\n", "prices.gpt-5 must be { input = N, output = N"),
    (b"[prices]\n'gpt-5' = { inptu = 1.0 }\n", "prices.gpt-5 must be"),
    (b"[prices]\n'gpt-5' = 'cheap'\n", "prices.gpt-5 must be"),
])
def test_a_broken_config_is_one_line_and_exit_2(tmp_path, text, says):
    path = write_config(tmp_path, text)
    result = run(tmp_path)
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert err.startswith(f"aiagent-monitor: {path}: ") and says in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_config_that_is_not_a_file(tmp_path):
    (tmp_path / "config" / "aiagent-monitor" / "config.toml").mkdir(parents=True)
    result = run(tmp_path)
    assert result.returncode == 2 and "a directory, not a configuration file" in result.stderr.decode()


def test_config_option_names_a_file_that_must_exist(tmp_path):
    result = run(tmp_path, "--config", str(tmp_path / "nope.toml"))
    assert result.returncode == 2
    assert result.stderr.decode() == f"aiagent-monitor: {tmp_path / 'nope.toml'}: no such file (--config names the " \
                                     "configuration file)\n"


def test_a_good_config_gets_past_it(tmp_path):
    path = write_config(tmp_path, b'theme = "nord"\nsort = "cost"\nfilter = "since:7d"\nstale_after = "20m"\n'
                                  b'stats_range = "30d"\n[keys]\n"browser.cycle_sort" = "o"\n')
    result = run(tmp_path, "--config", str(path))  # the missing sessions directory is the next thing said
    assert result.returncode == 2 and "no such directory" in result.stderr.decode()


def test_config_prices_estimate_in_dump_and_the_environment_file_wins(tmp_path):
    """The configuration's [prices] are one more source of tui.model.prices: over the shipped table (a Claude Code
    file's estimate follows them in `dump --json`), under $AIAGENT_MONITOR_PRICES."""
    import json
    from pathlib import Path

    session = Path(__file__).resolve().parent.parent / "fixtures" / "claude-code" / "projects" / "-w-demo" / \
        "sess-2x.jsonl"  # 1,270 input tokens, 172 output, 16,100 cache reads, 2,000 cache writes
    write_config(tmp_path, b"[prices]\n'claude-sonnet-4' = { input = 1000.0 }\n"
                           b"'claude-haiku-4-5' = { input = 1000.0 }\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("AIAGENT_MONITOR_PRICES", None)

    def cost() -> float:
        out = subprocess.run([sys.executable, "-m", "tui", "dump", "--json", str(session)], capture_output=True,
                             timeout=60, env=env, check=True).stdout
        facts = json.loads(out)["facts"]
        assert facts["costEstimated"] is True
        return facts["costUsd"]

    assert cost() == 1.27  # 1,270 input tokens at $1,000 a million; the rest at 0
    prices_file = tmp_path / "prices.json"
    prices_file.write_text(json.dumps({"claude-sonnet-4": {"output": 1000}, "claude-haiku-4-5": {"output": 1000}}))
    env["AIAGENT_MONITOR_PRICES"] = str(prices_file)
    assert cost() == 0.172  # the environment's file over the configuration's
