"""Paths of files that may be broken: a symbolic link loop makes Path.resolve raise RuntimeError (Python < 3.13)."""

from __future__ import annotations

from pathlib import Path


def safe_resolve(path: Path) -> Path:
    """path.resolve(), or the absolute path when it cannot be resolved."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
