"""The sessions index's tables (issue: a 300,000-file directory sorted by cost at once).

One row per session file and per v3 ledger of one sessions directory, with what the browser shows and what stats
need, keyed by path and checked against (size, mtime_ns, inode): a file whose three still match is not read again.
The index database lives in the user's cache directory (tui.catalog.index.store), never in the sessions directory.
SCHEMA_VERSION changes whenever these tables do: an index of another version is dropped and rebuilt.
"""

from __future__ import annotations

SCHEMA_VERSION = 1
APPLICATION_ID = 0x41494D31  # "AIM1": PRAGMA application_id, so a foreign SQLite file is never taken for ours

# raw: the comments below say '\n' (two characters), which must not become a line break inside a quote
SESSIONS_TABLE = r"""
CREATE TABLE IF NOT EXISTS sessions (
    path TEXT PRIMARY KEY,          -- absolute path of the file (or ledger)
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    kind TEXT NOT NULL,             -- a tui.catalog.session_row.RowKind
    format TEXT NOT NULL DEFAULT '',-- a format id of tui.model.document ('' when broken)
    session_id TEXT NOT NULL,
    agent TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '', -- the session title, else the first user prompt
    prompt TEXT NOT NULL DEFAULT '',-- the first user prompt (searched; cut to a few KiB)
    status TEXT NOT NULL DEFAULT '',-- running | ok | failed | '' (broken)
    started_ms INTEGER,
    ended_ms INTEGER,
    duration_ms INTEGER,
    turns INTEGER,
    tokens_in INTEGER,
    tokens_out INTEGER,
    tokens_cache_read INTEGER,
    tokens_cache_write INTEGER,
    cost_usd REAL,
    models TEXT NOT NULL DEFAULT '',     -- the LLM models, main one first, joined by '\n'
    headend TEXT NOT NULL DEFAULT '',
    failed_ops INTEGER NOT NULL DEFAULT 0,
    errors TEXT NOT NULL DEFAULT '',     -- error messages of the session and its failed ops, '\n'-joined, cut
    tools TEXT NOT NULL DEFAULT '',      -- tool names used, '\n'-joined
    agents TEXT NOT NULL DEFAULT '',     -- agent ids of the session and its sub-agents, '\n'-joined
    mismatch INTEGER NOT NULL DEFAULT 0, -- stored totals disagree with the recomputed ones
    broken TEXT NOT NULL DEFAULT '',     -- why the file cannot be shown; '' when fine
    indexed_at REAL NOT NULL
)
"""

INDEXES = (
    "CREATE INDEX IF NOT EXISTS sessions_started ON sessions(started_ms)",
    "CREATE INDEX IF NOT EXISTS sessions_cost ON sessions(cost_usd)",
)

# Full-text search across sessions (SQLite FTS5): rowid = sessions.rowid.
SEARCH_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS sessions_fts USING fts5(
    title, prompt, agents, tools, errors, content='sessions', content_rowid='rowid'
)
"""

# Keep the external-content FTS5 table in step with `sessions` (tui.catalog.index.store writes rows with an upsert,
# so an update fires sessions_au, never a delete + insert that would skip the FTS delete).
TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS sessions_ai AFTER INSERT ON sessions BEGIN
        INSERT INTO sessions_fts(rowid, title, prompt, agents, tools, errors)
        VALUES (new.rowid, new.title, new.prompt, new.agents, new.tools, new.errors);
    END""",
    """CREATE TRIGGER IF NOT EXISTS sessions_ad AFTER DELETE ON sessions BEGIN
        INSERT INTO sessions_fts(sessions_fts, rowid, title, prompt, agents, tools, errors)
        VALUES ('delete', old.rowid, old.title, old.prompt, old.agents, old.tools, old.errors);
    END""",
    """CREATE TRIGGER IF NOT EXISTS sessions_au AFTER UPDATE ON sessions BEGIN
        INSERT INTO sessions_fts(sessions_fts, rowid, title, prompt, agents, tools, errors)
        VALUES ('delete', old.rowid, old.title, old.prompt, old.agents, old.tools, old.errors);
        INSERT INTO sessions_fts(rowid, title, prompt, agents, tools, errors)
        VALUES (new.rowid, new.title, new.prompt, new.agents, new.tools, new.errors);
    END""",
)

# One counter that every change of `sessions` bumps (triggers, so that any writer does, whatever its version): the
# warm image (tui.catalog.index.image) remembers the value it was made at and is trusted only while it is current.
GENERATION_TABLE = "CREATE TABLE IF NOT EXISTS generation (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL)"
GENERATION_START = "INSERT OR IGNORE INTO generation (id, n) VALUES (0, 0)"
GENERATION_TRIGGERS = tuple(
    f"""CREATE TRIGGER IF NOT EXISTS sessions_generation_{tag} AFTER {event} ON sessions BEGIN
        UPDATE generation SET n = n + 1 WHERE id = 0;
    END""" for tag, event in (("ai", "INSERT"), ("ad", "DELETE"), ("au", "UPDATE")))
