"""List a sessions directory fast: snapshots in `<dir>`, v3 ledgers in `<dir>/session/`. Nothing is decoded here.

A real directory holds hundreds of thousands of snapshots, so the listing uses `os.scandir` (one stat per file for
mtime and size) and never opens a snapshot. Summaries are filled later, one file at a time, by
`tui.catalog.session_row.fill_row`.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

from tui.formats.genkit.snapshot import looks_like_genkit_dir
from tui.formats.opencode.database import listed_sessions, session_ids, session_key
from tui.inputs.agent_roots import (OPENCODE, AgentLocation, ContentStat, content_stat, location_of_root,
                                    opencode_sources, session_files)
from tui.inputs.files import NOT_REGULAR, database_of_key, not_regular_reason
from tui.model.gc_pause import paused_gc_then_frozen
from tui.catalog.session_row import RowKind, SessionRow, not_a_session, row_from_entry, session_id_from_name

LEDGER_DIR = "session"
# Up to this many ledgers, scan() reads each one's first line to drop sub-agent ledgers at once; above it, the
# check is left to fill_row (which marks them kind="child") so that the listing stays instant.
PEEK_LEDGERS_MAX = 2000
# Subdirectories checked for Genkit snapshots (one listing and one file head each); a sessions directory has few.
PEEK_DIRS_MAX = 200
NOT_SNAPSHOT_DIRS = frozenset({LEDGER_DIR, "payloads"})


# A file's filled row from what is already known of it (the sessions index), or None: (key, path, stat) -> row
Known = Callable[[str, Path, "os.stat_result | ContentStat"], "SessionRow | None"]
# Other agents' session roots listed beside the sessions directory (tui.inputs.agent_roots): (location, root)
Roots = tuple[tuple[AgentLocation, Path], ...]


def scan(sessions_dir: Path | str, *, peek_ledgers_max: int | None = None,
         known: Known | None = None, roots: Roots = ()) -> list[SessionRow]:
    """Every session file of the directory, newest mtime first. A missing directory gives an empty list; one that
    cannot be listed (or whose session/ cannot) gives one broken row saying why. `known` gives the filled row of a
    file whose facts are already known (tui.catalog.index.sync.warm_scan): built once, never read. `roots`: other
    agents' roots listed too (a sessions directory that is itself one, `~/.claude/projects`, is listed as such)."""
    base = Path(sessions_dir)
    own = location_of_root(base)
    # (OpenCode's data directory holds other JSON files, its auth.json among them: never listed as snapshots)
    rows = [] if own is OPENCODE else _scan_aiagent(sessions_dir, peek_ledgers_max, known)
    listed = [(own, base)] if own is not None else []
    seen = {str(safe_path(base))} if own is not None else set()
    for loc, root in roots:
        key = str(safe_path(root))
        if key not in seen:  # the same root given twice (or as the sessions directory too) is listed once
            seen.add(key)
            listed.append((loc, root))
    for loc, root in listed:
        rows.extend(agent_rows(loc, safe_path(root), known))
    if listed:
        rows = migrated_hidden(rows)
        rows.sort(key=lambda row: row.mtime, reverse=True)
    return rows


def is_database_row(row: SessionRow) -> bool:
    """A session of a database (an OpenCode `opencode.db#<id>` row)."""
    return database_of_key(row.key) is not None


def migrated_hidden(rows: list[SessionRow]) -> list[SessionRow]:
    """The listing without what it holds twice: an OpenCode storage session whose id a database holds too (OpenCode's
    JSON-to-SQLite migration copies the storage into `opencode.db` and keeps the files; the database is what current
    OpenCode writes, so its row is the one kept), and a database session listed twice (a database named by
    $OPENCODE_DB and found in the data directory as well). The one place every view (browser, index, stats, search)
    takes its rows from."""
    databases = {db for row in rows if row.kind == OPENCODE.kind and (db := database_of_key(row.key)) is not None}
    if not databases:
        return rows
    in_db = set().union(*(session_ids(db) for db in sorted(databases)))  # (sub-agents' too: their files are listed)
    seen: set[str] = set()
    out: list[SessionRow] = []
    for row in rows:
        if row.kind == OPENCODE.kind:
            if not is_database_row(row) and row.session_id in in_db and row.path.suffix == ".json":
                continue
            if row.key in seen:
                continue
            seen.add(row.key)
        out.append(row)
    return out


