"""`export --to otlp+http://` against hostile endpoints (issue 28, items 9, 10, 14): real servers on real sockets that
redirect elsewhere, drip one byte every 2 s, answer a status line full of escape bytes or endless headers. Each
ends with exit 1 and one inert line on stderr; credentials never leave for another address."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from helpers.rawservers import RawServer, read_request
from tui.demo import make_tree, write_snapshot


def run(*args, timeout=90):
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, timeout=timeout,
                          env=dict(os.environ))


@pytest.fixture
def saved(tmp_path):
    return write_snapshot(tmp_path / "sessions", make_tree(2, ops=5, depth=1))


@pytest.fixture
def servers():
    made: list[RawServer] = []

    def make(handle):
        server = RawServer(handle)
        made.append(server)
        return server

    yield make
    for server in made:
        server.close()


def one_clean_line(result) -> str:
    text = result.stderr.decode("utf-8", "replace")
    lines = text.splitlines()
    assert result.returncode == 1, text
    assert len(lines) == 1 and "Traceback" not in text, text
    assert all(c >= " " for c in lines[0]), repr(lines[0])  # no escape, bell or other control byte
    return lines[0]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_credentials_stay_home(saved, servers, status):
    def collect(conn):
        elsewhere.requests.append(read_request(conn))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    elsewhere = servers(collect)

    def redirect(conn):
        read_request(conn)
        conn.sendall(f"HTTP/1.1 {status} Moved\r\nLocation: http://127.0.0.1:{elsewhere.port}/v1/traces\r\n"
                     f"Content-Length: 0\r\n\r\n".encode())

    first = servers(redirect)
    result = run("export", str(saved), "--format", "otlp", "--to", f"otlp+http://127.0.0.1:{first.port}",
                 "--token", "s3cret", "--header", "X-Api-Key=k3y", "--timeout", "5")
    line = one_clean_line(result)
    assert str(status) in line and "redirect" in line and "not followed" in line, line
    assert elsewhere.connections == 0 and not elsewhere.requests


def test_timeout_bounds_the_whole_request_against_a_one_byte_every_2s_server(saved, servers):
    def drip(conn):
        read_request(conn)
        for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
            conn.sendall(bytes([byte]))
            time.sleep(2)

    server = servers(drip)
    started = time.monotonic()
    result = run("export", str(saved), "--format", "otlp", "--to", f"otlp+http://127.0.0.1:{server.port}",
                 "--timeout", "3", timeout=60)
    elapsed = time.monotonic() - started
    line = one_clean_line(result)
    assert "did not answer within 3s" in line, line
    assert elapsed < 3 + 6, elapsed  # the timeout, plus the interpreter's start and the export's build


@pytest.mark.parametrize("answer", [
    b"\x1b[31mHTTP/1.1 200 OK\x1b]0;owned\x07\r\n\r\n",  # not a status line, escape bytes in it
    b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"a" * 200_000 + b"\r\n\r\n",  # one endless header line
    b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(5000)) + b"\r\n",  # endless headers
], ids=["garbage-status", "long-header", "many-headers"])
def test_a_hostile_answer_is_one_inert_line_and_exit_1(saved, servers, answer):
    def hostile(conn):
        read_request(conn)
        conn.sendall(answer)
        time.sleep(0.5)

    server = servers(hostile)
    result = run("export", str(saved), "--format", "otlp", "--to", f"otlp+http://127.0.0.1:{server.port}",
                 "--timeout", "5")
    line = one_clean_line(result)
    assert f"127.0.0.1:{server.port}" in line, line
