"""The commands that hand things to the shell (issue 30, point 4): `payload` prints one op's decoded capture,
`search` the full-text hits, `--version` the version; `stats` says a missing directory is missing and reads
`--since today`. Each runs the real `python -m tui` as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from helpers.sdkfixtures import FLAKY_SNAPSHOT

import tui


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=60,
                          env={**os.environ, **(env or {})})


def test_version():
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.decode().strip() == f"aiagent-monitor {tui.__version__}"


def test_payload_prints_the_messages_of_an_llm_call():
    result = run("payload", str(FLAKY_SNAPSHOT), "--op", "1-2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith("OpenAI Chat Completions request + response · model fake-chat")
    assert "Answer me." in lines
    assert not any("Enter collapses" in line for line in lines)  # the screen's key hint is not printed


def test_payload_side_source_and_view():
    result = run("payload", str(FLAKY_SNAPSHOT), "--op", "1-2", "--side", "request", "--source", "sdk",
                 "--view", "json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)  # the whole JSON, as the payload screen's json view shows it
    assert isinstance(body, dict) and body
    raw = run("payload", str(FLAKY_SNAPSHOT), "--op", "1-1", "--side", "response", "--source", "raw", "--view", "raw")
    assert raw.returncode == 0, raw.stderr
    assert b"string too long (fake)" in raw.stdout


def test_payload_refusals_are_one_line():
    missing = run("payload", str(FLAKY_SNAPSHOT), "--op", "9-9")
    assert missing.returncode == 2
    assert missing.stderr.decode().count("\n") == 1 and "no op 9-9" in missing.stderr.decode()
    no_view = run("payload", str(FLAKY_SNAPSHOT), "--op", "1-1", "--source", "raw", "--view", "events")
    assert no_view.returncode == 1
    assert "no events view (this capture has: " in no_view.stderr.decode()
    assert b"Traceback" not in missing.stderr + no_view.stderr


def test_payload_never_imports_textual():
    code = ("import sys; from tui.cli.main import main; main(['payload', %r, '--op', '1-2']); "
            "sys.stderr.write(str(any(m.startswith(('textual', 'rich')) for m in sys.modules)))") % str(FLAKY_SNAPSHOT)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert result.stderr.decode().strip().endswith("False")


def test_search_prints_hits_as_lines_and_json(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(FLAKY_SNAPSHOT, sessions / "74247dd7-d169-444e-8e06-846acf8a2c8c.json.gz")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    text = run("search", "flaky", "--sessions-dir", str(sessions), env=env)
    assert text.returncode == 0, text.stderr
    fields = text.stdout.decode().splitlines()[0].split("\t")
    assert fields[0] == str(sessions / "74247dd7-d169-444e-8e06-846acf8a2c8c.json.gz")
    assert fields[2:4] == ["ok", "flaky"]
    as_json = run("search", "flaky", "--sessions-dir", str(sessions), "--json", env=env)
    hit = json.loads(as_json.stdout.decode().splitlines()[0])
    assert hit["session_id"] == "74247dd7-d169-444e-8e06-846acf8a2c8c" and "[flaky]" in hit["snippet"]
    none = run("search", "zzzqqq", "--sessions-dir", str(sessions), env=env)
    assert none.returncode == 1 and none.stdout == b""


def test_search_and_stats_on_a_missing_directory(tmp_path):
    for command in ("search", "stats"):
        args = [command, "x"] if command == "search" else [command]
        result = run(*args, "--sessions-dir", str(tmp_path / "missing"))
        assert result.returncode == 2, (command, result.stderr)
        assert result.stderr.decode() == f"aiagent-monitor {command}: {tmp_path / 'missing'}: no such directory\n"


def test_stats_since_today(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    result = run("stats", "--since", "today", "--sessions-dir", str(sessions), env={"XDG_CACHE_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().startswith("since ")
