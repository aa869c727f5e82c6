"""Shared helpers for app tests: generated sessions written to disk, and an app opened on them."""

from __future__ import annotations

from pathlib import Path

from tui.app import MonitorApp
from tui.gen import make_tree, write_snapshot
from tui.model.document import load
from tui.screens.session import SessionScreen

SIZE = (160, 48)


def deep_snapshot(tmp_path: Path, *, seed: int = 3, ops: int = 60, depth: int = 3, running: bool = False) -> Path:
    tree = make_tree(seed, ops=ops, depth=depth, fanout=1, running=running)
    return write_snapshot(tmp_path, tree, version=2)


def session_app(path: Path, op_path: str | None = None, **kwargs) -> MonitorApp:
    return MonitorApp(sessions_dir=path.parent, document=load(str(path)), op_path=op_path, **kwargs)


def top(app: MonitorApp) -> SessionScreen:
    screen = app.screen
    assert isinstance(screen, SessionScreen), type(screen)
    return screen
