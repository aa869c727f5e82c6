"""A Jules snapshot as a Session tree, and what the screens show of it (facts, details, payloads, timeline).

The session is the root. Turn 0 holds the initial prompt's work; every user message (a user intervention) opens
the next turn. Each activity is an op whose kind is its Jules type; each artifact follows its activity as an op
of its own: a bash command (kind `tool`, failed when its exit code is not 0, its output as the payload), a patch
(kind `patch`, the diff as the payload) or a media file. An op lasts until the next activity.
"""

from __future__ import annotations

from typing import cast

from tui.formats.jules.activity import UNTYPED, Activity, Artifact
from tui.formats.jules.snapshot import JulesSnapshot
from tui.model.capture import Capture
from tui.model.fields import one_line
from tui.model.foreign import Fact, Facts, ForeignOp, ForeignSession, Section, session_facts
from tui.model.format import fmt_duration
from tui.model.logs import LogEntry
from tui.model.nodes import Op, Turn

ARTIFACT_KINDS = {"bashOutput": "tool", "changeSet": "patch", "media": "media"}
_SEVERITY = {"sessionFailed": "ERR", "sessionCompleted": "FIN", "userMessaged": "INF", "planGenerated": "INF"}
PLAN_STEPS_SHOWN = 50
OUTPUT_LINES_LOGGED = 200


def build_tree(snap: JulesSnapshot) -> ForeignSession:
    s = ForeignSession(JULES_VIEW, snap)
    s.raw = snap.raw
    s.id = snap.id
    s.trace_id = snap.id
    s.agent_id = "jules"
    s.title = snap.title or one_line(snap.prompt, 80) or _first_user_message(snap)
    s.latest_status = snap.state
    s.counts.sessions = 1
    s.totals.agentsRun = 1
    s.problems = list(snap.problems)
    times = [a.time_ms for a in snap.activities if a.time_ms is not None]
    s.started_at = snap.created_ms if snap.created_ms is not None else (min(times) if times else None)
    end = snap.updated_ms if snap.updated_ms is not None else (max(times) if times else None)
    s.ended_at = end if end is not None else s.started_at
    outcome = snap.outcome
    s.success = True if outcome == "completed" else False if outcome == "failed" else None
    failures = [a.reason for a in snap.activities if a.type == "sessionFailed"]
    if failures:
        s.error = failures[-1] or "session failed"
    elif outcome == "failed":
        s.error = f"state {snap.state}"

    next_times: list[int | None] = [None] * len(snap.activities)
    upcoming = end
    for i in range(len(snap.activities) - 1, -1, -1):
        next_times[i] = upcoming
        if snap.activities[i].time_ms is not None:
            upcoming = snap.activities[i].time_ms
    turn = _turn(s, 0, "prompt", snap.prompt, s.started_at)
    for i, activity in enumerate(snap.activities):
        if activity.type == "userMessaged":
            if turn.ops or turn.prompts:
                turn = _turn(s, turn.index + 1, "user", activity.message, activity.time_ms)
            else:  # no prompt in the file: the first user message is where it starts
                turn.label, turn.prompts = "user", {"user": activity.message}
        _activity_ops(turn, activity, next_times[i])
    for i, t in enumerate(s.turns):
        later = s.turns[i + 1].started_at if i + 1 < len(s.turns) else None
        t.ended_at = later if later is not None else s.ended_at
        if t.started_at is None and t.ops:
            t.started_at = t.ops[0].started_at
        if any(op.kind == "sessionFailed" for op in t.ops):
            t.status = "failed"
    s.counts.turns = len(s.turns)
    return s


def _first_user_message(snap: JulesSnapshot) -> str:
    """A title for an activities page (no session fields): its first user message, else its first description."""
    for a in snap.activities:
        if a.type == "userMessaged" and a.message:
            return one_line(a.message, 80)
    for a in snap.activities:
        if a.activity_description:
            return one_line(a.activity_description, 80)
    return ""


def _turn(s: ForeignSession, index: int, label: str, prompt: str, started: int | None) -> Turn:
    t = Turn(s, "turn", index)
    t.label = label
    t.prompts = {"user": prompt} if prompt else None
    t.started_at = started
    s.turns.append(t)
    return t


def _new_op(turn: Turn, kind: str, raw: object, info: object) -> ForeignOp:
    s = turn.session
    op = ForeignOp(turn, f"{turn.index}-{len(turn.ops) + 1}", JULES_VIEW, info)
    op.raw = raw if isinstance(raw, dict) else None
    op.kind = kind
    op.status = "ok"
    s.counts.ops += 1
    turn.ops.append(op)
    return op


