"""FIFOs, devices and links to them are never opened as session data (issue 12, point 1).

A FIFO named `x.json.gz` (or a symbolic link to one) in the sessions directory, named by a child ledgerPath or by a
payload ref used to block the reading thread for good; /dev/zero never ends; /dev/tty takes the keyboard. Each
test here runs against a real FIFO. So that a regression fails instead of hanging the suite, `rescued()` opens
every FIFO for writing after a few seconds and closes it at once: a reader stuck in open() or read() then sees
the end of the file (and the test fails on what it read).
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers.corpus import ledger, ledger_op, op, put, session, snapshot_bytes, turn
from helpers.corpusfix import problems_of, run_cli
from tui.catalog.scan import scan
from tui.catalog.session_row import fill_row, ledger_parent
from tui.formats.load import load
from tui.inputs.files import LoadError, read_source
from tui.payloads.refs import PayloadError, read_ref

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

RESCUE_AFTER = 5.0  # seconds: far longer than a refusal takes


@contextmanager
def rescued(*fifos: Path, after: float = RESCUE_AFTER):
    """Unblock any reader stuck on these FIFOs after `after` seconds, again and again, until the block ends; then
    fail if any reader had to be unblocked (opening a FIFO for writing succeeds only while someone reads it)."""
    done = threading.Event()
    unblocked: list[Path] = []

    def rescue() -> None:
        if done.wait(after):
            return
        while not done.is_set():
            for fifo in fifos:
                try:
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while nobody reads: nothing to do
                except OSError:
                    continue
                os.close(fd)  # the reader sees the end of the file
                unblocked.append(fifo)
            done.wait(0.1)

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
    assert not unblocked, f"a reader blocked on {unblocked[0].name} until it was unblocked"


def mkdirs(*paths: Path) -> None:
    for path in paths:
        path.mkdir(parents=True, exist_ok=True)


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def test_read_source_refuses_a_fifo_and_a_link_to_one(tmp_path):
    pipe = fifo(tmp_path / "pipe.json.gz")
    (tmp_path / "link.json.gz").symlink_to(pipe.name)
    with rescued(pipe):
        for name in ("pipe.json.gz", "link.json.gz"):
            with pytest.raises(LoadError, match="not a regular file"):
                read_source(str(tmp_path / name))


def test_read_source_refuses_devices_and_the_terminal(tmp_path):
    for device in ("/dev/zero", "/dev/null", "/dev/tty"):
        if not _openable(device):  # /dev/tty without a controlling terminal (as under CI) cannot be opened
            continue
        link = tmp_path / f"{Path(device).name}.json.gz"
        link.symlink_to(device)
        with pytest.raises(LoadError, match="not a regular file"):
            read_source(str(link), 64 * 1024)  # today /dev/zero reads up to the cap, /dev/null is "empty"


def _openable(device: str) -> bool:
    try:
        os.close(os.open(device, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
    except OSError:
        return False
    return True


def test_stdin_is_still_read(tmp_path):
    import subprocess

    body = snapshot_bytes(session(turn(1, op("tool", "ls")), agent="piped"))
    out = subprocess.run([sys.executable, "-c", "import sys; from tui.inputs.files import read_source; "
                          "sys.stdout.write(str(len(read_source('-'))))"], input=body, capture_output=True,
                         timeout=60, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    assert out.stdout.decode() == str(len(body)), out.stderr


def test_cli_dump_of_a_fifo_exits_2_at_once(tmp_path):
    pipe = fifo(tmp_path / "x.json.gz")
    with rescued(pipe, after=30):
        started = time.monotonic()
        result = run_cli("dump", str(pipe), timeout=120)
        took = time.monotonic() - started
    assert result.returncode == 2, result
    assert b"not a regular file" in result.stderr
    assert took < 30, "dump waited for a writer on the FIFO"  # generous: refused without reading


def test_scan_lists_fifos_and_links_to_them_as_broken(tmp_path):
    sessions = tmp_path / "sessions"
    mkdirs(sessions)
    put(sessions / "good.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="good")), gz=True)
    pipe = fifo(sessions / "pipe.json.gz")
    (sessions / "to-pipe.json.gz").symlink_to("pipe.json.gz")
    (sessions / "zero.json").symlink_to("/dev/zero")
    ledger_pipe = fifo(sessions / "session" / "pipe-ledger.jsonl")
    with rescued(pipe, ledger_pipe):
        rows = {row.session_id: row for row in scan(sessions)}
        assert set(rows) == {"good", "pipe", "to-pipe", "zero", "pipe-ledger"}
        for sid in ("pipe", "to-pipe", "zero", "pipe-ledger"):
            row = fill_row(rows[sid])
            assert row.broken.startswith("not a regular file"), (sid, row.broken)
        assert fill_row(rows["good"]).broken == ""
        assert ledger_parent(ledger_pipe) is None  # the browser's first-line peek does not block either


def test_fill_row_of_a_fifo_that_appeared_after_the_scan(tmp_path):
    """What the directory watcher hands the browser: a row from a stat, then filled in the loading thread."""
    from tui.catalog.session_row import row_from_entry

    pipe = fifo(tmp_path / "late.json.gz")
    with rescued(pipe):
        row = fill_row(row_from_entry(pipe, pipe.stat().st_mtime, pipe.stat().st_size or 1, "snapshot"))
    assert row.broken.startswith("not a regular file"), row.broken


def test_child_ledger_path_naming_a_fifo_is_a_problem_not_a_hang(tmp_path):
    sessions = tmp_path / "sessions"
    pipe = fifo(sessions / "children" / "kid.jsonl")
    ops = [ledger_op(1, "session", "child", childSessions=[{"sessionId": "kid", "ledgerPath": "children/kid.jsonl"}])]
    mkdirs(sessions / "session")
    path = put(sessions / "session" / "root.jsonl", ledger("root", ops))
    with rescued(pipe):
        doc = load(str(path))
    sub = next(o for o in doc.root.turns[0].ops if o.kind == "session")
    assert any("not a regular file" in p for p in problems_of(sub)), problems_of(sub)


def test_payload_ref_naming_a_fifo_or_a_device(tmp_path):
    sessions = tmp_path / "sessions"
    pipe = fifo(sessions / "payloads" / "body.json.gz")
    with rescued(pipe):
        with pytest.raises(PayloadError, match="not a regular file"):
            read_ref({"path": "payloads/body.json.gz", "compression": "gzip"}, sessions)
    (sessions / "payloads" / "zero.json.gz").symlink_to("/dev/zero")
    with pytest.raises(PayloadError):  # a link out of the directory: refused before it is opened
        read_ref({"path": "payloads/zero.json.gz", "compression": "gzip"}, sessions)
    if os.geteuid() == 0:  # a real character device inside the sessions directory (mknod needs root)
        os.mknod(sessions / "payloads" / "dev.gz", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
        with pytest.raises(PayloadError, match="not a regular file"):
            read_ref({"path": "payloads/dev.gz", "compression": "gzip"}, sessions)


async def test_browser_finishes_filling_with_fifos_in_the_directory(tmp_path):
    from helpers.browserhelpers import SIZE, cells, ids, settle
    from tui.ui.app import MonitorApp

    sessions = tmp_path / "sessions"
    mkdirs(sessions)
    put(sessions / "good.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="good")), gz=True)
    pipe = fifo(sessions / "pipe.json.gz")
    (sessions / "x.json.gz").symlink_to("pipe.json.gz")
    with rescued(pipe):
        app = MonitorApp(sessions_dir=sessions, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            await settle(pilot, screen, timeout=30)
            assert sorted(ids(screen)) == ["good", "pipe", "x"]
            for sid in ("pipe", "x"):
                assert cells(screen, sid)[3] == "BROKEN" and cells(screen, sid)[2].startswith("not a regular file")
            assert cells(screen, "good")[3] == "ok"
            await pilot.press("q")


def test_the_app_named_a_fifo_stops_with_a_message(tmp_path, capsys):
    from tui.cli.main import app_parser
    from tui.cli.run import build_app

    pipe = fifo(tmp_path / "x.json.gz")
    with rescued(pipe):
        assert build_app(app_parser().parse_args([str(pipe)]), watch=False) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_the_real_app_in_a_terminal_quits_when_a_fifo_appears(tmp_path):
    """The whole program in a pseudo-terminal; a link to a FIFO appears in the sessions directory while it runs
    (the watcher hands it to the loading thread), then Enter on its row and `q`. Before, the loading thread blocked
    on the FIFO for good ("1 loading…"), Enter blocked the UI thread on it as well, and `q` never quit."""
    from helpers.ptyrun import run_in_pty

    sessions = tmp_path / "sessions"
    mkdirs(sessions)
    put(sessions / "good.json.gz", snapshot_bytes(session(turn(1, op("tool", "ls")), agent="good")), gz=True)
    pipe = fifo(tmp_path / "outside-pipe")
    appear = threading.Timer(4.0, lambda: (sessions / "pipe.json.gz").symlink_to(pipe))
    # filter to the FIFO's row, Enter (to the list), Enter (open it), then quit
    keys = [(6.0, b"/"), (6.5, b"pipe"), (7.5, b"\r"), (8.5, b"\r"), (10.0, b"q"), (11.0, b"q"), (12.0, b"q")]
    with rescued(pipe, after=30):
        appear.start()
        try:
            out, status = run_in_pty(["--sessions-dir", str(sessions)], keys, timeout=40)
        finally:
            appear.cancel()
    assert status == 0, out[-2000:]
    import re

    assert b"not a regular file" in re.sub(rb"\x1b\[[0-9;?]*[a-zA-Z]", b"", out)  # the row, or Enter's notice
