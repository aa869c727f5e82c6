"""Run a program in a pseudo-terminal and time how long it takes to draw given text: a real first screen."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import termios
import time

from common import ROOT, Sample, child_env

COLUMNS, LINES = 160, 48


def time_to_text(argv: list[str], markers: list[bytes], *, timeout: float = 120.0) -> Sample:
    """Seconds from starting `argv` in a 160x48 terminal until every marker has been written to it (then the
    program is killed), and its peak RSS."""
    env = child_env(TERM="xterm-256color", COLORTERM="truecolor", COLUMNS=str(COLUMNS), LINES=str(LINES))
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
            os.chdir(ROOT)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    seen = bytearray()
    missing = list(markers)
    elapsed = None
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break  # the child closed the terminal (it exited)
            if not chunk:
                break
            seen += chunk
            missing = [m for m in missing if m not in seen]
            if not missing:
                elapsed = time.perf_counter() - start
                break
            if len(seen) > 1 << 22:
                del seen[: -(1 << 16)]
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, _, usage = os.wait4(pid, 0)
        os.close(fd)
    if elapsed is None:
        tail = bytes(seen[-600:]).decode(errors="replace")
        raise RuntimeError(f"{' '.join(argv)}: {missing} not drawn within {timeout:.0f} s; last output: {tail!r}")
    return Sample(elapsed, usage.ru_maxrss)
