"""Command line: `aiagent-monitor [PATH]` runs the app; `dump`, `replay`, `generate`, `diff` never import textual."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli_load import PROG, load_or_fail

COMMANDS = ("dump", "export", "replay", "generate", "diff")


def default_sessions_dir() -> Path:
    env = os.environ.get("AI_AGENT_SESSIONS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".ai-agent" / "sessions"


def size(text: str) -> int:
    """argparse type for --max-bytes: 1073741824, 512M, 1GiB (named so that its errors read "invalid size")."""
    from tui.model.source_bytes import parse_size

    return parse_size(text)


def add_max_bytes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-bytes", type=size, metavar="N",
                   help="refuse documents larger than N bytes once decompressed, e.g. 512M or 2G (default 1G, or "
                        "$AIAGENT_MONITOR_MAX_BYTES): a guard against gzip bombs")


def app_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Watch ai-agent sessions live and take them apart afterwards.",
        epilog=(
            "commands (each has --help):\n"
            f"  {PROG} dump PATH [--json]        the session tree as text, or a JSON summary\n"
            f"  {PROG} dump PATH --insights      failed ops, fatal logs, slowest ops, cost by model/agent/tool...\n"
            f"  {PROG} export PATH [--format F]  a Markdown (or JSON) report of a session or one sub-agent\n"
            f"  {PROG} replay PATH --to URL      send a saved session as a live event stream\n"
            f"  {PROG} generate DIR              write realistic demo sessions into DIR\n"
            f"  {PROG} diff A B [--json]         what changed between two sessions (ops, status, cost, tokens)\n"
            "\nWith no PATH the sessions browser opens on --sessions-dir (default: $AI_AGENT_SESSIONS_DIR or\n"
            "~/.ai-agent/sessions); with no data there, the built-in demo starts."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), a Jules snapshot, "
                   "Genkit snapshots (a JSON array or a directory) or - for stdin")
    p.add_argument("--sessions-dir", metavar="DIR", help="the sessions directory to browse and tail")
    p.add_argument("--op", metavar="OP_PATH",
                   help="open PATH with this op (e.g. 1-2.3-1, or S0-1 for a v2 step op) selected")
    p.add_argument("--demo", action="store_true", help="run on a temporary directory of generated sessions")
    p.add_argument("--listen", metavar="URL", action="append", default=[],
                   help="accept pushed events: ws://HOST:PORT[/path] or unix:PATH (repeatable)")
    p.add_argument("--connect", metavar="URL", action="append", default=[],
                   help="subscribe to an event stream: ws://HOST:PORT[/path] or unix:PATH (repeatable)")
    p.add_argument("--allow-remote", action="store_true",
                   help="let --listen bind a non-loopback address (other machines can push events; use --token)")
    p.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[],
                   help="let web pages from ORIGIN (exactly, e.g. http://localhost:8080; * for any) push events to a "
                        "ws:// --listen; without it a handshake carrying an Origin header is refused (repeatable)")
    p.add_argument("--token", metavar="TOKEN",
                   help="required from WebSocket producers of --listen (Authorization: Bearer TOKEN or ?token=TOKEN)"
                        " and sent to --connect servers; default $AIAGENT_MONITOR_TOKEN, which keeps it out of ps")
    add_max_bytes(p)
    return p


def dump_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"{PROG} dump", description="Print a session tree as text, or its summary as JSON.")
    p.add_argument("path", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), accounting.jsonl, a Jules snapshot, "
                   "Genkit snapshots (a JSON array or a directory), or - for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object: format, root, totals, counts, maxDepth")
    p.add_argument("--sessions-dir", metavar="DIR", help="where ref payloads and child ledgers resolve")
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
    p.add_argument("--sessions-dir", metavar="DIR", help="where ref payloads and child ledgers resolve")
    add_max_bytes(p)
    return p


def main(argv: list[str] | None = None) -> int:
    from_command_line = argv is None
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "dump":
        args = dump_parser().parse_args(argv[1:])
        set_max_bytes(args.max_bytes)
        rc = run_dump(args)
        if from_command_line:
            # Freeing a few million parsed objects one by one at interpreter exit costs more than the dump itself.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
        return rc
    if argv and argv[0] == "export":
        from tui.export_cli import run_export

        args = export_parser().parse_args(argv[1:])
        set_max_bytes(args.max_bytes)
        rc = run_export(args)
        if from_command_line:  # as for dump: skip freeing the parsed tree object by object
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
        return rc
    if argv and argv[0] == "replay":
        from tui.sources.replay_cli import main as replay_main

        return replay_main(argv[1:])
    if argv and argv[0] == "diff":
        from tui.diff_cli import main as diff_main

        return diff_main(argv[1:])
    if argv and argv[0] == "generate":
        from tui.gen.__main__ import main as gen_main

        return gen_main(argv[1:])
    args = app_parser().parse_args(argv)
    set_max_bytes(args.max_bytes)
    from tui.launch import run_app

    return run_app(args)


def set_max_bytes(max_bytes: int | None) -> None:
    if max_bytes is not None:
        from tui.model.source_bytes import set_document_limit

        set_document_limit(max_bytes)


def run_dump(args: argparse.Namespace) -> int:
    import gc

    from tui.model.json_text import dumps_for  # escapes what a terminal would obey when stdout is one

    gc.disable()  # a one-shot command over acyclic parsed JSON: the collector would only re-scan it
    from tui.model.ascii_tree import render
    from tui.model.document import GENKIT, JULES
    from tui.model.fields import printable
    from tui.model.summary import summarise

    doc, rc = load_or_fail(args.path, args.sessions_dir)
    if doc is None:
        return rc
    out = sys.stdout
    try:
        if args.insights and not args.json and doc.root is not None:
            from tui.model.insights import compute
            from tui.model.insights_text import render_text

            out.write(printable(render_text(compute(doc.root)), keep_newlines=True))
        elif args.json:
            summary = summarise(doc)
            if args.insights:  # opt-in: ~5% of the dump of a 20,000-op file, and ~100x the output
                from tui.model.insights import compute

                summary["insights"] = compute(doc.root).as_dict() if doc.root is not None else None
            out.buffer.write(dumps_for(out, summary) + b"\n")
        elif doc.root is None:
            out.buffer.write(dumps_for(out, summarise(doc), indent=True) + b"\n")
        elif doc.format in (JULES, GENKIT):
            from tui.model.foreign_text import render as render_foreign

            out.write("\n".join(printable(line) for line in render_foreign(doc, max_depth=args.depth)))
            out.write("\n")
        else:
            notes = None
            if args.payloads:
                from tui.model.payload_check import payload_problems

                def notes(op, where=doc.sessions_dir):
                    return payload_problems(op, where)
            # every field is made inert where the line is built; this is the last line of defence
            out.write("\n".join(printable(line) for line in render(doc.root, max_depth=args.depth, op_notes=notes)))
            out.write("\n")
        out.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0
