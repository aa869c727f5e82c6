"""Open any input a producer writes and say which format it is: the detection table and the single entry point of the
format readers (ai-agent snapshot, v3 ledger, accounting.jsonl here; Jules and Genkit through tui.formats.foreign_load).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from tui.formats.aiagent.accounting import looks_like_accounting, summarise_accounting
from tui.formats.aiagent.child_refs import link_child_refs
from tui.formats.aiagent.ledger import is_ledger_record, ledger_document, parse_records, sessions_dir_for_ledger
from tui.formats.aiagent import heads
from tui.formats.aiagent.file_identity import misfiled
from tui.formats.aiagent.snapshot import build_lazy_session, build_session
from tui.inputs import json_load
from tui.inputs.files import GZIP_MAGIC, LoadError, document_limit, read_source
from tui.model.document import ACCOUNTING, SNAPSHOT, Document
from tui.model.fields import as_int, as_str, type_name
from tui.model.gc_pause import paused_gc, paused_gc_then_frozen

def load(path: str, sessions_dir: str | Path | None = None, max_bytes: int | None = None, *,
         data: bytes | bytearray | None = None) -> Document:
    """The document at `path`; `data`: its content (decompressed) when it was read already."""
    with paused_gc():
        return _load(path, sessions_dir, max_bytes, data)


def load_frozen(path: str, sessions_dir: str | Path | None = None, *, data: bytes | None = None) -> Document:
    """load() for a long-lived process (the app), the result moved out of the collector's reach; `data`: the
    file's content when it was read already."""
    with paused_gc_then_frozen():
        return _load(path, sessions_dir, None, data)


def _load(path: str, sessions_dir: str | Path | None, max_bytes: int | None,
          data: bytes | bytearray | None = None) -> Document:
    from tui.formats.opencode.database import database_path

    database = database_path(path)  # an OpenCode database, or one of its sessions (`opencode.db#ses_...`)
    if database is not None:
        from tui.formats.agents import database_document

        return database_document(*database, path, Path(sessions_dir) if sessions_dir is not None else None)
    if data is None and path != "-" and os.path.isdir(path):
        from tui.formats.foreign_load import load_dir

        return load_dir(path, document_limit() if max_bytes is None else max_bytes)
    if data is None:
        data = read_source(path, max_bytes)
    if sessions_dir is None and path != "-":
        p = Path(path)
        sessions_dir = sessions_dir_for_ledger(p) if p.suffix == ".jsonl" else p.resolve().parent
    return _load_bytes(data, path, Path(sessions_dir) if sessions_dir is not None else None)


def load_bytes(data: bytes, path: str, sessions_dir: Path | None = None) -> Document:
    with paused_gc():
        return _load_bytes(data, path, sessions_dir)


def _load_bytes(data: bytes, path: str, sessions_dir: Path | None) -> Document:
    doc = _load_lazy(data, path, sessions_dir)
    if doc is not None:
        return doc
    from tui.formats import agents  # Claude Code, Codex CLI, Gemini CLI session files

    agent = agents.detect(data)
    if agent is not None:
        return agents.document(agent, data, path, sessions_dir)
    try:
        value = json_load.loads(data)
    except orjson.JSONDecodeError as exc:
        return _load_lines(data, path, sessions_dir, exc)
    if isinstance(value, dict) and is_ledger_record(value):
        return ledger_document([value], path, sessions_dir, [])
    if looks_like_accounting(value):
        return _accounting([value], path)
    return from_object(value, path, sessions_dir)


def _load_lazy(data: bytes, path: str, sessions_dir: Path | None) -> Document | None:
    """A snapshot file read through tui.formats.aiagent.heads (payloads and logs left as bytes until opened); None
    for any other input, or a snapshot of a shape the heads cannot take: the full parse reads those."""
    try:
        found = heads.envelope(data)
        if found is None:
            return None
        env, where = found
        root = build_lazy_session(env.opTree, where)  # type: ignore[arg-type]
    except (*heads.DecodeError, RecursionError):
        return None
    doc = Document(SNAPSHOT, path, sessions_dir=sessions_dir)
    fields = heads.envelope_fields(env)
    doc.version = as_int(fields["version"], 0) or None
    doc.shape = f"file-v{doc.version}" if doc.version else "file"
    _envelope_fields(doc, fields)
    doc.root = root
    root.misfiled = misfiled(path, root.trace_id)
    link_child_refs(doc.root, sessions_dir)
    return doc


