"""Run the real app in a pseudo-terminal and keep every byte it writes to the terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_in_pty(args: list[str], keys: list[tuple], *, cols: int = 160, rows: int = 48,
               timeout: float = 60.0, env: dict[str, str] | None = None,
               signals: list[tuple[bytes, int]] = ()) -> tuple[bytes, int]:
    """(everything written to the terminal, exit status). `keys` are (seconds after start, bytes) to type, or
    (text, bytes): typed once the text has been written to the terminal (a busy machine may take longer than any
    fixed delay to draw the first screen, and keys typed before it are lost), or steps (text | None, seconds,
    bytes), typed in order: once the text has been written since the last step with a text was typed (None: at
    once), and `seconds` more;
    `signals` are (text, signal number): the signal is sent once the text has been written to the terminal (in
    order); `env` adds to the child's environment."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of the given size, this checkout's code
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            child_env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", PYTHONPATH=str(ROOT),
                             PYTHONDONTWRITEBYTECODE="1", **(env or {}))
            child_env.pop("TEXTUAL", None)
            # (a COLUMNS/LINES left in this process's environment, e.g. by an app run headless before in the same
            # test process, would win over the terminal's size: say the size here)
            child_env.update(COLUMNS=str(cols), LINES=str(rows))
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "tui", *args], child_env)
        finally:
            os._exit(127)
    out = bytearray()
    started = time.monotonic()
    pending = sorted(key for key in keys if len(key) == 2 and isinstance(key[0], (int, float)))
    on_text = [key for key in keys if len(key) == 2 and isinstance(key[0], bytes)]
    steps = [key for key in keys if len(key) == 3]
    step_from, step_due = 0, None  # where the next step's text is looked for; when its key is due
    to_signal = list(signals)
    status = None
    try:
        while True:
            now = time.monotonic() - started
            while pending and pending[0][0] <= now:
                os.write(fd, pending.pop(0)[1])
            if steps and step_due is None and (steps[0][0] is None or steps[0][0] in out[step_from:]):
                step_due = now + steps[0][1]
            if steps and step_due is not None and now >= step_due:
                text, _, key = steps.pop(0)
                os.write(fd, key)
                step_due = None
                if text is not None:  # (the next text is looked for in what is written from now on)
                    step_from = len(out)
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    break
                out += chunk
                while on_text and on_text[0][0] in out:
                    os.write(fd, on_text.pop(0)[1])
                while to_signal and to_signal[0][0] in out:
                    os.kill(pid, to_signal.pop(0)[1])
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
                out += _drain(fd)  # what it wrote just before exiting may still be unread (seen on a busy machine)
                break
            if now > timeout:
                os.kill(pid, 9)
                break
    finally:
        if status is None:
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    return bytes(out), os.waitstatus_to_exitcode(status)


def _drain(fd: int) -> bytes:
    """Everything left to read on the terminal once the child has exited (until EOF, EIO or 0.2 s of silence)."""
    rest = bytearray()
    while select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        rest += chunk
    return bytes(rest)
