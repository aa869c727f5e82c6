"""OpenCode's SQLite store: the sessions of current OpenCode versions, read as the JSON storage's records.

OpenCode (anomalyco/opencode, formerly sst/opencode) moved its sessions from the JSON storage
(tui.formats.opencode.storage) into one SQLite database, `$XDG_DATA_HOME/opencode/opencode.db` (by default
`~/.local/share/opencode/opencode.db`; `$OPENCODE_DB` may name another; packages/opencode/src/storage/db.ts), and
copies the JSON storage into it once (packages/opencode/src/storage/json-migration.ts). Its tables, as its Drizzle
schema declares them (packages/opencode/src/session/session.sql.ts, project/project.sql.ts, storage/schema.sql.ts):

- `session(id, project_id, parent_id, slug, directory, title, version, time_created, time_updated,
  time_compacting, time_archived, ...)`: the session Info's fields as columns;
- `message(id, session_id, time_created, time_updated, data)`: `data` is the message Info's JSON without its `id`
  and `sessionID` (the migration deletes them, MessageTable's type omits them);
- `part(id, message_id, session_id, time_created, time_updated, data)`: `data` is the part's JSON without `id`,
  `sessionID` and `messageID`;
- `project(id, worktree, ...)`.

So a session read here is the same StoredSession the JSON storage gives (the ids put back), and
tui.formats.opencode.reader builds it the one way. A session is named `<db file>#<session id>`.

Read-only and never written beside: the file is opened only when it is a regular file starting with SQLite's magic;
with `mode=ro` when OpenCode has it open (its `-wal` and `-shm` files are there: the WAL's newest rows are read),
else `immutable=1` (a read-only connection would create those files next to the database; OpenCode closing
at that very instant is the one race left). Rows are bounded per session and `data` per value; a bad row (text
where an id is, JSON that is not an object, invalid UTF-8) is a problem, a missing table or column or a database
that cannot be read is a LoadError, never a crash.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import orjson

from tui.formats.opencode.storage import FILE_MAX_BYTES, FILES_MAX, StoredMessage, StoredSession
from tui.inputs import json_load
from tui.inputs.agent_roots import is_sqlite
from tui.inputs.files import LoadError

PARTS_MAX = 200_000  # parts of one session read at most (each message's at most FILES_MAX)
_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
# session columns -> the Info's fields (time_* into `time`)
_SESSION_FIELDS = {"id": "id", "project_id": "projectID", "parent_id": "parentID", "slug": "slug",
                   "directory": "directory", "title": "title", "version": "version"}
_SESSION_TIMES = {"time_created": "created", "time_updated": "updated", "time_compacting": "compacting",
                  "time_archived": "archived"}


is_database = is_sqlite  # (a regular file starting with SQLite's magic)


def database_path(path: str) -> tuple[str, str] | None:
    """(database file, session id or "") when `path` names an OpenCode database (`opencode.db`) or one of its
    sessions (`opencode.db#ses_...`); None for any other input, decided with a stat and 16 bytes."""
    if path == "-":
        return None
    if os.path.lexists(path):
        return (path, "") if path.endswith(".db") and is_database(path) else None
    base, sep, sid = path.rpartition("#")
    if sep and _SAFE_ID.fullmatch(sid) and is_database(base):
        return base, sid
    return None


def session_key(db_file: str, sid: str) -> str:
    return f"{db_file}#{sid}"


def _text(value: object) -> str:
    """A text column's value as str (bytes decoded with replacement: invalid UTF-8 is not an error here)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value
    return "" if value is None else str(value)


