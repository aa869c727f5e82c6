"""`replay --to ws://` against a hostile monitor (issue 28, item 10): a real WebSocket peer on a real socket that
answers the handshake and then never reads, or announces a 2^62-byte frame and keeps sending. Replay ends within
its --timeout with exit 1 and one line, instead of running for good (or piling up the frame in memory)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from helpers.rawservers import RawServer, ws_accept, ws_server_header
from tui.demo import make_tree, write_snapshot


@pytest.fixture(scope="module")
def big_session(tmp_path_factory):
    """~40 MB of events: far more than the kernel buffers a peer that never reads can hold."""
    return write_snapshot(tmp_path_factory.mktemp("sessions"), make_tree(6, ops=300, depth=2, payload_bytes=3000))


def replay(path, port: int, timeout: str):
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "tui", "replay", str(path), "--to", f"ws://127.0.0.1:{port}/",
                             "--speed", "0", "--timeout", timeout], capture_output=True, timeout=120,
                            env=dict(os.environ))
    return result, time.monotonic() - started


def never_reads(conn: socket.socket) -> None:
    ws_accept(conn)
    time.sleep(60)


def huge_frame(conn: socket.socket) -> None:
    ws_accept(conn)
    conn.sendall(ws_server_header(1 << 62))
    chunk = b"\0" * 65536
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        conn.sendall(chunk)


@pytest.mark.parametrize("peer", [never_reads, huge_frame], ids=["never-reads", "huge-frame"])
def test_replay_ends_within_its_timeout(big_session, peer):
    server = RawServer(peer)
    server.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        result, elapsed = replay(big_session, server.port, "3")
    finally:
        server.close()
    lines = result.stderr.decode("utf-8", "replace").splitlines()
    assert result.returncode == 1 and len(lines) == 1 and "Traceback" not in lines[0], lines
    assert "cannot send to" in lines[0], lines
    assert elapsed < 3 + 12, elapsed  # the timeout, plus the interpreter's start and loading the session


def test_replay_to_a_unix_socket_that_never_reads_ends_within_its_timeout(big_session, tmp_path):
    path = tmp_path / "m.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    server.bind(str(path))
    server.listen(1)
    try:
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-m", "tui", "replay", str(big_session), "--to", f"unix:{path}",
                                 "--speed", "0", "--timeout", "3"], capture_output=True, timeout=120,
                                env=dict(os.environ))
        elapsed = time.monotonic() - started
    finally:
        server.close()
    lines = result.stderr.decode("utf-8", "replace").splitlines()
    assert result.returncode == 1 and len(lines) == 1 and "stopped reading" in lines[0], lines
    assert elapsed < 3 + 12, elapsed
