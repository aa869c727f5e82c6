"""The live event stream over real sockets: replay a saved session into a LiveHub and get the saved totals back."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys

import orjson
import pytest
from websockets.asyncio.server import serve

from tui.demo.files import write_ledger, write_snapshot
from tui.demo.tree import make_tree
from tui.formats.aiagent import replay
from tui.formats.aiagent.live.hub import LiveHub
from tui.formats.aiagent.replay import replay_events, send_events
from tui.formats.load import load
from tui.inputs.stream.event_stream import connect, listen, parse_url
from tui.text.summary import summarise
from tui.model.session_facts import shown_counts

from helpers.livehelpers import ROOT, TIMEOUT, listening, stop
from helpers.waiting import until


# helpers ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def session_tree() -> dict:
    return make_tree(11, ops=300, depth=2, payload_bytes=300)


@pytest.fixture
def snapshot_doc(tmp_path, session_tree):
    return load(str(write_snapshot(tmp_path, session_tree)))


def assert_same_as_dump(hub: LiveHub, doc) -> None:
    want = summarise(doc)
    roots = hub.roots()
    assert roots == [doc.root.trace_id or doc.root.id]
    built = hub.build(roots[0])
    assert built.totals.as_dict() == want["totals"]
    assert shown_counts(built) == want["counts"]
    assert built.max_depth == want["maxDepth"]
    assert built.status == doc.root.status


# (a) websocket listener ----------------------------------------------------------------------------------------


async def test_replay_over_websocket_listener_matches_dump(snapshot_doc):
    events = replay_events(snapshot_doc)
    assert {e["type"] for _, e in events} >= {"turn_started", "progress", "log", "accounting", "op_tree"}
    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub) as (url, statuses):
        sent = await asyncio.wait_for(send_events(events, url, speed=0), TIMEOUT)
        assert sent == len(events)
        await until(lambda: hub.events >= sent)
    assert hub.malformed == 0 and hub.oversized == 0
    assert hub.counters(hub.roots()[0]) == (sent, 0)
    assert_same_as_dump(hub, snapshot_doc)
    assert any("connected" in s for s in statuses)


# (b) unix listener ---------------------------------------------------------------------------------------------


async def test_replay_over_unix_listener_matches_dump(snapshot_doc, sock_dir):
    events = replay_events(snapshot_doc, max_tree_events=10)
    path = sock_dir / "monitor.sock"
    path.write_bytes(b"")  # not a socket: the listener must refuse to replace it
    hub = LiveHub()
    with pytest.raises(OSError, match="not a socket"):
        await asyncio.wait_for(listen(f"unix:{path}", hub.feed), TIMEOUT)
    path.unlink()
    async with listening(f"unix:{path}", hub) as (url, _):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        sent = await asyncio.wait_for(send_events(events, url, speed=0), TIMEOUT)
        await until(lambda: hub.events >= sent)
    assert not path.exists()  # removed when the listener stops
    assert hub.malformed == 0 and hub.counters(hub.roots()[0]) == (len(events), 0)
    assert_same_as_dump(hub, snapshot_doc)


async def test_unix_listener_replaces_a_stale_socket(sock_dir):
    import socket

    path = sock_dir / "stale.sock"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.close()  # the file stays, nobody listens: a crashed monitor's leftover
    hub = LiveHub()
    async with listening(f"unix:{path}", hub) as (url, _):
        await asyncio.wait_for(send_events([(0, {"type": "status", "meta": {"sessionId": "s"}})], url, speed=0),
                               TIMEOUT)
        await until(lambda: hub.events == 1)


# (c) connect() with a reconnect ------------------------------------------------------------------------------


async def test_connect_reconnects_and_gets_the_rest(snapshot_doc):
    events = [orjson.dumps(e) for _, e in replay_events(snapshot_doc, max_tree_events=8)]
    half = len(events) // 2
    connections = 0
    done = asyncio.Event()

    async def server_side(ws):
        nonlocal connections
        connections += 1
        part = events[:half] if connections == 1 else events[half:]
        for frame in part:
            await ws.send(frame, text=True)
        if connections == 1:
            await ws.close()  # the stream goes away half-way
        else:
            await done.wait()

    hub = LiveHub()
    statuses: list[str] = []
    async with serve(server_side, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        task = asyncio.create_task(connect(f"ws://127.0.0.1:{port}", hub.feed, statuses.append))
        try:
            await until(lambda: hub.events >= len(events))
        finally:
            done.set()
            await stop(task)
    assert connections == 2
    assert sum(s.startswith("connected to ") for s in statuses) == 1
    assert sum(s.startswith("reconnected to ") for s in statuses) == 1
    assert any(s.startswith("disconnected from ") and s.endswith("retrying in 0.25s") for s in statuses)
    assert hub.events == len(events) and hub.malformed == 0
    assert_same_as_dump(hub, snapshot_doc)


async def test_connect_backs_off_exponentially_while_refused(sock_dir):
    statuses: list[str] = []
    task = asyncio.create_task(connect(f"unix:{sock_dir / 'nobody.sock'}", lambda data: None, statuses.append))
    try:
        await until(lambda: len(statuses) >= 3, timeout=10)
    finally:
        await stop(task)
    assert [s.rsplit("retrying in ", 1)[1] for s in statuses[:3]] == ["0.25s", "0.5s", "1s"]
    assert "no such socket" in statuses[0]


async def test_connect_over_unix(sock_dir, snapshot_doc):
    events = [orjson.dumps(e) + b"\n" for _, e in replay_events(snapshot_doc, max_tree_events=5)]

    async def push(reader, writer):
        writer.writelines(events)
        await writer.drain()
        writer.close()

    path = sock_dir / "stream.sock"
    server = await asyncio.start_unix_server(push, str(path))
    hub = LiveHub()
    async with server:
        task = asyncio.create_task(connect(f"unix:{path}", hub.feed))
        try:
            await until(lambda: hub.events >= len(events))
        finally:
            await stop(task)
    assert_same_as_dump(hub, snapshot_doc)


# (d) malformed and oversized frames --------------------------------------------------------------------------


def status_event(seq: int) -> dict:
    return {"type": "status", "event": {"type": "agent_update", "message": f"step {seq}"},
            "meta": {"sessionId": "s1", "sequence": seq}}


async def test_malformed_frames_are_counted_and_the_stream_goes_on():
    from websockets.asyncio.client import connect as ws_connect

    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub) as (url, _):
        async with ws_connect(url) as ws:
            await ws.send(orjson.dumps(status_event(1)), text=True)
            await ws.send("this is not JSON")
            await ws.send("[1, 2, 3]")
            await ws.send(orjson.dumps({"type": "nonsense", "meta": {"sessionId": "s1"}}), text=True)
            await ws.send(orjson.dumps(status_event(2)), text=True)
            await until(lambda: hub.events == 2)
    assert hub.malformed == 3
    assert hub.sessions["s1"].status_line.endswith("step 2") and hub.sessions["s1"].gaps == 0


async def test_oversized_unix_line_is_refused_and_later_lines_arrive(sock_dir):
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 'm.sock'}", hub, max_frame=1024) as (url, _):
        reader, writer = await asyncio.open_unix_connection(parse_url(url)[1])
        big = orjson.dumps({"type": "log", "entry": {"message": "x" * 5000}, "meta": {"sessionId": "s1"}})
        huge = b"y" * 700_000  # spans several reads
        writer.write(orjson.dumps(status_event(1)) + b"\n" + big + b"\n" + orjson.dumps(status_event(2)) + b"\n")
        writer.write(huge + b"\n" + b"{broken\n" + orjson.dumps(status_event(3)) + b"\n")
        await writer.drain()
        await until(lambda: hub.events == 3)
        writer.close()
        await writer.wait_closed()
    assert hub.oversized == 2 and hub.malformed == 3  # two refused lines, one broken line
    assert hub.sessions["s1"].status_line.endswith("step 3")


async def test_oversized_websocket_frame_closes_that_connection_only():
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import ConnectionClosed

    hub = LiveHub()
    async with listening("ws://127.0.0.1:0", hub, max_frame=1024) as (url, _):
        async with ws_connect(url) as other:
            async with ws_connect(url, compression=None) as ws:
                await ws.send("z" * 5000)
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(ws.recv(), TIMEOUT)
                assert info.value.rcvd.code == 1009
            await until(lambda: hub.oversized == 1)
            await other.send(orjson.dumps(status_event(1)), text=True)
            await until(lambda: hub.events == 1)
    assert hub.malformed == 1  # the refused frame


async def test_read_lines_reports_the_size_of_refused_lines():
    from tui.inputs.stream.event_stream import read_lines

    reader = asyncio.StreamReader()
    reader.feed_data(b"a" * 3000 + b"\n" + b"ok\r\n\n  \n" + b"b" * 600_000 + b"\nlast")
    reader.feed_eof()
    frames, sizes = [], []
    await asyncio.wait_for(read_lines(reader, frames.append, sizes.append, 1024), TIMEOUT)
    assert frames == [b"ok", b"last"] and sizes == [3000, 600_000]


async def test_websocket_listener_serves_only_its_path():
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import InvalidStatus

    hub = LiveHub()
    async with listening("ws://127.0.0.1:0/events", hub) as (url, _):
        assert url.endswith("/events")
        with pytest.raises(InvalidStatus):
            await asyncio.wait_for(ws_connect(url.removesuffix("/events") + "/other"), TIMEOUT)
        await asyncio.wait_for(send_events([(0, status_event(1))], url, speed=0), TIMEOUT)
        await until(lambda: hub.events == 1)


# (e) the replay command ------------------------------------------------------------------------------------------


async def test_replay_cli_end_to_end(tmp_path, sock_dir, session_tree):
    path = write_snapshot(tmp_path, session_tree)
    doc = load(str(path))
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 'cli.sock'}", hub) as (url, _):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tui", "replay", str(path), "--to", url, "--speed", "0",
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        n = int(out.decode().split()[1])
        assert out.decode().startswith(f"sent {n} events to {url} in ") and "events/s)" in out.decode()
        await until(lambda: hub.events >= n)
    assert n == len(replay_events(doc))
    assert_same_as_dump(hub, doc)


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", "replay", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def test_replay_cli_errors(tmp_path, sock_dir):
    bad = tmp_path / "bad.json"
    bad.write_text("{ nope")
    r = run_cli(str(bad), "--to", "ws://127.0.0.1:9")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "bad.json" in r.stderr
    r = run_cli(str(tmp_path / "missing.json.gz"), "--to", "unix:/x")
    assert r.returncode == 2 and "no such file" in r.stderr
    good = write_snapshot(tmp_path, make_tree(1, ops=10, depth=0))
    r = run_cli(str(good), "--to", "http://example.com")
    assert r.returncode == 2 and "ws://HOST:PORT" in r.stderr
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: refused
        r = run_cli(str(good), "--to", f"ws://127.0.0.1:{port}", "--speed", "0")
    assert r.returncode == 1 and "connection refused" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run_cli(str(good), "--to", f"unix:{sock_dir / 'none.sock'}", "--speed", "0")
    assert r.returncode == 1 and "no such socket" in r.stderr


def test_replay_cli_never_imports_textual():
    code = ("import sys, tui.cli.replay, tui.formats.aiagent.replay, tui.inputs.stream.event_stream; "
            "assert not [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60)


# (f) v3 ledgers -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("running", [False, True])
async def test_v3_ledger_replays_to_the_dump_totals(tmp_path, sock_dir, running):
    tree = make_tree(23, ops=200, depth=2, running=running, payload_bytes=0)
    doc = load(str(write_ledger(tmp_path, tree, with_payloads=False)))
    assert doc.format == "aiagent-ledger" and doc.root.counts.sessions > 1
    events = replay_events(doc)
    hub = LiveHub()
    async with listening(f"unix:{sock_dir / 'ledger.sock'}", hub) as (url, _):
        sent = await asyncio.wait_for(send_events(events, url, speed=0), TIMEOUT)
        await until(lambda: hub.events >= sent)
    assert_same_as_dump(hub, doc)


# event stream details ------------------------------------------------------------------------------------------------


def test_replay_events_shape(snapshot_doc):
    events = replay_events(snapshot_doc, max_tree_events=6)
    assert [ts for ts, _ in events] == sorted(ts for ts, _ in events)
    by_session: dict[str, list[dict]] = {}
    for _, e in events:
        assert e["meta"]["source"] == "replay"
        by_session.setdefault(e["meta"]["sessionId"], []).append(e)
    root = snapshot_doc.root.trace_id
    assert by_session[root][0]["meta"]["isMaster"] is True
    for sid, evs in by_session.items():
        assert [e["meta"]["sequence"] for e in evs] == list(range(1, len(evs) + 1))
        assert evs[-1]["type"] == "op_tree" and evs[-1]["tree"]["traceId"] == sid
        assert sum(e["type"] == "op_tree" for e in evs) <= 6 + 1
        assert {e["meta"]["originId"] for e in evs} == {root}
        if sid != root:
            assert evs[0]["meta"]["parentId"] in by_session and evs[0]["meta"]["isMaster"] is False
    assert any(e["type"] == "final_report" for _, e in events)


def test_running_trees_carry_sub_agents_as_stubs(snapshot_doc):
    """Each sub-agent sends its own trees: a parent's trees while it runs name them, its last one is whole."""
    events = [e for _, e in replay_events(snapshot_doc, max_tree_events=6)]
    root = snapshot_doc.root.trace_id
    trees = [e["tree"] for e in events if e["type"] == "op_tree" and e["meta"]["sessionId"] == root]

    def children(tree):
        return [op["childSession"] for t in tree.get("turns", []) for op in t["ops"]
                if op.get("kind") == "session" and "childSession" in op]

    running = [child for tree in trees[:-1] for child in children(tree)]
    assert running and all(child["turns"] == [] and child["traceId"] for child in running)
    # whole: turns, or only steps for a tool_output extraction (its chunks run in an internal step)
    assert all(child["turns"] or child.get("steps") for child in children(trees[-1]))
    assert trees[-1] == snapshot_doc.root.raw


