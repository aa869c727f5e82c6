"""Codex CLI sub-agents: the rollouts of the threads a session spawned, read as its sub-agents.

A thread Codex spawns (the `spawn_agent` tool, codex-rs core/src/tools/handlers/multi_agents) runs as a thread of
its own with its own rollout, `rollout-<time>-<thread id>.jsonl`, usually beside its parent's, whose `session_meta`
says where it came from: `"source": {"subagent": {"thread_spawn": {"parent_thread_id": "<parent>", "depth": 1,
...}}}` (codex-rs protocol SessionSource / SubAgentSource, serde lowercase / snake_case; newer ones repeat
`parent_thread_id` at the top of the meta). The parent's `spawn_agent` call answers `{"agent_id": "<thread id>"}`.

A parent finds its sub-agents' files by reading the first line of the rollouts in its own folder (and the next
day's: a thread spawned before midnight may be written after it); a call that names one takes it as its child,
and a sub-agent no call names is still shown, at the end of its parent. Bounded: a folder's first FILES_MAX
rollouts, the first HEAD_MAX bytes of each, sub-agents MAX_DEPTH levels deep.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from pathlib import Path

from tui.inputs.files import open_regular

FILES_MAX = 2000
HEAD_MAX = 1 << 20  # a session_meta line carries the instructions: a few tens of KiB
MAX_DEPTH = 4
_NAME = re.compile(r"rollout-(\d{4})-(\d\d)-(\d\d)T[\d-]{8}-([0-9A-Za-z][0-9A-Za-z_-]{0,127})\.jsonl")
_PARENT = re.compile(rb'"parent_thread_id"\s*:\s*"([^"\\]{1,128})"')

Load = Callable[[Path, int], "dict | None"]  # a rollout file, its depth -> its SessionNode (None: unreadable)


def parent_of(meta: dict) -> str:
    """The parent thread a rollout's session_meta names (a spawned thread's), or ""."""
    source = meta.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else meta.get("parent_thread_id")
    return parent if isinstance(parent, str) else ""


class SubAgents:
    """The sub-agents of the rollout at `path`, found once the session's own id is known."""

    def __init__(self, path: str, depth: int, load: Load) -> None:
        self.path, self.depth, self.load = Path(path), depth, load
        self.files: dict[str, Path] | None = None

    def _found(self, parent_id: str) -> dict[str, Path]:
        if self.files is None:
            self.files = {} if self.depth >= MAX_DEPTH or not parent_id else _children_files(self.path, parent_id)
        return self.files

    def take(self, parent_id: str, agent_id: str) -> dict | None:
        """The SessionNode of the sub-agent `agent_id` (a spawn call's answer), once."""
        file = self._found(parent_id).pop(agent_id, None)
        return self.load(file, self.depth + 1) if file is not None else None

    def rest(self, parent_id: str) -> list[dict]:
        """The sub-agents no call took, oldest first."""
        files = self._found(parent_id)
        nodes = [self.load(files[key], self.depth + 1) for key in sorted(files, key=lambda k: files[k].name)]
        files.clear()
        return [node for node in nodes if node is not None]


def _children_files(path: Path, parent_id: str) -> dict[str, Path]:
    """Thread id -> rollout file, for the rollouts beside `path` (and in the next day's folder) whose first line
    names `parent_id` as their parent thread."""
    found: dict[str, Path] = {}
    for folder in _folders(path):
        for thread, file in _spawned_in(folder).get(parent_id, {}).items():
            if file != path:
                found[thread] = file
    return found


_FOLDERS: dict[Path, tuple[int, dict[str, dict[str, Path]]]] = {}
FOLDERS_KEPT = 64


def _spawned_in(folder: Path) -> dict[str, dict[str, Path]]:
    """Parent thread id -> {thread id: rollout} of the spawned threads' rollouts in a folder: each rollout's first
    line read once per change of the folder (a new file changes its mtime), not once per parent that asks (a day
    of hundreds of rollouts, each indexed, would read every first line hundreds of times)."""
    try:
        stamp = folder.stat().st_mtime_ns
        cached = _FOLDERS.get(folder)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        names = sorted(e.name for e in os.scandir(folder) if _NAME.fullmatch(e.name))[:FILES_MAX]
    except OSError:
        return {}
    spawned: dict[str, dict[str, Path]] = {}
    whole = True  # every first line read whole (a rollout just created may not have its first line yet)
    for name in names:
        match = _NAME.fullmatch(name)
        line = _first_line(folder / name)
        whole = whole and line.endswith(b"\n")
        parent = _PARENT.search(line)
        if match is not None and parent is not None:
            spawned.setdefault(parent.group(1).decode("utf-8", "replace"), {})[match.group(4)] = folder / name
    if not whole:
        return spawned  # (not kept: read again next time)
    if len(_FOLDERS) >= FOLDERS_KEPT:
        _FOLDERS.pop(next(iter(_FOLDERS)))
    _FOLDERS[folder] = (stamp, spawned)
    return spawned


def _folders(path: Path) -> list[Path]:
    """The parent's folder, and the next day's when the folders are Codex's `YYYY/MM/DD`."""
    folder = path.parent
    try:
        following = dt.date(int(folder.parent.parent.name), int(folder.parent.name), int(folder.name)) + \
            dt.timedelta(days=1)
    except (ValueError, OverflowError):
        return [folder]
    return [folder, folder.parent.parent.parent / f"{following.year:04d}" / f"{following.month:02d}" /
            f"{following.day:02d}"]


def _first_line(file: Path) -> bytes:
    try:
        with open_regular(file) as fh:
            return fh.readline(HEAD_MAX)
    except OSError:
        return b""
