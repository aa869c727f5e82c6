"""Export a session (or one sub-agent) as Markdown or JSON: shared by `aiagent-monitor export` and the app's `x`."""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from tui.model.nodes import Session
from tui.model.search import find_op_by_path, walk_ops

FORMATS = {"markdown": ".md", "json": ".json"}
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class ExportError(Exception):
    """A selection that names no sub-agent, or several."""


def render(session: Session, fmt: str, *, source: str = "", source_format: str = "") -> bytes:
    from tui.model.insights import compute

    insights = compute(session)
    if fmt == "markdown":
        from tui.text.export_markdown import render as markdown

        return markdown(session, source=source, insights=insights).encode()
    if fmt == "json":
        from tui.text.export_json import export

        value = export(session, source=source, source_format=source_format, insights=insights)
        from tui.model.json_text import dumps

        # orjson when it can; the stdlib past orjson's limits (integers beyond 64 bits, more than 255 levels)
        return dumps(value, indent=True) + b"\n"
    raise ExportError(f"unknown format {fmt!r}: use {' or '.join(FORMATS)}")


def default_filename(session: Session, fmt: str) -> str:
    """`<session id>.md` / `.json`: the trace id (else the internal id), with the sub-agent's path for a child."""
    base = session.trace_id or session.id or "session"
    if session.parent_op is not None and not session.trace_id:
        base = f"{base}-{session.path_prefix}"
    base = _UNSAFE_NAME.sub("_", base).strip("._") or "session"
    return base[:120] + FORMATS.get(fmt, ".txt")


def select(root: Session, *, session: str | None = None, op: str | None = None) -> Session:
    """The session to export: the root, the sub-agent of op `op`, or the one `session` names.

    `session` is a sub-agent's path prefix (the path of its op, e.g. `1-2.3-1`), or a prefix of its id / trace id,
    or its agent id / call path when exactly one sub-agent has it.
    """
    if op is not None:
        found = find_op_by_path(root, op)
        if found is None:
            raise ExportError(f"no op at path {op}")
        if found.child is None:
            raise ExportError(f"op {op} is not a sub-agent (its kind is {found.kind})")
        return found.child
    if session is None or session == "":
        return root
    found = find_op_by_path(root, session)
    if found is not None and found.child is not None:
        return found.child
    sessions = [root] + [o.child for o in walk_ops(root) if o.child is not None]
    hits = [s for s in sessions if (s.id and s.id.startswith(session)) or (s.trace_id and s.trace_id.startswith(session))]
    if not hits:
        hits = [s for s in sessions if session in (s.agent_id, s.call_path)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise ExportError(f"no session matches {session!r} (give a sub-agent's op path, id or trace id prefix, "
                          "or agent id)")
    where = ", ".join(s.path_prefix or "(root)" for s in hits[:8])
    raise ExportError(f"{len(hits)} sessions match {session!r} (at {where}): give the op path of one")


class RefusedTarget(OSError):
    """A file name the monitor will not write to: a symbolic link, not a regular file, inside a sessions
    directory, or (without overwrite) an existing file."""


def check_target(path: Path, *, sessions_dirs=(), overwrite: bool = True) -> Path:
    """`path` with ~ expanded, or RefusedTarget saying why the monitor will not write there.

    A symbolic link at the name is refused (writing through it would reach a file the user never named; replacing
    it would surprise whoever made it), so is anything but a regular file, and any place inside a sessions directory
    (the producer owns it: the monitor never writes there)."""
    path = path.expanduser()
    try:
        target = Path(os.path.realpath(path.parent)) / path.name
    except (OSError, ValueError):
        target = Path(os.path.abspath(path))
    for folder in sessions_dirs:
        if folder is None:
            continue
        try:
            home = Path(os.path.realpath(Path(folder).expanduser()))
        except (OSError, ValueError):
            continue
        if target == home or target.is_relative_to(home):
            raise RefusedTarget(f"{path} is inside the sessions directory {home}: the monitor never writes there; "
                                f"choose another directory")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(mode):
        raise RefusedTarget(f"{path} is a symbolic link: refusing to write through it (remove it, or choose "
                            f"another name)")
    if not stat.S_ISREG(mode):
        raise RefusedTarget(f"{path} exists and is not a regular file")
    if not overwrite:
        raise FileExistsError(f"{path} exists")
    return path


def write_atomic(path: Path, data: bytes, *, sessions_dirs=(), overwrite: bool = True) -> Path:
    """Write through a new temporary file and a rename, so a reader never sees half a report. Returns the path.

    The temporary file is created next to the target with an unpredictable name, O_CREAT|O_EXCL and mode 0600
    (nothing planted there is followed or reused), then given the mode a new file gets under the umask (or the mode
    of the file it replaces) and renamed over the target; the rename replaces a name, never follows a link.
    check_target's refusals apply first."""
    path = check_target(Path(path), sessions_dirs=sessions_dirs, overwrite=overwrite)
    try:
        final_mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        final_mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name[:100]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), final_mode)
        if overwrite or not _link_new(tmp, path):
            os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _link_new(tmp: str, path: Path) -> bool:
    """Give the written file its name only if nothing took that name meanwhile (FileExistsError then); False
    where the file system has no hard links (then check_target's earlier look is all there is)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        return False
    os.unlink(tmp)
    return True


def _umask() -> int:
    """The process umask without changing it (other threads may be creating files): /proc/self/status on Linux."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
