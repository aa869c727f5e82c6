"""The sessions index of a directory opened for reading only: what `aiagent-monitor stats` and the Stats and Search
screens query. Never creates, migrates or writes the index (tui.catalog.index.store does, in the monitor); a missing,
foreign or old index is reported with what to do, never fatal.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tui.catalog.index import schema
from tui.catalog.index.store import index_path

T = TypeVar("T")

BUILD_HINT = ("run the monitor once on this directory (`aiagent-monitor --sessions-dir DIR`): it builds the index in "
              "the background, and stats answer from then on")


class NoIndex(Exception):
    """No usable index: `str(exc)` says why and how to build one."""


def index_file(sessions_dir: Path | str) -> Path:
    """Where the index of `sessions_dir` lives (the store's one rule: tui.catalog.index.store.index_path)."""
    return Path(index_path(sessions_dir))


def open_readonly(path: Path | str) -> sqlite3.Connection:
    """A read-only connection to the index at `path`, checked to be ours and of this schema (NoIndex otherwise)."""
    p = Path(path)
    if not p.is_file():
        raise NoIndex(f"no sessions index yet ({p}): {BUILD_HINT}")
    try:
        conn = sqlite3.connect(f"{p.as_uri()}?mode=ro", uri=True, timeout=5.0, check_same_thread=False)
    except sqlite3.Error as exc:
        raise NoIndex(f"cannot open the sessions index {p}: {exc}") from None
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("SELECT 1 FROM sessions LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        conn.close()
        raise NoIndex(f"the sessions index {p} is damaged: it cannot be read ({exc}); delete it (rm '{p}') and "
                      "run stats again without --no-refresh, which rebuilds it (the index is only a cache: no "
                      "session is lost)") from None
    if app_id != schema.APPLICATION_ID or version != schema.SCHEMA_VERSION:
        conn.close()
        raise NoIndex(f"{p} is not a sessions index of this version: {BUILD_HINT}")
    return conn


def ask(path: Path | str, question: Callable[[sqlite3.Connection], T], failed: str) -> tuple[T | None, str]:
    """(the answer of `question` on a read-only connection to the index at `path`, "") or (None, why not): no
    usable index says how to build one; anything else is `failed` with the error (a damaged index must not take a
    screen down)."""
    try:
        conn = open_readonly(path)
        try:
            return question(conn), ""
        finally:
            conn.close()
    except NoIndex as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001 - see above
        return None, f"{failed}: {type(exc).__name__}: {exc}"


def add_stats_index(path: Path | str) -> bool:
    """Add the stats' covering index (tui.catalog.index.stats.STATS_INDEXES) to an existing index file when it can
    be written; a read-only or busy one is left as it is (stats are then answered, only slower)."""
    from tui.catalog.index.stats import ensure_indexes

    p = Path(path)
    if not p.is_file():
        return False
    try:
        conn = sqlite3.connect(f"{p.as_uri()}?mode=rw", uri=True, timeout=1.0)
    except sqlite3.Error:
        return False
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != schema.APPLICATION_ID:
            return False
        return ensure_indexes(conn)
    except sqlite3.Error:
        return False
    finally:
        conn.close()