class OpenCodeDb:
    """One read-only connection on an OpenCode database, with the columns its tables have."""

    def __init__(self, path: str, conn: sqlite3.Connection, problems: list[str]) -> None:
        self.path, self.conn, self.problems = path, conn, problems
        self.columns = {table: self._columns(table) for table in ("session", "message", "part", "project")}
        for table, needed in (("session", {"id"}), ("message", {"id", "session_id", "data"}),
                              ("part", {"id", "message_id", "session_id", "data"})):
            missing = needed - self.columns[table]
            if missing:
                raise LoadError(path, f"not an OpenCode database: table {table} lacks {', '.join(sorted(missing))}")

    def _columns(self, table: str) -> set[str]:
        return {_text(row[1]) for row in self.conn.execute(f"PRAGMA table_info({table})")}

    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            self.problems.append(f"the database could not be read ({str(exc)[:120]})")
            return []

    def session_info(self, sid: str) -> dict | None:
        cols = [c for c in (*_SESSION_FIELDS, *_SESSION_TIMES) if c in self.columns["session"]]
        rows = self.rows(f"SELECT {', '.join(cols)} FROM session WHERE id = ? LIMIT 1", (sid,))
        return self._info(cols, rows[0]) if rows else None

    def _info(self, cols: list[str], row: tuple) -> dict | None:
        """A session row as the JSON storage's Info (absent values left out, times as stored)."""
        info: dict = {"time": {}}
        for col, value in zip(cols, row):
            if value is None:
                continue
            if col in _SESSION_TIMES:
                info["time"][_SESSION_TIMES[col]] = value if isinstance(value, (int, float)) else _text(value)
            else:
                info[_SESSION_FIELDS[col]] = _text(value)
        if not _SAFE_ID.fullmatch(info.get("id", "")):
            self.problems.append(f"a session row whose id is {str(info.get('id'))[:60]!r}: skipped")
            return None
        return info

    def project_of(self, info: dict) -> str:
        """The project's worktree (as tui.formats.opencode.storage.project_of reads it from its file), else its id;
        `global` stays `global`."""
        project_id = info.get("projectID")
        if not isinstance(project_id, str) or not project_id:
            return ""
        if project_id != "global" and {"id", "worktree"} <= self.columns["project"]:
            rows = self.rows("SELECT worktree FROM project WHERE id = ? LIMIT 1", (project_id,))
            worktree = _text(rows[0][0]) if rows else ""
            if worktree.strip():
                return worktree
        return project_id

    def read_session(self, info: dict) -> StoredSession:
        """The session's messages (id order, as the JSON storage's file names sort) with their parts."""
        stored = StoredSession(info)
        before, self.problems = self.problems, stored.problems  # (this session's problems are its own)
        try:
            self._read_messages(stored, info.get("id", ""))
        finally:
            self.problems = before
        return stored

    def _read_messages(self, stored: StoredSession, sid: str) -> None:
        rows = self.rows("SELECT id, CASE WHEN length(CAST(data AS BLOB)) > ? THEN NULL ELSE data END FROM message "
                          "WHERE session_id = ? ORDER BY id LIMIT ?", (FILE_MAX_BYTES, sid, FILES_MAX + 1))
        if len(rows) > FILES_MAX:
            self.problems.append(f"session {sid}: over {FILES_MAX:,} messages, only the first {FILES_MAX:,} read")
            del rows[FILES_MAX:]
        by_id: dict[str, StoredMessage] = {}
        for mid, data in rows:
            value = self._data(data, "message", mid)
            message = StoredMessage(_text(mid), {**value, "id": _text(mid), "sessionID": sid} if value else {})
            stored.messages.append(message)
            by_id.setdefault(message.message_id, message)
        parts = self.rows("SELECT message_id, id, CASE WHEN length(CAST(data AS BLOB)) > ? THEN NULL ELSE data END "
                           "FROM part WHERE session_id = ? ORDER BY message_id, id LIMIT ?",
                           (FILE_MAX_BYTES, sid, PARTS_MAX + 1))
        if len(parts) > PARTS_MAX:
            self.problems.append(f"session {sid}: over {PARTS_MAX:,} parts, only the first {PARTS_MAX:,} read")
            del parts[PARTS_MAX:]
        for mid, pid, data in parts:
            owner = by_id.get(_text(mid))
            value = self._data(data, "part", pid)
            if owner is not None and value and len(owner.parts) < FILES_MAX:
                owner.parts.append({**value, "id": _text(pid), "sessionID": sid, "messageID": owner.message_id})

    def _data(self, data: object, what: str, row_id: object) -> dict:
        """A `data` value as an object ({} and a problem said when it is absent, too big, not JSON, not an
        object)."""
        name = _text(row_id)[:80]
        if data is None:
            self.problems.append(f"{what} {name}: no data, or over {FILE_MAX_BYTES:,} bytes: not read")
            return {}
        raw = data if isinstance(data, bytes) else _text(data).encode("utf-8", "surrogatepass")
        try:
            value = json_load.loads(raw)
        except (orjson.JSONDecodeError, RecursionError) as exc:
            self.problems.append(f"{what} {name}: not valid JSON ({str(exc)[:120]})")
            return {}
        if not isinstance(value, dict):
            self.problems.append(f"{what} {name}: not an object")
            return {}
        return value


