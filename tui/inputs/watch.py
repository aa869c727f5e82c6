"""Tail a sessions directory with watchfiles: which snapshot and ledger files appeared, changed or went away.

A watch on a directory that is deleted ends silently (inotify drops it, and watchfiles reports one last "deleted"
for the directory itself): without care, tailing stops for good when the sessions directory is deleted and made
again (a cleanup script, a test harness, a re-mounted volume). So a deleted watched directory ends the watch, the
watcher waits for the directory to come back, reports everything in it as new, and watches it again; `on_status`
tells the user both moments.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from watchfiles import Change, awatch

from tui.inputs.agent_roots import AgentLocation, session_file_of

LEDGER_DIR = "session"


@dataclass
class DirChanges:
    """One debounced batch of changes; paths are absolute."""

    updated: set[Path] = field(default_factory=set)
    removed: set[Path] = field(default_factory=set)
    # The directory came back after it was removed (or renamed away, which reports no file as deleted): `updated`
    # is all it holds now, and anything listed before whose file is gone should go.
    complete: bool = False
    kinds: dict[Path, str] = field(default_factory=dict)  # row kinds known from where a file sits (other agents')


def is_session_file(path: Path, sessions_dir: Path) -> bool:
    name = path.name
    if ".tmp-" in name:  # the producer's temp file before its rename: never a session
        return False
    parent = path.parent
    if parent == sessions_dir:
        return name.endswith((".json.gz", ".json"))
    return parent == sessions_dir / LEDGER_DIR and name.endswith(".jsonl")


def genkit_dir_of(path: Path, sessions_dir: Path) -> Path | None:
    """A snapshot file in a direct subdirectory (a Genkit snapshot directory is one browser row): that directory."""
    parent = path.parent
    if parent.parent != sessions_dir or parent.name in NOT_SNAPSHOT_DIRS or parent.name.startswith("."):
        return None
    name = path.name
    if ".tmp-" in name or name.startswith(".") or not name.endswith((".json.gz", ".json")):
        return None
    return parent


NOT_SNAPSHOT_DIRS = frozenset({"session", "payloads"})


def classify(raw: set[tuple[Change, str]], sessions_dir: Path, files: frozenset[Path] = frozenset()) -> DirChanges:
    out = DirChanges()
    for change, name in raw:
        path = Path(name)
        if path not in files and not is_session_file(path, sessions_dir):
            folder = genkit_dir_of(path, sessions_dir)
            if folder is not None and folder.is_dir():
                out.updated.add(folder)
            elif change == Change.deleted and path.parent == sessions_dir and not path.exists():
                out.removed.add(path)  # maybe a snapshot directory: dropping an unknown row is harmless
            continue
        if change == Change.deleted and not path.exists():
            out.updated.discard(path)
            out.removed.add(path)
        else:
            out.removed.discard(path)
            out.updated.add(path)
    return out


REARM_POLL_S = 0.25  # how often a vanished sessions directory is looked for


async def watch_sessions(sessions_dir: Path, on_changes: Callable[[DirChanges], None],
                         stop: asyncio.Event | None = None, *, debounce_ms: int = 150,
                         files: tuple[Path, ...] = (), on_status: Callable[[str], None] | None = None) -> None:
    """Calls on_changes with each batch until cancelled (or `stop` is set).

    The two directories that hold session files are watched, not the whole tree: a recursive watch walks every
    file when it starts, a quarter of a second per 100,000 files during which the event loop is held. `files`
    are reported too wherever they sit (a ledger opened from the command line, in a folder of its own)."""
    sessions_dir = sessions_dir.resolve()  # never created here: the monitor does not write into the sessions dir
    ledgers = sessions_dir / LEDGER_DIR
    extra = frozenset(files)
    say = on_status or (lambda _text: None)
    gone = False  # the directory itself was deleted (maybe made again already)
    while True:
        if gone or not sessions_dir.is_dir():
            gone = False
            say(f"{sessions_dir} was removed: waiting for it to come back")
            while not sessions_dir.is_dir():
                if stop is not None and stop.is_set():
                    return
                await asyncio.sleep(REARM_POLL_S)
            say(f"{sessions_dir} is back: following it again")
            on_changes(_present(sessions_dir, extra))  # written while it was gone, or before the new watch started
        watching_ledgers = ledgers.is_dir()
        subdirs = _snapshot_subdirs(sessions_dir)  # Genkit snapshot directories are rows too
        paths = [sessions_dir, ledgers, *subdirs] if watching_ledgers else [sessions_dir, *subdirs]
        watched = {str(p) for p in paths}
        try:
            async for raw in awatch(*paths, stop_event=stop, debounce=debounce_ms, step=50, recursive=False):
                batch = classify(raw, sessions_dir, extra)
                new_dir = any(change == Change.added and Path(name).parent == sessions_dir and Path(name).is_dir()
                              and Path(name).name not in NOT_SNAPSHOT_DIRS for change, name in raw)
                # a watched directory deleted: its watch is dead; session/ or the directory itself may come back
                lost = any(change == Change.deleted and name in watched for change, name in raw)
                gone = any(change == Change.deleted and name == str(sessions_dir) for change, name in raw)
                ledgers_back = ledgers.is_dir() and (not watching_ledgers or lost)
                if ledgers_back:
                    # session/ was just created (again): what is already in it is new, then watch it too
                    batch.updated.update(p for p in ledgers.glob("*.jsonl") if is_session_file(p, sessions_dir))
                if batch.updated or batch.removed:
                    on_changes(batch)
                if ledgers_back or new_dir or lost:
                    break
            else:
                return
        except FileNotFoundError:  # a directory went away between the look and the watch: look again
            await asyncio.sleep(REARM_POLL_S)


def _present(sessions_dir: Path, files: frozenset[Path]) -> DirChanges:
    """Every session file now in the directory (and its session/ folder), as one batch of new files."""
    out = DirChanges(complete=True)
    for folder in (sessions_dir, sessions_dir / LEDGER_DIR):
        try:
            out.updated.update(p for p in folder.iterdir() if p in files or is_session_file(p, sessions_dir))
        except OSError:
            continue
    out.updated.update(_snapshot_subdirs(sessions_dir))  # maybe Genkit snapshot directories
    return out


def _snapshot_subdirs(sessions_dir: Path, limit: int = 256) -> list[Path]:
    """The direct subdirectories that may hold snapshots (not session/ or payloads/), at most `limit` of them.

    A directory's link count is 2 + its number of subdirectories (ext4, xfs, tmpfs...): when every subdirectory it
    has is one known not to hold snapshots, nothing is listed. Listing 100,000 entries here held the event loop
    ~50 ms before the first paint. Where the count says nothing (btrfs gives 1) or says more, the directory is listed."""
    try:
        links = os.stat(sessions_dir).st_nlink
    except OSError:
        links = 0
    if links >= 2 and links - 2 == sum(1 for name in NOT_SNAPSHOT_DIRS if _is_real_dir(sessions_dir / name)):
        return []
    out: list[Path] = []
    try:
        with os.scandir(sessions_dir) as it:
            for entry in it:
                if (entry.is_dir(follow_symlinks=False) and entry.name not in NOT_SNAPSHOT_DIRS
                        and not entry.name.startswith(".")):
                    out.append(Path(entry.path))
                    if len(out) >= limit:
                        break
    except OSError:
        pass
    return out


def _is_real_dir(path: Path) -> bool:
    """A directory, not a symbolic link to one (a link is not a subdirectory in the link count)."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


