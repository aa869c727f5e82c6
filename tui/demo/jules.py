"""Jules `toJSON()` snapshots (derived views computed the SDK's way, not the monitor's) and REST activity pages."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from .catalog import DATA, fill, iso
from .snapshots import atomic_write

_J = DATA["jules"]  # the tasks and the session's script (commands, their output, diffs): data.json
REPOS, TASKS = _J["repos"], _J["tasks"]


class _Session:
    def __init__(self, rng: random.Random, start_ms: int, session_id: str) -> None:
        self.rng, self.session_id, self.t, self.start_ms = rng, session_id, start_ms, start_ms
        self.activities: list[dict] = []

    def add(self, kind: str, originator: str = "agent", artifacts: list | None = None, **fields: Any) -> None:
        self.t += self.rng.randint(4_000, 95_000)
        n = len(self.activities) + 1
        self.activities.append({"name": f"sessions/{self.session_id}/activities/a{n:03d}", "id": f"a{n:03d}",
                                "createTime": iso(self.t), "originator": originator, "artifacts": artifacts or [],
                                "type": kind, **fields})

    def plan(self, titles: list[str]) -> None:
        steps = [{"id": f"s{i}", "title": title, "description": f"{title}.", "index": i}
                 for i, title in enumerate(titles)]
        self.add("planGenerated", plan={"id": f"plan{len(self.activities)}", "steps": steps, "createTime": iso(self.t)})

    def approve(self) -> None:
        plan_id = next(a["plan"]["id"] for a in reversed(self.activities) if a["type"] == "planGenerated")
        self.add("planApproved", originator="user", planId=plan_id)


def summary(activity: dict) -> str:
    """The SDK's generateSummary, written from the spec's table."""
    kind, msg, get = activity["type"], activity.get("message") or "", activity.get
    template = _J["summaries"].get(kind)  # data.json; another type's summary is its name
    return kind if template is None else fill(template, {
        "steps": len((get("plan") or {}).get("steps", [])), "reason": get("reason"),
        "progress": get("title") or get("description") or "Progress update",
        "msg": msg[:100] + ("..." if len(msg) > 100 else "")})


def make_jules_snapshot(seed: int = 0, *, start_ms: int = 1_779_000_000_000, state: str = "completed",
                        include_activities: bool = True, user_messages: int = 1, api_zero_values: bool = False) -> dict:
    """`api_zero_values`: as from a real API answer, exit code 0 left out (the SDK counts it as failed)."""
    rng, (title, prompt) = random.Random(seed), TASKS[seed % len(TASKS)]
    s = _play(_Session(rng, start_ms, str(rng.randrange(10**17, 10**18))), state, user_messages)
    return _snapshot(s, seed, title, prompt, state, include_activities, api_zero_values)


def _play(s: _Session, state: str, user_messages: int) -> _Session:
    """The session's activities, scripted in data.json: plan, reproduce, fix, the user's interventions, the end."""
    script = _J["play"]
    _steps(s, script["intro"])
    for n in range(user_messages):
        s.add("userMessaged", originator="user", message=script["user_messages"][min(n, 1)])
        _steps(s, script["intervention"])
    _steps(s, script["end"].get(state, script["still_going"]))  # neither completed nor failed: still going
    return s


def _steps(s: _Session, steps: list) -> None:
    for op, *args in steps:  # ["add", kind, fields (a copy: api_zero_values edits them)] or [method, *its arguments]
        s.add(args[0], **orjson.loads(orjson.dumps(args[1]))) if op == "add" else getattr(s, op)(*args)


def _snapshot(s: _Session, seed: int, title: str, prompt: str, state: str, include_activities: bool,
              api_zero_values: bool) -> dict:
    """``toJSON()`` with the derived views (activityCounts, timeline, insights) computed the SDK's way."""
    rng, session_id, created = s.rng, s.session_id, s.start_ms
    updated = s.t + rng.randint(1_000, 9_000)
    activities = s.activities
    if api_zero_values:
        for a in activities:
            for art in a["artifacts"]:
                if art.get("type") == "bashOutput" and art.get("exitCode") == 0:
                    del art["exitCode"]  # proto3 left it out; the SDK copied undefined
    counts = dict(Counter(a["type"] for a in activities))
    failed = sum(any(x.get("type") == "bashOutput" and x.get("exitCode") != 0 for x in a["artifacts"])
                 for a in activities)  # the SDK's computeInsights: exitCode !== 0 (undefined too)
    repo = REPOS[seed % len(REPOS)]
    snap = fill(_J["snapshot"], {
        "id": session_id, "state": state, "created": iso(created), "updated": iso(updated), "prompt": prompt,
        "duration": updated - created, "repo": repo, "title": title, "activities": activities, "counts": counts,
        "timeline": [{"time": a["createTime"], "type": a["type"], "summary": summary(a)} for a in activities],
        "completions": counts.get("sessionCompleted", 0), "plans": counts.get("planGenerated", 0),
        "interventions": counts.get("userMessaged", 0), "failed": failed})
    if state == "completed":
        snap["pr"] = fill(_J["pr"], {"repo": repo, "pr": rng.randint(100, 999), "title": title})
    if not include_activities:
        del snap["activities"]
    return snap


