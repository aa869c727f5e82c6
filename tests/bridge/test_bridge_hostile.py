"""The bridge against a hostile or silent monitor (issue 28, item 11), run by the real `node`: a WebSocket peer on a
real socket that announces a 2^62-byte frame and keeps sending, or one that never answers the handshake. The agent's
process must not pay: its event-loop lag (measured in the agent, tests/bridge/lag_agent.cjs) stays small, its memory
does not grow with what the peer sends, and the events reach a monitor that does answer."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from helpers.rawservers import RawServer, ws_accept, ws_client_frames, ws_server_header

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "tui" / "bridge" / "aiagent-monitor-bridge.cjs"
LAG_AGENT = Path(__file__).with_name("lag_agent.cjs")
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the bridge is a Node module")


def run_agent(url: str, run_ms: int) -> dict:
    assert NODE is not None
    out = subprocess.run([NODE, str(LAG_AGENT)], capture_output=True, timeout=120,
                         env={**os.environ, "BRIDGE": str(BRIDGE), "URL": url, "RUN_MS": str(run_ms)})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def test_a_peer_announcing_a_huge_frame_costs_the_agent_nothing():
    def flood(conn: socket.socket) -> None:
        ws_accept(conn)
        conn.sendall(ws_server_header(1 << 62))
        chunk = b"\0" * 65536
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            conn.sendall(chunk)

    server = RawServer(flood)
    try:
        got = run_agent(f"ws://127.0.0.1:{server.port}/", 5000)
    finally:
        server.close()
    assert got["maxLagMs"] < 250, got
    assert got["rssGrowthMiB"] < 32, got
    assert any("too big" in s for s in got["statuses"]), got["statuses"]


def test_an_unanswered_handshake_times_out_and_a_monitor_that_answers_gets_the_events():
    texts: list[bytes] = []

    def first_silent_then_answer(conn: socket.socket) -> None:
        if server.connections == 1:  # the first connection: the handshake is read, never answered
            conn.recv(65536)
            time.sleep(30)
            return
        ws_accept(conn)
        texts.extend(payload for opcode, payload in ws_client_frames(conn) if opcode == 0x1)

    server = RawServer(first_silent_then_answer)
    try:
        got = run_agent(f"ws://127.0.0.1:{server.port}/", 9000)
        time.sleep(0.5)
    finally:
        server.close()
    assert any("handshake" in s for s in got["statuses"]), got["statuses"]
    assert got["stats"]["connects"] >= 1 and got["stats"]["dropped"] == 0, got
    assert len(texts) == got["sent"] and got["stats"]["sent"] == got["sent"], got
    assert got["maxLagMs"] < 250, got
