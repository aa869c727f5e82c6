"""A sender that is never the bound: every line encoded before it connects, then written to a Unix socket in
chunks of about 1 MB as fast as the socket takes them (a blocking `sendall`).

    python tests/benchmarks/live_fast_sender.py URL mixed N SESSIONS  # N small events over SESSIONS sessions
    python tests/benchmarks/live_fast_sender.py URL replay FILE       # the very lines `replay FILE --speed 0`
                                                                      # sends (tui.formats.aiagent.replay)

`mixed` is what many running agents send: per session a turn_started, then logs, progress, output chunks,
accounting entries and every 50th event an op_tree of a small tree (a few ops, like a short session), each
session numbering its own events 1, 2, 3... The events of the sessions are interleaved round-robin.
Prints "SENT SECONDS" (the time spent writing) when done.
"""

from __future__ import annotations

import socket
import sys
import time

import orjson

CHUNK = 1 << 20


def mixed_lines(n: int, sessions: int) -> list[bytes]:
    trees = {}
    seqs = [0] * sessions
    out = []
    for i in range(n):
        s = i % sessions
        seqs[s] += 1
        seq = seqs[s]
        sid = f"agent-{s:05d}"
        meta = {"sessionId": sid, "originId": sid, "agentId": "bench", "callPath": "bench", "sequence": seq}
        ts = 1_700_000_000_000 + i
        kind = seq % 50
        if seq == 1:
            event: dict = {"type": "turn_started", "turn": 1, "attempt": 1, "isRetry": False, "isFinalTurn": False}
        elif kind == 0:
            tree = trees.get(s) or {"id": sid, "traceId": sid, "agentId": "bench", "startedAt": ts - i,
                                    "turns": [{"id": "t1", "index": 1, "startedAt": ts - i, "ops": []}]}
            trees[s] = tree
            tree["turns"][0]["ops"].append({
                "opId": f"op-{seq}", "kind": "llm", "startedAt": ts - 5, "endedAt": ts, "status": "ok",
                "attributes": {"model": "bench-model", "provider": "bench"}, "logs": [], "accounting": []})
            event = {"type": "op_tree", "tree": tree}
        elif kind % 5 == 1:
            event = {"type": "progress", "event": {"type": "tool_started", "agentId": "bench", "callPath": "bench",
                                                   "timestamp": ts, "tool": {"name": "web__fetch"}}}
        elif kind % 5 == 2:
            event = {"type": "output", "text": f"chunk {seq} of the answer "}
        elif kind % 5 == 3:
            event = {"type": "accounting", "entry": {"type": "llm", "timestamp": ts, "provider": "bench",
                                                     "model": "bench-model",
                                                     "tokens": {"inputTokens": 100, "outputTokens": 20}}}
        else:
            event = {"type": "log", "entry": {"timestamp": ts, "severity": "VRB", "message": f"event {seq}",
                                              "path": "1-1", "remoteIdentifier": "bench"}}
        event["meta"] = meta
        out.append(orjson.dumps(event))
    return out


def replay_lines(path: str) -> list[bytes]:
    from tui.cli.load import load_or_fail
    from tui.formats.aiagent.replay import encoded_events, replay_events

    doc, _ = load_or_fail(path, needs_tree=" to replay", prog="live_fast_sender")
    if doc is None:
        raise SystemExit(f"cannot read {path}")
    return list(encoded_events(replay_events(doc)))


def chunks(lines: list[bytes]) -> list[bytes]:
    out, batch, size = [], [], 0
    for line in lines:
        batch.append(line)
        size += len(line) + 1
        if size >= CHUNK:
            out.append(b"\n".join(batch) + b"\n")
            batch, size = [], 0
    if batch:
        out.append(b"\n".join(batch) + b"\n")
    return out


def main(url: str, shape: str, args: list[str]) -> None:
    from tui.inputs.stream.event_stream import parse_url

    lines = mixed_lines(int(args[0]), int(args[1])) if shape == "mixed" else replay_lines(args[0])
    sent = len(lines)
    data = chunks(lines)
    del lines
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(parse_url(url)[1])
    start = time.perf_counter()
    for chunk in data:
        sock.sendall(chunk)
    elapsed = time.perf_counter() - start
    sock.close()
    print(sent, f"{elapsed:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