def safe_path(path: Path) -> Path:
    try:
        return path.resolve()  # the watcher reports resolved paths: row keys must match them
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        return path.absolute()


def agent_rows(loc: AgentLocation, root: Path, known: Known | None = None) -> list[SessionRow]:
    """One row per session file of an agent's root (Claude Code: `<project>/<session>.jsonl`); nothing opened."""
    rows: list[SessionRow] = []
    storage, databases = opencode_sources(root) if loc is OPENCODE else (root, [])
    for entry, path in session_files(loc, storage) if storage is not None else ():
        try:
            st = content_stat(loc.kind, path, entry.stat())  # (OpenCode: its messages' newest change)
        except OSError:
            continue
        if known is not None:
            filled = known(entry.path, path, st)
            if filled is not None:
                rows.append(filled)
                continue
        rows.append(row_from_entry(path, st.st_mtime, st.st_size, loc.kind, key=entry.path,
                                   session_id=session_id_from_name(entry.name), mtime_ns=st.st_mtime_ns,
                                   inode=st.st_ino, ctime_ns=st.st_ctime_ns))
    for db in databases:
        rows.extend(database_rows(safe_path(db), known))
    return rows


def database_rows(db: Path, known: Known | None = None, ids: list[str] | None = None) -> list[SessionRow]:
    """One row per session of an OpenCode database (`ids`, else every listed one), keyed `<db>#<session id>`
    (loaded by tui.formats.opencode.database); each row's stamp is the database's (its `-wal`'s while OpenCode
    writes)."""
    loc = OPENCODE
    try:
        st = content_stat(loc.kind, f"{db}#", os.stat(db))
    except OSError:
        return []
    rows: list[SessionRow] = []
    for sid in listed_sessions(str(db)) if ids is None else ids:
        key = session_key(str(db), sid)
        path = Path(key)
        filled = known(key, path, st) if known is not None else None
        rows.append(filled or row_from_entry(path, st.st_mtime, st.st_size, loc.kind, key=key, session_id=sid,
                                             mtime_ns=st.st_mtime_ns, inode=st.st_ino, ctime_ns=st.st_ctime_ns))
    return rows


def _scan_aiagent(sessions_dir: Path | str, peek_ledgers_max: int | None, known: Known | None) -> list[SessionRow]:
    base = Path(sessions_dir)
    try:
        base = base.resolve()  # the watcher reports resolved paths: row keys must match them
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop, before Python 3.13
        base = base.absolute()
    # 100k small objects would trigger many useless collections (they roughly double the time); the rows live as
    # long as the listing and hold no cycles: frozen, or the next passes would scan them while the first are shown
    with paused_gc_then_frozen():
        rows = _list(base, (".json.gz", ".json"), RowKind.SNAPSHOT, known)
        unlistable = len(rows) == 1 and rows[0].path == base  # said once: session/ is out of reach as well
        ledgers = [] if unlistable else _list(base / LEDGER_DIR, (".jsonl",), RowKind.LEDGER, known)
    if len(ledgers) <= (PEEK_LEDGERS_MAX if peek_ledgers_max is None else peek_ledgers_max):
        ledgers = [row for row in ledgers if row.size == 0 or not not_a_session(row)]
    rows.extend(ledgers)
    rows.extend(_genkit_dirs(base))
    rows.sort(key=lambda row: row.mtime, reverse=True)
    return rows