async def watch_agent_root(loc: AgentLocation, root: Path, on_changes: Callable[[DirChanges], None],
                           stop: asyncio.Event | None = None, *, debounce_ms: int = 150) -> None:
    """Tail another agent's session root (tui.inputs.agent_roots): its session files anywhere below it (Claude
    Code: one folder per project, sub-agents' files in a folder per session), watched recursively (such a root
    holds thousands of files, not the 100,000s of a sessions directory). A sub-agent's file that changes reports
    its parent session's file; `kinds` says the row kind of each. Ends when the root goes away."""
    root = root.resolve()
    if not root.is_dir():
        return
    try:
        async for raw in awatch(root, stop_event=stop, debounce=debounce_ms, step=50, recursive=True):
            out = DirChanges()
            for change, name in raw:
                path = session_file_of(loc, root, Path(name))
                if path is None:
                    continue
                if change == Change.deleted and path == Path(name) and not path.exists():
                    out.updated.discard(path)
                    out.removed.add(path)
                else:
                    out.removed.discard(path)
                    out.updated.add(path)
                out.kinds[path] = loc.kind
            if out.updated or out.removed:
                on_changes(out)
    except FileNotFoundError:
        return


async def watch_databases(loc: AgentLocation, databases: list[Path], on_changes: Callable[[DirChanges], None],
                          stop: asyncio.Event | None = None, *, debounce_ms: int = 150) -> None:
    """Tail an agent's SQLite databases (OpenCode's `opencode.db`): a write to one (to the file, or to its `-wal`
    where a running OpenCode writes) reports the database file as updated, its kind in `kinds`; which of its
    sessions changed is the catalog's to say (tui.catalog.watched_rows). The folders holding them are watched,
    not recursively (OpenCode's data directory also holds its snapshot repositories). Ends when they go away."""
    dbs = {db.resolve(): db.resolve() for db in databases}
    names = {str(db) + tail: db for db in dbs for tail in ("", "-wal")}
    folders = sorted({str(db.parent) for db in dbs if db.parent.is_dir()})
    if not folders:
        return
    try:
        async for raw in awatch(*folders, stop_event=stop, debounce=debounce_ms, step=50, recursive=False):
            touched = {names[name] for _change, name in raw if name in names}
            out = DirChanges()
            for db in touched:
                (out.updated if db.exists() else out.removed).add(db)
                out.kinds[db] = loc.kind
            if out.updated or out.removed:
                on_changes(out)
    except FileNotFoundError:
        return
