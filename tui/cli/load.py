"""What every command shares: --max-bytes, and loading the input document or saying in one line on stderr why not
(exit 2).

Imports neither textual nor the app, so that the non-interactive commands stay light.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROG = "aiagent-monitor"
SESSIONS_DIR_ENV = "AI_AGENT_SESSIONS_DIR"


def fail(message: str, prog: str = PROG, code: int = 2) -> int:
    """One line on stderr; returns the exit status `code` (2: bad input). The message may quote a file name or
    content: made inert first."""
    from tui.model.fields import one_line

    print(f"{prog}: {one_line(message, 2000)}", file=sys.stderr)
    return code


def load_or_fail(path: str, sessions_dir: str | None = None, *, needs_tree: str | None = None, prog: str = PROG,
                 loader=None):
    """A command's input document: (document, 0), or (None, 2) after one line on stderr when it cannot be loaded.

    needs_tree, for commands that need a session tree, ends the refusal of an accounting ledger (" to compare").
    loader, when given, loads instead of tui.formats.load.load (the app reads the file while textual imports).
    """
    from tui.formats.load import load
    from tui.inputs.files import LoadError

    try:
        doc = loader() if loader is not None else load(path, sessions_dir=sessions_dir)
    except LoadError as exc:
        return None, fail(str(exc), prog)
    except MemoryError:
        return None, fail(f"{path}: out of memory while loading", prog)
    except RecursionError:
        return None, fail(f"{path}: nested too deeply to load", prog)
    if needs_tree is not None and doc.root is None:
        return None, fail(f"{path}: an accounting ledger has no session tree{needs_tree}", prog)
    return doc, 0


def size(text: str) -> int:
    """argparse type for --max-bytes: 1073741824, 512M, 1GiB (named so that its errors read "invalid size")."""
    from tui.inputs.files import parse_size

    return parse_size(text)


def add_max_bytes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-bytes", type=size, metavar="N",
                   help="refuse documents larger than N bytes once decompressed, e.g. 512M or 2G (default 1G, or "
                        "$AIAGENT_MONITOR_MAX_BYTES): a guard against gzip bombs")


def add_sessions_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sessions-dir", metavar="DIR", help="where ref payloads and child ledgers resolve")


def stdout_gone() -> None:
    """The reader of stdout went away (`| head`): stdout becomes /dev/null, so the flush at exit cannot raise
    BrokenPipeError again and the command ends quietly, as Unix tools do."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def set_max_bytes(max_bytes: int | None) -> None:
    if max_bytes is not None:
        from tui.inputs.files import set_document_limit

        set_document_limit(max_bytes)


def sessions_dir_problem(directory: Path, *, missing_ok: bool = True) -> str:
    """Why the sessions directory cannot be browsed ("" when it can; a missing one is fine when missing_ok: the
    default directory, for which the demo starts).

    An unreadable directory is not an empty one: starting the demo would hide that the user's sessions are
    there but cannot be read."""
    try:
        with os.scandir(directory) as it:
            next(it, None)
    except FileNotFoundError:
        return "" if missing_ok else (f"{directory}: no such directory (the sessions directory to watch; leave out "
                                      f"--sessions-dir and ${SESSIONS_DIR_ENV} for the built-in demo)")
    except NotADirectoryError:
        from tui.inputs.agent_roots import OPENCODE, location_of_root

        if location_of_root(directory) is OPENCODE:  # an OpenCode database given as it (`opencode.db`)
            return ""
        return f"{directory}: not a directory (--sessions-dir names the directory that holds the sessions)"
    except PermissionError:
        return f"{directory}: permission denied (the sessions directory cannot be listed by this user)"
    except OSError as exc:
        return f"{directory}: cannot list the sessions directory: {exc.strerror or exc}"
    return ""


def directory_problem(directory: str) -> str:
    """Why a command cannot read the sessions directory `directory` ("" when it can): one line, for fail()."""
    if not os.path.lexists(directory):
        return f"{directory}: no such directory"
    return sessions_dir_problem(Path(directory), missing_ok=False)
