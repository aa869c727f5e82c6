"""tui/bridge/aiagent-monitor-bridge.cjs run by the real `node` (fake_agent.cjs calls its onEvent as ai-agent does)
against the monitor's real listeners: events arrive and build the session, over a Unix socket and a WebSocket, from
require() and from import; with no monitor the agent's process lives on and exits 0, counting what it dropped; a
monitor started later (or restarted) gets the buffered events; the monitor shows the bridge's dropped count.
Skipped, with the reason printed, where node is missing."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from helpers.livehelpers import listening, stop
from tui.demo import make_tree, write_snapshot
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.aiagent.replay import replay_events
from tui.formats.load import load
from tui.inputs.stream.event_stream import listen
from tui.text.summary import summarise
from tui.model.session_facts import shown_counts

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "tui" / "bridge" / "aiagent-monitor-bridge.cjs"
FAKE_AGENT = Path(__file__).with_name("fake_agent.cjs")
NODE = shutil.which("node")
if NODE is None:
    print("tests/bridge: skipped, `node` is not on PATH (the bridge is a Node module)")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: the bridge is a Node module")


def _events_file(tmp_path: Path, seed: int = 31) -> tuple[Path, list[dict], dict, str]:
    """A session's events as ai-agent hands them to onEvent: one {"event", "meta"} per line."""
    doc = load(str(write_snapshot(tmp_path / "src", make_tree(seed, ops=40, depth=1, fanout=2), version=2)))
    events = [event for _, event in replay_events(doc, max_tree_events=6)]
    path = tmp_path / "events.ndjson"
    lines = []
    for event in events:
        meta = event.pop("meta")
        lines.append(orjson.dumps({"event": event, "meta": meta}))
        event["meta"] = meta
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, events, summarise(doc), doc.root.trace_id


async def _agent(url: str, events: Path, **env: str) -> tuple[int, dict, str]:
    """Run fake_agent.cjs to its end: (exit code, the bridge's stats, its stderr)."""
    proc = await asyncio.create_subprocess_exec(
        NODE, str(FAKE_AGENT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "BRIDGE": str(BRIDGE), "URL": url, "EVENTS": str(events), **env})
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    lines = out.decode().strip().splitlines()
    return proc.returncode, (json.loads(lines[-1]) if lines else {}), err.decode()


async def _settle(hub: LiveHub, expected: int) -> None:
    deadline = time.monotonic() + 20
    while hub.events < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("how", ["cjs", "esm"])
async def test_events_arrive_over_a_unix_socket_and_build_the_session(tmp_path, how):
    events_file, events, expected, root = _events_file(tmp_path)
    hub = LiveHub()
    url = f"unix:{tmp_path / 'm.sock'}"
    async with listening(url, hub):
        rc, stats, err = await _agent(url, events_file, IMPORT=how)
        await _settle(hub, len(events))
    assert rc == 0, err
    assert stats["sent"] == len(events) and stats["dropped"] == 1  # the one that cannot be serialized
    assert hub.events == len(events) and not hub.rejected and hub.gaps == 0
    session = hub.build(root)
    assert session.status == "ok"
    assert session.totals.as_dict() == expected["totals"] and shown_counts(session) == expected["counts"]
    assert hub.bridge_dropped == 1  # reported when the monitor was told at close


async def test_events_arrive_over_a_websocket_with_the_token(tmp_path):
    events_file, events, expected, root = _events_file(tmp_path, seed=32)
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, token="s3cret") as (bound, _statuses):
        rc, stats, err = await _agent(bound, events_file, AIAGENT_MONITOR_TOKEN="s3cret")
        await _settle(hub, len(events))
    assert rc == 0, err
    assert hub.events == len(events) and not hub.rejected
    assert shown_counts(hub.build(root)) == expected["counts"]


async def test_a_wrong_token_is_retried_not_fatal(tmp_path):
    events_file, events, _expected, _root = _events_file(tmp_path, seed=33)
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, token="s3cret", on_rejected=hub.reject) as (bound, _statuses):
        rc, stats, err = await _agent(bound, events_file, AIAGENT_MONITOR_TOKEN="wrong", CLOSE_MS="600")
    assert rc == 0, err
    assert hub.events == 0 and hub.rejected["auth refused"] >= 1
    assert stats["sent"] == 0 and stats["buffered"] == len(events)
    assert "HTTP 401" in err