def _genkit_dirs(base: Path) -> list[SessionRow]:
    """Subdirectories holding Genkit snapshot files: one row each (the whole directory opens as one document)."""
    rows: list[SessionRow] = []
    try:
        it = os.scandir(base)
    except OSError:
        return rows
    checked = 0
    with it:
        for entry in it:
            name = entry.name
            if name in NOT_SNAPSHOT_DIRS or name[0] == "." or ".tmp-" in name:
                continue
            try:
                if not entry.is_dir():
                    continue
                checked += 1
                if checked > PEEK_DIRS_MAX:
                    break
                if not looks_like_genkit_dir(entry.path):
                    continue
                st = entry.stat()
            except OSError:
                continue
            rows.append(row_from_entry(base / name, st.st_mtime, st.st_size or 1, RowKind.GENKIT, key=entry.path,
                                       session_id=name))
    return rows


def _list(folder: Path, suffixes: tuple[str, ...], kind: str, known: Known | None = None) -> list[SessionRow]:
    rows: list[SessionRow] = []
    try:
        it = os.scandir(folder)
    except (FileNotFoundError, NotADirectoryError):  # no such directory: nothing to list, nothing to say
        return rows
    except OSError as exc:  # there, but unreadable: one broken row says why, instead of rows silently missing
        return [_unlistable(folder, kind, exc)]
    child = getattr(folder, "_make_child_relpath", folder.joinpath)  # pathlib's fast path where it exists
    append = rows.append
    with it:
        for entry in it:
            name = entry.name
            if not name.endswith(suffixes) or ".tmp-" in name or name[0] == ".":
                continue
            try:
                if not entry.is_file():
                    if entry.is_symlink():
                        append(_bad_link(entry, child(name), kind))  # dangling: shown broken, with the reason
                    elif not entry.is_dir():  # a FIFO, a device or a socket: listed broken, never opened
                        append(_not_regular(entry, child(name), kind))
                    continue
                st = entry.stat()
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    append(_bad_link(entry, child(name), kind))
                continue  # vanished between readdir and stat (a rename in progress)
            path = child(name)
            if known is not None:
                filled = known(entry.path, path, st)
                if filled is not None:
                    append(filled)
                    continue
            append(row_from_entry(path, st.st_mtime, st.st_size, kind, key=entry.path,
                                  session_id=session_id_from_name(name), mtime_ns=st.st_mtime_ns, inode=st.st_ino,
                                  ctime_ns=st.st_ctime_ns))
    return rows


def _unlistable(folder: Path, kind: str, exc: OSError) -> SessionRow:
    name = f"{folder.name}/"
    why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
    what = "its ledgers are not listed" if kind == RowKind.LEDGER else "no session in it can be listed"
    try:
        mtime = folder.stat().st_mtime
    except OSError:
        mtime = 0.0
    return row_from_entry(folder, mtime, 0, kind, session_id=name, loaded=True,
                          broken=f"cannot list the directory {name}: {why} ({what})")


def _not_regular(entry: os.DirEntry, path: Path, kind: str) -> SessionRow:
    """A row for a FIFO, device or socket named like a session file: listed broken with the reason, never opened
    (a FIFO would block the loading thread for good, /dev/zero would never end)."""
    try:
        info = entry.stat(follow_symlinks=False)
        mtime, reason = info.st_mtime, not_regular_reason(info.st_mode)
    except OSError:
        mtime, reason = 0.0, NOT_REGULAR
    return row_from_entry(path, mtime, 0, kind, key=entry.path, session_id=session_id_from_name(entry.name),
                          loaded=True, broken=reason or NOT_REGULAR)


def _bad_link(entry: os.DirEntry, path: Path, kind: str) -> SessionRow:
    """A row for a symbolic link that leads nowhere (dangling, or a loop): listed, marked broken, never opened."""
    try:
        mtime = entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        mtime = 0.0
    row = row_from_entry(path, mtime, 0, kind, key=entry.path, session_id=session_id_from_name(entry.name),
                         loaded=True)
    try:
        reason = not_regular_reason(os.stat(entry.path).st_mode)
        row.broken = reason  # a link to a FIFO or a device: never opened
        row.loaded = bool(reason)  # otherwise it resolves after all (fixed meanwhile): load it like any file
    except OSError as exc:
        row.broken = ("symbolic link loop (the link points back to itself)" if exc.errno == errno.ELOOP
                      else "dangling symbolic link (its target does not exist)")
    return row
