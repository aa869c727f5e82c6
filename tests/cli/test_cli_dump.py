"""`aiagent-monitor dump`: text and JSON output, exit status 2 with one line on bad input, no textual import."""

import subprocess
import sys

import orjson

from helpers.builders import llm_acc, op, session, turn, write

HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold]x[/bold]"


def run(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "tui", "dump", *args], capture_output=True, input=stdin, timeout=60)


def snapshot(tmp_path):
    tree = session(turn(1, op("llm", accounting=[llm_acc(5, 6, cost=0.5)], provider="openai", model="gpt"),
                        op("tool", status="failed", name=HOSTILE, error="timeout")), sessionTitle=HOSTILE)
    return write(tmp_path / "s.json.gz", {"version": 1, "reason": "final", "opTree": tree})


def test_json_contract(tmp_path):
    result = run("--json", str(snapshot(tmp_path)))
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert list(out) == ["format", "root", "facts", "totals", "storedTotals", "totalsMismatch", "counts", "maxDepth"]
    assert list(out["facts"]) == ["status", "durationMs", "durationPartial", "lastActivityMs", "userTurns",
                                  "turnNodes", "costUsd", "failedOps"]
    assert list(out["root"]) == ["traceId", "agentId", "callPath", "title", "success", "error", "startedAt", "endedAt"]
    assert out["totals"]["costUsd"] == 0.5 and out["counts"]["failed"] == 1
    assert result.stdout.count(b"\n") == 1


def test_text_is_terminal_safe(tmp_path):
    result = run(str(snapshot(tmp_path)))
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[31m[bold]x[/bold]" in text
    assert "1-2  TOOL" in text and "FAILED" in text and "openai:gpt" in text


def test_stdin(tmp_path):
    result = run("--json", "-", stdin=snapshot(tmp_path).read_bytes())
    assert result.returncode == 0 and orjson.loads(result.stdout)["format"] == "aiagent-snapshot"


def test_bad_file_exit_2_one_line(tmp_path):
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00\x00")
    result = run("--json", str(bad))
    assert result.returncode == 2 and result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "gzip" in lines[0]


def test_dump_never_imports_textual(tmp_path):
    code = ("import sys; from tui.cli.main import main; rc = main(['dump', '--json', sys.argv[1]]); "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules, 'UI imported'; sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, str(snapshot(tmp_path))], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_help_works():
    for args in (["-m", "tui", "--help"], ["-m", "tui", "dump", "--help"]):
        result = subprocess.run([sys.executable, *args], capture_output=True, timeout=60)
        assert result.returncode == 0 and b"usage" in result.stdout
