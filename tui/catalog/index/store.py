"""Where the sessions index lives and how it is opened: one SQLite file per sessions directory, in the user's cache.

`open_index(sessions_dir)` gives an `Index` (or None) and at most one notice. The file sits in
`$XDG_CACHE_HOME/aiagent-monitor/` (default `~/.cache/aiagent-monitor/`), named from a hash of the resolved
directory path (the path itself is stored inside), so the sessions directory stays read-only. The index is only a
cache: whatever goes wrong with it, the monitor works as it does without one.

- a file that is not a database (garbage bytes), or an index of another SCHEMA_VERSION: deleted and rebuilt;
- a SQLite file of another application (other PRAGMA application_id) or of another directory: left untouched,
  the index bypassed (it may be someone's data: we only ever delete what is ours or what is not a database);
- an unwritable cache directory, a symbolic link where the file should be, a locked database: bypassed.

WAL mode and a busy timeout let two monitors on one directory read and write the same file at once; writes go in
short transactions (`Index.write`), so neither waits long.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from tui.catalog.index import schema

APP_DIR = "aiagent-monitor"
BUSY_TIMEOUT_MS = 5000
META_TABLE = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
STATE_SQL = "SELECT (SELECT value FROM meta WHERE key = 'created'), (SELECT n FROM generation WHERE id = 0)"
_enabled = True


def set_enabled(enabled: bool) -> None:
    """`--no-index`: the process runs without the index (open_index gives None, and says nothing)."""
    global _enabled
    _enabled = bool(enabled)


def enabled() -> bool:
    return _enabled


def set_cache_dir(path: Path | None) -> None:
    """Where this process keeps its indexes instead of the user's cache: the demo's, in its temporary directory
    beside its sessions (removed with them), so that each demo leaves no index behind."""
    global _cache_override
    _cache_override = path


_cache_override: Path | None = None


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/aiagent-monitor` (an empty or relative XDG_CACHE_HOME is ignored, as the spec says)."""
    if _cache_override is not None:
        return _cache_override
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / APP_DIR


def resolved_dir(sessions_dir: Path | str) -> Path:
    try:
        return Path(sessions_dir).resolve()
    except (OSError, RuntimeError):
        return Path(sessions_dir).absolute()


def index_path(sessions_dir: Path | str, cache: Path | None = None) -> Path:
    """The index file of a sessions directory: `sessions-<hash of its resolved path>.sqlite`."""
    digest = hashlib.sha256(os.fsencode(str(resolved_dir(sessions_dir)))).hexdigest()[:20]
    return (cache_dir() if cache is None else cache) / f"sessions-{digest}.sqlite"


IMAGE_SUFFIX = ".warm"  # the warm image of an index (tui.catalog.index.image) sits beside it: deleted with it


def image_path(index_file: Path) -> Path:
    """The warm image of the index file `index_file`: `sessions-<hash>.sqlite.warm`."""
    return index_file.with_name(index_file.name + IMAGE_SUFFIX)


class IndexUnavailable(Exception):
    """The index cannot be used: `str(exc)` is the one notice to show."""


