"""Genkit Go session snapshots, deterministic per seed: the design's shape (content-addressed ids, orphaned
snapshots after a restore) and the shape Genkit's Go code shipped (UUIDs, a resumed second invocation)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import orjson

from .catalog import DATA, iso, uuid4
from .snapshots import atomic_write, gz

TURN_END, TOOL_ITERATION_END, INVOCATION_END = 0, 1, 2
EVENT_NAMES = ("turnEnd", "toolIterationEnd", "invocationEnd")
QUESTIONS, RESTORED_QUESTIONS = DATA["genkit"]["questions"], DATA["genkit"]["restored_questions"]  # data.json


def state_id(state: dict) -> str:
    return hashlib.sha256(orjson.dumps(state)).hexdigest()


class _Recorder:
    def __init__(self, rng: random.Random, session_id: str, start_ms: int, event_names: bool) -> None:
        self.rng = rng
        self.session_id = session_id
        self.t = start_ms
        self.event_names = event_names
        self.snapshots: list[dict] = []
        self.last: dict | None = None  # Session.LastSnapshot
        self.turn_index = 0

    def snap(self, state: dict, event: int) -> dict:
        self.t += self.rng.randint(300, 9_000)
        frozen = orjson.loads(orjson.dumps(state))
        snapshot = {"id": state_id(frozen), "sessionId": self.session_id,
                    "createdAt": iso(self.t, self.rng.randint(0, 999_999)), "state": frozen,
                    "index": self.last["index"] + 1 if self.last else 0, "turnIndex": self.turn_index,
                    "event": EVENT_NAMES[event] if self.event_names else event}
        if self.last is not None:
            snapshot["parentId"] = self.last["id"]
        self.snapshots.append(snapshot)
        self.last = snapshot
        return snapshot

    def turn(self, state: dict, question: tuple) -> None:
        text, tool, answer = question
        state["messages"].append({"role": "user", "content": [{"text": text}]})
        if tool is not None:
            name, args, result = tool
            state["messages"].append({"role": "model", "content": [{"toolRequest": {"name": name, "input": args}}]})
            state["messages"].append({"role": "tool", "content": [{"toolResponse": {"name": name, "output": result}}]})
            self.snap(state, TOOL_ITERATION_END)
        state["messages"].append({"role": "model", "content": [{"text": answer}]})
        self.snap(state, TURN_END)
        self.turn_index += 1

    def restore(self, snapshot: dict) -> dict:
        """WithSnapshotID: orphan everything after it, continue from its state, turn and index."""
        for other in self.snapshots:
            if other["index"] > snapshot["index"]:
                other["orphaned"] = True
        self.last = snapshot
        self.turn_index = snapshot["turnIndex"] + 1
        return orjson.loads(orjson.dumps(snapshot["state"]))


def make_genkit_snapshots(seed: int = 0, *, session_id: str | None = None, start_ms: int = 1_779_000_000_000,
                          turns: int = 4, restore_from: int | None = 1, event_names: bool = False) -> list[dict]:
    """Snapshots of one session in index order (orphaned ones included). `restore_from`: restore after the turn
    end of this turn index (None: no restore). `event_names`: write events as names instead of Go's integers."""
    rng = random.Random(seed)
    sid = session_id or f"chat-{rng.randrange(16**8):08x}"
    rec = _Recorder(rng, sid, start_ms, event_names)
    state: dict = {"messages": [], "invocations": 0}
    for q in range(turns):
        rec.turn(state, QUESTIONS[(seed + q) % len(QUESTIONS)])
    state["invocations"] += 1
    rec.snap(state, INVOCATION_END)
    if restore_from is not None:
        target = next(s for s in rec.snapshots
                      if s["turnIndex"] == restore_from and s["event"] in (TURN_END, "turnEnd"))
        state = rec.restore(target)
        rec.t += 60_000
        for question in RESTORED_QUESTIONS:
            rec.turn(state, question)
        state["invocations"] += 1
        rec.snap(state, INVOCATION_END)
    return rec.snapshots


def _go_message(role: str, *parts: dict) -> dict:
    """ai.Message as Go marshals it: content, metadata (omitempty), role."""
    return {"content": list(parts), "role": role}


