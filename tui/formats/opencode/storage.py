"""OpenCode's JSON storage as files: one session is spread over many small files below one storage root.

OpenCode (sst/opencode, packages/opencode/src/storage/storage.ts: `Storage.write(key, content)` writes
`<root>/<key...>.json`, pretty-printed, the root being `$XDG_DATA_HOME/opencode/storage`, by default
`~/.local/share/opencode/storage`) keeps a session as:

- `session/<projectID>/<sessionID>.json`: the session's Info (id, projectID, directory, parentID for a sub-agent's
  session, title, version, time {created, updated}); the browser lists these files, one row each;
- `message/<sessionID>/<messageID>.json`: each message's Info (role user / assistant, time, model, tokens, cost,
  error) without its content;
- `part/<messageID>/<partID>.json`: the content, one part a file (text, reasoning, tool, step-start /
  step-finish, file, patch, compaction, subtask, ...).

Ids are time-ordered (`Identifier.ascending`), so file names sort in the order they were written, as OpenCode's own
`Storage.list` sorts them. Nothing here raises on bad input: a file that cannot be read or parsed is a problem
(its message still shows, by the id its file name gives); a folder holds at most a bounded number of files.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from tui.inputs import json_load
from tui.inputs.files import open_regular

FILE_MAX_BYTES = 64 * 1024 * 1024  # one message or part file (a huge tool output is one part)
FILES_MAX = 20_000  # messages of a session, or parts of a message, read at most
_SAFE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


@dataclass(slots=True)
class StoredMessage:
    message_id: str
    info: dict  # {} when the message's own file is missing or broken (its parts are still read)
    parts: list[dict] = field(default_factory=list)


@dataclass(slots=True)
class StoredSession:
    info: dict
    messages: list[StoredMessage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def storage_root(session_file: str) -> Path | None:
    """The storage root of a session Info file at `<root>/session/<projectID>/<sessionID>.json`, or None when the
    file is not in that place (a copy alone: its messages cannot be found)."""
    path = Path(session_file)
    if path.parent.parent.name != "session":
        return None
    return path.parent.parent.parent


def project_of(info: dict, session_file: str) -> str:
    """The project a session belongs to: its project's `worktree` from `<root>/project/<projectID>.json` (the
    folder it works in) when that file is there, else the `projectID` (a hash); `global` (sessions outside any
    git repository, whose worktree is "/") stays `global`. A projectID that is not a plain file name is never
    looked up."""
    project_id = info.get("projectID")
    if not isinstance(project_id, str) or not project_id:
        return ""
    root = storage_root(session_file)
    if root is not None and project_id != "global" and _SAFE_ID.fullmatch(project_id):
        file = root / "project" / f"{project_id}.json"
        project = read_json(file, [], "project") if file.is_file() else None
        worktree = project.get("worktree") if isinstance(project, dict) else None
        if isinstance(worktree, str) and worktree.strip():
            return worktree
    return project_id


def read_json(path: Path, problems: list[str], what: str) -> object:
    """A JSON file's value, or None (and a problem said) when it cannot be read or parsed."""
    try:
        with open_regular(path) as fh:
            data = fh.read(FILE_MAX_BYTES + 1)
    except OSError as exc:
        problems.append(f"{what} {path.name}: cannot be read ({exc.strerror or exc.__class__.__name__})")
        return None
    if len(data) > FILE_MAX_BYTES:
        problems.append(f"{what} {path.name}: over {FILE_MAX_BYTES // (1024 * 1024)} MiB, not read")
        return None
    try:
        return json_load.loads(data)
    except (orjson.JSONDecodeError, RecursionError) as exc:
        problems.append(f"{what} {path.name}: not valid JSON ({str(exc)[:120]}), maybe cut while written")
        return None


def json_files(folder: Path, problems: list[str]) -> list[Path]:
    """The `*.json` files of a folder in name order (temp files and hidden ones skipped); [] when it is absent."""
    try:
        names = [e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.name[0] != "."]
    except OSError:
        return []
    names.sort()
    if len(names) > FILES_MAX:
        problems.append(f"{folder.name}: {len(names):,} files, only the first {FILES_MAX:,} read")
        del names[FILES_MAX:]
    return [folder / name for name in names]


def read_session(info: dict, session_file: str) -> StoredSession:
    """The session whose Info is `info` (read from `session_file`), with its messages and their parts."""
    stored = StoredSession(info)
    root = storage_root(session_file)
    # the file's name is the session id (OpenCode's own JSON-to-SQLite migration goes by the names: an older
    # migration moved files without updating their content); its `id` when the name is not one
    sid = Path(session_file).name.removesuffix(".json")
    if not _SAFE_ID.fullmatch(sid):
        sid = info["id"] if isinstance(info.get("id"), str) else ""
    if root is None or not _SAFE_ID.fullmatch(sid):
        stored.problems.append("the session file is not in an OpenCode storage folder (session/<project>/): "
                               "its messages cannot be found")
        return stored
    for file in json_files(root / "message" / sid, stored.problems):
        value = read_json(file, stored.problems, "message")
        mid = file.name.removesuffix(".json")
        message = StoredMessage(mid, value if isinstance(value, dict) else {})
        if value is not None and not isinstance(value, dict):
            stored.problems.append(f"message {file.name}: not an object")
        if _SAFE_ID.fullmatch(mid):
            for part_file in json_files(root / "part" / mid, stored.problems):
                part = read_json(part_file, stored.problems, "part")
                if isinstance(part, dict):
                    message.parts.append(part)
                elif part is not None:
                    stored.problems.append(f"part {part_file.name}: not an object")
        stored.messages.append(message)
    return stored


def child_session_file(session_file: str, child_id: str) -> Path | None:
    """The Info file of a sub-agent's session (a `task` tool call names it): beside the parent's, in the same
    project folder, else in any project folder of the storage root."""
    if not _SAFE_ID.fullmatch(child_id):
        return None
    here = Path(session_file).parent / f"{child_id}.json"
    if here.is_file():
        return here
    root = storage_root(session_file)
    if root is None:
        return None
    try:
        projects = [e.name for e in os.scandir(root / "session") if e.is_dir() and e.name[0] != "."]
    except OSError:
        return None
    for project in projects[:1000]:
        candidate = root / "session" / project / f"{child_id}.json"
        if candidate.is_file():
            return candidate
    return None
