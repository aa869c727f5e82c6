"""Stats across sessions, answered by SQL over the sessions index (tui.catalog.index.schema).

What the `stats` command and the Stats screen show: cost, tokens, sessions and failures per day, by agent, by
model, by headend, by agent kind and by project (the project an agent's session worked in; "" for ai-agent's
files, which record none), the most expensive, slowest and most failing sessions, and the agents that fail most, over a
time range. Every number is aggregated by SQLite (GROUP BY over an index range), never by loading rows into Python:
a query over 300,000 sessions stays under 200 ms (tests/benchmarks, section `stats`).

What counts as a session: a root session file or ledger that was read (not a sub-agent's ledger, whose cost is in
its root's totals already; not a broken file). Its time is its start (`started_ms`). A day is a calendar day in
local time (SQLite's `localtime`, the same rule as the browser's `day:` filter, tui.catalog.row_filter). By model
means by the session's main model (the first of `models`): the index keeps totals per session, not per model.

Takes an open sqlite3.Connection, so it works on the store's connection (tui.catalog.index.store) as on a test's.
"""

from __future__ import annotations

import math
import sqlite3
import time
from dataclasses import asdict, dataclass, field

BY = ("day", "agent", "model", "headend", "kind", "project")
TOP = 10
MAX_DAYS = 1500  # a longer range is grouped by day with a GROUP BY (see by_day)

# A session counted by stats (see the module docstring); `kind` values are tui.catalog.session_row.RowKind's.
_COUNTED = "started_ms IS NOT NULL AND kind NOT IN ('child', 'live') AND broken = ''"
_MAIN_MODEL = "CASE WHEN instr(models, char(10)) > 0 THEN substr(models, 1, instr(models, char(10)) - 1) ELSE models END"
_DAY = "date(started_ms / 1000, 'unixepoch', 'localtime')"
# The agent kind, as the browser's Kind column: ai-agent's own files (snapshot, ledger) are "ai-agent", the other
# agents' rows carry their kind already ("claude-code", "codex", "jules", ...). No covering index: the GROUP BY sorts.
_AGENT_KIND = "CASE WHEN kind IN ('snapshot', 'ledger') THEN 'ai-agent' ELSE kind END"
_KEYS = {"day": _DAY, "agent": "agent", "model": _MAIN_MODEL, "headend": "headend", "kind": _AGENT_KIND,
         "project": "project"}
_AGGREGATES = ("count(*), sum(status = 'failed'), total(failed_ops), total(cost_usd), total(tokens_in), "
               "total(tokens_out), count(cost_usd), total(CASE WHEN cost_estimated THEN cost_usd END)")


# Added to the index's own (schema.INDEXES), idempotent (tui.catalog.index.reader.add_stats_index, or the store).
# Covering indexes: every column the aggregates read is in them, so SQLite never visits the table. sessions_stats
# answers a time range (per day, totals); one leading with each key answers the groupings in key order, without
# sorting every row (a sort was most of a GROUP BY's time at 300,000 rows).
_COVERED = "started_ms, kind, broken, status, cost_usd, tokens_in, tokens_out, failed_ops, cost_estimated"
STATS_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS sessions_stats ON sessions({_COVERED})",
    f"CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent, {_COVERED})",
    f"CREATE INDEX IF NOT EXISTS sessions_by_model ON sessions({_MAIN_MODEL}, {_COVERED})",
    f"CREATE INDEX IF NOT EXISTS sessions_by_headend ON sessions(headend, {_COVERED})",
    f"CREATE INDEX IF NOT EXISTS sessions_by_project ON sessions(project, {_COVERED})",
    # the slowest and most failing sessions: read from the top of an index, not sorted out of every row
    "CREATE INDEX IF NOT EXISTS sessions_duration ON sessions(duration_ms)",
    "CREATE INDEX IF NOT EXISTS sessions_failed_ops ON sessions(failed_ops) WHERE failed_ops > 0",
)


@dataclass(frozen=True, slots=True)
class TimeRange:
    """[since_ms, until_ms) in ms since the epoch; None: unbounded on that side."""

    since_ms: int | None = None
    until_ms: int | None = None

    def where(self) -> tuple[str, list[int]]:
        clauses, params = [], []
        if self.since_ms is not None:
            clauses.append("started_ms >= ?")
            params.append(self.since_ms)
        if self.until_ms is not None:
            clauses.append("started_ms < ?")
            params.append(self.until_ms)
        return " AND ".join([_COUNTED, *clauses]), params

    def label(self) -> str:
        def day(ms: int) -> str:
            return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))

        if self.since_ms is None and self.until_ms is None:
            return "all time"
        if self.until_ms is None:
            return f"since {day(self.since_ms or 0)}"
        if self.since_ms is None:
            return f"until {day(self.until_ms)}"
        return f"{day(self.since_ms)} → {day(self.until_ms)}"


