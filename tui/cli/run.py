"""From parsed command-line arguments to a running app (the only CLI path that imports textual).

Start-up is laid out for the first screen. The file named on the command line is read and gunzipped in a thread
(zlib releases the GIL) started before anything else, while this thread imports textual, the app and the session
screen; then it parses and builds the tree with the collector paused (orjson and the tree builder hold the GIL,
so running them in the reader too would only take turns with the imports). Work the first screen does not need
(watching the file's directory, preloading other screens) starts after the first paint (tui.ui.app).

Which sessions directory: an explicit one (--sessions-dir or $AI_AGENT_SESSIONS_DIR) is watched as it is, empty or
not, and never replaced by the demo; the demo starts only with --demo, or when nothing was given and the default
directory has no sessions. The demo's directory is removed however the app ends (quit, SIGTERM, SIGHUP).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from tui.cli.load import SESSIONS_DIR_ENV, fail, load_or_fail, sessions_dir_problem
from tui.inputs.sessions_dir import default_sessions_dir

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def has_sessions(directory: Path) -> bool:
    try:
        return (directory / "session").is_dir() or any(
            entry.name.endswith((".json.gz", ".json")) for entry in _first_entries(directory)
        )
    except OSError:
        return False


def _first_entries(directory: Path, limit: int = 2000):
    with os.scandir(directory) as it:
        for n, entry in enumerate(it):
            if n >= limit:
                return
            yield entry


def given_dirs(args: argparse.Namespace) -> list[str]:
    """--sessions-dir as given: one value, or several when repeated (argparse's append)."""
    value = args.sessions_dir
    if not value:
        return []
    return [value] if isinstance(value, str) else list(value)


def chosen_sessions_dir(args: argparse.Namespace) -> tuple[Path, bool]:
    """The sessions directory, and whether the user named it (--sessions-dir or $AI_AGENT_SESSIONS_DIR): the first
    --sessions-dir when it is repeated (its index holds the rows of the others too)."""
    dirs = given_dirs(args)
    if dirs:
        return Path(dirs[0]).expanduser(), True
    return default_sessions_dir(), bool(os.environ.get(SESSIONS_DIR_ENV))


def not_agent_roots(args: argparse.Namespace, roots: tuple) -> str:
    """Why a further --sessions-dir cannot be listed ("" when each is another agent's root)."""
    for extra in given_dirs(args)[1:]:
        if not any(Path(extra).expanduser() == root for _, root in roots):
            return (f"{extra}: a further --sessions-dir must be another agent's session root (such as "
                    f"~/.claude/projects); the first --sessions-dir is the ai-agent sessions directory")
    return ""


def agent_roots(args: argparse.Namespace) -> tuple:
    """Other roots the browser lists beside the sessions directory: each further --sessions-dir (another agent's
    root, or another ai-agent sessions directory read as an agent root when it is one), and, when no
    --sessions-dir was given, the other agents' default roots that exist (~/.claude/projects;
    $AIAGENT_MONITOR_DISCOVER=0 turns that off)."""
    from tui.inputs.agent_roots import discovered_roots, location_of_root

    dirs = given_dirs(args)
    if not dirs:
        return tuple(discovered_roots())
    out = []
    for extra in dirs[1:]:
        path = Path(extra).expanduser()
        loc = location_of_root(path)
        if loc is not None:
            out.append((loc, path))
    return tuple(out)


def run_app(args: argparse.Namespace) -> int:
    with ExitStack() as cleanup, _ExitOnSignals(cleanup) as signals:
        app = build_app(args, on_exit=cleanup.callback, keep_place=True)
        if isinstance(app, int):
            return app
        signals.app = app
        app.run()
        return app.return_code or 0


def build_app(args: argparse.Namespace, *, watch: bool = True, on_exit: Callable | None = None,
              keep_place: bool = False):
    """The MonitorApp the command line asks for, or the exit code when it cannot start (the message printed).

    on_exit(fn) is how the caller runs fn when the app is over (the demo's clean-up); by default at exit.
    keep_place: restore and keep the browser's place per sessions directory (tui.ui.place)."""
    reading = None
    if args.path == "-" or (args.path is not None and os.path.isfile(args.path)):  # (a directory is Genkit's)
        reading = _InThread(_read_source(), args.path)
    # (after the reading starts: the settings' check imports the app)
    settings = _settings(getattr(args, "settings", None))
    if isinstance(settings, int):
        return settings
    sessions_dir, explicit = chosen_sessions_dir(args)
    streaming = bool(args.listen or args.connect)
    if args.path is None and not args.demo and not streaming:
        problem = sessions_dir_problem(sessions_dir, missing_ok=not explicit)
        if problem:  # (with live streams the app starts all the same: the browser lists the problem as a row)
            return fail(problem)
    roots = agent_roots(args) if args.path is None else ()
    if args.path is None and not_agent_roots(args, roots):
        return fail(not_agent_roots(args, roots))
    demo = args.path is None and (args.demo or (not streaming and not explicit and not has_sessions(sessions_dir)
                                                and not roots))  # (Claude Code sessions found: no demo)
    from tui.inputs.stream.access import raise_fd_limit, token_from_env
    from tui.ui.app import MonitorApp

    if reading is not None:
        import tui.ui.screens.session  # noqa: F401 - the first screen's module, imported while the file gunzips

    demo_note, demo_for = "", None
    if demo:
        import atexit

        from tui.demo.start import start_demo

        why = "--demo" if args.demo else f"no sessions in {sessions_dir}"
        running = start_demo()
        (on_exit or atexit.register)(running.stop)
        from tui.catalog.index.store import set_cache_dir

        set_cache_dir(running.base / "cache")  # the demo's index goes with it (never inside its sessions)
        (on_exit or atexit.register)(lambda: set_cache_dir(None))  # ... and no further: the process may build another app
        demo_for, sessions_dir = sessions_dir, running.sessions
        demo_note = f"Built-in demo ({why}): generated sessions in {sessions_dir}"
    document = None
    dirs = given_dirs(args)
    first_dir = dirs[0] if dirs else None
    if args.path is not None:
        from tui.formats.load import load_frozen

        document, rc = load_or_fail(args.path, first_dir, needs_tree=f"; try `{sys.argv[0]} dump`",
                                    loader=lambda: load_frozen(args.path, first_dir,
                                                               data=reading.result() if reading else None))
        if document is None:
            return rc
        if args.path == "-":
            _reopen_tty_as_stdin()
    url_problem = _stream_urls_problem(args)
    if url_problem is not None:
        return fail(url_problem)
    if args.token == "":
        return fail("--token is empty")
    token = token_from_env(args.token)
    if args.listen:
        raise_fd_limit()  # one descriptor per producer: hundreds may connect at once
    app = MonitorApp(sessions_dir=sessions_dir, document=document, op_path=args.op, demo_note=demo_note,
                     demo_for=demo_for, listen_urls=args.listen, connect_urls=args.connect, token=token,
                     allow_remote=args.allow_remote, watch=watch, sort=getattr(args, "sort", None),
                     filter_text=getattr(args, "filter", None), settings=settings, keep_place=keep_place,
                     allow_origins=getattr(args, "allow_origin", []), agent_roots=roots if not demo else ())
    return app


def _stream_urls_problem(args: argparse.Namespace) -> str | None:
    """Why the --listen and --connect URLs cannot be used (the first problem), or None."""
    from tui.inputs.stream.event_stream import LISTEN_HELP, URL_HELP, check_listen, is_otlp, parse_url

    for url, usage in [*((u, LISTEN_HELP) for u in args.listen), *((u, URL_HELP) for u in args.connect)]:
        try:
            parse_url(url, usage)
        except ValueError as exc:
            return str(exc)
    for url in args.connect:
        if is_otlp(url):
            return (f"{url}: an OTLP URL is for --listen (the monitor receives OpenTelemetry exports; it does "
                    f"not subscribe to them)")
    for url in args.listen:
        try:
            check_listen(url, allow_remote=args.allow_remote)
        except (OSError, ValueError) as exc:
            return str(exc)
    return None


def _settings(config):
    """The app's Settings from the config file (tui.cli.config), its theme and binding ids checked against the
    app's (one line and exit 2 when the file names one that does not exist)."""
    from tui.ui.app import Settings

    if config is None:
        return Settings()
    where = f"{config.path}: " if config.path is not None else ""
    if config.theme is not None:
        from textual.theme import BUILTIN_THEMES  # (the app's available_themes, without building an app)

        themes = sorted(BUILTIN_THEMES)
        if config.theme not in themes:
            return fail(f"{where}theme = {config.theme!r}: not a theme (one of {', '.join(themes)})")
    if config.keys:
        known = binding_ids()
        unknown = sorted(set(config.keys) - known)
        if unknown:
            return fail(f"{where}keys: no binding {unknown[0]!r} (bindings: {', '.join(sorted(known))})")
    return Settings(theme=config.theme, sort=config.sort, filter=config.filter, stats_range=config.stats_range,
                    keys=dict(config.keys))


def binding_ids() -> set[str]:
    """The binding ids a config file's [keys] may name (the app's, the browser's and the Stats screen's)."""
    from tui.ui.app import MonitorApp
    from tui.ui.screens.browser import BrowserScreen
    from tui.ui.screens.stats import StatsScreen

    ids: set[str] = set()
    for cls in (MonitorApp, BrowserScreen, StatsScreen):
        for binding in cls.BINDINGS:
            binding_id = getattr(binding, "id", None)
            if isinstance(binding_id, str):
                ids.add(binding_id)
    return ids


class _ExitOnSignals:
    """SIGTERM and SIGHUP (the terminal closed) end the app the way `q` does, so that what run_app cleans up
    afterwards (the demo directory) is cleaned up; before the app runs, they raise SystemExit (the same clean-up,
    through the ExitStack). The previous handlers come back afterwards.

    A clean exit can hang once the terminal is gone: Textual's writer thread dies on the first write that fails
    (EIO) and its shutdown then waits forever to queue its last escape codes (textual 8.2.8, seen on tmux
    kill-session). So if the app has not ended GRACE_SECONDS after the signal, a watchdog thread runs the clean-up
    itself and ends the process."""

    GRACE_SECONDS = 3.0

    def __init__(self, cleanup: ExitStack) -> None:
        self.app = None
        self._cleanup = cleanup
        self._previous: dict[int, object] = {}

    def __enter__(self) -> _ExitOnSignals:
        for signum in EXIT_SIGNALS:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not the main thread (embedded): leave signals alone
                pass
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]

    def _handle(self, signum: int, frame) -> None:
        import asyncio
        import threading

        code = 128 + signum
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self.app is None or loop is None:
            raise SystemExit(code)
        loop.call_soon_threadsafe(self.app.exit, None, code)
        watchdog = threading.Timer(self.GRACE_SECONDS, self._force_exit, args=(code,))
        watchdog.daemon = True
        watchdog.start()

    def _force_exit(self, code: int) -> None:
        try:
            self._cleanup.close()
        finally:
            os._exit(code)


