"""`aiagent-monitor export PATH [--format markdown|json] [-o FILE] [--op PATH | --session PREFIX]` (never imports
textual).

Exit status: 0 written; 2 the input cannot be read, the selection names no sub-agent, or the output cannot be
written (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.cli.load import PROG, add_max_bytes, add_sessions_dir, fail, load_or_fail, stdout_gone


def export_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"{PROG} export",
                                description="Write a session (or one sub-agent) as a Markdown report or as JSON.")
    p.add_argument("path", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), or - for stdin")
    p.add_argument("--format", choices=("markdown", "json"), default="markdown",
                   help="markdown: Overview, Insights, Timeline, Errors; json: the normalised model (default markdown)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (- is stdout)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--op", metavar="OP_PATH", help="export the sub-agent of this op (e.g. 1-2.3-1, S0-1)")
    which.add_argument("--session", metavar="PREFIX",
                       help="export the sub-agent with this op path, id or trace id prefix, or agent id")
    add_sessions_dir(p)
    add_max_bytes(p)
    return p


def run_export(args: argparse.Namespace) -> int:
    import gc

    gc.disable()  # a one-shot command over acyclic parsed JSON: the collector would only re-scan it
    from tui.text.export import ExportError, render, select, write_atomic

    doc, rc = load_or_fail(args.path, args.sessions_dir, needs_tree=" to export; use `dump`")
    if doc is None:
        return rc
    try:
        session = select(doc.root, session=args.session, op=args.op)
        data = render(session, args.format, source=args.path, source_format=doc.format)
    except ExportError as exc:
        return fail(f"{args.path}: {exc}")
    if args.output in (None, "-"):
        if args.format == "json" and sys.stdout.isatty():
            from tui.model.json_text import terminal_safe

            data = terminal_safe(data)  # what a terminal would obey, as \uXXXX (the same JSON)
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        except BrokenPipeError:
            stdout_gone()
        return 0
    from tui.inputs.sessions_dir import default_sessions_dir

    try:  # an existing file named by -o is replaced (as shells do); a symlink there, or a sessions directory, is not
        write_atomic(Path(args.output), data, sessions_dirs=(args.sessions_dir, default_sessions_dir()))
    except OSError as exc:
        return fail(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {args.output} ({len(data):,} bytes)", file=sys.stderr)
    return 0

