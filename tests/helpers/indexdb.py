"""Real SQLite sessions indexes for tests and benchmarks: the tables of tui.catalog.index.schema, filled with rows
inserted directly (no indexer), so stats and search are tested on the database they will run on."""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

from tui.catalog.index import schema

COLUMNS = ("path", "size", "mtime_ns", "inode", "kind", "format", "session_id", "agent", "title", "prompt", "status",
           "started_ms", "ended_ms", "duration_ms", "turns", "tokens_in", "tokens_out", "tokens_cache_read",
           "tokens_cache_write", "cost_usd", "models", "headend", "failed_ops", "errors", "tools", "agents",
           "mismatch", "broken", "indexed_at")
DAY_MS = 86_400_000


def create(path: Path | str) -> sqlite3.Connection:
    """An empty index database with the schema's tables, indexes and search table."""
    conn = sqlite3.connect(str(path))
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
    conn.execute(_ddl(schema.SESSIONS_TABLE))
    for ddl in schema.INDEXES:
        conn.execute(ddl)
    conn.execute(schema.SEARCH_TABLE)
    for ddl in schema.TRIGGERS:
        conn.execute(ddl)
    conn.commit()
    return conn


def _ddl(text: str) -> str:
    """The schema's DDL as SQL: its comments say "joined by '\\n'" in a non-raw string, a real newline that ends the
    comment inside a quote (a no-op once schema.py writes it raw)."""
    return text.replace("'\n'", "'\\n'")


def session(n: int = 0, **values) -> dict:
    """One row of `sessions`: a finished session started at the epoch + n minutes, unless told otherwise."""
    started = values.pop("started_ms", 1_700_000_000_000 + n * 60_000)
    at = started if started is not None else 1_700_000_000_000
    row = {
        "path": f"/sessions/s{n}.json.gz", "size": 100, "mtime_ns": at * 1_000_000, "inode": n + 1,
        "kind": "snapshot", "format": "aiagent-snapshot", "session_id": f"s{n}", "agent": "main", "title": f"task {n}",
        "prompt": f"prompt {n}", "status": "ok", "started_ms": started, "ended_ms": at + 1000,
        "duration_ms": 1000, "turns": 1, "tokens_in": 100, "tokens_out": 10, "tokens_cache_read": 0,
        "tokens_cache_write": 0, "cost_usd": 0.01, "models": "model-a", "headend": "cli", "failed_ops": 0,
        "errors": "", "tools": "", "agents": "main", "mismatch": 0, "broken": "", "indexed_at": time.time(),
    }
    row.update(values)
    return row


def insert(conn: sqlite3.Connection, rows: list[dict]) -> None:
    """Insert rows into `sessions` and, as the store does (schema.SEARCH_ADD), their text into `sessions_fts`."""
    marks = ", ".join("?" for _ in COLUMNS)
    sql = f"INSERT INTO sessions ({', '.join(COLUMNS)}) VALUES ({marks})"
    top = conn.execute(schema.TOP_ROWID).fetchone()[0]
    conn.executemany(sql, [[row.get(c) for c in COLUMNS] for row in rows])
    conn.execute(schema.SEARCH_ADD, (top,))
    conn.commit()


def synthetic(conn: sqlite3.Connection, count: int, *, days: int = 90, now_ms: int | None = None,
              seed: int = 1) -> None:
    """`count` plausible sessions over the last `days` days (the benchmark's 300,000): a few agents, models and
    headends, some failures, costs spread over three orders of magnitude, added to the search table as the store
    adds rows (schema.SEARCH_ADD)."""
    rng = random.Random(seed)
    top = conn.execute(schema.TOP_ROWID).fetchone()[0]
    now = int(time.time() * 1000) if now_ms is None else now_ms
    agents = [f"agent-{i}" for i in range(25)]
    models = ["claude-sonnet", "gpt-5", "gemini-pro", "qwen3", "llama-70b", "o3"]
    headends = ["cli", "api", "web", "slack", "embed"]
    marks = ", ".join("?" for _ in COLUMNS)
    sql = f"INSERT INTO sessions ({', '.join(COLUMNS)}) VALUES ({marks})"
    batch = []
    for n in range(count):
        started = now - rng.randrange(days * DAY_MS)
        failed = rng.random() < 0.07
        duration = int(rng.expovariate(1 / 60_000))
        row = session(n, started_ms=started, ended_ms=started + duration, duration_ms=duration,
                      agent=rng.choice(agents), models=rng.choice(models), headend=rng.choice(headends),
                      status="failed" if failed else "ok", failed_ops=rng.randrange(1, 5) if failed else 0,
                      cost_usd=round(rng.expovariate(10), 5), tokens_in=rng.randrange(100, 200_000),
                      tokens_out=rng.randrange(10, 20_000), path=f"/sessions/{n:07d}.json.gz")
        batch.append([row.get(c) for c in COLUMNS])
        if len(batch) >= 10_000:
            conn.executemany(sql, batch)
            batch.clear()
    conn.executemany(sql, batch)
    conn.execute(schema.SEARCH_ADD, (top,))
    conn.commit()


def index_for(sessions_dir: Path) -> sqlite3.Connection:
    """A new index where the monitor looks for the index of `sessions_dir` ($XDG_CACHE_HOME set by the test)."""
    from tui.catalog.index.reader import index_file

    path = index_file(sessions_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    return create(path)
