"""`dump` over the corpus: one inert line and exit 2 for each broken file; exit 0 and the problems under their
nodes for degraded files; nothing from hostile text that can act on a terminal, on stdout or stderr."""

from __future__ import annotations

import re

import orjson
import pytest

from helpers.corpusfix import assert_inert, case_names, corpus, run_cli  # noqa: F401 - fixtures

BROKEN = case_names("broken")
DEGRADED = case_names("degraded")


@pytest.mark.parametrize("name", BROKEN)
def test_broken_file_one_clear_line_exit_2(corpus, name):
    directory, cases = corpus
    result = run_cli("dump", "--max-bytes", "64M", name, cwd=directory, as_other_user=True)
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    stderr = result.stderr.decode("utf-8")
    assert len(stderr.splitlines()) == 1, stderr
    assert cases[name].reason in stderr, stderr
    assert_inert(stderr, name)


@pytest.mark.parametrize("name", DEGRADED)
def test_degraded_file_exit_0_with_its_problems_listed(corpus, name):
    directory, cases = corpus
    result = run_cli("dump", "--payloads", name, cwd=directory, as_other_user=True)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode("utf-8")
    for where, fragment in cases[name].problems:
        assert fragment in out, f"{where}: {fragment!r} missing"
    assert_inert(out, name)


def test_degraded_problems_sit_under_their_op(corpus):
    directory, _ = corpus
    lines = run_cli("dump", "--payloads", "bad-refs.json.gz", cwd=directory).stdout.decode().splitlines()
    at = next(i for i, line in enumerate(lines) if "─ 1-4  LLM" in line)
    assert "payload file not found: payloads/missing.json.gz" in lines[at + 1]
    lines = run_cli("dump", "wrong-types.json.gz", cwd=directory).stdout.decode().splitlines()
    assert any("2-2  TOOL" in line and "BROKEN: attributes is array" in line for line in lines)


@pytest.mark.parametrize("name", ["hostile-text.json.gz", "session/hostile-ledger.jsonl"])
def test_hostile_text_never_reaches_the_terminal(corpus, name):
    directory, _ = corpus
    for args in (["dump", "--payloads", name], ["dump", "--json", name]):
        result = run_cli(*args, cwd=directory)
        assert result.returncode == 0, result.stderr
        out = result.stdout.decode("utf-8")
        if "--json" in args:
            assert orjson.loads(result.stdout)["root"]["agentId"].startswith("[bold magenta]MARKUP[/]\x1b]0;")
            assert "\x1b" not in out and "\x07" not in out  # JSON escapes control characters as \u001b
        else:
            assert_inert(out, name)
            assert "[bold magenta]MARKUP[/]\\x1b]0;PWNED-TITLE\\x07" in out


def test_hostile_file_name_in_stderr_is_inert(corpus):
    directory, _ = corpus
    name = next(n for n in BROKEN if n.startswith("hostile-name"))
    result = run_cli("dump", name, cwd=directory)
    stderr = result.stderr.decode("utf-8")
    assert result.returncode == 2 and "hostile-name-\\x1b]0;PWNED-NAME\\x07[red]x[bold]\\u202e" in stderr
    assert_inert(stderr)


def test_deep_nesting_dumps(corpus):
    directory, _ = corpus
    for name in ("deep-150.json.gz", "session/deep-ledger-root.jsonl"):
        summary = orjson.loads(run_cli("dump", "--json", name, cwd=directory).stdout)
        assert summary["maxDepth"] == 150 and summary["counts"]["sessions"] == 151, name
        text = run_cli("dump", name, cwd=directory).stdout.decode()
        assert "SESSION agent-150" in text and len(re.findall(r"SESSION agent-\d+  trace", text)) == 151, name
        assert "SESSION agent-3" in run_cli("dump", "--depth", "3", name, cwd=directory).stdout.decode()


def test_max_bytes_option_and_environment(tmp_path):
    import gzip

    path = tmp_path / "s.json"
    path.write_bytes(gzip.compress(b'{"version": 2, "opTree": {"turns": []}, "pad": "' + b" " * 3000 + b'"}'))
    assert run_cli("dump", "--json", str(path)).returncode == 0
    refused = run_cli("dump", "--max-bytes", "2K", str(path))
    assert refused.returncode == 2 and b"past the 2,048-byte limit" in refused.stderr
    assert run_cli("dump", "--max-bytes", "lots", str(path)).returncode == 2  # argparse: invalid size value
    import os
    import subprocess
    import sys

    from helpers.corpusfix import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT), AIAGENT_MONITOR_MAX_BYTES="1K")
    result = subprocess.run([sys.executable, "-m", "tui", "dump", str(path)], capture_output=True, env=env,
                            timeout=60)
    assert result.returncode == 2 and b"1,024-byte limit" in result.stderr
