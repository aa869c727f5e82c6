"""`aiagent-monitor export PATH [--format markdown|json|otlp] [-o FILE | --to URL] [--op PATH | --session PREFIX]`
(never imports textual; grpc and opentelemetry-proto only when `--to` sends).

`--format otlp` writes OTLP/JSON lines (tui.text.export_otlp) to stdout or `-o FILE`, or with `--to otlp://HOST:4317`
(gRPC) / `--to otlp+http://HOST:4318` (HTTP/protobuf; otlps:// and otlp+https:// over TLS) sends the spans to an
OpenTelemetry endpoint (a Collector, Jaeger, Tempo, Langfuse, Phoenix, or a monitor's `--listen`), with
`--token` as `authorization: Bearer` (never the monitor's own $AIAGENT_MONITOR_TOKEN: a trace store is not our listener) and `--header NAME=VALUE` for anything else.

Exit status: 0 written or sent; 1 the endpoint could not be reached or refused the spans; 2 the input cannot be
read, the selection names no sub-agent, the arguments do not fit together, or the output cannot be written (one
line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.cli.load import PROG, add_max_bytes, add_sessions_dir, fail, load_or_fail, stdout_gone


def export_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"{PROG} export",
                                description="Write a session (or one sub-agent) as a Markdown report, as JSON, or as "
                                            "OpenTelemetry spans (OTLP) to a file or to a trace store.")
    p.add_argument("path", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), or - for stdin")
    p.add_argument("--format", choices=("markdown", "json", "otlp"), default="markdown",
                   help="markdown: Overview, Insights, Timeline, Errors; json: the normalised model; otlp: "
                        "OpenTelemetry spans with GenAI attributes, as OTLP/JSON lines (default markdown)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout (- is stdout)")
    where.add_argument("--to", metavar="URL",
                       help="with --format otlp: send the spans to otlp://HOST:PORT (gRPC, default port 4317) or "
                            "otlp+http://HOST:PORT[/PATH] (HTTP/protobuf, default /v1/traces on port 4318); "
                            "otlps:// and otlp+https:// over TLS")
    p.add_argument("--token", metavar="TOKEN",
                   help="with --to: sent as Authorization: Bearer TOKEN (the monitor's $AIAGENT_MONITOR_TOKEN is never sent)")
    p.add_argument("--header", metavar="NAME=VALUE", action="append", default=[],
                   help="with --to: an extra header (gRPC metadata) to send, e.g. Authorization=Basic ... for "
                        "Langfuse (repeatable)")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=10.0,
                   help="with --to: how long each request may take in all, answer included (default 10)")
    p.add_argument("--no-messages", action="store_true",
                   help="with --format otlp: leave out gen_ai.input.messages / gen_ai.output.messages (prompts "
                        "and answers read from the captures)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--op", metavar="OP_PATH", help="export the sub-agent of this op (e.g. 1-2.3-1, S0-1)")
    which.add_argument("--session", metavar="PREFIX",
                       help="export the sub-agent with this op path, id or trace id prefix, or agent id")
    add_sessions_dir(p)
    add_max_bytes(p)
    return p


def run_export(args: argparse.Namespace) -> int:
    from tui.model.gc_pause import off_for_good

    off_for_good()
    from tui.text.export import ExportError, render, select, write_atomic

    if args.to is not None and args.format != "otlp":
        return fail("--to sends OpenTelemetry spans: add --format otlp")
    endpoint = None
    if args.to is not None:
        from tui.text.otlp.send import parse_endpoint, parse_header

        try:
            endpoint = parse_endpoint(args.to)
        except ValueError as exc:
            return fail(f"--to {exc}")
        try:
            args.headers = [parse_header(h) for h in args.header]
        except ValueError as exc:
            return fail(f"--header {exc}")
    if not args.timeout > 0:
        return fail("--timeout must be a positive number of seconds")
    doc, rc = load_or_fail(args.path, args.sessions_dir, needs_tree=" to export; use `dump`")
    if doc is None:
        return rc
    try:
        session = select(doc.root, session=args.session, op=args.op)
        if args.format == "otlp":
            from tui.text.export_otlp import build

            otlp = build(session, source=args.path, source_format=doc.format, sessions_dir=doc.sessions_dir,
                         messages=not args.no_messages)
            if endpoint is not None:
                return _send(otlp, endpoint, args)
            data = otlp.json_lines()
        else:
            data = render(session, args.format, source=args.path, source_format=doc.format)
    except ExportError as exc:
        return fail(f"{args.path}: {exc}")
    if args.output in (None, "-"):
        if args.format in ("json", "otlp") and sys.stdout.isatty():
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



def _send(otlp, endpoint, args: argparse.Namespace) -> int:
    """Send the requests to the endpoint: exit 0 with one line saying how many spans went where, or 1 with one
    line saying why not."""
    from tui.text.otlp.send import SendError, send

    try:
        rejected = send(endpoint, otlp.protobufs(), token=args.token, timeout=args.timeout,
                        headers=args.headers)
    except SendError as exc:
        return fail(str(exc), code=1)
    sessions = f"{otlp.sessions} session" + ("" if otlp.sessions == 1 else "s")
    print(f"exported {otlp.spans} spans of {sessions} to {endpoint.url}", file=sys.stderr)
    if rejected:
        return fail(f"{endpoint.url} rejected {rejected} of the {otlp.spans} spans", code=1)
    return 0
