"""Export a session (or one sub-agent) as Markdown or JSON: shared by `aiagent-monitor export` and the app's `x`."""

from __future__ import annotations

import os
import re
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
        from tui.model.export_markdown import render as markdown

        return markdown(session, source=source, insights=insights).encode()
    if fmt == "json":
        from tui.model.export_json import export

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


def write_atomic(path: Path, data: bytes) -> Path:
    """Write through a temporary file and a rename, so a reader never sees half a report. Returns the path."""
    path = path.expanduser()
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    return path
