"""Replay a saved session as the live event stream that produced it (formats.md section 4), and send it.

`replay_events` rebuilds, for the root and every sub-agent, the events ai-agent's `onEvent` would have emitted:
turn starts, progress, logs, accounting, `op_tree` trees cut at instants of the session's lifetime (with its
sub-agents as stubs: they send their own), the final report, and as each session's last event its complete tree,
so a receiver ends up holding exactly the saved tree.
`send_events` pushes them to a monitor (`ws://` or `unix:`), timed by the recorded timestamps. No textual here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable

from tui.formats.aiagent.timeline import ms, tree_at
from tui.inputs.stream.event_stream import parse_url
from tui.model.document import LEDGER, Document
from tui.model.fields import as_dict, as_list
from tui.model.json_text import dumps
from tui.model.session_dicts import session_node

MAX_GAP_S = 5.0  # never wait longer than this between two events, whatever the recording says
# Order of events that share a timestamp: a tree after the logs/accounting it already contains.
_PRIO = {"turn_started": 0, "progress": 1, "log": 2, "accounting": 3, "op_tree": 4, "final_report": 5}
_LAST = 9


def replay_events(doc: Document, *, max_tree_events: int = 40) -> list[tuple[int, dict]]:
    """(timestamp_ms, event) pairs of every session of `doc`, sorted by time (each session's in its own order)."""
    if doc.root is None:
        raise ValueError(f"{doc.path}: {doc.format} has no session tree to replay")
    raw = doc.root.raw
    if doc.format == LEDGER or not isinstance(raw, dict) or ("turns" not in raw and "steps" not in raw):
        tree = session_node(doc.root)  # a v3 ledger: the SessionNode it stands for
    else:
        tree = doc.root.raw
    root_id = _sid(tree) or "root"
    keyed: list[tuple[int, int, int, int, dict]] = []
    sid_of: dict[int, str] = {}
    used: set[str] = set()
    for n, (node, parent) in enumerate(_sessions(tree)):
        sid = root_id if n == 0 else _sid(node) or f"{root_id}-sub{n}"
        if sid in used:
            sid = f"{sid}-{n}"
        used.add(sid)
        sid_of[id(node)] = sid
        parent_id = sid_of.get(id(parent)) if parent is not None else None
        meta = {
            "agentId": node.get("agentId"), "callPath": node.get("callPath"), "sessionId": sid,
            "parentId": parent_id, "originId": root_id, "isMaster": parent is None,
        }
        for seq, (ts, prio, event) in enumerate(_session_events(node, meta, max_tree_events), 1):
            event["meta"] = {**meta, "isFinal": event.pop("_final", False), "sequence": seq, "source": "replay"}
            keyed.append((ts, prio, n, seq, event))
    keyed.sort(key=lambda k: k[:4])
    return [(k[0], k[4]) for k in keyed]


def _sid(node: dict) -> str:
    for key in ("traceId", "id"):
        value = node.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _sessions(tree: dict):
    """(session node, parent session node) for the root and every sub-agent, parents first."""
    queue: list[tuple[dict, dict | None]] = [(tree, None)]
    for node, parent in queue:
        yield node, parent
        for op in _own_ops(node):
            child = op.get("childSession")
            if op.get("kind") == "session" and isinstance(child, dict):
                queue.append((child, node))


def _own_ops(node: dict):
    for key in ("turns", "steps"):
        for turn in as_list(node.get(key)):
            if isinstance(turn, dict):
                for op in as_list(turn.get("ops")):
                    if isinstance(op, dict):
                        yield op


def _session_events(node: dict, meta: dict, max_tree_events: int) -> list[tuple[int, int, dict]]:
    out: list[tuple[int, int, dict]] = []
    agent, call_path = meta["agentId"], meta["callPath"]
    start = ms(node.get("startedAt"))
    end = ms(node.get("endedAt"))

    def progress(ts: int | None, kind: str, tool: dict | None = None, message: str | None = None) -> None:
        if ts is None:
            return
        p: dict = {"type": kind, "callPath": call_path, "agentId": agent, "timestamp": ts}
        if tool is not None:
            p["tool"] = tool
        if message:
            p["message"] = message
        prio = -1 if kind == "agent_started" else _PRIO["progress"]  # before its first turn starts
        out.append((ts, prio, {"type": "progress", "event": p}))

    progress(start, "agent_started")
    for turn in as_list(node.get("turns")):
        started = ms(turn.get("startedAt")) if isinstance(turn, dict) else None
        if started is None:
            continue
        final = any(isinstance(op, dict) and as_dict(op.get("attributes")).get("isFinalTurn") is True
                    for op in as_list(turn.get("ops")))
        out.append((started, _PRIO["turn_started"],
                    {"type": "turn_started", "turn": turn.get("index"), "attempt": 1, "isRetry": False,
                     "isFinalTurn": final}))
    report = node.get("finalReport") if isinstance(node.get("finalReport"), dict) else None
    for op in _own_ops(node):
        attrs = op.get("attributes") if isinstance(op.get("attributes"), dict) else {}
        if op.get("kind") in ("tool", "session"):
            tool = {"name": attrs.get("name"), "provider": attrs.get("provider")}
            progress(ms(op.get("startedAt")), "tool_started", tool)
            progress(ms(op.get("endedAt")), "tool_finished", tool, attrs.get("error") or op.get("status"))
            if report is None and attrs.get("name") == "agent__final_report" and "endedAt" in op:
                report = _tool_report(op)
        for entry in as_list(op.get("logs")):
            if isinstance(entry, dict):
                out.append((ms(entry.get("timestamp")) or ms(op.get("startedAt")) or start or 0, _PRIO["log"],
                            {"type": "log", "entry": entry}))
        for entry in as_list(op.get("accounting")):
            if isinstance(entry, dict):
                ts = ms(entry.get("timestamp")) or ms(op.get("endedAt")) or start or 0
                out.append((ts, _PRIO["accounting"], {"type": "accounting", "entry": entry}))
    if end is not None:
        failed = node.get("success") is False
        progress(end, "agent_failed" if failed else "agent_finished",
                 message=node.get("error") if failed and isinstance(node.get("error"), str) else None)
    last = max([ts for ts, _, _ in out] + [end or 0, start or 0])
    if report is not None:
        out.append((last, _PRIO["final_report"], {"type": "final_report", "report": report, "_final": True}))
    own = [t for t in _own_times(node) if (start is None or t >= start) and t < last]
    instants = _spread(own, max(0, max_tree_events - 1))
    stubbed = _with_child_stubs(node) if instants else node
    for t in instants:
        out.append((t, _PRIO["op_tree"], {"type": "op_tree", "tree": tree_at(stubbed, t)}))
    out.append((last, _LAST, {"type": "op_tree", "tree": node, "_final": end is not None}))
    out.sort(key=lambda e: (e[0], e[1]))
    return out


_STUB_KEYS = ("id", "traceId", "agentId", "callPath", "sessionTitle", "startedAt", "endedAt", "success", "error")


def _with_child_stubs(node: dict) -> dict:
    """The session with each sub-agent reduced to its identity and times: the trees a session sends while it
    runs carry its own turns and ops, since every sub-agent sends trees of its own that the receiver attaches
    by id (repeating them would make a deep session's stream quadratic in its size). The last tree is whole."""
    out = dict(node)
    for key in ("turns", "steps"):
        items = node.get(key)
        if isinstance(items, list):
            out[key] = [_turn_with_stubs(turn) for turn in items]
    return out


def _turn_with_stubs(turn: object) -> object:
    if not isinstance(turn, dict) or not isinstance(turn.get("ops"), list):
        return turn
    ops = []
    for op in turn["ops"]:
        child = op.get("childSession") if isinstance(op, dict) and op.get("kind") == "session" else None
        if isinstance(child, dict):  # the sub-agents _sessions() replays
            op = {**op, "childSession": {k: child[k] for k in _STUB_KEYS if k in child} | {"turns": []}}
        ops.append(op)
    return {**turn, "ops": ops}


def _own_times(node: dict) -> list[int]:
    """The instants of a session's own turns and ops (its sub-agents send trees of their own)."""
    times: set[int] = set()
    for key in ("turns", "steps"):
        for turn in as_list(node.get(key)):
            at = ms(turn.get("startedAt")) if isinstance(turn, dict) else None
            if at is not None:
                times.add(at)
    for op in _own_ops(node):
        for field in ("startedAt", "endedAt"):
            at = ms(op.get(field))
            if at is not None:
                times.add(at)
    return sorted(times)


def _spread(times: list[int], n: int) -> list[int]:
    """n instants spread evenly over `times`, the first one included (a receiver gets a tree at once)."""
    if n <= 0 or not times:
        return []
    if len(times) <= n:
        return times
    if n == 1:
        return times[:1]
    return sorted({times[round(i * (len(times) - 1) / (n - 1))] for i in range(n)})


def _tool_report(op: dict) -> dict:
    request, response = as_dict(op.get("request")), as_dict(op.get("response"))
    params = as_dict(request.get("payload"))
    content = params.get("report_content")
    if not isinstance(content, str):
        content = response.get("payload")
    return {"format": params.get("report_format") or "markdown", "content": content, "ts": ms(op.get("endedAt"))}


# sending ----------------------------------------------------------------------------------------------------


def encoded_events(events: Iterable[tuple[int, dict]]):
    """Each event's line as sent (JSON bytes, no newline), in order."""
    for _, event in events:
        yield dumps(event)


# What a monitor may send back to a replay: nothing but control frames. A peer announcing a bigger message (2^62
# bytes) is cut off at once instead of piling it up in memory.
MAX_INCOMING = 64 * 1024
SEND_TIMEOUT_S = 10.0


async def send_events(events: Iterable[tuple[int, dict]], url: str, *, speed: float = 1.0,
                      token: str | None = None, timeout: float = SEND_TIMEOUT_S) -> int:
    """Send `events` to `url` (ws://HOST:PORT[/path] or unix:PATH), paced by their timestamps / speed.

    speed 0 sends as fast as possible; a gap is never longer than MAX_GAP_S. Returns the number of events sent.
    A `token` goes to ws:// monitors as `Authorization: Bearer TOKEN`. Connection errors (refused, no such
    socket) propagate as OSError. `timeout` bounds the handshake, each event's send and the closing handshake:
    a monitor that stops reading ends the replay with TimeoutError, never holds it for good.
    """
    if speed < 0:
        raise ValueError("speed must be >= 0")
    target = parse_url(url)
    if target[0] == "ws":
        return await _send_ws(events, url, speed, token, timeout)
    return await _send_unix(events, target[1], speed, timeout)


class _Pacer:
    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.last_ts: int | None = None
        self.due = time.monotonic()

    async def wait(self, ts: int) -> None:
        if self.speed == 0:
            return
        if self.last_ts is not None and ts > self.last_ts:
            self.due += min((ts - self.last_ts) / 1000 / self.speed, MAX_GAP_S)
        self.last_ts = ts if self.last_ts is None else max(ts, self.last_ts)
        delay = self.due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


async def _send_ws(events: Iterable[tuple[int, dict]], url: str, speed: float, token: str | None,
                   timeout: float) -> int:
    from websockets.asyncio.client import connect

    pacer = _Pacer(speed)
    sent = 0
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with connect(url, max_size=MAX_INCOMING, compression=None, open_timeout=timeout, close_timeout=timeout,
                       additional_headers=headers) as ws:
        for ts, event in events:
            await pacer.wait(ts)
            try:
                await asyncio.wait_for(ws.send(dumps(event), text=True), timeout)
            except asyncio.TimeoutError:
                ws.transport.abort()  # (a close handshake would wait on the same full buffer)
                raise TimeoutError(f"the monitor took no event for {timeout:g}s (it stopped reading)") from None
            sent += 1
    return sent


async def _send_unix(events: Iterable[tuple[int, dict]], path: str, speed: float, timeout: float) -> int:
    _, writer = await asyncio.wait_for(asyncio.open_unix_connection(path), timeout)
    pacer = _Pacer(speed)
    sent = 0
    try:
        for ts, event in events:
            await pacer.wait(ts)
            writer.write(dumps(event) + b"\n")
            sent += 1
            if speed or writer.transport.get_write_buffer_size() > 1 << 20:
                await _drained(writer, timeout)
        await _drained(writer, timeout)
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass
    return sent


async def _drained(writer: asyncio.StreamWriter, timeout: float) -> None:
    """Wait until the listener took what was written, at most `timeout` seconds (one that stops reading ends the
    replay, instead of holding it for good)."""
    try:
        await asyncio.wait_for(writer.drain(), timeout)
    except asyncio.TimeoutError:
        writer.transport.abort()
        raise TimeoutError(f"the monitor took no event for {timeout:g}s (it stopped reading)") from None
