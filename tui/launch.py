"""From parsed command-line arguments to a running app (the only CLI path that imports textual)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.cli import default_sessions_dir
from tui.cli_load import fail, load_or_fail


def has_sessions(directory: Path) -> bool:
    try:
        return (directory / "session").is_dir() or any(
            entry.name.endswith((".json.gz", ".json")) for entry in _first_entries(directory)
        )
    except OSError:
        return False


def _first_entries(directory: Path, limit: int = 2000):
    import os

    with os.scandir(directory) as it:
        for n, entry in enumerate(it):
            if n >= limit:
                return
            yield entry


def run_app(args: argparse.Namespace) -> int:
    from tui.app import MonitorApp
    from tui.sources.event_stream import check_listen, parse_url
    from tui.sources.stream_access import raise_fd_limit, token_from_env

    sessions_dir = Path(args.sessions_dir).expanduser() if args.sessions_dir else default_sessions_dir()
    demo_note = ""
    streaming = bool(args.listen or args.connect)
    if args.path is None and (args.demo or (not streaming and not has_sessions(sessions_dir))):
        from tui.gen.demo import start_demo

        why = "--demo" if args.demo else f"no sessions in {sessions_dir}"
        sessions_dir = start_demo()
        demo_note = f"Built-in demo ({why}): generated sessions in {sessions_dir}"
    document = None
    if args.path is not None:
        document, rc = load_or_fail(args.path, args.sessions_dir, needs_tree=f"; try `{sys.argv[0]} dump`")
        if document is None:
            return rc
        if args.path == "-":
            _reopen_tty_as_stdin()
    for url in [*args.listen, *args.connect]:
        try:
            parse_url(url)
        except ValueError as exc:
            return fail(str(exc))
    for url in args.listen:
        try:
            check_listen(url, allow_remote=args.allow_remote)
        except (OSError, ValueError) as exc:
            return fail(str(exc))
    if args.token == "":
        return fail("--token is empty")
    token = token_from_env(args.token)
    if args.listen:
        raise_fd_limit()  # one descriptor per producer: hundreds may connect at once
    app = MonitorApp(sessions_dir=sessions_dir, document=document, op_path=args.op, demo_note=demo_note,
                     listen_urls=args.listen, connect_urls=args.connect, token=token,
                     allow_remote=args.allow_remote)
    app.run()
    return app.return_code or 0


def _reopen_tty_as_stdin() -> None:
    """After reading a snapshot from a pipe, the keyboard must come from the terminal."""
    import os

    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        return
    os.dup2(tty, 0)
    os.close(tty)
