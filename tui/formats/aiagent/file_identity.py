"""Does a snapshot file hold the session it is named after? (formats.md §6, the producer's orchestration bug.)

ai-agent writes a session's snapshot to `<originId>.json.gz`. A handoff child shares its master's originId, so its
final snapshot replaces the master's file: the file then holds a tree whose root `traceId` is not the id in its
name, and the master's own tree is gone (its cost survives only in accounting.jsonl). (A sub-agent's final snapshot
goes to the same file too, until its parent writes again: a run killed in between leaves the same.) Such a file must
say so wherever it is shown, never pass for the master. Only names the producer writes (a UUID) are compared: a file a
person renamed says nothing about what it should hold.
"""

from __future__ import annotations

import re

from tui.model.fields import one_line

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SUFFIXES = (".json.gz", ".json", ".gz")
MARK = "≠ misfiled"  # what a browser row's title starts with (a filter finds "misfiled"): it holds another session


def file_id(path: str) -> str:
    """The session id a snapshot file's name gives (`<id>.json.gz`), "" when the name is not the producer's."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name if _UUID.fullmatch(name) else ""


def misfiled(path: str, trace_id: str) -> str:
    """The id in the file's name when the file holds another session (its root's `traceId` differs), else ""."""
    named = file_id(path)
    if not named or not trace_id or trace_id.lower() == named.lower():
        return ""
    return named


def misfiled_title(trace_id: str, who: str, title: str) -> str:
    """A browser row's title for a file that holds another session: the mark, whom it holds, then its title."""
    holder = f"{one_line(who, 60)} {trace_id[:8]}" if who else trace_id[:8]
    return f"{MARK}: holds {holder} · {title}"


def misfiled_note(named: str, trace_id: str, who: str) -> str:
    """The sentence every view shows for a file named after session `named` that holds session `trace_id`."""
    holder = f"{trace_id} ({one_line(who, 60)})" if who else trace_id
    return (f"file named after session {named} holds another session, {holder}: a session of the same run "
            f"(a handoff child, or a sub-agent whose parent never wrote again) overwrote it; session {named} "
            f"itself is not in this file (accounting.jsonl may still hold its entries)")

