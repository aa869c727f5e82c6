"""Bytes written to the terminal per second (issue 30 point 8): over SSH, what a screen repaints is what it costs.

The real app runs in a 160x48 pseudo-terminal; once the screen is drawn and has settled, every byte it writes for
`seconds` is counted. Cases: the demo's browser (one live row, its snapshot rewritten every 0.7 s), the demo's
live session screen (Enter on that row), and two idle screens with no live input (the browser on a generated
directory, the session screen of one finished snapshot). Targets: 10 KB/s, 30 KB/s and 2 KB/s.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

from common import PY, ROOT, Row, child_env

COLUMNS, LINES = 160, 48
SETTLE_S = 5.0  # after the screen is drawn: the rows filling, the first details (slower on a busy machine)
TARGETS = {"browser-live": 10_000, "session-live": 30_000, "browser-idle": 2_000, "session-idle": 2_000}
DESCRIBED = {"browser-live": "browser, the demo's live row", "session-live": "live session screen (demo)",
             "browser-idle": "browser, nothing changing", "session-idle": "session screen, finished session"}


def bytes_per_second(argv: list[str], ready: bytes, *, then: bytes = b"", then_ready: bytes = b"",
                     seconds: float = 10.0, timeout: float = 60.0) -> float:
    """Start `python -m tui ARGV` in the terminal; once `ready` was written, type `then` and wait for
    `then_ready`; after SETTLE_S, the bytes written per second over `seconds`."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
            os.chdir(ROOT)
            env = child_env(TERM="xterm-256color", COLORTERM="truecolor")
            os.execve(PY, [PY, "-m", "tui", *argv], env)
        finally:
            os._exit(127)
    seen = bytearray()
    counted = 0
    started = time.monotonic()
    window_start = settle_end = 0.0
    stage = 0  # 0: waiting for `ready`; 1: for `then_ready`; 2: settling; 3: counting
    try:
        while True:
            now = time.monotonic()
            if now - started > timeout and stage < 3:
                raise RuntimeError(f"{argv}: stage {stage} not reached; last output {bytes(seen[-400:])!r}")
            if stage == 2 and now >= settle_end:
                stage, window_start, counted = 3, now, 0
            if stage == 3 and now - window_start >= seconds:
                return counted / (now - window_start)
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"{argv}: the app exited")
            counted += len(chunk)
            if stage < 2:
                seen += chunk
                if stage == 0 and ready in seen:
                    stage, seen = (1, bytearray()) if then else (2, seen)
                    if then:
                        os.write(fd, then)
                elif stage == 1 and then_ready in seen:
                    stage = 2
                if stage == 2:
                    settle_end = time.monotonic() + SETTLE_S
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)


def measure(scratch: Path, seconds: float = 10.0) -> dict[str, float]:
    """Bytes per second of each case (the demo's own directory for the live ones, a generated one for idle)."""
    folder = scratch / "redraw-sessions"
    if not folder.exists():
        subprocess.run([PY, "-m", "tui", "generate", str(folder)], check=True, cwd=ROOT, env=child_env(),
                       stdout=subprocess.DEVNULL)
    finished = max(folder.glob("*.json.gz"), key=lambda p: p.stat().st_size)
    return {
        "browser-live": bytes_per_second(["--demo"], b"running", seconds=seconds),
        "session-live": bytes_per_second(["--demo"], b"running", then=b"\r", then_ready=b"opTree", seconds=seconds),
        "browser-idle": bytes_per_second(["--sessions-dir", str(folder)], b"sessions", seconds=seconds),
        "session-idle": bytes_per_second([str(finished)], b"opTree", seconds=seconds),
    }


def rows(result: dict[str, float]) -> list[Row]:
    out = []
    for case, value in result.items():
        target = TARGETS[case]
        out.append(Row("Redraw", f"bytes written to the terminal, {DESCRIBED[case]}", "160x48, 10 s",
                       f"{value / 1000:.1f} KB/s", target=f"≤ {target // 1000} KB/s", holds=value <= target))
    return out


if __name__ == "__main__":  # one short run: python tests/benchmarks/redraw_bench.py
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for case, value in measure(Path(tmp)).items():
            print(f"{case:14} {value / 1000:8.1f} KB/s (target {TARGETS[case] / 1000:.0f})")
