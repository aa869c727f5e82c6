"""Genkit Go session snapshots per seed: the design's shape (content-addressed) and the one Go shipped (UUIDs)."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import orjson

from .catalog import DATA, fill, iso, uuid4
from .snapshots import atomic_write

TURN_END, TOOL_ITERATION_END, INVOCATION_END = 0, 1, 2
EVENT_NAMES = ("turnEnd", "toolIterationEnd", "invocationEnd")
QUESTIONS, RESTORED_QUESTIONS = DATA["genkit"]["questions"], DATA["genkit"]["restored_questions"]  # data.json


def state_id(state: dict) -> str:
    return hashlib.sha256(orjson.dumps(state)).hexdigest()


class _Runner:
    """A session saving snapshots as it runs: the design's or, ``shipped``, maybeSnapshot's (when the state changed)."""

    def __init__(self, rng: random.Random, start_ms: int, *, shipped: bool, session_id: str = "",
                 event_names: bool = False) -> None:
        self.rng, self.t, self.shipped, self.session_id = rng, start_ms, shipped, session_id
        self.event_names = event_names or shipped
        self.snapshots: list[dict] = []
        self.last: dict | None = None  # Session.LastSnapshot
        self.turn_index, self.changed = 0, False

    def snap(self, state: dict, event: int) -> None:
        if self.shipped and self.last is not None and not self.changed:
            return  # "Skip if state hasn't changed since the last snapshot"
        self.t += self.rng.randint(300, 9_000)
        frozen, last = orjson.loads(orjson.dumps(state)), self.last or {}
        snap = fill(DATA["genkit"]["shipped" if self.shipped else "snapshot"], {
            "id": uuid4(self.rng) if self.shipped else state_id(frozen), "sid": self.session_id, "state": frozen,
            "at": iso(self.t, self.rng.randint(0, 999_999)), "index": last.get("index", -1) + 1,
            "turn": self.turn_index, "event": EVENT_NAMES[event] if self.event_names else event,
            "parent": last.get("snapshotId" if self.shipped else "id")})
        self.snapshots.append(snap)
        self.last, self.changed = snap, False
        if self.shipped and state.get("messages"):
            state["messages"][-1].setdefault("metadata", {})["snapshotId"] = snap["snapshotId"]

    def message(self, role: str, part: dict) -> dict:
        """ai.Message as Go marshals it (content, metadata if any, role); the design's JSON says the role first."""
        return {"content": [part], "role": role} if self.shipped else {"role": role, "content": [part]}

    def turn(self, state: dict, question: tuple) -> None:
        text, tool, answer = question
        messages = state.setdefault("messages", [])
        messages.append(self.message("user", {"text": text}))
        if tool is not None:
            name, args, result = tool
            ref = {"ref": f"call-{self.rng.randrange(16**6):06x}"} if self.shipped else {}
            request = {"input": args, "name": name, **ref} if self.shipped else {"name": name, "input": args}
            messages.append(self.message("model", {"toolRequest": request}))
            messages.append(self.message("tool", {"toolResponse": {"name": name, "output": result, **ref}}))
            if not self.shipped:
                self.snap(state, TOOL_ITERATION_END)
        messages.append(self.message("model", {"text": answer}))
        self.changed = True
        self.snap(state, TURN_END)
        self.turn_index += 1

    def invocation(self, state: dict, questions: list, custom: dict | None = None) -> None:
        """Its turns, then its end: the design counts invocations; the shipped flow updates its custom state."""
        for question in questions:
            self.turn(state, question)
        if "invocations" in state:
            state["invocations"] += 1
        if custom is not None:
            state["custom"], self.changed = custom, True
        self.snap(state, INVOCATION_END)

    def restore(self, snapshot: dict) -> dict:
        """WithSnapshotID (the design: what came after is orphaned) or a new invocation from `snapshotId` (shipped)."""
        for other in [o for o in self.snapshots if not self.shipped and o["index"] > snapshot["index"]]:
            other["orphaned"] = True
        self.last, self.changed = snapshot, False
        self.turn_index = snapshot.get("turnIndex", 0) + 1
        self.t += 3_600_000 if self.shipped else 60_000
        return orjson.loads(orjson.dumps(snapshot["state"]))


def make_genkit_snapshots(seed: int = 0, *, session_id: str | None = None, start_ms: int = 1_779_000_000_000,
                          turns: int = 4, restore_from: int | None = 1, event_names: bool = False) -> list[dict]:
    """Snapshots in index order (orphaned too); `restore_from`: restore after this turn's end (None: no restore)."""
    rng = random.Random(seed)
    run = _Runner(rng, start_ms, shipped=False, session_id=session_id or f"chat-{rng.randrange(16**8):08x}",
                  event_names=event_names)
    run.invocation({"messages": [], "invocations": 0}, _questions(seed, turns))
    if restore_from is not None:
        run.invocation(run.restore(next(s for s in run.snapshots if s["turnIndex"] == restore_from
                                        and s["event"] in (TURN_END, "turnEnd"))), RESTORED_QUESTIONS)
    return run.snapshots


def make_genkit_shipped(seed: int = 0, *, start_ms: int = 1_779_000_000_000, turns: int = 3,
                        resume_from: int | None = 0) -> list[dict]:
    """The shipped shape, in saved order; `resume_from`: a second invocation resumes from this turn's end."""
    run = _Runner(random.Random(seed), start_ms, shipped=True)
    run.invocation({}, _questions(seed, turns), custom={"topics": turns})
    if resume_from is not None:  # its end is unchanged since the last turn end: not saved, as the runner does
        turn_ends = [s for s in run.snapshots if s["event"] == "turnEnd"]
        run.invocation(run.restore(turn_ends[min(resume_from, len(turn_ends) - 1)]), RESTORED_QUESTIONS)
    return run.snapshots


def _questions(seed: int, turns: int) -> list[tuple]:
    return [QUESTIONS[(seed + q) % len(QUESTIONS)] for q in range(turns)]


def write_genkit_dir(directory: Path | str, snapshots: list[dict], *, gzip: bool = False,
                     session_data: bool = True) -> Path:
    """One file per snapshot, `<id>.json`, like a file-backed store; plus each session's data file."""
    target = Path(directory)
    for snap in snapshots:
        data = orjson.dumps(snap, option=orjson.OPT_INDENT_2)
        name = snap.get("id") or snap.get("snapshotId")  # the design's content address, or the shipped UUID
        atomic_write(target / f"{name}.json{'.gz' if gzip else ''}", data, gzip)
    if session_data:
        last = {snap["sessionId"]: snap for snap in snapshots  # the shipped shape has no session data file
                if not snap.get("orphaned") and "sessionId" in snap}
        for sid, snap in last.items():
            session = {"id": sid, "state": snap["state"], "lastSnapshot": snap, "turnIndex": snap["turnIndex"] + 1}
            atomic_write(target / f"session-{sid}.json", orjson.dumps(session))
    return target


def write_genkit_array(path: Path | str, snapshots: list[dict], *, gzip: bool = False) -> Path:
    """`ListSnapshots(ctx, sessionID, true)` saved as one JSON array."""
    return atomic_write(Path(path), orjson.dumps(snapshots, option=orjson.OPT_INDENT_2), gzip)