def last(span_s: float | None, now_s: float | None = None) -> TimeRange:
    """The last `span_s` seconds up to now (None: all time)."""
    if span_s is None:
        return TimeRange()
    now = time.time() if now_s is None else now_s
    return TimeRange(since_ms=int((now - span_s) * 1000))


@dataclass(slots=True)
class Group:
    """The sessions of one day, agent, model, headend, agent kind or project."""

    key: str
    sessions: int = 0
    failures: int = 0  # sessions that failed
    failed_ops: int = 0
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    costed: int = 0  # sessions with a known cost
    accounting_cost_usd: float | None = None  # the same sessions' cost by accounting.jsonl, when offered
    estimated_cost_usd: float = 0.0  # the part of cost_usd that is the price table's estimate (other agents)

    @property
    def failure_rate(self) -> float:
        return self.failures / self.sessions if self.sessions else 0.0

    def as_json(self) -> dict:
        out = asdict(self)
        out["failure_rate"] = round(self.failure_rate, 4)
        if self.accounting_cost_usd is None:
            del out["accounting_cost_usd"]
        if not self.estimated_cost_usd:  # (said only where there is one: ai-agent's output is unchanged)
            del out["estimated_cost_usd"]
        return out


@dataclass(frozen=True, slots=True)
class TopSession:
    path: str
    session_id: str
    agent: str
    title: str
    status: str
    started_ms: int | None
    duration_ms: int | None
    cost_usd: float | None
    failed_ops: int
    suspect: str = ""  # the file's absurd numbers, clamped (tui.catalog.absurd)

    def as_json(self) -> dict:
        out = asdict(self)
        if not self.suspect:
            del out["suspect"]
        return out


@dataclass(slots=True)
class Stats:
    range: TimeRange
    totals: Group = field(default_factory=lambda: Group("total"))
    by: dict[str, list[Group]] = field(default_factory=dict)
    expensive: list[TopSession] = field(default_factory=list)
    slowest: list[TopSession] = field(default_factory=list)
    failing: list[TopSession] = field(default_factory=list)  # most failed ops
    failing_agents: list[Group] = field(default_factory=list)  # most failed sessions, then the highest rate
    suspect: list[TopSession] = field(default_factory=list)  # sessions whose absurd numbers were clamped
    suspect_count: int = 0

    def as_json(self) -> dict:
        return {
            "since_ms": self.range.since_ms,
            "until_ms": self.range.until_ms,
            "totals": self.totals.as_json(),
            "by": {name: [g.as_json() for g in groups] for name, groups in self.by.items()},
            "top": {
                "expensive": [s.as_json() for s in self.expensive],
                "slowest": [s.as_json() for s in self.slowest],
                "failing": [s.as_json() for s in self.failing],
                "failing_agents": [g.as_json() for g in self.failing_agents],
            },
            "suspect": {"count": self.suspect_count, "sessions": [s.as_json() for s in self.suspect]},
        }


def ensure_indexes(conn: sqlite3.Connection) -> bool:
    """Add the stats index when the database can take it (a read-only one cannot: stats still work, slower)."""
    try:
        for ddl in STATS_INDEXES:
            conn.execute(ddl)
        conn.commit()
        return True
    except sqlite3.OperationalError:
        return False


def _group(key: object, values: tuple) -> Group:
    count, failed, failed_ops, cost, tin, tout, costed, estimated = values
    return Group(key="" if key is None else str(key), sessions=int(count), failures=int(failed or 0),
                 failed_ops=_whole(failed_ops), cost_usd=_finite(cost), tokens_in=_whole(tin), tokens_out=_whole(tout),
                 costed=int(costed), estimated_cost_usd=_finite(estimated))


def _finite(value: object) -> float:
    """A sum as a number JSON can hold (never inf or NaN: `null` in --json). The indexer clamps every row
    (tui.catalog.absurd), so only an index written by something else can hold what makes a sum overflow."""
    number = float(value) if isinstance(value, (int, float)) else 0.0
    return number if math.isfinite(number) else 0.0


