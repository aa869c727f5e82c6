"""Command line: `aiagent-monitor [PATH]` runs the app (tui.cli.run); `dump`, `export`, `replay`, `generate`, `diff`,
`stats`, `payload`, `search` (one module each in tui/cli/) never import textual."""

from __future__ import annotations

import argparse
import os
import sys

from tui import __version__
from tui.cli.dump import dump_parser, run_dump
from tui.cli.load import PROG, add_max_bytes, set_max_bytes
from tui.catalog.browser_sort import SORT_HELP, parse_sort


def app_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Watch ai-agent sessions live and take them apart afterwards.",
        epilog=(
            "commands (each has --help):\n"
            f"  {PROG} dump PATH [--json]        the session tree as text, or a JSON summary\n"
            f"  {PROG} dump PATH --insights      failed ops, fatal logs, slowest ops, cost by model/agent/tool...\n"
            f"  {PROG} export PATH [--format F]  a Markdown (or JSON, or OTLP spans) report of a session or sub-agent\n"
            f"  {PROG} replay PATH --to URL      send a saved session as a live event stream\n"
            f"  {PROG} generate DIR              write realistic demo sessions into DIR\n"
            f"  {PROG} diff A B [--json]         what changed between two sessions (ops, status, cost, tokens)\n"
            f"  {PROG} stats [--since 7d] [--by B] cost, tokens, failures across sessions (from the index)\n"
            f"  {PROG} payload PATH --op OP      one op's captured request/response, decoded, on stdout\n"
            f"  {PROG} search QUERY [--json]     the sessions whose text matches QUERY (from the index)\n"
            "\nWith no PATH the sessions browser opens on --sessions-dir (default: $AI_AGENT_SESSIONS_DIR or\n"
            "~/.ai-agent/sessions) and follows it, even empty. Only when neither was given and ~/.ai-agent/sessions\n"
            "is empty or missing does the built-in demo start (as --demo does)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", help="a snapshot (.json.gz/.json), a v3 ledger (.jsonl), a Jules snapshot, "
                   "Genkit snapshots (a JSON array or a directory) or - for stdin")
    p.add_argument("--sessions-dir", metavar="DIR", action="append",
                   help="the sessions directory to browse and tail; repeat it to list more directories (another "
                        "agent's root such as ~/.claude/projects is listed as that agent's sessions)")
    p.add_argument("--op", metavar="OP_PATH",
                   help="open PATH with this op (e.g. 1-2.3-1, or S0-1 for a v2 step op) selected")
    p.add_argument("--demo", action="store_true", help="run on a temporary directory of generated sessions")
    p.add_argument("--listen", metavar="URL", action="append", default=[],
                   help="accept pushed events: ws://HOST:PORT[/path] or unix:PATH; or OpenTelemetry spans and logs: "
                        "otlp://HOST[:PORT] (OTLP/gRPC, port 4317 by default) or otlp+http://HOST[:PORT] (OTLP/HTTP, "
                        "4318) (repeatable)")
    p.add_argument("--connect", metavar="URL", action="append", default=[],
                   help="subscribe to an event stream: ws://HOST:PORT[/path] or unix:PATH (repeatable)")
    p.add_argument("--allow-remote", action="store_true",
                   help="let --listen bind a non-loopback address (other machines can push events; use --token)")
    p.add_argument("--allow-origin", metavar="ORIGIN", action="append", default=[],
                   help="let web pages from ORIGIN (exactly, e.g. http://localhost:8080; * for any) push events to a "
                        "ws:// or otlp+http:// --listen; without it a request carrying an Origin header is refused "
                        "(repeatable)")
    p.add_argument("--token", metavar="TOKEN",
                   help="required from producers of --listen (Authorization: Bearer TOKEN or ?token=TOKEN; OTLP/gRPC:"
                        " the metadata authorization: Bearer TOKEN) and sent to --connect servers; default "
                        "$AIAGENT_MONITOR_TOKEN, which keeps it out of ps")
    p.add_argument("--stale-after", metavar="SPAN", type=_span, default=None,
                   help="show a session without an end as stale once its file or stream has been silent this long "
                        "(e.g. 90s, 10m, 2h; default 10m; 0: never)")
    p.add_argument("--no-index", action="store_true",
                   help="run without the sessions index (a cache in $XDG_CACHE_HOME/aiagent-monitor/): every start "
                        "reads every file again")
    p.add_argument("--sort", metavar="COLUMN", type=_sort_column, help=f"the browser's sort: {SORT_HELP}")
    p.add_argument("--filter", metavar="EXPR",
                   help="the browser's filter, in the language of its / box (e.g. 'status:failed since:1d')")
    p.add_argument("--config", metavar="PATH",
                   help="the configuration file (default $XDG_CONFIG_HOME/aiagent-monitor/config.toml)")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    add_max_bytes(p)
    return p


