"""Read a growing v3 ledger incrementally: only the bytes after the last complete line are read again."""

from __future__ import annotations

from pathlib import Path

from tui.model.document import LEDGER, Document
from tui.model.ledger import LedgerBuilder, parse_records, sessions_dir_for_ledger


class LedgerTail:
    def __init__(self, path: Path, sessions_dir: Path | None = None) -> None:
        self.path = path
        self.sessions_dir = sessions_dir or sessions_dir_for_ledger(path)
        self.offset = 0
        self.records: list[dict] = []
        self.problems: list[str] = []

    def read_new(self) -> bool:
        """Append the records written since the last call; a half-written last line waits for its newline."""
        try:
            with self.path.open("rb") as f:
                size = f.seek(0, 2)
                if size < self.offset:  # truncated or replaced: start over
                    self.offset, self.records, self.problems = 0, [], []
                f.seek(self.offset)
                data = f.read()
        except OSError as exc:
            self.problems.append(f"cannot read: {exc.strerror or exc}")
            return False
        if not data:
            return False
        records, problems, consumed = parse_records(data)
        self.offset += consumed
        self.records.extend(records)
        lasting = [p for p in self.problems if "held back" not in p]
        self.problems = lasting + problems  # a held-back line is news only until its newline arrives
        return bool(records)

    def document(self) -> Document:
        builder = LedgerBuilder(self.sessions_dir)
        builder.visited.add(self.path.resolve())
        root = builder.build(self.records, [])
        doc = Document(LEDGER, str(self.path), root=root, sessions_dir=self.sessions_dir, shape="ledger", version=3)
        doc.session_id, doc.origin_id, doc.problems = root.id, root.origin_id, list(self.problems)
        return doc
