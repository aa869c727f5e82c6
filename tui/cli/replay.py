"""`aiagent-monitor replay PATH --to URL`: send a saved session to a monitor as a live event stream.

Never imports textual: it runs where only the model and the transports are needed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from tui.cli.load import PROG as MONITOR
from tui.cli.load import fail, load_or_fail

PROG = f"{MONITOR} replay"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Send a saved session (snapshot or v3 ledger) to a listening monitor as the live event stream "
                    "that produced it: turn starts, progress, logs, accounting and op_tree events, paced by the "
                    "recorded timestamps.",
    )
    p.add_argument("path", help="a snapshot (.json.gz/.json) or a v3 ledger (.jsonl), or - for stdin")
    p.add_argument("--to", required=True, metavar="URL",
                   help="where the monitor listens: ws://HOST:PORT[/path] or unix:PATH")
    p.add_argument("--speed", type=float, default=1.0, metavar="X",
                   help="time factor: 1 = as recorded (gaps capped at 5 s), 10 = ten times faster, "
                        "0 = as fast as possible (default 1)")
    p.add_argument("--token", metavar="TOKEN",
                   help="the monitor's token, sent to ws:// URLs as Authorization: Bearer TOKEN "
                        "(default $AIAGENT_MONITOR_TOKEN)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                   help="how long connecting, each event's send and the close may take (default 10)")
    p.add_argument("--max-tree-events", type=int, default=40, metavar="N",
                   help="op_tree events per session over its lifetime, besides the final one (default 40)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    from tui.formats.aiagent.replay import replay_events, send_events
    from tui.inputs.stream.access import token_from_env
    from tui.inputs.stream.event_stream import parse_url
    from tui.model.document import CODEX, GEMINI_CLI, GENKIT, JULES

    if args.speed < 0:
        return fail(f"--speed must be 0 or more, got {args.speed:g}", PROG, 2)
    if not args.timeout > 0:
        return fail("--timeout must be a positive number of seconds", PROG, 2)
    if args.max_tree_events < 0:
        return fail(f"--max-tree-events must be 0 or more, got {args.max_tree_events}", PROG, 2)
    try:
        if parse_url(args.to)[0] == "otlp":
            raise ValueError(f"{args.to}: replay sends the monitor's event stream (ws:// or unix:); an OTLP "
                             f"receiver takes spans: `export PATH --format otlp --to URL`")
    except ValueError as exc:
        return fail(str(exc), PROG, 2)
    doc, rc = load_or_fail(args.path, needs_tree=" to replay", prog=PROG)
    if doc is None:
        return rc
    if doc.format in (JULES, GENKIT, CODEX, GEMINI_CLI):
        return fail(f"{args.path}: a {doc.format} document is not an ai-agent session: there is no event stream "
                    "to replay", PROG, 2)
    events = replay_events(doc, max_tree_events=args.max_tree_events)
    started = time.perf_counter()
    try:
        sent = asyncio.run(send_events(events, args.to, speed=args.speed, token=token_from_env(args.token),
                                      timeout=args.timeout))
    except KeyboardInterrupt:
        return fail("interrupted", PROG, 130)
    except ConnectionRefusedError:
        return fail(f"cannot connect to {args.to}: connection refused (is a monitor listening there?)", PROG, 1)
    except FileNotFoundError:
        return fail(f"cannot connect to {args.to}: no such socket (is a monitor listening there?)", PROG, 1)
    except (OSError, asyncio.TimeoutError) as exc:
        return fail(f"cannot send to {args.to}: {_first_line(exc)}", PROG, 1)
    except Exception as exc:  # websockets handshake rejections, a closed connection mid-stream
        if type(exc).__module__.startswith("websockets"):
            if getattr(getattr(exc, "response", None), "status_code", None) == 401:
                return fail(f"cannot send to {args.to}: the monitor wants a token (HTTP 401); pass --token or "
                            f"set $AIAGENT_MONITOR_TOKEN", PROG, 1)
            return fail(f"cannot send to {args.to}: {_first_line(exc)}", PROG, 1)
        raise
    elapsed = time.perf_counter() - started
    rate = sent / elapsed if elapsed > 0 else float(sent)
    print(f"sent {sent} events to {args.to} in {elapsed:.2f} s ({rate:.0f} events/s)")
    return 0


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:300]


if __name__ == "__main__":
    raise SystemExit(main())
