"""`aiagent-monitor diff A B [--json]`: what changed between two session files. Never imports textual."""

from __future__ import annotations

import argparse
import sys

from tui.cli.load import PROG as MONITOR
from tui.cli.load import add_sessions_dir, fail, load_or_fail, stdout_gone

PROG = f"{MONITOR} diff"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Compare two sessions (two versions of one session, or two runs of the same agent): totals and "
                    "counts deltas, ops added, removed, whose status changed, renamed (same path, another call), "
                    "and whose usage or logs changed. Ops are matched by path, sub-agents included.",
    )
    p.add_argument("a", help="the first (older) session: a snapshot (.json.gz/.json), a v3 ledger (.jsonl) or -")
    p.add_argument("b", help="the second (newer) session")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: before, after, delta {totals, counts, durationMs}, ops, unchanged")
    add_sessions_dir(p)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.a == "-" and args.b == "-":
        return fail("only one of A and B can be - (stdin)")
    from tui.model.json_text import dumps_for

    from tui.model.diff import diff_sessions
    from tui.text.diff_text import render

    roots = []
    for path in (args.a, args.b):
        doc, rc = load_or_fail(path, args.sessions_dir, needs_tree=" to compare")
        if doc is None:
            return rc
        roots.append(doc.root)
    diff = diff_sessions(roots[0], roots[1], before_label=args.a, after_label=args.b)
    out = sys.stdout
    try:
        if args.json:
            out.buffer.write(dumps_for(out, diff.as_json()) + b"\n")  # escaped for a terminal
        else:
            for line in render(diff):
                out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        stdout_gone()
    return 0