def _whole(value: object) -> int:
    return int(_finite(value))


def totals(conn: sqlite3.Connection, span: TimeRange) -> Group:
    where, params = span.where()
    row = conn.execute(f"SELECT {_AGGREGATES} FROM sessions WHERE {where}", params).fetchone()
    return _group("total", row)


def grouped(conn: sqlite3.Connection, span: TimeRange, by: str) -> list[Group]:
    """One Group per day (oldest first) or per agent, model or headend (most expensive first)."""
    if by not in _KEYS:
        raise ValueError(f"unknown grouping {by!r} (one of {', '.join(BY)})")
    if by == "day":
        return by_day(conn, span)
    return by_key(conn, span, by)


def _sum(groups: list[Group], key: str) -> Group:
    out = Group(key)
    for g in groups:
        out.sessions += g.sessions
        out.failures += g.failures
        out.failed_ops += g.failed_ops
        out.cost_usd += g.cost_usd
        out.tokens_in += g.tokens_in
        out.tokens_out += g.tokens_out
        out.costed += g.costed
        out.estimated_cost_usd += g.estimated_cost_usd
    return out


def _days(lo_ms: int, hi_ms: int) -> list[tuple[str, int, int]]:
    """The local calendar days that [lo_ms, hi_ms) touches, each with its own [start, end) in ms (DST included)."""
    out: list[tuple[str, int, int]] = []
    day = time.localtime(lo_ms / 1000)
    while True:
        start = int(time.mktime((day.tm_year, day.tm_mon, day.tm_mday, 0, 0, 0, 0, 0, -1)) * 1000)
        end = int(time.mktime((day.tm_year, day.tm_mon, day.tm_mday + 1, 0, 0, 0, 0, 0, -1)) * 1000)
        if start >= hi_ms or len(out) > MAX_DAYS:
            return out
        out.append((time.strftime("%Y-%m-%d", day), max(start, lo_ms), min(end, hi_ms)))
        day = time.localtime(end / 1000)


def by_day(conn: sqlite3.Connection, span: TimeRange) -> list[Group]:
    """One Group per local calendar day with sessions, oldest first.

    One index range per day rather than a GROUP BY: the rows come out of the stats index in start order, so no
    sort of every row is needed (the sort was most of a GROUP BY's time at 300,000 rows). A range of more than
    MAX_DAYS days takes the GROUP BY."""
    where, params = span.where()
    lo, hi = span.since_ms, span.until_ms
    if lo is None or hi is None:
        # (over every row: two index lookups, where the counted rows' bounds would take a scan; empty days go)
        first, last_ = conn.execute("SELECT (SELECT min(started_ms) FROM sessions), "
                                    "(SELECT max(started_ms) FROM sessions)").fetchone()
        if first is None:
            return []
        lo = first if lo is None else lo
        hi = last_ + 1 if hi is None else hi
    try:
        days = _days(lo, hi)
    except (OverflowError, OSError, ValueError):
        days = []
    if not days or len(days) > MAX_DAYS:
        sql = f"SELECT {_DAY}, {_AGGREGATES} FROM sessions WHERE {where} GROUP BY 1 ORDER BY 1"
        return [_group(row[0], row[1:]) for row in conn.execute(sql, params)]
    day_where, _ = TimeRange(0, 0).where()
    sql = f"SELECT {_AGGREGATES} FROM sessions WHERE {day_where}"
    out = []
    for key, start, end in days:
        group = _group(key, conn.execute(sql, (start, end)).fetchone())
        if group.sessions:
            out.append(group)
    return out


def by_key(conn: sqlite3.Connection, span: TimeRange, by: str) -> list[Group]:
    """The groups by agent, model or headend, most expensive first.

    Read in key order from the stats index that leads with that key (sessions_by_<key>): no sort of every row, and
    a time range is a skip-scan over each key's start times. Without that index (a read-only index file that never
    got it), the same GROUP BY with a sort."""
    where, params = span.where()
    sql = f"SELECT {_KEYS[by]}, {_AGGREGATES} FROM sessions {{}} WHERE {where} GROUP BY 1"
    try:
        rows = conn.execute(sql.format(f"INDEXED BY sessions_by_{by}"), params).fetchall()
    except sqlite3.OperationalError:
        rows = conn.execute(sql.format(""), params).fetchall()
    groups = [_group(row[0], row[1:]) for row in rows]
    groups.sort(key=lambda g: (-g.cost_usd, -g.sessions, g.key))
    return groups


