"""Jules `SessionSnapshot` (seed jules-session-snapshot-spec.md): read it, and recompute its derived views.

Accepted shapes: the SDK's `snapshot.toJSON()` (with or without `activities`: the default toJSON leaves them out,
keeping `timeline`, `activityCounts` and `insights`), a Jules `SessionResource` (`createTime`, `outputs[]`,
`activities[]`), and one page of the REST API's `GET v1alpha/sessions/{id}/activities` answer
(`{"activities": [...], "nextPageToken": "..."}`: a session of those activities). Activities may be SDK-shaped
(`type`, `message`, `plan`, `artifacts: [{type: "bashOutput", ...}]`) or REST-shaped (the oneof key names:
`planGenerated: {plan}`, `artifacts: [{bashOutput: {command, output, exitCode}}]`), or have no type at all, only a
`description` (shown as it is).

The REST API writes proto3 JSON, which leaves every zero value out: a `bashOutput` without `exitCode` ran with exit
code 0 and succeeded. The SDK copies the artifact as it comes (`exitCode` undefined) and counts it in
`failedCommands` (`exitCode !== 0`); the monitor does not, and says so when a stored count differs for that reason.

The derived views follow the spec exactly (timeline summaries, counts of observed types only, insights); when the
file also stores them, the stored and recomputed values are compared and every difference is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.formats.jules.activity import (
    ACTIVITY_TYPES, UNTYPED, Activity, Artifact, iso, read_activity, read_timeline_entry,
)
from tui.model.fields import as_dict, as_int, as_list, as_ms, as_str, type_name

_SNAPSHOT_KEYS = ("activityCounts", "timeline", "insights")
_IDENTITY_KEYS = ("id", "state", "title", "prompt", "createdAt", "createTime", "name")
_PAGE_KEYS = {"activities", "nextPageToken"}  # ListActivitiesResponse
SUMMARY_LIMIT = 100


@dataclass(slots=True)
class Insights:
    completion_attempts: int = 0
    plan_regenerations: int = 0
    user_interventions: int = 0
    failed_commands: list[Activity] | None = None  # None: unknown (no activities in the file)

    def as_dict(self) -> dict:
        return {
            "completionAttempts": self.completion_attempts,
            "planRegenerations": self.plan_regenerations,
            "userInterventions": self.user_interventions,
            "failedCommandCount": len(self.failed_commands) if self.failed_commands is not None else None,
        }


@dataclass(slots=True)
class JulesSnapshot:
    raw: dict
    id: str = ""
    state: str = ""
    url: str = ""
    created_at: str = ""
    updated_at: str = ""
    created_ms: int | None = None
    updated_ms: int | None = None
    duration_ms: int | None = None
    prompt: str = ""
    title: str = ""
    pr: dict | None = None
    activities: list[Activity] = field(default_factory=list)
    activities_included: bool = True
    activity_counts: dict[str, int] = field(default_factory=dict)
    timeline: list[dict] = field(default_factory=list)
    insights: Insights = field(default_factory=Insights)
    generated_files: list = field(default_factory=list)
    shape: str = "snapshot"  # "snapshot" (SDK toJSON) | "session" (SessionResource) | "activitiesPage"
    next_page_token: str = ""
    notes: list[str] = field(default_factory=list)  # stored views that differ for a known, explained reason
    stored_counts: dict | None = None
    stored_insights: dict | None = None
    stored_timeline_length: int | None = None
    stored_duration_ms: int | None = None
    mismatch: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """"completed" | "failed" | "" (any other state: the session was still going when snapshotted)."""
        key = self.state.replace("_", "").lower()
        return key if key in ("completed", "failed") else ""

    @property
    def failed_command_count(self) -> int | None:
        if self.insights.failed_commands is not None:
            return len(self.insights.failed_commands)
        stored = as_dict(self.stored_insights).get("failedCommandCount")
        return as_int(stored, -1) if as_int(stored, -1) >= 0 else None

    @property
    def commands(self) -> list[Artifact]:
        return [a for act in self.activities for a in act.artifacts if a.kind == "bashOutput"]


def looks_like_jules(value: object) -> bool:
    if isinstance(value, list):
        return as_page(value) is not None
    if not isinstance(value, dict):
        return False
    if any(key in value for key in _SNAPSHOT_KEYS):
        return any(key in value for key in _IDENTITY_KEYS)
    if looks_like_activities_page(value):
        return True
    # a SessionResource: its activities or outputs, and its state or prompt; or, as `GET sessions/{id}` answers
    # before there are outputs (an empty list is left out), its name with its prompt or source context
    if ("activities" in value or "outputs" in value) and ("state" in value or "prompt" in value):
        return True
    name = value.get("name")
    return (isinstance(name, str) and name.startswith("sessions/") and "/" not in name[len("sessions/"):]
            and ("prompt" in value or "sourceContext" in value))


def looks_like_activities_page(value: object) -> bool:
    """`GET .../activities`: only `activities` (an array of Activity objects) and maybe `nextPageToken`."""
    if not isinstance(value, dict) or "activities" not in value or not set(value) <= _PAGE_KEYS:
        return False
    items = value["activities"]
    if not isinstance(items, list):
        return False
    objects = [item for item in items[:5] if isinstance(item, dict)]
    return not items or any(_looks_like_activity(item) for item in objects)


def as_page(value: list) -> dict | None:
    """A JSON array of activities pages (every page of the list, saved together) as one page, or a bare array of
    Activity objects (a page's `activities` alone); None when it is neither."""
    heads = [item for item in value[:5] if isinstance(item, dict)]
    if not heads:
        return None
    if all(looks_like_activities_page(item) for item in heads):
        activities: list = []
        token = ""
        for item in value:
            if isinstance(item, dict):
                activities.extend(as_list(item.get("activities")))
                token = as_str(item.get("nextPageToken"))
        page: dict = {"activities": activities}
        if token:
            page["nextPageToken"] = token  # the last page's: still more to fetch
        return page
    if any(_looks_like_activity(item) for item in heads) and not any(
            looks_like_activities_page(item) for item in heads):
        return {"activities": value}
    return None


def _looks_like_activity(node: dict) -> bool:
    name = node.get("name")
    if isinstance(name, str) and name.startswith("sessions/") and "/activities/" in name:
        return True
    return any(key in node for key in ACTIVITY_TYPES) or ("createTime" in node and (
        "originator" in node or "description" in node or "type" in node))


# --- the spec's computed views ---------------------------------------------------------------------------

def summarize(activity: Activity) -> str:
    """TL-04: the human-readable timeline summary of one activity."""
    kind = activity.type
    if kind == "planGenerated":
        return f"Plan with {len(activity.plan_steps)} steps"
    if kind == "planApproved":
        return "Plan approved"
    if kind == "progressUpdated":
        return activity.title or activity.description or "Progress update"
    if kind == "sessionCompleted":
        return "Session completed"
    if kind == "sessionFailed":
        return f"Failed: {activity.reason}"
    if kind == UNTYPED:  # no type field: what the API says of it
        return activity.activity_description or (f"{activity.originator} activity" if activity.originator
                                                 else "(no type, no description)")
    if kind in ("userMessaged", "agentMessaged"):
        who = "User" if kind == "userMessaged" else "Agent"
        msg = activity.message
        return f"{who}: {msg[:SUMMARY_LIMIT]}{'...' if len(msg) > SUMMARY_LIMIT else ''}"
    return kind


def activity_counts(activities: list[Activity]) -> dict[str, int]:
    """AC-01..03: observed types only, in order of first appearance."""
    counts: dict[str, int] = {}
    for a in activities:
        counts[a.type] = counts.get(a.type, 0) + 1
    return counts


def timeline(activities: list[Activity]) -> list[dict]:
    """TL-01..03: one entry per activity: its createTime, type and summary."""
    return [{"time": a.time, "type": a.type, "summary": a.summary} for a in activities]


def insights(activities: list[Activity], counts: dict[str, int], *, known_commands: bool = True) -> Insights:
    """INS-01..04."""
    return Insights(
        completion_attempts=counts.get("sessionCompleted", 0),
        plan_regenerations=counts.get("planGenerated", 0),
        user_interventions=counts.get("userMessaged", 0),
        failed_commands=[a for a in activities if a.failed_command] if known_commands else None,
    )


# --- reading -----------------------------------------------------------------------------------------------

def parse(value: dict) -> JulesSnapshot:
    """Never raises on wrong types: what cannot be used is listed in `problems`. The input is not modified."""
    snap = JulesSnapshot(raw=value)
    if looks_like_activities_page(value):
        snap.shape = "activitiesPage"
        snap.next_page_token = as_str(value.get("nextPageToken"))
    elif not any(key in value for key in _SNAPSHOT_KEYS):
        snap.shape = "session"
    snap.id = as_str(value.get("id")) or as_str(value.get("name")).rsplit("/", 1)[-1]
    snap.state = as_str(value.get("state"))
    snap.url = as_str(value.get("url"))
    snap.prompt = as_str(value.get("prompt"))
    snap.title = as_str(value.get("title"))
    created = value.get("createdAt", value.get("createTime"))
    updated = value.get("updatedAt", value.get("updateTime"))
    snap.created_at, snap.created_ms = _time(created, "createdAt", snap.problems)
    snap.updated_at, snap.updated_ms = _time(updated, "updatedAt", snap.problems)
    if snap.created_ms is not None and snap.updated_ms is not None:
        snap.duration_ms = snap.updated_ms - snap.created_ms  # SNAP-03
    stored_duration = value.get("durationMs")
    if stored_duration is not None:
        snap.stored_duration_ms = as_int(stored_duration, -1) if as_int(stored_duration, -1) >= 0 else None
        if snap.stored_duration_ms is None:
            snap.problems.append(f"durationMs is {type_name(stored_duration)}, expected a number")
        elif snap.duration_ms is None:
            snap.duration_ms = snap.stored_duration_ms
    snap.pr = _pull_request(value, snap.problems)
    snap.generated_files = as_list(value.get("generatedFiles"))

    raw_activities = value.get("activities")
    if raw_activities is not None and not isinstance(raw_activities, list):
        snap.problems.append(f"activities is {type_name(raw_activities)}, expected an array")
        raw_activities = None
    stored_timeline = value.get("timeline")
    if stored_timeline is not None and not isinstance(stored_timeline, list):
        snap.problems.append(f"timeline is {type_name(stored_timeline)}, expected an array")
        stored_timeline = None
    if raw_activities is None and stored_timeline is not None:
        snap.activities_included = False
        snap.activities = [read_timeline_entry(entry, i) for i, entry in enumerate(stored_timeline)]
    else:
        snap.activities = [read_activity(item, i) for i, item in enumerate(raw_activities or [])]
    if snap.shape == "activitiesPage" and not snap.id:
        snap.id = _session_of(snap.activities)
    for a in snap.activities:
        if not a.from_timeline:
            a.summary = summarize(a)
    snap.activity_counts = activity_counts(snap.activities)
    snap.timeline = timeline(snap.activities)
    snap.insights = insights(snap.activities, snap.activity_counts, known_commands=snap.activities_included)

    counts = value.get("activityCounts")
    if counts is not None and not isinstance(counts, dict):
        snap.problems.append(f"activityCounts is {type_name(counts)}, expected an object")
    snap.stored_counts = counts if isinstance(counts, dict) else None
    stored_insights = value.get("insights")
    if stored_insights is not None and not isinstance(stored_insights, dict):
        snap.problems.append(f"insights is {type_name(stored_insights)}, expected an object")
    snap.stored_insights = stored_insights if isinstance(stored_insights, dict) else None
    snap.stored_timeline_length = len(stored_timeline) if stored_timeline is not None else None
    snap.mismatch = _compare(snap)
    return snap


def _session_of(activities: list[Activity]) -> str:
    """The session id in the activities' names (`sessions/{session}/activities/{activity}`)."""
    for a in activities:
        name = as_dict(a.raw).get("name")
        if isinstance(name, str) and name.startswith("sessions/"):
            return name.split("/")[1]
    return ""


def _time(value: object, name: str, problems: list[str]) -> tuple[str, int | None]:
    if value is None:
        return "", None
    ms = as_ms(value)
    if ms is None:
        problems.append(f"{name} is {value!r:.60}, expected an ISO time" if isinstance(value, str)
                        else f"{name} is {type_name(value)}, expected an ISO time")
        return "", None
    return (value if isinstance(value, str) else iso(ms) or ""), ms  # ("": a number no calendar names, -1e14)


def _pull_request(value: dict, problems: list[str]) -> dict | None:
    """PR-01/02: `pr`, else the outcome's pull request, else the first pullRequest output."""
    pr = value.get("pr")
    if isinstance(pr, dict):
        return pr
    if pr is not None:
        problems.append(f"pr is {type_name(pr)}, expected an object")
    outcome_pr = as_dict(value.get("outcome")).get("pullRequest")
    if isinstance(outcome_pr, dict):
        return outcome_pr
    for output in as_list(value.get("outputs")):
        if isinstance(output, dict) and isinstance(output.get("pullRequest"), dict):
            if output.get("type") in (None, "pullRequest"):
                return output["pullRequest"]
    return None


def sdk_failed_count(activities: list[Activity]) -> int:
    """What the SDK's computeInsights counts: a left-out exit code is `undefined !== 0`, so failed."""
    return sum(1 for a in activities if any(x.failed or x.exit_code_omitted for x in a.artifacts
                                            if x.kind == "bashOutput"))


def _compare(snap: JulesSnapshot) -> list[str]:
    """Stored derived views that disagree with the ones recomputed from the activities."""
    out: list[str] = []
    if snap.stored_counts is not None:
        keys = list(dict.fromkeys([*snap.stored_counts, *snap.activity_counts]))
        for key in keys:
            stored = snap.stored_counts.get(key, 0)
            mine = snap.activity_counts.get(key, 0)
            if as_int(stored, -1) != mine:
                out.append(f"activityCounts.{key}: stored {stored!r}, recomputed {mine}")
    if snap.stored_insights is not None:
        recomputed = snap.insights.as_dict()
        for key, value in recomputed.items():
            if value is None or key not in snap.stored_insights:
                continue
            stored = snap.stored_insights[key]
            if as_int(stored, -1) == value:
                continue
            if key == "failedCommandCount" and as_int(stored, -1) == sdk_failed_count(snap.activities):
                snap.notes.append(f"insights.failedCommandCount: stored {stored}, recomputed {value}: the SDK counts "
                                  "commands without exitCode as failed (exitCode !== 0), but the API leaves a zero "
                                  "exit code out: they succeeded")
                continue
            out.append(f"insights.{key}: stored {stored!r}, recomputed {value}")
    if snap.stored_timeline_length is not None and snap.activities_included:
        if snap.stored_timeline_length != len(snap.activities):
            out.append(f"timeline: {snap.stored_timeline_length} entries stored, {len(snap.activities)} activities")
    if snap.stored_duration_ms is not None and snap.created_ms is not None and snap.updated_ms is not None:
        if snap.stored_duration_ms != snap.updated_ms - snap.created_ms:
            out.append(f"durationMs: stored {snap.stored_duration_ms}, updatedAt - createdAt is "
                       f"{snap.updated_ms - snap.created_ms}")
    return out


# --- dump --json -------------------------------------------------------------------------------------------

def summary(snap: JulesSnapshot) -> dict:
    """The format-specific part of `dump --json` (SER-01/02: plain JSON, ISO times, failedCommandCount)."""
    commands = snap.commands
    return {
        "id": snap.id or None,
        "state": snap.state or None,
        "url": snap.url or None,
        "title": snap.title or None,
        "createdAt": iso(snap.created_ms),
        "updatedAt": iso(snap.updated_ms),
        "durationMs": snap.duration_ms,
        "activitiesIncluded": snap.activities_included,
        "activityCounts": dict(snap.activity_counts),
        "timelineLength": len(snap.timeline),
        "insights": {**snap.insights.as_dict(), "failedCommandCount": snap.failed_command_count},
        "commands": len(commands) if snap.activities_included else None,
        "pr": {k: snap.pr.get(k) for k in ("url", "title", "description")} if snap.pr else None,
        "storedMismatch": list(snap.mismatch),
        "problems": list(snap.problems),
        "shape": snap.shape,
        "nextPageToken": snap.next_page_token or None,
        "exitCodeOmitted": sum(1 for a in commands if a.exit_code_omitted) if snap.activities_included else None,
        "notes": list(snap.notes),
    }