class Index:
    """An opened sessions index. Each thread gets its own connection (sqlite3 connections are not shared)."""

    def __init__(self, path: Path, sessions_dir: Path) -> None:
        self.path = path
        self.sessions_dir = sessions_dir
        self._local = threading.local()

    def connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def records(self, columns: Iterable[str] = ("*",)) -> Iterator[sqlite3.Row]:
        """Every row of the `sessions` table (the columns asked for)."""
        conn = self.connection()
        cursor = conn.execute(f"SELECT {', '.join(columns)} FROM sessions")  # noqa: S608 - names are ours
        cursor.arraysize = 5000
        while True:
            chunk = cursor.fetchmany()
            if not chunk:
                return
            yield from chunk

    def tuples(self, columns: Iterable[str], size: int = 10_000) -> Iterator[list[tuple]]:
        """Every row of `sessions` as plain tuples of the columns asked for, in chunks (the fastest read)."""
        conn = _connect(self.path)  # its own connection: plain tuples, and a long read never blocks the writer
        conn.row_factory = None
        try:
            cursor = conn.execute(f"SELECT {', '.join(columns)} FROM sessions")  # noqa: S608 - names are ours
            while True:
                chunk = cursor.fetchmany(size)
                if not chunk:
                    return
                yield chunk
        finally:
            conn.close()

    def state(self) -> tuple[str, int]:
        """What a warm image is checked against (tui.catalog.index.image): when this index file was created, and
        how many changes its `sessions` table has had (schema.GENERATION_TRIGGERS count them)."""
        created, generation = self.connection().execute(STATE_SQL).fetchone()
        return str(created), int(generation)

    def image_key(self) -> bytes:
        """The random key of this index file (made with it) that the warm image's digest is keyed with: an image
        made without reading this index (copied, or made up) is refused before its values are decoded."""
        row = self.connection().execute("SELECT value FROM meta WHERE key = 'image_key'").fetchone()
        return bytes.fromhex(row[0]) if row is not None and isinstance(row[0], str) else b""

    def snapshot(self, columns: Iterable[str]) -> tuple[tuple[str, int], list[tuple]]:
        """The state and every row of `sessions` (plain tuples of the columns asked for), read in one transaction:
        the rows are exactly those of that state, whatever another monitor writes meanwhile."""
        conn = _connect(self.path)
        conn.row_factory = None
        try:
            conn.execute("BEGIN")
            created, generation = conn.execute(STATE_SQL).fetchone()
            rows = conn.execute(f"SELECT {', '.join(columns)} FROM sessions").fetchall()  # noqa: S608 - ours
            conn.execute("COMMIT")
        finally:
            conn.close()
        return (str(created), int(generation)), rows

    def write(self, records: list[dict]) -> None:
        """Insert or update rows (dicts with every column of `sessions`) in one transaction, their search text
        with them.

        The transaction takes the write lock first (another monitor's writes wait or come before): the rows it
        inserts are then exactly those above the largest rowid it sees, which schema.SEARCH_ADD gives to the
        search table in one statement. A changed row keeps its rowid (an upsert: schema.TRIGGERS update its search
        text). A path given twice is written once (its last row): the second would update a row whose search text
        is not added yet, and FTS5 would be told to delete text it never had."""
        if not records:
            return
        if len({r["path"] for r in records}) != len(records):
            records = list({r["path"]: r for r in records}.values())
        columns = list(records[0])
        names = ", ".join(columns)
        marks = ", ".join(f":{name}" for name in columns)
        updates = ", ".join(f"{name} = excluded.{name}" for name in columns if name != "path")
        sql = f"INSERT INTO sessions ({names}) VALUES ({marks}) ON CONFLICT(path) DO UPDATE SET {updates}"  # noqa: S608
        conn = self.connection()
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            top = conn.execute(schema.TOP_ROWID).fetchone()[0]
            conn.executemany(sql, records)
            conn.execute(schema.SEARCH_ADD, (top,))

    def remove(self, paths: Iterable[str]) -> int:
        """Delete the rows of these paths (files that are gone) in one transaction; how many went."""
        conn = self.connection()
        gone = 0
        with conn:
            for path in paths:
                gone += conn.execute("DELETE FROM sessions WHERE path = ?", (path,)).rowcount
        return gone

    def count(self) -> int:
        return int(self.connection().execute("SELECT count(*) FROM sessions").fetchone()[0])


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level="DEFERRED",
                           check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA synchronous = NORMAL")  # WAL: a crash may lose the last batch, never the file
    return conn


def open_index(sessions_dir: Path | str, cache: Path | None = None) -> tuple[Index | None, str]:
    """The index of `sessions_dir` and the notice to show once ("" when there is nothing to say).

    Never raises: an index that cannot be used gives (None, why)."""
    if not _enabled:
        return None, ""
    directory = resolved_dir(sessions_dir)
    folder = cache_dir() if cache is None else cache
    try:
        return _open(directory, folder)
    except IndexUnavailable as exc:
        return None, f"sessions index not used: {exc}; the monitor works without it"
    except (OSError, sqlite3.Error) as exc:
        return None, f"sessions index not used: {type(exc).__name__}: {exc}; the monitor works without it"


