"""Jules activities: one activity (SDK-shaped, REST-shaped or untyped) or one stored timeline entry read into an
Activity, its artifacts (bash output, change sets with their unified diff's files, media), and ISO times as the SDK
writes them. Split from tui.formats.jules.snapshot (the session: shapes, derived views, stored-vs-recomputed), which
reads each activity with `activity` / `from_timeline`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

from tui.model.fields import as_dict, as_list, as_ms, as_str, type_name


ACTIVITY_TYPES = ("planGenerated", "planApproved", "progressUpdated", "sessionCompleted", "sessionFailed",
                  "userMessaged", "agentMessaged")
_REST_MESSAGE_KEYS = {"userMessaged": "userMessage", "agentMessaged": "agentMessage"}
UNTYPED = "activity"  # the type shown for an activity with no type field (only a description)


@dataclass(slots=True)
class Artifact:
    kind: str  # "bashOutput" | "changeSet" | "media" | anything else, as found
    raw: object
    command: str = ""
    output: str = ""
    exit_code: int | None = None
    exit_code_omitted: bool = False  # no exitCode in the file: proto3 left out a zero, the command succeeded
    failed: bool = False
    patch: str = ""
    commit_message: str = ""
    files: list[tuple[str, str, int, int]] = field(default_factory=list)  # (path, change, additions, deletions)
    mime: str = ""
    data_chars: int = 0


@dataclass(slots=True)
class Activity:
    raw: object
    id: str = ""
    type: str = "unknown"
    time: str = ""  # createTime exactly as found (the timeline keeps it as is)
    time_ms: int | None = None
    originator: str = ""
    message: str = ""
    plan_steps: list = field(default_factory=list)
    plan_id: str = ""
    title: str = ""
    description: str = ""  # progressUpdated's own description (the SDK's), else the activity's
    activity_description: str = ""  # the Activity resource's `description` field, as written
    reason: str = ""
    artifacts: list[Artifact] = field(default_factory=list)
    summary: str = ""
    from_timeline: bool = False  # rebuilt from a stored timeline entry (the file had no activities)
    problems: list[str] = field(default_factory=list)

    @property
    def failed_command(self) -> bool:
        return any(a.failed for a in self.artifacts)


def iso(ms: int | None) -> str | None:
    """SER-03: times as ISO strings (what the SDK's toISOString writes)."""
    if ms is None:
        return None
    try:
        dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def _activity_type(node: dict) -> str:
    kind = node.get("type")
    if isinstance(kind, str) and kind:
        return kind
    for name in ACTIVITY_TYPES:
        if name in node:
            return name
    if kind is None:
        return UNTYPED  # the API sends activities with no type field: a description, an originator, artifacts
    return "unknown"


def read_activity(node: object, position: int) -> Activity:
    a = Activity(raw=node)
    if not isinstance(node, dict):
        a.problems.append(f"activity {position} is {type_name(node)}, expected an object")
        a.type = "broken"
        return a
    a.type = _activity_type(node)
    a.id = as_str(node.get("id")) or as_str(node.get("name")).rsplit("/", 1)[-1]
    time = node.get("createTime")
    a.time_ms = as_ms(time)
    a.time = time if isinstance(time, str) else (iso(a.time_ms) or "")
    a.originator = as_str(node.get("originator"))
    rest = as_dict(node.get(a.type))  # the REST shape nests the fields under the type's name
    a.activity_description = as_str(node.get("description"))
    message = node.get("message")
    if message is None and a.type in _REST_MESSAGE_KEYS:
        message = rest.get(_REST_MESSAGE_KEYS[a.type])
    a.message = message if isinstance(message, str) else ("" if message is None else str(message))
    plan = node.get("plan", rest.get("plan"))
    a.plan_steps = as_list(as_dict(plan).get("steps"))
    a.plan_id = as_str(as_dict(plan).get("id")) or as_str(node.get("planId", rest.get("planId")))
    # the type's own fields first: a REST progressUpdated has a description of its own beside the activity's
    a.title = as_str(rest.get("title", node.get("title")))
    a.description = as_str(rest.get("description", node.get("description")))
    reason = rest.get("reason", node.get("reason"))
    if reason is None:
        reason = as_dict(node.get("error")).get("message")  # the spec's "error.message"
    a.reason = reason if isinstance(reason, str) else ("" if reason is None else str(reason))
    artifacts = node.get("artifacts")
    if artifacts is not None and not isinstance(artifacts, list):
        a.problems.append(f"artifacts is {type_name(artifacts)}, expected an array")
    a.artifacts = [_artifact(item, a.problems) for item in as_list(artifacts)]
    return a


def read_timeline_entry(entry: object, position: int) -> Activity:
    a = Activity(raw=entry, from_timeline=True)
    if not isinstance(entry, dict):
        a.problems.append(f"timeline entry {position} is {type_name(entry)}, expected an object")
        a.type = "broken"
        return a
    a.type = as_str(entry.get("type")) or "unknown"
    time = entry.get("time")
    a.time_ms = as_ms(time)
    a.time = time if isinstance(time, str) else (iso(a.time_ms) or "")
    a.summary = as_str(entry.get("summary"))
    return a


def _artifact(node: object, problems: list[str]) -> Artifact:
    if not isinstance(node, dict):
        problems.append(f"artifact is {type_name(node)}, expected an object")
        return Artifact("broken", node)
    kind = node.get("type")
    body = node
    if not isinstance(kind, str):
        kind = next((k for k in ("bashOutput", "changeSet", "media") if isinstance(node.get(k), dict)), "unknown")
        body = as_dict(node.get(kind))
    art = Artifact(kind, node)
    if kind == "bashOutput":
        art.command = _text(body.get("command"))
        art.output = "".join(_text(body.get(k)) for k in ("output", "stdout", "stderr"))
        art.exit_code, art.exit_code_omitted = _exit_code(body.get("exitCode"), problems)
        art.failed = art.exit_code != 0  # INS-04: exitCode !== 0, once proto3's left-out zero is put back
    elif kind == "changeSet":
        patch = as_dict(body.get("gitPatch"))
        art.patch = _text(patch.get("unidiffPatch"))
        art.commit_message = _text(patch.get("suggestedCommitMessage"))
        art.files = parse_unidiff(art.patch)
    elif kind == "media":
        art.mime = as_str(body.get("format")) or as_str(body.get("mimeType"))  # SDK `format`, REST `mimeType`
        data = body.get("data")
        art.data_chars = len(data) if isinstance(data, str) else 0
    return art


def _exit_code(code: object, problems: list[str]) -> tuple[int | None, bool]:
    """(exit code, left out). Proto3 JSON leaves a zero out and writes null for it too; int32 may come as a string."""
    if code is None:
        return 0, True
    if isinstance(code, int) and not isinstance(code, bool):
        return code, False
    if isinstance(code, str) and code.strip().lstrip("-").isdigit():
        return int(code), False
    problems.append(f"exitCode is {type_name(code)} {code!r:.20}, expected a number")
    return None, False


def _text(value: object) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def parse_unidiff(patch: str) -> list[tuple[str, str, int, int]]:
    """Files of a unified diff: (path, created|modified|deleted, additions, deletions)."""
    files: list[tuple[str, str, int, int]] = []
    path, change, adds, dels = "", "modified", 0, 0
    old = ""
    started = False

    def close() -> None:
        if started:
            files.append((path or old or "?", change, adds, dels))

    for line in patch.splitlines():
        if line.startswith("diff --git "):
            close()
            started, path, old, change, adds, dels = True, "", "", "modified", 0, 0
            parts = line.split(" b/", 1)
            path = parts[1] if len(parts) == 2 else ""
        elif line.startswith("--- "):
            if not started:
                started, path, change, adds, dels = True, "", "modified", 0, 0
            old = line[4:].removeprefix("a/")
            if line[4:].strip() == "/dev/null":
                change = "created"
        elif line.startswith("+++ "):
            target = line[4:]
            if target.strip() == "/dev/null":
                change = "deleted"
                path = path or old
            else:
                path = target.removeprefix("b/")
        elif started and line.startswith("+"):
            adds += 1
        elif started and line.startswith("-"):
            dels += 1
    close()
    return files
