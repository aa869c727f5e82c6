"""`aiagent-monitor export PATH [--format markdown|json] [-o FILE] [--op PATH | --session PREFIX]` (never imports
textual).

Exit status: 0 written; 2 the input cannot be read, the selection names no sub-agent, or the output cannot be
written (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli import fail


def run_export(args: argparse.Namespace) -> int:
    import gc

    gc.disable()  # a one-shot command over acyclic parsed JSON: the collector would only re-scan it
    from tui.model.document import load
    from tui.model.export import ExportError, render, select, write_atomic
    from tui.model.source_bytes import LoadError

    try:
        doc = load(args.path, sessions_dir=args.sessions_dir)
    except LoadError as exc:
        return fail(str(exc))
    except (MemoryError, RecursionError) as exc:
        return fail(f"{args.path}: {type(exc).__name__} while loading")
    if doc.root is None:
        return fail(f"{args.path}: an accounting ledger has no session tree to export; use `dump`")
    try:
        session = select(doc.root, session=args.session, op=args.op)
        data = render(session, args.format, source=args.path, source_format=doc.format)
    except ExportError as exc:
        return fail(f"{args.path}: {exc}")
    if args.output in (None, "-"):
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        except BrokenPipeError:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        return 0
    try:
        write_atomic(Path(args.output), data)
    except OSError as exc:
        return fail(f"cannot write {args.output}: {exc.strerror or exc}")
    print(f"wrote {args.output} ({len(data):,} bytes)", file=sys.stderr)
    return 0