@contextmanager
def open_db(path: str) -> Iterator[OpenCodeDb]:
    """The database at `path`, read-only (see the module's docstring); LoadError when it cannot be opened or is not
    OpenCode's."""
    problems: list[str] = []
    live = os.path.isfile(path + "-wal") and os.path.isfile(path + "-shm")
    mode = "mode=ro" if live else "immutable=1"  # (immutable: nothing is created beside a database at rest)
    if not live and os.path.exists(path + "-wal"):
        problems.append("a -wal file without its -shm beside the database: its newest changes may be missing")
    uri = f"file:{quote(os.path.abspath(path))}?{mode}"
    conn = None
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=1.0, check_same_thread=False)
        conn.text_factory = bytes  # (invalid UTF-8 in a text column: decoded with replacement, never an error)
        yield OpenCodeDb(path, conn, problems)
    except sqlite3.Error as exc:
        raise LoadError(path, f"cannot read the OpenCode database: {str(exc)[:200]}") from None
    finally:
        if conn is not None:
            conn.close()


def newest_root(db: OpenCodeDb) -> str:
    """The session opened when none is named: the newest update that is not a sub-agent's (else the newest); ""
    when there is none."""
    columns = db.columns["session"]
    order = "ORDER BY time_updated DESC, id DESC" if "time_updated" in columns else "ORDER BY id DESC"
    queries = [f"SELECT id FROM session WHERE parent_id IS NULL {order} LIMIT 1"] if "parent_id" in columns else []
    for sql in (*queries, f"SELECT id FROM session {order} LIMIT 1"):
        rows = db.rows(sql)
        if rows and _SAFE_ID.fullmatch(_text(rows[0][0])):
            return _text(rows[0][0])
    return ""


SESSIONS_LISTED = 100_000  # a database's sessions listed at most


def session_ids(db_file: str) -> set[str]:
    """The ids of every session of the database (sub-agents' too); empty when it cannot be read."""
    try:
        with open_db(db_file) as db:
            rows = db.rows("SELECT id FROM session LIMIT ?", (SESSIONS_LISTED,))
    except LoadError:
        return set()
    return {_text(row[0]) for row in rows}


def listed_sessions(db_file: str) -> list[str]:
    """The ids of the sessions the browser lists, one row each: those that are not a sub-agent's of a session in
    the same database (a sub-agent's is read below its parent's task call). [] when it cannot be read."""
    if not is_database(db_file):
        return []
    try:
        with open_db(db_file) as db:
            where = ("WHERE parent_id IS NULL OR parent_id NOT IN (SELECT id FROM session)"
                     if "parent_id" in db.columns["session"] else "")
            rows = db.rows(f"SELECT id FROM session {where} LIMIT ?", (SESSIONS_LISTED,))
    except LoadError:
        return []
    ids = (_text(row[0]) for row in rows)
    return [sid for sid in ids if _SAFE_ID.fullmatch(sid)]


def changed_sessions(db_file: str, since_ms: int) -> tuple[set[str], set[str]]:
    """(The listed sessions (listed_sessions) that changed after `since_ms` (epoch milliseconds): a session, message
    or part row whose `time_updated` is later (OpenCode sets it on every write, as Date.now()), a sub-agent's
    change being its parent's (up its `parent_id`s); every listed session). Empty when it cannot be read."""
    if not is_database(db_file):
        return set(), set()
    try:
        with open_db(db_file) as db:
            changed = [f"SELECT {col} FROM {table} WHERE time_updated > :t" for table, col in
                       (("session", "id"), ("message", "session_id"), ("part", "session_id"))
                       if "time_updated" in db.columns[table]]
            if not changed:
                return set(), set(listed_sessions(db_file))
            up = ("UNION SELECT s.parent_id, up.depth + 1 FROM session s JOIN up ON s.id = up.id "
                  "WHERE s.parent_id IS NOT NULL AND up.depth < 8" if "parent_id" in db.columns["session"] else "")
            rows = db.conn.execute(f"WITH RECURSIVE up(id, depth) AS (SELECT id, 0 FROM ({' UNION '.join(changed)})"
                                   f" {up}) SELECT DISTINCT id FROM up LIMIT :n",
                                   {"t": since_ms, "n": SESSIONS_LISTED}).fetchall()
    except (LoadError, sqlite3.Error):
        return set(), set()
    listed = set(listed_sessions(db_file))
    return {_text(row[0]) for row in rows} & listed, listed
