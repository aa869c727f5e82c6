"""`aiagent-monitor dump PATH [--json] [--insights] [--payloads] [--depth N]`: the session tree as text, or the JSON
summary (the dump contract of tui.text.summary). Never imports textual.
"""

from __future__ import annotations

import argparse
import sys

from tui.cli.load import PROG, add_max_bytes, add_sessions_dir, load_or_fail, stdout_gone


def dump_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"{PROG} dump", description="Print a session tree as text, or its summary as JSON.")
    p.add_argument("path", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), accounting.jsonl, a Jules snapshot, "
                   "Genkit snapshots (a JSON array or a directory), another agent's session file, an OpenCode "
                   "opencode.db (its newest session, or opencode.db#<session id>), or - for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object: format, root, totals, counts, maxDepth")
    add_sessions_dir(p)
    p.add_argument("--depth", type=int, metavar="N", help="text mode: do not expand sub-agents deeper than N")
    p.add_argument("--insights", action="store_true",
                   help="print the insights (failed ops, fatal logs, slowest ops, cost by model/agent/tool, cache "
                        "share, retries, tool error rate, final report) instead of the tree; with --json, add them "
                        "as \"insights\"")
    p.add_argument("--payloads", action="store_true",
                   help="text mode: also read every captured payload and list, under its op, each LLM capture's "
                        "format and dialect, errors mid-stream, unknown dialects, [unavailable] capture bugs and those "
                        "that cannot be read (invalid base64, refs outside the sessions directory, missing or corrupt "
                        "files, sha256 mismatches)")
    add_max_bytes(p)
    return p


def run_dump(args: argparse.Namespace) -> int:
    from tui.model.gc_pause import off_for_good
    from tui.model.json_text import dumps_for  # escapes what a terminal would obey when stdout is one

    off_for_good()
    data = None
    if args.json and not args.insights:
        summary, data = _fast_summary(args.path)
        if summary is not None:
            try:
                sys.stdout.buffer.write(dumps_for(sys.stdout, summary) + b"\n")
                sys.stdout.flush()
            except BrokenPipeError:
                stdout_gone()
            return 0
    loader = None
    if data is not None:  # read already: not again
        from tui.formats.load import load

        def loader(content=data):
            return load(args.path, args.sessions_dir, data=content)
    doc, rc = load_or_fail(args.path, args.sessions_dir, loader=loader)
    if doc is None:
        return rc
    from tui.model.document import GENKIT, JULES  # (after the summary read without a tree: not needed there)
    from tui.model.fields import printable
    from tui.text.ascii_tree import render
    from tui.text.summary import file_mismatch, summarise

    out = sys.stdout
    try:
        if args.insights and not args.json and doc.root is not None:
            from tui.model.insights import compute
            from tui.text.insights_text import render_text

            text = render_text(compute(doc.root))
            mismatch = file_mismatch(doc.root)
            if mismatch is not None:  # the file is not the session it is named after: said before anything else
                text = f"FILE ID MISMATCH: {mismatch['problem']}\n\n{text}"
            out.write(printable(text, keep_newlines=True))
        elif args.json:
            summary = summarise(doc)
            if args.insights:  # opt-in: ~5% of the dump of a 20,000-op file, and ~100x the output
                from tui.model.insights import compute

                summary["insights"] = compute(doc.root).as_dict() if doc.root is not None else None
                mismatch = file_mismatch(doc.root) if doc.root is not None else None
                if summary["insights"] is not None and mismatch is not None:
                    summary["insights"]["fileIdMismatch"] = mismatch
            out.buffer.write(dumps_for(out, summary) + b"\n")
        elif doc.root is None:
            out.buffer.write(dumps_for(out, summarise(doc), indent=True) + b"\n")
        elif doc.format in (JULES, GENKIT):
            from tui.text.foreign_text import render as render_foreign

            out.write("\n".join(printable(line) for line in render_foreign(doc, max_depth=args.depth)))
            out.write("\n")
        else:
            notes = None
            if args.payloads:
                from tui.payloads.check import payload_problems

                def notes(op, where=doc.sessions_dir):
                    return payload_problems(op, where)
            # every field is made inert where the line is built; this is the last line of defence
            out.write("\n".join(printable(line) for line in render(doc.root, max_depth=args.depth, op_notes=notes)))
            out.write("\n")
        out.flush()
    except BrokenPipeError:
        stdout_gone()
    return 0


def _fast_summary(path: str) -> tuple[dict | None, bytes | bytearray | None]:
    """The --json summary of a plain snapshot file, read without building its tree (tui.formats.aiagent.facts):
    the same object in about half the time. (None, the file's content) for any other file, (None, None) when it
    could not be read here (stdin, a directory, an error: the loader reads it and says why)."""
    import os

    from tui.formats.aiagent.facts import snapshot_facts
    from tui.formats.aiagent.file_identity import misfiled
    from tui.inputs.files import LoadError, read_source
    from tui.model.document import SNAPSHOT
    from tui.text.summary import tree_summary

    if path == "-" or os.path.isdir(path):
        return None, None
    try:
        data = read_source(path, None)
    except (LoadError, MemoryError):
        return None, None
    try:
        root = snapshot_facts(data)
    except RecursionError:
        return None, data
    if root is None:
        return None, data
    root.misfiled = misfiled(path, root.trace_id)
    return tree_summary(SNAPSHOT, root), data