def _activity_ops(turn: Turn, a: Activity, next_ms: int | None) -> None:
    s = turn.session
    op = _new_op(turn, a.type, a.raw, a)
    op.op_id = a.id
    op.name = a.summary or a.type
    op.provider = a.originator
    op.started_at = a.time_ms
    op.ended_at = next_ms if next_ms is not None and a.time_ms is not None and next_ms >= a.time_ms else a.time_ms
    op.problems = list(a.problems)
    if a.type == "sessionFailed":
        op.status = "failed"
        op.error = a.reason or "session failed"
        s.counts.failed += 1
    for art in a.artifacts:
        aop = _new_op(turn, ARTIFACT_KINDS.get(art.kind, art.kind), art.raw, art)
        aop.op_id = a.id
        aop.started_at, aop.ended_at = op.started_at, op.ended_at
        if art.kind == "bashOutput":
            aop.name = one_line(art.command, 200) or "(no command)"
            aop.provider = "bash"
            s.counts.tool += 1
            s.totals.toolsRun += 1
            if art.failed:
                aop.status = "failed"
                aop.error = f"exit {art.exit_code}" if art.exit_code is not None else "no exit code"
                s.counts.failed += 1
                s.counts.errors += 1
        elif art.kind == "changeSet":
            aop.name = patch_title(art)
        elif art.kind == "media":
            aop.name = f"{art.mime or 'media'} ({art.data_chars:,} base64 chars)"
        else:
            aop.name = art.kind
            aop.problems.append(f"unknown artifact type {art.kind!r}")


def patch_title(art: Artifact) -> str:
    adds = sum(f[2] for f in art.files)
    dels = sum(f[3] for f in art.files)
    names = ", ".join(f[0] for f in art.files[:3]) + (", …" if len(art.files) > 3 else "")
    return f"{len(art.files)} file{'s' if len(art.files) != 1 else ''} +{adds} -{dels}  {names}".rstrip()