def _read_source():
    from tui.inputs.files import read_source

    return read_source


class _InThread:
    """fn(arg) in a thread; result() waits for it and re-raises what it raised. Whatever fn needs must be
    imported before (as _read_source does): importing in two threads at once can expose half-initialised
    modules."""

    # While it runs, this thread imports (holding the GIL) and the reader wants the GIL back after each piece zlib
    # decompressed without it: at the default 5 ms switch interval, a 50 MB file's pieces waited longer than they
    # took. A short interval hands the GIL over sooner; the default comes back in result().
    SWITCH_INTERVAL = 0.0005

    def __init__(self, fn, arg) -> None:
        import threading

        self._value = None
        self._error: BaseException | None = None
        self._switch = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch, self.SWITCH_INTERVAL))
        self._thread = threading.Thread(target=self._run, args=(fn, arg), daemon=True)
        self._thread.start()

    def _run(self, fn, arg) -> None:
        try:
            self._value = fn(arg)
        except BaseException as exc:  # handed to the caller of result()
            self._error = exc

    def result(self):
        self._thread.join()
        sys.setswitchinterval(self._switch)
        if self._error is not None:
            raise self._error
        return self._value


def _reopen_tty_as_stdin() -> None:
    """After reading a snapshot from a pipe, the keyboard must come from the terminal."""
    try:
        tty = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        return
    os.dup2(tty, 0)
    os.close(tty)
