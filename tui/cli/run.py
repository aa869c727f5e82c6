"""From parsed command-line arguments to a running app (the only CLI path that imports textual)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tui.cli.load import fail, load_or_fail
from tui.inputs.sessions_dir import default_sessions_dir


def sessions_dir_problem(directory: Path) -> str:
    """Why the sessions directory cannot be browsed ("" when it can, or does not exist: then the demo starts).

    An unreadable directory is not an empty one: starting the demo would hide that the user's sessions are
    there but cannot be read."""
    try:
        with os.scandir(directory) as it:
            next(it, None)
    except FileNotFoundError:
        return ""
    except NotADirectoryError:
        return f"{directory}: not a directory (--sessions-dir names the directory that holds the sessions)"
    except PermissionError:
        return f"{directory}: permission denied (the sessions directory cannot be listed by this user)"
    except OSError as exc:
        return f"{directory}: cannot list the sessions directory: {exc.strerror or exc}"
    return ""


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
    app = build_app(args)
    if isinstance(app, int):
        return app
    app.run()
    return app.return_code or 0


def build_app(args: argparse.Namespace, *, watch: bool = True):
    """The MonitorApp the command line asks for, or the exit code when it cannot start (the message printed)."""
    # The file named on the command line is read and gunzipped in a thread while textual is imported (both take
    # about a tenth of a second per 20,000 ops, and zlib releases the GIL); parsing it waits for the import.
    reading = None
    if args.path == "-" or (args.path is not None and os.path.isfile(args.path)):  # (a directory is Genkit's)
        reading = _InThread(_read_source(), args.path)
    sessions_dir = Path(args.sessions_dir).expanduser() if args.sessions_dir else default_sessions_dir()
    streaming = bool(args.listen or args.connect)
    if args.path is None and not args.demo and not streaming:
        problem = sessions_dir_problem(sessions_dir)
        if problem:  # (with live streams the app starts all the same: the browser lists the problem as a row)
            return fail(problem)
    demo = args.path is None and (args.demo or (not streaming and not has_sessions(sessions_dir)))
    from tui.inputs.stream.access import raise_fd_limit, token_from_env
    from tui.inputs.stream.event_stream import check_listen, parse_url
    from tui.ui.app import MonitorApp

    demo_note = ""
    if demo:
        from tui.demo.start import start_demo

        why = "--demo" if args.demo else f"no sessions in {sessions_dir}"
        sessions_dir = start_demo()
        demo_note = f"Built-in demo ({why}): generated sessions in {sessions_dir}"
    document = None
    if args.path is not None:
        from tui.formats.load import load_frozen

        document, rc = load_or_fail(args.path, args.sessions_dir, needs_tree=f"; try `{sys.argv[0]} dump`",
                                    loader=lambda: load_frozen(args.path, args.sessions_dir,
                                                               data=reading.result() if reading else None))
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
                     allow_remote=args.allow_remote, watch=watch,
                     allow_origins=getattr(args, "allow_origin", []))
    return app


def _read_source():
    from tui.inputs.files import read_source

    return read_source


class _InThread:
    """fn(arg) in a thread; result() waits for it and re-raises what it raised. Whatever fn needs must be
    imported before (as _read_source does): importing in two threads at once can expose half-initialised
    modules."""

    def __init__(self, fn, arg) -> None:
        import threading

        self._value = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, arg), daemon=True)
        self._thread.start()

    def _run(self, fn, arg) -> None:
        try:
            self._value = fn(arg)
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def _reopen_tty_as_stdin() -> None:
    """After reading a snapshot from a pipe, the keyboard must come from the terminal."""
    import os

    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        return
    os.dup2(tty, 0)
    os.close(tty)
