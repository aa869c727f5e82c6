"""The command line run in this process: `tui.cli.main.main(argv)`, what `python -m tui ARGS` runs, with its
stdout and stderr caught as bytes and its exit code, as `subprocess.run(..., capture_output=True)` gives them.

A subprocess costs ~0.2 s of imports a run; a test that runs a command many times (every `stats` form on every
hostile file, every view of a session) runs it here, and one test per command keeps the real entry point in a
subprocess (tests/cli/test_cli_*.py). Not for what needs a process of its own: a signal, a resource limit, a
terminal, the interpreter's exit."""

from __future__ import annotations

import gc
import io
import os
import sys
from dataclasses import dataclass


@dataclass
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes


def _stream() -> io.TextIOWrapper:
    """A text stream with a `.buffer` (the commands write bytes there), not a terminal."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)


def run_main(*args: str, env: dict[str, str] | None = None) -> Ran:
    """`python -m tui ARGS` in this process; `env` adds to the environment for the run. What the command sets for
    the whole process (the document size limit of --max-bytes; the garbage collector, which a one-shot command
    turns off for good: tui.model.gc_pause.off_for_good) is put back afterwards. An exception the command
    lets out is raised here (a subprocess would print its traceback and exit 1)."""
    from tui.cli.main import main
    from tui.inputs.files import document_limit, set_document_limit

    out, err = _stream(), _stream()
    saved_env = {name: os.environ.get(name) for name in env or {}}
    saved_streams, limit = (sys.stdout, sys.stderr), document_limit()
    collector = gc.isenabled(), gc.get_threshold()
    os.environ.update(env or {})
    sys.stdout, sys.stderr = out, err
    try:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=err)
    finally:
        sys.stdout, sys.stderr = saved_streams
        set_document_limit(limit)
        gc.set_threshold(*collector[1])
        (gc.enable if collector[0] else gc.disable)()
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    out.flush()
    err.flush()
    return Ran(int(code or 0), out.buffer.getvalue(), err.buffer.getvalue())  # type: ignore[attr-defined]
