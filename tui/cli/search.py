"""`aiagent-monitor search QUERY [--sessions-dir DIR] [--json] [--limit N]`: the full-text hits the browser's `F`
shows (tui.catalog.index.search), on stdout: one line per session, best first. Never imports textual."""

from __future__ import annotations

import argparse
import sys

from tui.cli.load import PROG as MONITOR
from tui.cli.load import fail, directory_problem, stdout_gone

PROG = f"{MONITOR} search"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Search every session of a directory (titles, prompts, answers, tool names, tool results, "
                    "errors) through the sessions index the monitor keeps in $XDG_CACHE_HOME/aiagent-monitor/; new "
                    "and changed files are indexed first. Words match as prefixes; field:word searches one field.",
    )
    p.add_argument("query", help="the words to find (all of them), e.g. 'timeout', 'tool:bash', 'result:enoent', "
                   "'\"exact phrase\"'")
    p.add_argument("--sessions-dir", metavar="DIR",
                   help="the sessions directory (default: $AI_AGENT_SESSIONS_DIR or ~/.ai-agent/sessions)")
    p.add_argument("--json", action="store_true", help="print one JSON object per line (path, session_id, agent, "
                   "title, started_ms, status, field, snippet with the matches in [brackets])")
    p.add_argument("--limit", type=int, default=200, metavar="N", help="at most N sessions (default 200)")
    p.add_argument("--no-refresh", action="store_true",
                   help="search the index as it is, without first reading new or changed files")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from tui.catalog.index import search as fts
    from tui.catalog.index.reader import ask, index_file
    from tui.cli.stats import refresh_index
    from tui.inputs.sessions_dir import default_sessions_dir

    sessions_dir = args.sessions_dir or str(default_sessions_dir())
    problem = directory_problem(sessions_dir)
    if problem:
        return fail(problem, PROG)
    query = fts.build_query(args.query)
    if not query:
        return fail(f"{args.query!r}: nothing to search for (words, field:word or \"a phrase\")", PROG)
    if not args.no_refresh:  # (the other agents' default roots too, as `stats` and the browser read them)
        from tui.inputs.agent_roots import discovered_roots

        refresh_index(sessions_dir, tuple(discovered_roots()) if not args.sessions_dir else ())
    hits, problem = ask(index_file(sessions_dir), lambda conn: fts.search(conn, query, max(1, args.limit)),
                        "the sessions index cannot be searched")
    if hits is None:
        return fail(problem, PROG, code=1)
    return _print(hits, args.json)


def _print(hits: list, as_json: bool) -> int:
    from tui.model.fields import printable
    from tui.model.json_text import dumps_for
    from tui.model.format import fmt_ts

    out = sys.stdout
    try:
        for hit in hits:
            if as_json:
                out.buffer.write(dumps_for(out, hit.as_json()) + b"\n")
                continue
            snippet = hit.as_json()["snippet"]
            fields = (hit.path, fmt_ts(hit.started_ms) if hit.started_ms else "-", hit.status or "-",
                      hit.agent or "-", f"{hit.field}: {snippet}")
            out.write("\t".join(printable(field) for field in fields) + "\n")  # (tab-separated: cut -f1)
        out.flush()
    except BrokenPipeError:
        stdout_gone()
    if not hits and sys.stderr:
        print(f"{PROG}: no session matches", file=sys.stderr)
        return 1
    return 0
