"""The demo's directory lives as long as the app, however the app ends, and an explicit sessions directory never
starts a demo: the real program in a terminal (tests/ptyrun.py), its temporary directory pointed at a test folder.
"""

from __future__ import annotations

import signal
import tempfile

import pytest

from tui.cli.main import app_parser
from tui.cli.run import build_app

from ptyrun import run_in_pty

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
    out, status = run_in_pty([], [(8.0, b"q")], env=env, timeout=60)
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