def _open(directory: Path, folder: Path) -> tuple[Index, str]:
    try:
        real_folder = folder.resolve()
    except (OSError, RuntimeError) as exc:
        raise IndexUnavailable(f"cannot resolve the cache directory {folder}") from exc
    if real_folder == directory or directory in real_folder.parents:
        raise IndexUnavailable(f"the cache directory {folder} is inside the sessions directory")
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise IndexUnavailable(f"cannot create {folder} ({exc.strerror or exc})") from exc
    path = index_path(directory, folder)
    notice = ""
    for attempt in range(2):
        _create_file(path)
        try:
            _prepare(path, directory)
            return Index(path, directory), notice
        except _Rebuild as why:
            if attempt:
                raise IndexUnavailable(f"{path} cannot be rebuilt ({why})") from None
            _delete(path)
            notice = f"sessions index {path} {why}: rebuilt"
    raise AssertionError("unreachable")


class _Rebuild(Exception):
    """The file is ours to replace: not a database at all, or an index of another version."""


def _create_file(path: Path) -> None:
    """Make sure `path` is a regular file we may write, creating it without following a symbolic link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise IndexUnavailable(f"{path} is not a regular file (a symbolic link or other): left alone")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        raise IndexUnavailable(f"cannot write {path} ({exc.strerror or exc})") from exc
    os.close(fd)


def _delete(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal", IMAGE_SUFFIX):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def _prepare(path: Path, directory: Path) -> None:
    """Check the file is our index of this directory and of this version, creating the tables in a new one."""
    try:
        conn = _connect(path)
    except sqlite3.DatabaseError as exc:
        if _is_locked(exc):
            raise IndexUnavailable(f"{path} is locked") from exc
        if not isinstance(exc, sqlite3.OperationalError):
            raise _Rebuild("was not a database (corrupt)") from exc
        raise IndexUnavailable(f"cannot open {path} ({exc})") from exc
    try:
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            if _is_locked(exc):
                raise IndexUnavailable(f"{path} is locked") from exc
            raise _Rebuild("was not a database (corrupt)") from exc
        if app_id != schema.APPLICATION_ID and (app_id != 0 or tables):
            raise IndexUnavailable(f"{path} is not an aiagent-monitor index (another application's SQLite file): "
                                   "left alone, delete it to let the monitor build its index")
        if app_id == schema.APPLICATION_ID and version != schema.SCHEMA_VERSION:
            raise _Rebuild(f"was of another version ({version}, now {schema.SCHEMA_VERSION})")
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise IndexUnavailable(f"{path} cannot use WAL mode (journal mode {mode})")
            _create_tables(conn, directory)
        except sqlite3.DatabaseError as exc:
            if _is_locked(exc):
                raise IndexUnavailable(f"{path} is locked") from exc
            if isinstance(exc, sqlite3.OperationalError):
                raise IndexUnavailable(f"cannot write {path} ({exc})") from exc
            raise _Rebuild(f"was damaged ({exc})") from exc
    finally:
        conn.close()


def _is_locked(exc: sqlite3.Error) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _create_tables(conn: sqlite3.Connection, directory: Path) -> None:
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(schema.SESSIONS_TABLE)
        for statement in schema.INDEXES:
            conn.execute(statement)
        conn.execute(schema.SEARCH_TABLE)
        for statement in schema.TRIGGERS:
            conn.execute(statement)
        conn.execute(META_TABLE)
        conn.execute(schema.GENERATION_TABLE)
        conn.execute(schema.GENERATION_START)
        for statement in schema.GENERATION_TRIGGERS:
            conn.execute(statement)
        row = conn.execute("SELECT value FROM meta WHERE key = 'sessions_dir'").fetchone()
        if row is None:
            conn.execute("INSERT INTO meta (key, value) VALUES ('sessions_dir', ?)", (str(directory),))
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('created', ?)", (str(time.time()),))
        elif row[0] != str(directory):  # a hash collision, or a file copied from elsewhere
            raise IndexUnavailable(f"the index file indexes another directory ({row[0]})")
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('image_key', ?)", (secrets.token_hex(16),))
        conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