class JulesView:
    """What the screens show of a Jules node beyond the generic tree."""

    tree_title = "Jules activities"

    def facts(self, session) -> Facts:
        snap: JulesSnapshot = session.info
        ins = snap.insights
        failed = snap.failed_command_count
        cells = [
            Fact("state", snap.state or "?", _state_tone(snap)),
            Fact("duration", fmt_duration(snap.duration_ms)),
            Fact("activities", f"{len(snap.activities):,}"),
            Fact("turns", f"{len(session.turns):,}"),
            Fact("commands", f"{len(snap.commands):,}" if snap.activities_included else "?"),
            Fact("failed cmds", "?" if failed is None else f"{failed:,}", "bad" if failed else ""),
            Fact("completions", f"{ins.completion_attempts:,}"),
            Fact("plans", f"{ins.plan_regenerations:,}"),
            Fact("user msgs", f"{ins.user_interventions:,}", "warn" if ins.user_interventions else ""),
            Fact("pull request", "yes" if snap.pr else "no", "good" if snap.pr else "dim"),
        ]
        patches = [a for act in snap.activities for a in act.artifacts if a.kind == "changeSet"]
        if patches:
            files = {f[0] for p in patches for f in p.files}
            adds = sum(f[2] for p in patches for f in p.files)
            dels = sum(f[3] for p in patches for f in p.files)
            cells.append(Fact("files", f"{len(files)} +{adds} -{dels}"))
        for kind, n in snap.activity_counts.items():
            cells.append(Fact(kind, f"{n:,}", "dim"))
        warnings = [f"stored {m}" for m in snap.mismatch] if snap.mismatch else []
        warnings.extend(f"note: {n}" for n in snap.notes)
        if not snap.activities_included:
            warnings.insert(0, "no activities in the file: the tree is its stored timeline")
        if snap.shape == "activitiesPage":
            warnings.insert(0, "one page of GET .../activities: no session fields (state, prompt, times)"
                            + ("; more activities on the next page (nextPageToken)" if snap.next_page_token else ""))
        return Facts("Jules insights", cells, warnings)

    def sections(self, node: object) -> list[Section]:
        if isinstance(node, ForeignSession):
            out = _session_sections(cast(JulesSnapshot, node.info))  # (a Jules tree's sessions hold one)
            out[0].fields[0:0] = [Fact("id", node.id)] + [f for f in session_facts(node)
                                                           if f.label in ("title", "error", "broken")]
            return out
        if isinstance(node, ForeignOp):
            if isinstance(node.info, Activity):
                return _activity_sections(node.info)
            if isinstance(node.info, Artifact):
                return _artifact_sections(node.info)
        return []

    def captures(self, op: Op) -> list[Capture]:
        info = getattr(op, "info", None)
        if isinstance(info, Artifact):
            if info.kind == "bashOutput":
                return [_plain("request", info.command), _plain("response", info.output)]
            if info.kind == "changeSet":
                return [_plain("response", info.patch)]
            if info.kind == "media":
                body = info.raw.get("data", info.raw.get("media", {})) if isinstance(info.raw, dict) else None
                if isinstance(body, dict):
                    body = body.get("data")
                if isinstance(body, str):
                    return [Capture("response", "raw", "", "inline", value=body, size=len(body) * 3 // 4)]
            return [Capture("response", "payload", "json", "plain", plain=info.raw)] if info.raw is not None else []
        if isinstance(info, Activity):
            if info.type in ("userMessaged", "agentMessaged") and info.message:
                return [_plain("response", info.message)]
            if info.raw is not None:
                return [Capture("response", "payload", "json", "plain", plain=info.raw)]
        return []

    def logs(self, op: Op) -> list[LogEntry]:
        info = getattr(op, "info", None)
        if isinstance(info, Artifact):
            if info.kind != "bashOutput":
                return [LogEntry(op.started_at, "VRB", f"[{info.kind}] {op.name}", op.path, op, None)]
            code = info.exit_code if info.exit_code is not None else "?"
            entries = [LogEntry(op.started_at, "ERR" if op.failed else "INF",
                                f"$ {one_line(info.command, 300)}  → exit {code}", op.path, op, None)]
            lines = info.output.splitlines()
            for line in lines[:OUTPUT_LINES_LOGGED]:  # the command's output under it, like a terminal
                entries.append(LogEntry(op.started_at, "VRB", "  " + line, op.path, op, None))
            if len(lines) > OUTPUT_LINES_LOGGED:
                entries.append(LogEntry(op.started_at, "VRB", f"  … {len(lines) - OUTPUT_LINES_LOGGED:,} more lines "
                                        "(Enter: the whole output)", op.path, op, None))
            return entries
        if isinstance(info, Activity):
            severity = _SEVERITY.get(info.type, "VRB")
            return [LogEntry(info.time_ms, severity, f"[{info.type}] {info.summary}", op.path, op, None)]
        return []


JULES_VIEW = JulesView()


def _plain(side: str, text: str) -> Capture:
    return Capture(side, "payload", "text", "plain", plain=text, size=len(text.encode("utf-8", "replace")))


def _state_tone(snap: JulesSnapshot) -> str:
    return {"completed": "good", "failed": "bad"}.get(snap.outcome, "warn")


def _session_sections(snap: JulesSnapshot) -> list[Section]:
    out = [Section("Jules session", [
        Fact("shape", {"snapshot": "SDK snapshot (toJSON)", "session": "Session resource",
                       "activitiesPage": "activities page (GET .../activities)"}.get(snap.shape, snap.shape)),
        Fact("state", snap.state, _state_tone(snap)),
        Fact("url", snap.url),
        Fact("created", snap.created_at),
        Fact("updated", snap.updated_at),
        Fact("durationMs", "" if snap.duration_ms is None else f"{snap.duration_ms:,}"),
    ])]
    if snap.prompt:
        out.append(Section("Prompt", text=snap.prompt))
    if snap.pr:
        pr = snap.pr
        out.append(Section("Pull request", [Fact("title", _s(pr.get("title"))), Fact("url", _s(pr.get("url")))],
                           text=_s(pr.get("description"))))
    ins = snap.insights.as_dict()
    ins["failedCommandCount"] = snap.failed_command_count
    out.append(Section("Insights", [Fact(k, "?" if v is None else str(v), "bad" if k.startswith("failed") and v
                                         else "") for k, v in ins.items()]))
    out.append(Section("Activity counts", [Fact(k, str(v)) for k, v in snap.activity_counts.items()]))
    failed = snap.insights.failed_commands or []
    if failed:
        lines = [f"{a.time}  $ {one_line(art.command, 200)}  → exit {art.exit_code if art.exit_code is not None else '?'}"
                 for a in failed for art in a.artifacts if art.failed]
        out.append(Section(f"Failed commands ({len(lines)})", text="\n".join(lines), tone="bad"))
    if snap.generated_files:
        rows = [f"{_s(f.get('changeType'))} {_s(f.get('path'))} +{f.get('additions')} -{f.get('deletions')}"
                for f in snap.generated_files[:100] if isinstance(f, dict)]
        out.append(Section("Generated files", text="\n".join(rows)))
    if snap.next_page_token:
        out.append(Section("More activities", [Fact("nextPageToken", snap.next_page_token)],
                           text="This file is one page of the activities list: the next page is not in it."))
    if snap.mismatch:
        out.append(Section("Stored views disagree with the activities", text="\n".join(snap.mismatch), tone="warn"))
    if snap.notes:
        out.append(Section("Stored views explained", text="\n".join(snap.notes)))
    return out


def _activity_sections(a: Activity) -> list[Section]:
    fields = [Fact("type", a.type if a.type != UNTYPED else "(none: the activity has no type field)"),
              Fact("id", a.id), Fact("originator", a.originator), Fact("createTime", a.time)]
    if a.activity_description and a.type != UNTYPED and a.activity_description != a.description:
        fields.append(Fact("description", a.activity_description))
    if a.from_timeline:
        fields.append(Fact("source", "stored timeline entry (the file has no activities)", "dim"))
    out = [Section("Jules activity", fields)]
    if a.type in ("userMessaged", "agentMessaged"):
        out.append(Section("Message", text=a.message))
    elif a.type == "planGenerated":
        lines = []
        for n, step in enumerate(a.plan_steps[:PLAN_STEPS_SHOWN], 1):
            if isinstance(step, dict):
                title = _s(step.get("title"))
                desc = _s(step.get("description"))
                lines.append(f"{n}. {title}" + (f"\n   {desc}" if desc else ""))
            else:
                lines.append(f"{n}. {_s(step)}")
        if len(a.plan_steps) > PLAN_STEPS_SHOWN:
            lines.append(f"… {len(a.plan_steps) - PLAN_STEPS_SHOWN} more steps")
        out.append(Section(f"Plan ({len(a.plan_steps)} steps)", [Fact("plan id", a.plan_id)], text="\n".join(lines)))
    elif a.type == "planApproved":
        out.append(Section("Approval", [Fact("plan id", a.plan_id)]))
    elif a.type == "progressUpdated":
        out.append(Section("Progress", [Fact("title", a.title)], text=a.description))
    elif a.type == "sessionFailed":
        out.append(Section("Failure", text=a.reason or "(no reason given)", tone="bad"))
    elif a.type == UNTYPED:
        out.append(Section("Description", text=a.activity_description or "(none)"))
    elif a.from_timeline:
        out.append(Section("Summary", text=a.summary))
    if a.artifacts:
        out.append(Section("Artifacts", [Fact(art.kind, _artifact_line(art), "bad" if art.failed else "")
                                         for art in a.artifacts]))
    return out


def _artifact_line(art: Artifact) -> str:
    if art.kind == "bashOutput":
        return f"$ {art.command}  → exit {art.exit_code if art.exit_code is not None else '?'}"
    if art.kind == "changeSet":
        return patch_title(art)
    if art.kind == "media":
        return art.mime
    return ""


def _artifact_sections(art: Artifact) -> list[Section]:
    if art.kind == "bashOutput":
        code = "none" if art.exit_code is None else str(art.exit_code)
        if art.exit_code_omitted:
            code = "0 (left out: the API omits a zero exit code)"
        return [
            Section("Command", [Fact("exit code", code, "bad" if art.failed else "good")], text=f"$ {art.command}"),
            Section("Output" + (" (failed)" if art.failed else ""), text=art.output or "(no output)",
                    tone="bad" if art.failed else ""),
        ]
    if art.kind == "changeSet":
        lines = [f"{change:8} +{adds:<5} -{dels:<5} {path}" for path, change, adds, dels in art.files[:200]]
        out = [Section("Patch", [Fact("files", str(len(art.files)))], text="\n".join(lines))]
        if art.commit_message:
            out.append(Section("Suggested commit message", text=art.commit_message))
        return out
    if art.kind == "media":
        return [Section("Media", [Fact("format", art.mime), Fact("base64 chars", f"{art.data_chars:,}")])]
    return [Section("Artifact", [Fact("type", art.kind)])]


def _s(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)