class _ShippedRunner:
    """SessionRunner.maybeSnapshot: save when the state changed since the last snapshot, then tag the last
    message with the snapshot's id (in the live state, after the copy was saved)."""

    def __init__(self, rng: random.Random, start_ms: int) -> None:
        self.rng = rng
        self.t = start_ms
        self.snapshots: list[dict] = []
        self.last: dict | None = None
        self.changed = False

    def snapshot(self, state: dict, event: str) -> None:
        if self.last is not None and not self.changed:
            return  # "Skip if state hasn't changed since the last snapshot"
        self.t += self.rng.randint(300, 9_000)
        snap = {"snapshotId": uuid4(self.rng)}
        if self.last is not None:
            snap["parentId"] = self.last["snapshotId"]
        snap.update({"createdAt": iso(self.t, self.rng.randint(0, 999_999)), "event": event,
                     "state": orjson.loads(orjson.dumps(state))})
        self.snapshots.append(snap)
        self.last = snap
        self.changed = False
        if state.get("messages"):
            state["messages"][-1].setdefault("metadata", {})["snapshotId"] = snap["snapshotId"]

    def turn(self, state: dict, question: tuple) -> None:
        text, tool, answer = question
        state.setdefault("messages", []).append(_go_message("user", {"text": text}))
        if tool is not None:
            name, args, result = tool
            ref = f"call-{self.rng.randrange(16**6):06x}"
            state["messages"].append(_go_message("model", {"toolRequest": {"input": args, "name": name, "ref": ref}}))
            state["messages"].append(_go_message("tool", {"toolResponse": {"name": name, "output": result,
                                                                           "ref": ref}}))
        state["messages"].append(_go_message("model", {"text": answer}))
        self.changed = True
        self.snapshot(state, "turnEnd")

    def resume(self, snap: dict) -> dict:
        """A new invocation with `snapshotId` in its init: the state as saved, the snapshot as the last one."""
        self.last = snap
        self.changed = False
        self.t += 3_600_000
        return orjson.loads(orjson.dumps(snap["state"]))


def make_genkit_shipped(seed: int = 0, *, start_ms: int = 1_779_000_000_000, turns: int = 3,
                        resume_from: int | None = 0) -> list[dict]:
    """Snapshots of one conversation in the shipped shape, in the order they were saved. `resume_from`: a second
    invocation resumes from the turn end of this turn (None: no second invocation)."""
    rng = random.Random(seed)
    runner = _ShippedRunner(rng, start_ms)
    state: dict = {}
    for q in range(turns):
        runner.turn(state, QUESTIONS[(seed + q) % len(QUESTIONS)])
    state["custom"] = {"topics": turns}  # the flow updates its custom state after the loop: an invocationEnd
    runner.changed = True
    runner.snapshot(state, "invocationEnd")
    if resume_from is not None:
        turn_ends = [s for s in runner.snapshots if s["event"] == "turnEnd"]
        state = runner.resume(turn_ends[min(resume_from, len(turn_ends) - 1)])
        for question in RESTORED_QUESTIONS:
            runner.turn(state, question)
        runner.snapshot(state, "invocationEnd")  # unchanged since the last turn end: skipped, as the runner does
    return runner.snapshots


def write_genkit_dir(directory: Path | str, snapshots: list[dict], *, gzip: bool = False,
                     session_data: bool = True) -> Path:
    """One file per snapshot, `<id>.json`, like a file-backed store; plus each session's data file."""
    target = Path(directory)
    for snap in snapshots:
        data = orjson.dumps(snap, option=orjson.OPT_INDENT_2)
        name = snap.get("id") or snap.get("snapshotId")  # the design's content address, or the shipped UUID
        atomic_write(target / f"{name}.json{'.gz' if gzip else ''}", gz(data) if gzip else data)
    if session_data:
        last: dict[str, dict] = {}
        for snap in snapshots:
            if not snap.get("orphaned") and "sessionId" in snap:  # the shipped shape has no session data file
                last[snap["sessionId"]] = snap
        for sid, snap in last.items():
            session = {"id": sid, "state": snap["state"], "lastSnapshot": snap, "turnIndex": snap["turnIndex"] + 1}
            atomic_write(target / f"session-{sid}.json", orjson.dumps(session))
    return target


def write_genkit_array(path: Path | str, snapshots: list[dict], *, gzip: bool = False) -> Path:
    """`ListSnapshots(ctx, sessionID, true)` saved as one JSON array."""
    p = Path(path)
    data = orjson.dumps(snapshots, option=orjson.OPT_INDENT_2)
    atomic_write(p, gz(data) if gzip else data)
    return p
