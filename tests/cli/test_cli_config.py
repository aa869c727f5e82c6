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
