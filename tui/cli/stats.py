"""`aiagent-monitor stats [--since 7d] [--until ...] [--by day|agent|model|headend|kind|project] [--json]
[--sessions-dir D]`:
cost, tokens, sessions and failures across sessions, answered from the sessions index. Never imports textual."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from tui.cli.load import PROG as MONITOR
from tui.cli.load import fail, directory_problem, stdout_gone

PROG = f"{MONITOR} stats"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Cost, tokens, sessions and failures across the sessions of a directory, per day and by agent, "
                    "model, headend, agent kind or project, with the most expensive, slowest and most failing sessions. Answered from "
                    "the sessions index the monitor keeps in $XDG_CACHE_HOME/aiagent-monitor/ (run the monitor "
                    "once on the directory to build it). When accounting.jsonl sits in or beside the directory, "
                    "its cost is a second column.",
    )
    p.add_argument("--since", metavar="WHEN", help="a span back from now (90m, 36h, 7d, 4w), a date (YYYY-MM-DD "
                   "[HH:MM], local time), today or yesterday; default: all time")
    p.add_argument("--until", metavar="WHEN", help="the end of the range (exclusive), same forms; default: now")
    p.add_argument("--by", choices=("day", "agent", "model", "headend", "kind", "project"), default="day",
                   help="the table to print (default: day)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="sessions in each top list (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object with every grouping and top list")
    p.add_argument("--no-accounting", action="store_true", help="do not read accounting.jsonl")
    p.add_argument("--no-refresh", action="store_true",
                   help="query the index as it is, without first reading the files that are new or changed since "
                        "the monitor last ran (or building the index when there is none)")
    p.add_argument("--sessions-dir", metavar="DIR",
                   help="the sessions directory (default: $AI_AGENT_SESSIONS_DIR or ~/.ai-agent/sessions)")
    return p


def refresh_index(sessions_dir: str, roots: tuple = ()) -> str:
    """Bring the index up to date with the directory (build it when there is none) through the store's own calls
    (tui.catalog.index.store, .sync): new and changed files are read, unchanged ones are not. When the index cannot
    be used, its notice goes to stderr and the query then says what to do. Gives why the refresh failed part way
    ("" when it did not): the index then holds only part of the directory (a full disk), and an answer from it
    would be a partial truth."""
    from tui.catalog.index.store import open_index
    from tui.catalog.index.sync import refresh
    from tui.catalog.scan import scan

    from tui.inputs.agent_roots import OPENCODE, location_of_root

    if not Path(sessions_dir).is_dir() and location_of_root(Path(sessions_dir)) is not OPENCODE:  # (a database)
        return ""
    index, notice = open_index(sessions_dir)
    if notice:
        fail(notice, PROG)
    if index is None:
        return ""
    try:
        return refresh(index, scan(sessions_dir, roots=roots)).error  # (the browser's roots: their rows are kept)
    finally:
        index.close()


def named_day(text: str) -> str:
    """`today` and `yesterday` as the date they name (local time), which parse_when reads as that day's midnight."""
    import datetime

    word = text.strip().lower()
    if word in ("today", "yesterday"):
        day = datetime.date.today() - datetime.timedelta(days=1 if word == "yesterday" else 0)
        return day.isoformat()
    return text


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from tui.catalog.index import stats as st
    from tui.catalog.index.stats import parse_when
    from tui.catalog.index.accounting_cost import accounting_path, attach, read_cost
    from tui.catalog.index.reader import NoIndex, add_stats_index, index_file, open_readonly
    from tui.inputs.sessions_dir import default_sessions_dir

    try:
        since = parse_when(named_day(args.since)) if args.since else None
        until = parse_when(named_day(args.until)) if args.until else None
    except ValueError as exc:
        return fail(str(exc), PROG)
    sessions_dir = args.sessions_dir or str(default_sessions_dir())
    problem = directory_problem(sessions_dir)
    if problem:
        return fail(problem, PROG)
    path = index_file(sessions_dir)
    if not args.no_refresh:
        from tui.inputs.agent_roots import discovered_roots

        failed = refresh_index(sessions_dir, tuple(discovered_roots()) if not args.sessions_dir else ())
        if failed:
            return fail(f"stats not given: the sessions index could not be brought up to date ({failed}), so it "
                        f"holds only part of the directory; free space in {path.parent} if it is full, or delete "
                        f"the index (rm '{path}') if it is damaged, and run stats again (--no-refresh answers from "
                        "the index as it is)", PROG, code=1)
    add_stats_index(path)
    try:
        conn = open_readonly(path)
    except NoIndex as exc:
        return fail(str(exc), PROG, code=1)
    span = st.TimeRange(since, until)
    try:
        result = st.collect(conn, span, by=tuple(dict.fromkeys(("day", args.by))), limit=max(0, args.top))
    except sqlite3.DatabaseError as exc:  # pages damaged past the ones open_readonly read
        return fail(f"the sessions index {path} is damaged ({exc}); delete it (rm '{path}') and run stats again "
                    "without --no-refresh, which rebuilds it", PROG, code=1)
    finally:
        conn.close()
    accounting = None if args.no_accounting else accounting_path(sessions_dir)
    if accounting is not None:
        attach(result, read_cost(accounting, span))
    out = sys.stdout
    try:
        if args.json:
            from tui.model.json_text import dumps_for

            doc = result.as_json()
            doc["index"] = str(path)
            doc["accounting"] = str(accounting) if accounting is not None else None
            out.buffer.write(dumps_for(out, doc) + b"\n")
        else:
            from tui.text.stats_text import render

            for line in render(result, args.by, accounting=accounting is not None):
                out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        stdout_gone()
    return 0