async def test_no_monitor_the_agent_lives_on_and_exits_0_counting_drops(tmp_path):
    events_file, events, _expected, _root = _events_file(tmp_path, seed=34)
    started = time.monotonic()
    rc, stats, err = await _agent(f"unix:{tmp_path / 'nobody.sock'}", events_file, MAXBUF="5", CLOSE_MS="300")
    assert rc == 0, err
    assert "Error" not in err and "ENOENT" in err  # told through onStatus, never thrown
    assert stats == {"connected": False, "sent": 0, "buffered": 5, "dropped": len(events) - 5 + 1, "connects": 0}
    assert time.monotonic() - started < 15  # its reconnect timers do not keep the process alive
    rc, stats, err = await _agent("ws://127.0.0.1:9", events_file, CLOSE_MS="300")  # nothing listens on port 9
    assert rc == 0 and stats["sent"] == 0, err
    rc, stats, err = await _agent("", events_file, CLOSE_MS="300", AIAGENT_MONITOR_URL="")  # no address at all
    assert rc == 0 and stats["dropped"] == len(events) + 1 and stats["buffered"] == 0, err
    assert "not a monitor address" in err
    rc, stats, err = await _agent("ws://[::1", events_file, CLOSE_MS="300")  # a broken one
    assert rc == 0 and stats["sent"] == 0, err


# A first monitor in its own process, killed like a monitor that quits: a plain Unix socket server writing what it
# reads to a file. (An in-process listener, once stopped, leaves its clients connected.)
FIRST_MONITOR = """
import socket, sys
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sys.argv[1])
server.listen()
conn, _ = server.accept()
with open(sys.argv[2], "ab") as out:
    while data := conn.recv(65536):
        out.write(data)
        out.flush()
"""


async def _until(predicate, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_a_monitor_started_later_and_restarted_gets_the_buffered_events(tmp_path):
    events_file, events, _expected, root = _events_file(tmp_path, seed=35)
    half = len(events) // 2
    sock = tmp_path / "late.sock"
    received = tmp_path / "first-monitor.ndjson"
    go = tmp_path / "go"
    url = f"unix:{sock}"

    def first_lines() -> list[bytes]:
        return [ln for ln in received.read_bytes().split(b"\n") if ln.strip()] if received.exists() else []

    # The agent emits half its events with no monitor, then waits for `go`.
    agent = asyncio.create_task(_agent(url, events_file, HOLD_AT=str(half), HOLD_FILE=str(go), CLOSE_MS="20000"))
    await asyncio.sleep(0.5)
    first = await asyncio.create_subprocess_exec(sys.executable, "-c", FIRST_MONITOR, str(sock), str(received))
    # the bridge's next try (backoff) finds it and sends what it buffered
    assert await _until(lambda: len(first_lines()) >= half)
    first.kill()  # the monitor quits...
    await first.wait()
    sock.unlink()
    await asyncio.sleep(0.3)  # (the bridge sees the socket close at once; this leaves it time on a busy machine)
    go.touch()  # ... while the agent goes on: its second half is buffered
    await asyncio.sleep(0.3)
    hub = LiveHub()
    second = asyncio.create_task(listen(url, hub.feed))  # a monitor again
    try:
        rc, stats, err = await asyncio.wait_for(agent, 60)
        await _settle(hub, len(events) - half - 2)
    finally:
        await stop(second)
    assert rc == 0, err
    assert len(first_lines()) == half  # every buffered event
    assert stats["connects"] == 2 and stats["buffered"] == 0
    # What was in flight when the first monitor died may be lost (a gap in the monitor), nothing else.
    assert len(events) - half - 2 <= hub.events <= len(events) - half
    assert hub.build(root).status == "ok"
    assert "ENOENT" in err or "ECONNREFUSED" in err
    assert hub.bridge_dropped == 1  # the unserializable event, told at close


async def test_the_browser_header_shows_what_the_bridge_dropped(tmp_path):
    from tui.ui.app import MonitorApp

    events_file, events, _expected, _root = _events_file(tmp_path, seed=36)
    sock = tmp_path / "app.sock"
    empty = tmp_path / "sessions"
    empty.mkdir()
    app = MonitorApp(sessions_dir=empty, listen_urls=[f"unix:{sock}"], watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        deadline = time.monotonic() + 20
        while not sock.exists() and time.monotonic() < deadline:
            await pilot.pause(0.05)
        # every event is emitted before the bridge has connected: all but the last 10 are dropped
        rc, stats, err = await _agent(f"unix:{sock}", events_file, MAXBUF="10")
        assert rc == 0, err
        dropped = len(events) - 10 + 1
        assert stats["dropped"] == dropped
        while app.live.tally.events < 10 and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        assert f"{dropped:,} dropped by bridge" in app.live_summary()
        header = str(app.screen.query_one("#browser-header").render())
        assert f"{dropped:,} dropped by bridge" in header
