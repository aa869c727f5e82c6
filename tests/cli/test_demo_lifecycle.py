"""The demo's directory lives as long as the app, however the app ends, and an explicit sessions directory never
starts a demo: the real program in a terminal (tests/helpers/ptyrun.py), its temporary directory pointed at a test folder.
"""

from __future__ import annotations

import signal
import tempfile

import pytest

from tui.cli.main import app_parser
from tui.cli.run import build_app

from helpers.ptyrun import run_in_pty

DEMO_HEADER = b"real sessions come from"  # the demo browser's header is on screen


def demo_env(tmp_path) -> dict[str, str]:
    """No sessions anywhere (HOME without ~/.ai-agent/sessions), temporary directories made in tmp_path/tmp."""
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    return {"HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"), "AI_AGENT_SESSIONS_DIR": ""}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_the_demo_directory_is_removed_when_a_signal_ends_the_app(tmp_path, signum):
    env = demo_env(tmp_path)
    out, status = run_in_pty([], [], env=env, signals=[(DEMO_HEADER, signum)], timeout=60)
    assert DEMO_HEADER in out, out[-2000:]
    assert b"DEMO" in out
    assert status == 128 + signum  # ended by the app on the signal (the default action would give -signum)
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_demo_directory_is_removed_on_quit(tmp_path):
    env = demo_env(tmp_path)
    out, status = run_in_pty([], [(DEMO_HEADER, b"q")], env=env, timeout=60)
    assert DEMO_HEADER in out and status == 0
    assert list((tmp_path / "tmp").iterdir()) == []


def test_an_explicit_empty_sessions_dir_never_starts_the_demo(tmp_path):
    env = demo_env(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    out, status = run_in_pty(["--sessions-dir", str(empty)], [], env=env, signals=[(b"--listen", signal.SIGTERM)],
                             timeout=60)
    assert b"watching" in out and b"--listen" in out and b"DEMO" not in out, out[-2000:]
    assert list((tmp_path / "tmp").iterdir()) == [] and list(empty.iterdir()) == []


def test_the_environment_variable_is_as_explicit_as_the_option(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("AI_AGENT_SESSIONS_DIR", str(empty))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # (re-read from TMPDIR: a demo would start there)
    app = build_app(app_parser().parse_args([]), watch=False)
    assert not isinstance(app, int) and app.sessions_dir == empty and app.demo_for is None and not app.demo_note
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_missing_explicit_sessions_dir_is_an_error_not_a_demo(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert build_app(app_parser().parse_args(["--sessions-dir", str(tmp_path / "nowhere")]), watch=False) == 2
    assert "nowhere: no such directory" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_demo_starts_on_an_empty_default_dir_and_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AI_AGENT_SESSIONS_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)  # (re-read from TMPDIR)
    cleanups = []
    app = build_app(app_parser().parse_args([]), watch=False, on_exit=cleanups.append)
    try:
        assert app.demo_for == tmp_path / "home" / ".ai-agent" / "sessions"
        assert app.sessions_dir.is_relative_to(tmp_path / "tmp") and any(app.sessions_dir.iterdir())
    finally:
        for cleanup in cleanups:
            cleanup()
    assert list((tmp_path / "tmp").iterdir()) == []


def test_closing_the_terminal_ends_the_app_and_removes_the_demo_directory(tmp_path):
    """The terminal goes away (tmux kill-session, a closed window): the kernel hangs up the terminal and sends
    SIGHUP; Textual cannot write its last escape codes any more and, left alone, its shutdown waited forever."""
    import os
    import pty
    import select
    import sys
    import time

    from helpers.ptyrun import ROOT

    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1",
               **demo_env(tmp_path))
    env.pop("TEXTUAL", None)
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "tui"], env)
        finally:
            os._exit(127)
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while DEMO_HEADER not in seen and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.5)[0]:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
        assert DEMO_HEADER in seen, seen[-2000:]
        assert list((tmp_path / "tmp").iterdir())  # the demo directory exists while the app runs
    finally:
        os.close(fd)  # the terminal is gone: hang-up
    deadline = time.monotonic() + 20
    status = None
    while status is None and time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        status = code if done else None
        time.sleep(0.1)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert status is not None, "the app did not end after its terminal went away"
    assert list((tmp_path / "tmp").iterdir()) == []