async def test_send_events_is_paced_and_gaps_are_capped(sock_dir, monkeypatch):
    monkeypatch.setattr(replay, "MAX_GAP_S", 0.3)
    hub = LiveHub()
    events = [(1000, status_event(1)), (1200, status_event(2)), (1400, status_event(3)), (3_600_000, status_event(4))]
    loop = asyncio.get_running_loop()
    async with listening(f"unix:{sock_dir / 'pace.sock'}", hub) as (url, _):
        start = loop.time()
        await asyncio.wait_for(send_events(events, url, speed=2.0), TIMEOUT)
        elapsed = loop.time() - start
        await until(lambda: hub.events == 4)
    assert 0.45 <= elapsed < 2.0  # 0.1 + 0.1 + a capped hour


def test_parse_url():
    assert parse_url("ws://127.0.0.1:8765") == ("ws", "127.0.0.1", 8765, "/")
    assert parse_url("ws://localhost:9/events") == ("ws", "localhost", 9, "/events")
    assert parse_url("ws://[::1]:80/x") == ("ws", "::1", 80, "/x")
    assert parse_url("unix:/tmp/m.sock") == ("unix", "/tmp/m.sock")
    assert parse_url("unix:rel.sock") == ("unix", "rel.sock")
    for bad in ("", "ws://host", "ws://:80", "http://h:1", "unix:", "wss://h:1", "ws://h:99999", "/tmp/sock"):
        with pytest.raises(ValueError):
            parse_url(bad)
