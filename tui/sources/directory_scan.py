"""List a sessions directory fast: snapshots in `<dir>`, v3 ledgers in `<dir>/session/`. Nothing is decoded here.

A real directory holds hundreds of thousands of snapshots, so the listing uses `os.scandir` (one stat per file for
mtime and size) and never opens a snapshot. Summaries are filled later, one file at a time, by
`tui.model.session_row.fill_row`.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

from tui.model.session_row import (
    EMPTY_REASON, LEDGER, SNAPSHOT, SessionRow, ledger_parent, session_id_from_name,
)

LEDGER_DIR = "session"
# Up to this many ledgers, scan() reads each one's first line to drop sub-agent ledgers at once; above it, the
# check is left to fill_row (which marks them kind="child") so that the listing stays instant.
PEEK_LEDGERS_MAX = 2000


def scan(sessions_dir: Path | str, *, peek_ledgers_max: int | None = None) -> list[SessionRow]:
    """Every session file of the directory, newest mtime first. A missing directory gives an empty list."""
    base = Path(sessions_dir)
    try:
        base = base.resolve()  # the watcher reports resolved paths: row keys must match them
    except OSError:
        base = base.absolute()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # 100k small objects would trigger many useless collections: they roughly double the time
    try:
        rows = _list(base, (".json.gz", ".json"), SNAPSHOT)
        ledgers = _list(base / LEDGER_DIR, (".jsonl",), LEDGER)
    finally:
        # The rows live as long as the listing and hold no cycles: out of the collector's reach, or its next
        # passes would scan all 100k of them (a quarter of a second) while the first rows are being shown.
        gc.freeze()
        if gc_was_enabled:
            gc.enable()
    if len(ledgers) <= (PEEK_LEDGERS_MAX if peek_ledgers_max is None else peek_ledgers_max):
        ledgers = [row for row in ledgers if row.size == 0 or not ledger_parent(row.path)]
    rows.extend(ledgers)
    rows.sort(key=lambda row: row.mtime, reverse=True)
    return rows


def _list(folder: Path, suffixes: tuple[str, ...], kind: str) -> list[SessionRow]:
    rows: list[SessionRow] = []
    try:
        it = os.scandir(folder)
    except OSError:  # missing, not a directory, no permission
        return rows
    child = getattr(folder, "_make_child_relpath", folder.joinpath)  # pathlib's fast path where it exists
    append = rows.append
    with it:
        for entry in it:
            name = entry.name
            if not name.endswith(suffixes) or ".tmp-" in name or name[0] == ".":
                continue
            try:
                if not entry.is_file():
                    continue
                st = entry.stat()
            except OSError:
                continue  # vanished between readdir and stat (a rename in progress)
            path = child(name)
            size = st.st_size
            row = SessionRow(entry.path, path, kind, session_id_from_name(name), st.st_mtime, size)
            if size == 0:
                row.broken = EMPTY_REASON
                row.loaded = True
            append(row)
    return rows