_TOP_COLUMNS = "path, session_id, agent, title, status, started_ms, duration_ms, cost_usd, failed_ops"
_TOP_ORDER = {
    "expensive": "cost_usd IS NOT NULL AND cost_usd > 0 ORDER BY cost_usd DESC",
    "slowest": "duration_ms IS NOT NULL AND duration_ms > 0 ORDER BY duration_ms DESC",
    "failing": "failed_ops > 0 ORDER BY failed_ops DESC, started_ms DESC",
}


def top(conn: sqlite3.Connection, span: TimeRange, what: str, limit: int = TOP) -> list[TopSession]:
    """The `limit` most expensive, slowest or most failing (most failed ops) sessions of the range."""
    where, params = span.where()
    sql = f"SELECT {_TOP_COLUMNS} FROM sessions WHERE {where} AND {_TOP_ORDER[what]} LIMIT ?"
    return [TopSession(*row) for row in conn.execute(sql, [*params, limit])]


def suspect(conn: sqlite3.Connection, span: TimeRange, limit: int = TOP) -> tuple[list[TopSession], int]:
    """The sessions of the range whose absurd numbers were clamped (and those whose start was absurd: unknown
    now, so in no range), the newest first, and how many there are (read from the partial index sessions_suspect)."""
    clauses = ["suspect != ''", "kind NOT IN ('child', 'live')", "broken = ''"]
    params: list[int] = []
    if span.since_ms is not None or span.until_ms is not None:
        inside, params = span.where()
        clauses.append(f"(started_ms IS NULL OR ({inside}))")
    where = " AND ".join(clauses)
    try:
        count = int(conn.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchone()[0])
        rows = conn.execute(f"SELECT {_TOP_COLUMNS}, suspect FROM sessions WHERE {where} "
                            "ORDER BY started_ms DESC LIMIT ?", [*params, limit]).fetchall()
    except sqlite3.OperationalError:  # an index of before the column (read-only, never rebuilt): none known
        return [], 0
    return [TopSession(*row) for row in rows], count


def failing_agents(by_agent: list[Group], limit: int = TOP) -> list[Group]:
    """The agents with failed sessions: most failures first, then the highest failure rate."""
    failing = [g for g in by_agent if g.failures]
    failing.sort(key=lambda g: (-g.failures, -g.failure_rate, g.key))
    return failing[:limit]


def collect(conn: sqlite3.Connection, span: TimeRange, by: tuple[str, ...] = BY, limit: int = TOP) -> Stats:
    """Everything the Stats screen shows (or, with `by`, the groupings a command asked for)."""
    days = by_day(conn, span)
    stats = Stats(span, totals=_sum(days, "total"))
    for name in by:
        stats.by[name] = days if name == "day" else by_key(conn, span, name)
    agents = stats.by.get("agent")
    stats.failing_agents = failing_agents(agents if agents is not None else by_key(conn, span, "agent"), limit)
    stats.expensive = top(conn, span, "expensive", limit)
    stats.slowest = top(conn, span, "slowest", limit)
    stats.failing = top(conn, span, "failing", limit)
    stats.suspect, stats.suspect_count = suspect(conn, span, limit)
    return stats


def day_bounds_ms(day: str) -> tuple[int, int]:
    """[start, end) of a local calendar day YYYY-MM-DD in ms (ValueError when it is not one)."""
    start = time.strptime(day, "%Y-%m-%d")
    begin = time.mktime(start)
    end = time.mktime((start.tm_year, start.tm_mon, start.tm_mday + 1, 0, 0, 0, 0, 0, -1))
    return int(begin * 1000), int(end * 1000)


UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_when(text: str, now_s: float | None = None) -> int:
    """A time as ms since the epoch: a span back from now (7d), or a local date (YYYY-MM-DD[ HH:MM]). ValueError."""
    now = time.time() if now_s is None else now_s
    value = text.strip()
    unit = value[-1:].lower()
    if unit in UNITS and value[:-1].replace(".", "", 1).isdigit():
        try:
            return int((now - float(value[:-1]) * UNITS[unit]) * 1000)
        except (ValueError, OverflowError):
            raise ValueError(f"not a time: {text!r} (too far back)") from None
    for form in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            return int(time.mktime(time.strptime(value, form)) * 1000)
        except (ValueError, OverflowError):
            continue
    raise ValueError(f"not a time: {text!r} (7d, 36h, 90m, 2w, or YYYY-MM-DD [HH:MM])")