def _sort_column(text: str) -> str:
    if parse_sort(text) is None:
        raise argparse.ArgumentTypeError(f"{text!r}: not a sort ({SORT_HELP})")
    return text


def _exit_now(rc: int, from_command_line: bool) -> int:
    """End a one-shot command (dump, export) at once when run from the command line: freeing a few million parsed
    objects one by one at interpreter exit costs more than the command itself. Called from Python: return rc."""
    if from_command_line:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    return rc


def _span(text: str) -> float:
    from tui.catalog.liveness import parse_span

    try:
        return parse_span(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_PRICED_COMMANDS = frozenset({"dump", "export", "stats", "search", "diff", "payload"})


def _command_prices() -> None:
    """The configuration file's `[prices]` hold for the commands as for the app (tui.model.prices decides, this
    is one of its sources), so that `dump` and `stats` estimate as the browser does. A file the app would refuse
    is said once on stderr and the command goes on with the other sources."""
    from tui.cli.config import ConfigError, load_config
    from tui.model.prices import set_config_prices

    try:
        set_config_prices(load_config().prices)
    except ConfigError as exc:
        print(f"{PROG}: {exc} (its prices are not used)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    from_command_line = argv is None
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in _PRICED_COMMANDS:
        _command_prices()
    if argv and argv[0] == "dump":
        args = dump_parser().parse_args(argv[1:])
        set_max_bytes(args.max_bytes)
        return _exit_now(run_dump(args), from_command_line)
    if argv and argv[0] == "export":
        from tui.cli.export import export_parser, run_export

        args = export_parser().parse_args(argv[1:])
        set_max_bytes(args.max_bytes)
        return _exit_now(run_export(args), from_command_line)
    if argv and argv[0] == "replay":
        from tui.cli.replay import main as replay_main

        return replay_main(argv[1:])
    if argv and argv[0] == "diff":
        from tui.cli.diff import main as diff_main

        return diff_main(argv[1:])
    if argv and argv[0] == "stats":
        from tui.cli.stats import main as stats_main

        return stats_main(argv[1:])
    if argv and argv[0] in ("payload", "search"):
        from tui.cli import payload, search

        command = payload.main if argv[0] == "payload" else search.main
        return _exit_now(command(argv[1:]), from_command_line)
    if argv and argv[0] == "generate":
        from tui.cli.generate import main as gen_main

        return gen_main(argv[1:])
    args = app_parser().parse_args(argv)
    set_max_bytes(args.max_bytes)
    from tui.cli.config import ConfigError, load_config
    from tui.cli.load import fail

    try:
        args.settings = load_config(args.config)
    except ConfigError as exc:
        return fail(str(exc))
    from tui.model.prices import set_config_prices

    set_config_prices(args.settings.prices)
    if args.stale_after is None:
        args.stale_after = args.settings.stale_after
    if args.stale_after is not None:
        from tui.catalog.liveness import set_stale_after

        set_stale_after(args.stale_after)
    if args.no_index:
        from tui.catalog.index.store import set_enabled

        set_enabled(False)
    from tui.cli.run import run_app

    return run_app(args)