def rest_activity(activity: dict) -> dict:
    """An activity as the REST API sends it: fields under the type's oneof key, proto3 zero values left out."""
    kind, get = activity["type"], activity.get
    out: dict = {k: activity[k] for k in ("name", "id", "createTime")}
    shown = ("originator",) if kind == "progressUpdated" else ("originator", "description")  # (its title's)
    out |= {k: activity[k] for k in shown if get(k)}
    fields: dict = {rest: get(key, "") for rest, key in _J["rest_fields"].get(kind, {}).items()}  # REST name: ours
    if kind == "planGenerated":  # a step's index 0 is a zero value too
        fields["plan"] = {**fields["plan"], "steps": [{k: v for k, v in step.items() if v not in (0, "")}
                                                      for step in fields["plan"].get("steps", [])]}
    out[kind] = {k: v for k, v in fields.items() if v not in ("", None, [], {})}
    artifacts = []
    for art in activity.get("artifacts", []):
        if art.get("type") == "bashOutput":
            body = {"command": art.get("command", ""), "output": (art.get("stdout") or "") + (art.get("stderr") or ""),
                    "exitCode": art.get("exitCode") or ""}  # 0 is a zero value
            artifacts.append({"bashOutput": {k: v for k, v in body.items() if v != ""}})
        elif art.get("type") == "changeSet":  # (the script has no other artifacts)
            artifacts.append({"changeSet": {"source": art.get("source", ""), "gitPatch": art.get("gitPatch", {})}})
    return out | ({"artifacts": artifacts} if artifacts else {})


def make_jules_activities_page(seed: int = 0, *, start_ms: int = 1_779_000_000_000, state: str = "completed",
                               page_size: int | None = None, untyped: int = 1) -> dict:
    """A `ListActivitiesResponse` page of the seed's session with `untyped` description-only activities."""
    snap = make_jules_snapshot(seed, start_ms=start_ms, state=state)
    activities = [rest_activity(a) for a in snap["activities"]]
    session_id = snap["id"]
    for n in range(untyped):  # right after the plan's approval, the way the web app's feed shows set-up work
        at = min(2 + n, len(activities))
        before = activities[at - 1]["createTime"] if at else snap["createdAt"]
        activities.insert(at, {"name": f"sessions/{session_id}/activities/u{n:03d}", "id": f"u{n:03d}",
                               "createTime": before, "originator": "agent",
                               "description": _J["untyped_descriptions"][n % len(_J["untyped_descriptions"])]})
    if page_size is None or page_size >= len(activities):
        return {"activities": activities}
    return {"activities": activities[:page_size], "nextPageToken": f"CiA{seed:04d}{page_size:04d}"}  # opaque


def write_jules(directory: Path | str, snap: dict, *, gzip: bool = False, name: str | None = None) -> Path:
    """`<dir>/jules-<id>.json` (or `.json.gz`), written atomically like the other generators' files."""
    data = orjson.dumps(snap, option=orjson.OPT_INDENT_2)
    return atomic_write(Path(directory) / (name or f"jules-{snap.get('id', 'session')}.json{'.gz' if gzip else ''}"),
                        data, gzip)
