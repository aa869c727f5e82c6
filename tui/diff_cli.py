"""`aiagent-monitor diff A B [--json]`: what changed between two session files. Never imports textual."""

from __future__ import annotations

import argparse
import os
import sys

PROG = "aiagent-monitor diff"


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
    p.add_argument("--sessions-dir", metavar="DIR", help="where ref payloads and child ledgers resolve")
    return p


def fail(message: str) -> int:
    print(f"aiagent-monitor: {message}", file=sys.stderr)
    return 2


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.a == "-" and args.b == "-":
        return fail("only one of A and B can be - (stdin)")
    import orjson

    from tui.model.diff import diff_sessions
    from tui.model.diff_text import render
    from tui.model.document import load
    from tui.model.source_bytes import LoadError

    roots = []
    for path in (args.a, args.b):
        try:
            doc = load(path, sessions_dir=args.sessions_dir)
        except LoadError as exc:
            return fail(str(exc))
        except (MemoryError, RecursionError) as exc:
            return fail(f"{path}: {type(exc).__name__} while loading")
        if doc.root is None:
            return fail(f"{path}: an accounting ledger has no session tree to compare")
        roots.append(doc.root)
    diff = diff_sessions(roots[0], roots[1], before_label=args.a, after_label=args.b)
    out = sys.stdout
    try:
        if args.json:
            out.buffer.write(orjson.dumps(diff.as_json()) + b"\n")
        else:
            for line in render(diff):
                out.write(line + "\n")
        out.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0
