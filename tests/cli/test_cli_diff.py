"""`aiagent-monitor diff A B`: text and JSON, exit status 2 with one line on unreadable input, no textual import."""

import subprocess
import sys

import orjson

from helpers.builders import llm_acc, op, session, turn, write


def run(*args):
    return subprocess.run([sys.executable, "-m", "tui", "diff", *args], capture_output=True, timeout=60)


def two_files(tmp_path):
    a = session(turn(1, op("llm", accounting=[llm_acc(5, 6, cost=0.5)]), op("tool", op_id="2", name="grep",
                                                                            status=None, ended=None)),
                ended=None, success=None)
    b = session(turn(1, op("llm", accounting=[llm_acc(5, 6, cost=0.5)]), op("tool", op_id="2", name="grep")),
                turn(2, op("llm", accounting=[llm_acc(100, 20, cost=0.25)])))
    return (write(tmp_path / "a.json.gz", {"version": 1, "opTree": a}),
            write(tmp_path / "b.json.gz", {"version": 1, "opTree": b}))


def test_text(tmp_path):
    a, b = two_files(tmp_path)
    result = run(str(a), str(b))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "tokens in" in text and "+100" in text and "+$0.2500" in text
    assert "added (1):" in text and "2-1" in text
    assert "status changed (1):" in text and "running → ok" in text
    assert "unchanged ops: 1" in text


def test_json(tmp_path):
    a, b = two_files(tmp_path)
    result = run("--json", str(a), str(b))
    assert result.returncode == 0, result.stderr
    out = orjson.loads(result.stdout)
    assert out["delta"]["totals"]["tokensIn"] == 100 and out["delta"]["totals"]["costUsd"] == 0.25
    assert out["delta"]["counts"]["ops"] == 1
    assert [x["path"] for x in out["ops"]["added"]] == ["2-1"]
    assert out["ops"]["statusChanged"][0]["statusAfter"] == "ok"
    assert out["before"]["status"] == "running" and out["after"]["status"] == "ok"
    assert result.stdout.count(b"\n") == 1


def test_unreadable_input_exits_2_with_one_line(tmp_path):
    a, _ = two_files(tmp_path)
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(b"\x1f\x8bnot really")
    for args in ((str(a), str(tmp_path / "missing.json.gz")), (str(bad), str(a))):
        result = run(*args)
        assert result.returncode == 2 and result.stdout == b""
        lines = result.stderr.decode().splitlines()
        assert len(lines) == 1 and args[1 if "missing" in args[1] else 0] in lines[0]


def test_diff_never_imports_textual(tmp_path):
    a, b = two_files(tmp_path)
    code = ("import sys; from tui.cli.main import main; rc = main(['diff', '--json', sys.argv[1], sys.argv[2]]); "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules, 'UI imported'; sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, str(a), str(b)], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
