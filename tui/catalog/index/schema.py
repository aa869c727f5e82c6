"""The sessions index's tables (issue: a 300,000-file directory sorted by cost at once).

One row per session file and per v3 ledger of one sessions directory, with what the browser shows and what stats
need, keyed by path and checked against (size, mtime_ns, inode, ctime_ns): a file whose four still match is not read
again (ctime_ns: a file replaced by one of the same size with its mtime put back, by `cp -p`, `rsync -t` or `tar x`
into the same inode, keeps the other three).
The table is STRICT: a value of the wrong type (text in a numeric column, written by anything) is refused by SQLite
itself, so a reader never meets one.
The index database lives in the user's cache directory (tui.catalog.index.store), never in the sessions directory.
SCHEMA_VERSION changes whenever these tables do: an index of another version is dropped and rebuilt.
"""

from __future__ import annotations

# 2: rows reach sessions_fts by SEARCH_ADD, not by an insert trigger; 3: STRICT, ctime_ns, suspect, and a row's
# facts as tui.model.session_facts gives them (durations up to the last activity, misfiled titles, failure reasons);
# 4: cost_estimated (other agents' files: a cost from the price table, tui.model.prices); 5: answers and results
# (the answers' and tool results' text, searched: tui.catalog.index.row_extras bounds it); 6: the same tables, rows
# that changed: a turn's answer (attributes.assistant.content) searched, Codex and OpenCode sub-agents' own files
# kept as child rows (read inside their parents), OpenCode sessions; 7: project (the project an agent's session worked
# in, tui.model.agent_nodes.session_project: stats by project, the browser's project: filter)
SCHEMA_VERSION = 7
APPLICATION_ID = 0x41494D31  # "AIM1": PRAGMA application_id, so a foreign SQLite file is never taken for ours

# raw: the comments below say '\n' (two characters), which must not become a line break inside a quote
SESSIONS_TABLE = r"""
CREATE TABLE IF NOT EXISTS sessions (
    path TEXT PRIMARY KEY,          -- absolute path of the file (or ledger)
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL DEFAULT 0,
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
    suspect TEXT NOT NULL DEFAULT '',    -- absurd numbers in the file, clamped (tui.catalog.absurd); '' when sane
    cost_estimated INTEGER NOT NULL DEFAULT 0, -- cost_usd is the price table's estimate (tui.model.prices)
    project TEXT NOT NULL DEFAULT '',    -- the project the session worked in ('' unknown: ai-agent's files)
    indexed_at REAL NOT NULL,
    -- searched only, and last: a row's other columns are read without walking these (often overflow pages)
    answers TEXT NOT NULL DEFAULT '',    -- the final report, LLM answers', sub-agents' reports' text (cut: row_extras)
    results TEXT NOT NULL DEFAULT ''     -- tool results' text (cut: tui.catalog.index.row_extras)
) STRICT
"""

INDEXES = (
    "CREATE INDEX IF NOT EXISTS sessions_started ON sessions(started_ms)",
    "CREATE INDEX IF NOT EXISTS sessions_cost ON sessions(cost_usd)",
    # sub-agent ledgers only (few): the browser's count of sessions without reading every row (COUNT_SESSIONS)
    "CREATE INDEX IF NOT EXISTS sessions_children ON sessions(kind) WHERE kind = 'child'",
    # the few suspect rows (stats list them) without reading every row
    "CREATE INDEX IF NOT EXISTS sessions_suspect ON sessions(started_ms) WHERE suspect != ''",
)
# The sessions the browser lists (sub-agent ledgers are not rows of their own): 100,000 rows counted in ~2 ms, not
# the ~33 ms of reading each row's kind (the browser's first page waits for it)
COUNT_SESSIONS = ("SELECT (SELECT count(*) FROM sessions) "
                  "- (SELECT count(*) FROM sessions WHERE kind = 'child')")

# Full-text search across sessions (SQLite FTS5): rowid = sessions.rowid.
SEARCH_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS sessions_fts USING fts5(
    title, prompt, agents, tools, errors, answers, results, content='sessions', content_rowid='rowid'
)
"""

# The external-content FTS5 table is kept in step with `sessions` in two ways. New rows: the writer adds them in one
# statement per transaction (SEARCH_ADD: every row above the largest rowid it saw when its write transaction began,
# tui.catalog.index.store.Index.write). An insert trigger made writing a row cost twice as much (100,000 rows,
# 256 per transaction: 0.059 ms of CPU per row with it, 0.027 with SEARCH_ADD, 0.017 with no search text at all):
# FTS5 took ~8x longer to add a row from a per-row trigger than from one statement (likely its pending terms are
# written out at each trigger statement's savepoint, as FTS3 does, leaving many tiny segments to merge). Changed
# and deleted rows: triggers (the store writes with an upsert, so a changed row fires sessions_au, never a
# delete + insert that would skip the FTS delete).
SEARCH_COLUMNS = "title, prompt, agents, tools, errors, answers, results"
SEARCH_ADD = (f"INSERT INTO sessions_fts(rowid, {SEARCH_COLUMNS}) "  # noqa: S608 - names are ours
              f"SELECT rowid, {SEARCH_COLUMNS} FROM sessions WHERE rowid > ?")
TOP_ROWID = "SELECT coalesce(max(rowid), 0) FROM sessions"
_OLD = ", ".join(f"old.{name}" for name in SEARCH_COLUMNS.split(", "))
_NEW = ", ".join(f"new.{name}" for name in SEARCH_COLUMNS.split(", "))
TRIGGERS = (
    f"""CREATE TRIGGER IF NOT EXISTS sessions_ad AFTER DELETE ON sessions BEGIN
        INSERT INTO sessions_fts(sessions_fts, rowid, {SEARCH_COLUMNS}) VALUES ('delete', old.rowid, {_OLD});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS sessions_au AFTER UPDATE ON sessions BEGIN
        INSERT INTO sessions_fts(sessions_fts, rowid, {SEARCH_COLUMNS}) VALUES ('delete', old.rowid, {_OLD});
        INSERT INTO sessions_fts(rowid, {SEARCH_COLUMNS}) VALUES (new.rowid, {_NEW});
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
