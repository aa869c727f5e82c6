"""Tests of tui/inputs/ (shared helpers live at the top of tests/, on the path through pyproject's pythonpath)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def sock_dir(tmp_path):
    """A directory short enough for a Unix socket path (108 bytes on Linux)."""
    if len(str(tmp_path)) < 80:
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="aim-") as d:
        yield Path(d)
