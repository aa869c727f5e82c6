"""Read a growing v3 ledger incrementally: the bytes appended since the last read, never the whole file again.

A line still being written (no newline yet) is not read again on every change: the tail remembers how far it has
looked for a newline and scans only the bytes appended since, so a line that never ends costs each appended byte
once or twice, not once per change (400 MB appended in steps used to read 8.6 GB). A pending line longer than
--max-bytes is never held in memory: it is reported and skipped up to its newline.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.formats.aiagent.ledger import ledger_document, parse_records, sessions_dir_for_ledger
from tui.inputs.files import document_limit, open_regular
from tui.model.document import Document

_SCAN_CHUNK = 4 * 1024 * 1024  # bytes looked at per read while searching a newline
# An unterminated last line up to this size is tried as a record (a writer may leave out the final newline);
# past it, the line waits for its newline, so a line that never ends is not parsed again on every change.
UNTERMINATED_PARSE_MAX = 64 * 1024
HELD_BACK = "held back"


class LedgerTail:
    def __init__(self, path: Path, sessions_dir: Path | None = None) -> None:
        self.path = path
        self.sessions_dir = sessions_dir or sessions_dir_for_ledger(path)
        self.offset = 0  # everything before it is parsed
        self.scanned = 0  # offset..scanned is known to hold no newline
        self.skipping = False  # the pending line passed --max-bytes: dropped up to its newline
        self.records: list[dict] = []
        self.problems: list[str] = []

    def _reset(self) -> None:
        self.offset = self.scanned = 0
        self.skipping = False
        self.records, self.problems = [], []

    def read_new(self) -> bool:
        """Append the records written since the last call; a half-written last line waits for its newline."""
        try:
            with open_regular(self.path) as f:  # never a FIFO or a device: the reading thread would block
                size = os.fstat(f.fileno()).st_size
                if size < self.scanned:  # truncated or replaced: start over
                    self._reset()
                if size <= self.scanned:
                    return False  # nothing appended since the last look
                return self._read(f, size)
        except OSError as exc:
            self.problems.append(f"cannot read: {exc.strerror or exc}")
            return False

    def _read(self, f, size: int) -> bool:
        limit = document_limit()
        lasting = [p for p in self.problems if HELD_BACK not in p]  # a held-back line is news until its newline
        start = max(self.scanned, self.offset)
        first, last, end = _find_newlines(f, start, size)
        self.scanned = end
        if self.skipping:
            if first < 0:
                self.problems = lasting
                return False
            self.offset, self.skipping = first + 1, False
        got = False
        if last >= self.offset:  # complete lines: parsed once
            f.seek(self.offset)
            records, problems, consumed = parse_records(f.read(last + 1 - self.offset))
            self.offset += consumed
            self.records.extend(records)
            lasting.extend(problems)
            got = bool(records)
        pending = end - self.offset
        if pending > limit:
            self.skipping = True
            lasting.append(f"line at byte {self.offset:,} is longer than {limit:,} bytes (--max-bytes): skipped")
        elif 0 < pending <= UNTERMINATED_PARSE_MAX:
            f.seek(self.offset)
            records, problems, consumed = parse_records(f.read(pending))
            if records:  # a last record without its newline, complete all the same
                self.offset += consumed
                self.scanned = max(self.scanned, self.offset)
                self.records.extend(records)
                got = True
            lasting.extend(problems)
        elif pending:
            lasting.append(f"the last line ({pending:,} bytes so far) is incomplete (still being written?): "
                           f"{HELD_BACK}")
        self.problems = lasting
        return got

    def document(self) -> Document:
        return ledger_document(self.records, str(self.path), self.sessions_dir, self.problems, problems_in_tree=False)


def _find_newlines(f, start: int, end: int) -> tuple[int, int, int]:
    """The first and last newline in start..end of the file (-1 when none) and where the scan stopped."""
    f.seek(start)
    first = last = -1
    pos = start
    while pos < end:
        chunk = f.read(min(_SCAN_CHUNK, end - pos))
        if not chunk:
            break
        if first < 0:
            i = chunk.find(b"\n")
            if i >= 0:
                first = pos + i
        j = chunk.rfind(b"\n")
        if j >= 0:
            last = pos + j
        pos += len(chunk)
    return first, last, pos