def from_object(value: object, path: str, sessions_dir: Path | None = None) -> Document:
    """A snapshot file, a live wire envelope or a bare SessionNode, already parsed."""
    if not isinstance(value, dict):
        return _foreign(value, path, sessions_dir, f"top level is {type_name(value)}, expected a snapshot object")
    doc = Document(SNAPSHOT, path, sessions_dir=sessions_dir)
    if "opTree" in value:
        tree = value["opTree"]
        doc.version = as_int(value.get("version"), 0) or None
        doc.shape = f"file-v{doc.version}" if doc.version else "file"
        _envelope_fields(doc, value)
    elif isinstance(value.get("snapshot"), dict):
        inner = value["snapshot"]
        if "opTree" not in inner:
            raise LoadError(path, "envelope has no snapshot.opTree")
        tree = inner["opTree"]
        doc.version = as_int(inner.get("version"), 0) or None
        doc.shape = "envelope"
        _envelope_fields(doc, value)
    elif "turns" in value:
        tree = value
        doc.shape = "bare"
    else:
        keys = ", ".join(list(value)[:8]) or "none"
        return _foreign(value, path, sessions_dir,
                        f"not an ai-agent snapshot: no opTree, snapshot or turns (keys: {keys})")
    if not isinstance(tree, dict):
        raise LoadError(path, f"opTree is {type_name(tree)}, expected an object")
    doc.root = build_session(tree)
    doc.root.misfiled = misfiled(path, doc.root.trace_id)
    link_child_refs(doc.root, sessions_dir)  # sub-agents a snapshot names by reference, from their v3 ledgers
    return doc


def _foreign(value: object, path: str, sessions_dir: Path | None, reason: str) -> Document:
    """A Jules or Genkit snapshot; anything else is the LoadError `reason`."""
    from tui.formats.foreign_load import detect, from_value

    fmt = detect(value)
    if fmt is None:
        raise LoadError(path, reason)
    return from_value(fmt, value, path, sessions_dir)


def _envelope_fields(doc: Document, value: dict) -> None:
    doc.reason = as_str(value.get("reason"))
    doc.session_id = as_str(value.get("sessionId"))
    doc.origin_id = as_str(value.get("originId"))
    ts = value.get("timestamp")
    doc.timestamp = ts if isinstance(ts, int) and not isinstance(ts, bool) else None


def _load_lines(data: bytes, path: str, sessions_dir: Path | None, first_error: Exception) -> Document:
    records, problems, _ = parse_records(data)
    if records and is_ledger_record(records[0]):
        return ledger_document(records, path, sessions_dir, problems)
    if records and looks_like_accounting(records[0]):
        return _accounting(records, path)
    from tui.formats.foreign_load import detect_lines, from_records

    fmt = detect_lines(records)
    if fmt is not None:
        return from_records(fmt, records, problems, path, sessions_dir)
    raise LoadError(path, _json_reason(data, first_error, path))


def _json_reason(data: bytes, exc: Exception, path: str = "") -> str:
    message = str(exc.args[0] if getattr(exc, "args", None) else exc)
    lowered = message.lower()
    head = bytes(data[:12])
    if data.lstrip()[:1] not in (b"{", b"["):
        if path.endswith(".gz") and data[:2] != GZIP_MAGIC:
            return f"not gzip data and not JSON either (starts with {head!r})"
        if "not valid utf-8" not in lowered:
            return f"not JSON (starts with {head!r}): {message}"
    if "not valid utf-8" in lowered:
        return _utf8_reason(data)
    if "depth limit" in lowered or "recursion" in lowered:
        return "JSON nested deeper than 1,024 levels (sub-agents about 200 deep): refused"
    if "unexpected end" in lowered or "eof" in lowered:
        return f"invalid JSON: it ends early, the file is truncated or still being written ({message})"
    return f"invalid JSON: {message}"


def _utf8_reason(data: bytes) -> str:
    try:
        bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"not UTF-8 text: invalid byte 0x{data[exc.start]:02x} at offset {exc.start:,} (line {line:,})"
    return "not UTF-8 text (a string holds an unpaired surrogate escape)"


def _accounting(records: list[dict], path: str) -> Document:
    return Document(ACCOUNTING, path, shape="accounting", accounting=summarise_accounting(records))
