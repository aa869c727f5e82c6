"""`aiagent-monitor export` and `dump --insights`: output, files, sub-agents, exit status, no textual import."""

from __future__ import annotations

import subprocess
import sys

import orjson

from helpers.builders import llm_acc, op, session, turn, write

HOSTILE = "\x1b]0;pwned\x07<b>x</b>"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=60, cwd=cwd)


def snapshot(tmp_path):
    child = session(turn(1, op("llm", accounting=[llm_acc(3, 4, cost=0.2)], provider="openai", model="gpt"),
                         op("tool", status="failed", name="web__fetch", error="timeout", started=1000, ended=9000)),
                    agent="kid", trace="trace-kid")
    tree = session(turn(1, op("llm", accounting=[llm_acc(5, 6, cost=0.5)], provider="anthropic", model="claude"),
                        op("session", name="agent__kid", child=child),
                        op("tool", status="failed", name=HOSTILE, error="boom")), agent="boss", trace="trace-boss")
    return write(tmp_path / "s.json.gz", {"version": 1, "reason": "final", "opTree": tree})


def test_markdown_to_stdout(tmp_path):
    result = run("export", str(snapshot(tmp_path)))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.startswith("# Session report: boss\n")
    for section in ("## Overview", "## Insights", "## Timeline", "## Errors"):
        assert section in text
    assert "\x1b" not in text and "<b>" not in text and "\\<b\\>" in text


def test_json_to_a_file(tmp_path):
    out = tmp_path / "out" / "report.json"
    out.parent.mkdir()
    result = run("export", str(snapshot(tmp_path)), "--format", "json", "-o", str(out))
    assert result.returncode == 0 and result.stdout == b""
    assert str(out) in result.stderr.decode()
    value = orjson.loads(out.read_bytes())
    assert value["session"]["agentId"] == "boss" and value["session"]["counts"]["ops"] == 5
    assert value["insights"]["toolErrors"]["failed"] == 2
    assert not list(out.parent.glob(".*tmp*"))  # written through a temporary file, which is gone


def test_a_sub_agent_on_its_own(tmp_path):
    path = str(snapshot(tmp_path))
    by_op = run("export", path, "--op", "1-2")
    by_session = run("export", path, "--session", "kid")
    assert by_op.returncode == 0 and by_op.stdout == by_session.stdout
    text = by_op.stdout.decode()
    assert text.startswith("# Session report: kid\n") and "`1-2.1-2`" in text and "`1-3`" not in text
    as_json = orjson.loads(run("export", path, "--session", "trace-kid", "--format", "json").stdout)
    assert as_json["session"]["path"] == "1-2" and len(as_json["session"]["turns"][0]["ops"]) == 2


def test_exit_status_2_with_one_line(tmp_path):
    path = str(snapshot(tmp_path))
    cases = [
        (["export", path, "--op", "1-1"], "not a sub-agent"),
        (["export", path, "--op", "7-7"], "no op at path 7-7"),
        (["export", path, "--session", "nobody"], "no session matches"),
        (["export", path, "-o", str(tmp_path / "missing" / "x.md")], "cannot write"),
        (["export", str(tmp_path / "absent.json.gz")], "absent.json.gz"),
    ]
    for args, message in cases:
        result = run(*args)
        lines = result.stderr.decode().splitlines()
        assert result.returncode == 2 and result.stdout == b"", args
        assert len(lines) == 1 and message in lines[0], (args, lines)
    assert run("export", path, "--format", "pdf").returncode == 2  # argparse refuses it


def test_export_never_imports_textual(tmp_path):
    code = ("import sys; from tui.cli.main import main; rc = main(['export', sys.argv[1], '-o', sys.argv[2]]); "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules, 'UI imported'; sys.exit(rc)")
    result = subprocess.run([sys.executable, "-c", code, str(snapshot(tmp_path)), str(tmp_path / "r.md")],
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_dump_insights_as_text(tmp_path):
    result = run("dump", "--insights", str(snapshot(tmp_path)))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.startswith("Failed ops (2)\n")
    assert "1-2.1-2" in text and "timeout" in text and "Slowest ops" in text and "anthropic:claude" in text
    assert "tool error rate 100.0% (2 of 2 tool calls failed)" in text
    assert "\x1b" not in text and "\\x1b" in text


def test_dump_json_adds_insights_only_when_asked(tmp_path):
    path = str(snapshot(tmp_path))
    plain = orjson.loads(run("dump", "--json", path).stdout)
    assert "insights" not in plain
    both = orjson.loads(run("dump", "--json", "--insights", path).stdout)
    assert list(both)[:-1] == list(plain) and list(both)[-1] == "insights"
    assert [f["path"] for f in both["insights"]["failedOps"]] == ["1-2.1-2", "1-3"]
    assert both["insights"]["byAgent"][0]["agent"] == "boss"


def test_help_lists_export():
    result = run("export", "--help")
    assert result.returncode == 0 and b"--format" in result.stdout and b"--session" in result.stdout
    assert b"export PATH" in run("--help").stdout


# where the report may be written (issue 12, point 9) ------------------------------------------------------------


def test_a_planted_symlink_at_the_output_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "report.md"
    out.symlink_to(victim)
    result = run("export", str(snapshot(tmp_path)), "-o", str(out))
    assert result.returncode == 2 and b"symbolic link" in result.stderr
    assert victim.read_text() == "keep me" and out.is_symlink()


def test_a_planted_link_at_the_old_temporary_name_is_not_followed(tmp_path):
    """The temporary name used to be `.NAME.tmp-PID`: predictable, opened with "wb", so a link there was followed."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "report.md"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])  # a pid to plant links for
    try:
        for pid in range(max(1, proc.pid - 200), proc.pid + 200):
            (tmp_path / f".report.md.tmp-{pid}").symlink_to(victim)
        result = run("export", str(snapshot(tmp_path)), "-o", str(out))
    finally:
        proc.kill()
    assert result.returncode == 0, result.stderr
    assert victim.read_text() == "keep me"
    assert out.read_text().startswith("# Session report")
    assert not [p for p in tmp_path.glob(".report.md.*") if not p.is_symlink()]  # no temporary file left


def test_the_report_gets_the_umask_mode_and_replaces_an_existing_file(tmp_path):
    out = tmp_path / "report.md"
    out.write_text("old")
    out.chmod(0o640)
    result = run("export", str(snapshot(tmp_path)), "-o", str(out))
    assert result.returncode == 0 and out.read_text().startswith("# Session report")
    assert (out.stat().st_mode & 0o777) == 0o640  # the replaced file's mode is kept
    fresh = tmp_path / "fresh.md"
    result = subprocess.run(["sh", "-c", f'umask 027 && "{sys.executable}" -m tui export "{snapshot(tmp_path)}" '
                             f'-o "{fresh}"'], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (fresh.stat().st_mode & 0o777) == 0o640


def test_never_into_the_sessions_directory(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    source = snapshot(sessions)
    result = run("export", str(source), "-o", "r.md", "--sessions-dir", str(sessions), cwd=sessions)
    assert result.returncode == 2 and b"sessions directory" in result.stderr
    assert not (sessions / "r.md").exists()
    env_result = subprocess.run([sys.executable, "-m", "tui", "export", str(source), "-o", str(sessions / "r.md")],
                                capture_output=True, timeout=60,
                                env={**__import__("os").environ, "AI_AGENT_SESSIONS_DIR": str(sessions)})
    assert env_result.returncode == 2 and not (sessions / "r.md").exists()
